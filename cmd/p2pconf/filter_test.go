// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"strings"
	"testing"
)

// The filter's syntax is judged before any build: what Ginkgo parses
// passes, what it cannot parse is refused naming the filter.
func TestCheckFilterSyntax(t *testing.T) {
	for _, f := range []string{"", "id:access.peer-copy && pair:0-1", "suite:ipc || !id:health.fabric", "/id:access\\..*/",
		"kind:mutant", "suite:access,suite:ipc", "!(suite:ipc || suite:access) && kind:mutant", "gpu: consistsOf {0, 1}", "gpu: isEmpty", "/id:access"} {
		if err := parseFilter(f); err != nil {
			t.Errorf("%q refused: %v", f, err)
		}
	}
	for _, f := range []string{"id:", "suite:access &&", "suite:(", "(suite:access", "suite:access)", "&& suite:access",
		"suite:access & kind:mutant", "gpu: consistsOf", "gpu: consists-of {0}", "!"} {
		err := checkFilter(f)
		if err == nil || !strings.Contains(err.Error(), "does not parse") || !strings.Contains(err.Error(), f) {
			t.Errorf("%q: %v, want it refused as not parsing", f, err)
		}
	}
}
