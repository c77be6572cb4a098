// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestLitmusCheck: the answer names the outcome's verdict, the axiom that
// forbids it or a witness, whether the condition holds and the races.
func TestLitmusCheck(t *testing.T) {
	code, out, errOut := p2pconf(t, "litmus", "check", "testdata/litmus/mp-acquire.litmus", "testdata/litmus/mp-relaxed.litmus")
	if code != exitFailure || errOut != "" {
		t.Fatalf("exit %d, stderr %q; want 1: one condition does not hold", code, errOut)
	}
	for _, want := range []string{
		"MP-acquire (testdata/litmus/mp-acquire.litmus): ~exists (P1:r0 == 1 /\\ P1:r1 == 0)",
		"outcome forbidden",
		"Causality: P1's ld.weak r1, x reads from the initial write of x",
		"data race (uniform-size): P0's st.weak x, 1 and P1's ld.weak r1, x",
		"MP-relaxed-flag (testdata/litmus/mp-relaxed.litmus)",
		"outcome allowed: 1 of",
		"P1's ld.relaxed.gpu r0, y = 1 reads from P0's st.release.gpu y, 1",
		"2 tests: 1 conditions hold, 1 do not, 0 undefined",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestLitmusCheckJSON: -json prints one object per test.
func TestLitmusCheckJSON(t *testing.T) {
	code, out, _ := p2pconf(t, "litmus", "check", "-json", "testdata/litmus/mp-acquire.litmus")
	var a litmusJSON
	if err := json.Unmarshal([]byte(out), &a); err != nil || code != exitOK {
		t.Fatalf("exit %d, %v:\n%s", code, err, out)
	}
	if a.Outcome != "forbidden" || !a.Holds || len(a.Forbidden) == 0 || a.Forbidden[0].Axiom != "Causality" || len(a.Races) != 1 || a.Races[0].Kind != "uniform-size" {
		t.Errorf("answer %+v", a)
	}
}

// TestLitmusCheckBadInput: bad input is one line and exit 2, and nothing
// is judged, not even the good files beside it.
func TestLitmusCheckBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"litmus"},
		{"litmus", "judge", "testdata/litmus/mp-acquire.litmus"},
		{"litmus", "check"},
		{"litmus", "check", "testdata/litmus/mp-acquire.litmus", "testdata/litmus/missing.litmus"},
		{"litmus", "check", "testdata/litmus/mp-acquire.litmus", "testdata/litmus/barrier.litmus"},
		{"litmus", "check", "-bogus", "testdata/litmus/mp-acquire.litmus"},
	} {
		code, out, errOut := p2pconf(t, args...)
		first, _, _ := strings.Cut(errOut, "\n")
		if code != exitUsage || out != "" || !strings.HasPrefix(first, "p2pconf litmus") || strings.Count(first, "p2pconf") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}
