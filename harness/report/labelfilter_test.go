// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"testing"

	"github.com/onsi/ginkgo/v2/types"
)

// TestLabelFilterMatchesGinkgo evaluates filters on label sets like the
// suites' with the report's evaluator and with Ginkgo's parser: a spec
// counts as selected exactly when Ginkgo would have run it.
func TestLabelFilterMatchesGinkgo(t *testing.T) {
	labelSets := [][]string{
		{"suite:access", "id:access.peer-copy", "kind:conf", "pair:0-1", "link:nvlink"},
		{"suite:access", "id:access.peer-copy", "kind:conf", "pair:1-0", "link:pcie", "process:multi"},
		{"suite:ordering", "id:ordering.flag-handoff-weak", "kind:mutant", "gpu:3"},
		{"suite:bandwidth", "id:bandwidth.copy-engine", "kind:info", "Slow"},
		{},
	}
	filters := []string{
		"", "kind:conf", "KIND:CONF", "!kind:mutant", "id:access.peer-copy && pair:0-1",
		"id:access.peer-copy && pair:1-0 || kind:info", "kind:mutant, kind:info", "!(kind:conf || slow)",
		"/^id:access\\./", "/peer/ && !/pcie/", "!!kind:conf", "  kind:conf  &&  link:nvlink ",
		"kind: containsAny {conf, info}", "pair: containsAny 0-1", "gpu: isEmpty", "link: consistsOf {nvlink}",
		"kind: isSubsetOf {conf,mutant}", "suite: containsAll {access}", "!gpu: isEmpty && kind:mutant",
		"(kind: containsAny mutant) || slow",
	}
	for _, f := range filters {
		want, err := types.ParseLabelFilter(f)
		if err != nil {
			t.Fatalf("Ginkgo rejects the test filter %q: %v", f, err)
		}
		for _, labels := range labelSets {
			got, err := matchesLabelFilter(f, labels)
			if err != nil {
				t.Errorf("%q: %v", f, err)
				continue
			}
			if got != want(labels) {
				t.Errorf("filter %q on %v: %v, Ginkgo says %v", f, labels, got, want(labels))
			}
		}
	}
	for _, bad := range []string{"kind:conf &", "(kind:conf", "kind:conf | slow", "&& slow", "kind: containsAny", "/[/", "kind: frobnicate {a}"} {
		if _, err := types.ParseLabelFilter(bad); err == nil {
			t.Fatalf("Ginkgo accepts %q", bad)
		}
		if _, err := matchesLabelFilter(bad, []string{"kind:conf"}); err == nil {
			t.Errorf("the malformed filter %q was accepted", bad)
		}
	}
}
