// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"strings"
	"testing"
)

// TestJudgeCause: each cause from the evidence that decides it, and
// undetermined, with why, when the evidence is short.
func TestJudgeCause(t *testing.T) {
	merged := "the weak load of x in role 1's poll loop is merged or hoisted out of the loop (1 LDG for 64 iterations)"
	base := Diagnosis{Violations: 500, Instances: 1_000_000, Lowered: 0}
	for _, c := range []struct {
		name  string
		d     func(Diagnosis) Diagnosis
		cause string
		has   []string
	}{
		{"the compile check names a merged load", func(d Diagnosis) Diagnosis {
			d.CompileRan, d.Lost, d.LoweredRan, d.LoweredInstances = true, []string{merged}, true, 1_000_000
			return d
		}, CauseCompiler, []string{merged + "; at JIT level 0: 0 of 1000000 (500 of 1000000 at the default level)"}},
		{"the outcome vanishes at level 0, no toolkit", func(d Diagnosis) Diagnosis {
			d.CompileWhy, d.LoweredRan, d.LoweredInstances = "no nvdisasm", true, 1_000_000
			return d
		}, CauseCompiler, []string{"vanishes", "not available (no nvdisasm)", "at JIT level 0: 0 of 1000000"}},
		{"every access kept and level 0 shows it", func(d Diagnosis) Diagnosis {
			d.CompileRan, d.LoweredRan, d.LoweredViolations, d.LoweredInstances = true, true, 480, 1_000_000
			return d
		}, CauseHardware, []string{"keeps every access", "at JIT level 0: 480 of 1000000"}},
		{"level 0 shows it, no toolkit", func(d Diagnosis) Diagnosis {
			d.CompileWhy, d.LoweredRan, d.LoweredViolations, d.LoweredInstances = "no nvdisasm", true, 480, 1_000_000
			return d
		}, CauseUndetermined, []string{"not available (no nvdisasm)", "480 of 1000000", "or the hardware"}},
		{"level 0 ran too few instances", func(d Diagnosis) Diagnosis {
			d.CompileRan, d.LoweredRan, d.LoweredInstances = true, true, 2000
			return d
		}, CauseUndetermined, []string{"every access kept", "too few instances"}},
		{"neither ran", func(d Diagnosis) Diagnosis {
			d.CompileWhy, d.LoweredWhy = "the fake backend has no JIT", "interrupted"
			return d
		}, CauseUndetermined, []string{"not available (the fake backend has no JIT)", "did not run (interrupted)"}},
	} {
		cause, detail := JudgeCause(c.d(base))
		if cause != c.cause {
			t.Errorf("%s: %s (%s), want %s", c.name, cause, detail, c.cause)
		}
		for _, h := range c.has {
			if !strings.Contains(detail, h) {
				t.Errorf("%s: detail %q lacks %q", c.name, detail, h)
			}
		}
	}
	if got := CauseLine(CauseCompiler, "x"); got != "cause: compiler — x" {
		t.Errorf("CauseLine %q", got)
	}
}
