// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmusrun

import (
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/p2pconf/p2pconf/harness/litmus"
)

// locate is a function of the runner's kind: it marks itself as a helper
// through the fixture, so the code location it asks for is its caller's.
func locate(f litmus.Fixture) types.CodeLocation {
	f.Helper()
	return types.NewCodeLocation(0)
}

// TestHelperMarksTheCaller: a failure inside litmus.Run names the spec's
// line, as it did when the runner called ginkgo.GinkgoHelper itself.
func TestHelperMarksTheCaller(t *testing.T) {
	loc := locate(&fixture{})
	if !strings.HasSuffix(loc.FileName, "run_test.go") || loc.LineNumber != 25 {
		t.Errorf("the location is %s:%d, want the line that calls locate (25)", loc.FileName, loc.LineNumber)
	}
	var direct types.CodeLocation
	func() { direct = types.NewCodeLocation(0) }()
	if direct.LineNumber != 30 {
		t.Errorf("without Helper the location is %s:%d, want line 30: the check above could not fail", direct.FileName, direct.LineNumber)
	}
}
