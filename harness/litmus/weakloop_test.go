// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"strings"
	"testing"

	"github.com/p2pconf/p2pconf/harness/machine"
	"github.com/p2pconf/p2pconf/kernels"
)

// TestWeakXInLoopForbiddenByTheModel: the restored weak-x-in-loop tests
// (MP rel.sys/acq.sys between CTAs and with the host writing, MP
// rel.gpu/acq.gpu between CTAs, the three ISA2 tests) are forbidden by the
// PTX memory model wherever every scope covers the threads it synchronises:
// their data race is of uniform size, inside the axioms, and in the
// iteration that sees the flag the weak load follows the acquire that
// observed the release (Causality). Across GPUs a .gpu scope makes them
// scope mutants, as their siblings with the data after the loop.
func TestWeakXInLoopForbiddenByTheModel(t *testing.T) {
	want := map[string][]PlaceKind{
		"MP rel.sys/acq.sys weak x in loop":              {CTAs, WithHost, TwoGPUs},
		"MP rel.gpu/acq.gpu weak x in loop":              {CTAs},
		"ISA2 rel.sys/acq.sys weak x in loop":            {CTAs, TwoGPUs, ThreeGPUs},
		"ISA2 hop 1 .gpu, hop 2 .sys weak x in loop":     {CTAs},
		"ISA2 hop 1 .sys, hop 2 .gpu weak x in loop":     {CTAs},
		"MP rel.sys/rlx.sys (no acquire) weak x in loop": nil, // the mutant
	}
	seen := map[string]bool{}
	for _, tt := range Catalogue() {
		if !strings.Contains(tt.Variant, "weak x in loop") || strings.Contains(tt.Variant, "also weak x") {
			continue
		}
		kinds, ok := want[tt.Name()]
		if !ok {
			t.Errorf("%s: not a restored test this test knows", tt.Name())
			continue
		}
		seen[tt.Name()] = true
		if tt.Verdict == Allowed {
			for _, k := range []PlaceKind{CTAs, WithHost} {
				for _, pl := range tt.Placements(k) {
					if v, why := pl.Verdict(tt); v != Allowed {
						t.Errorf("%s %s: %v (%s), want allowed", tt.Name(), pl, v, why)
					}
				}
			}
			continue
		}
		for _, k := range kinds {
			pls := tt.Placements(k)
			if len(pls) == 0 {
				t.Errorf("%s: no placement of kind %d", tt.Name(), k)
			}
			for _, pl := range pls {
				if v, why := pl.Verdict(tt); v != Forbidden {
					t.Errorf("%s %s: %v (%s), want forbidden", tt.Name(), pl, v, why)
				} else if !strings.Contains(why, "forbids") {
					t.Errorf("%s %s: forbidden without the violated axiom: %q", tt.Name(), pl, why)
				}
			}
		}
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("%s: missing from the catalogue", name)
		}
	}
	hostWriter := false
	for _, c := range GPUCases(machine.GPU{}) {
		if c.Test.Name() == "MP rel.sys/acq.sys weak x in loop" && c.Place.Kind == WithHost && c.Place.Roles[0] == UnitHost {
			hostWriter = c.Verdict == Forbidden
		}
	}
	if !hostWriter {
		t.Error("MP rel.sys/acq.sys weak x in loop: no forbidden case with the host writing")
	}
}

// TestCompilerVariants: every polled and single-shot family has its
// compiler-sensitive variants (a weak load of the data location before the
// synchronising access, in the poll loop where there is one, after the
// data load), each with the shape's target and one more register, each
// forbidden by the model between CTAs as its base is, and a handful per
// family.
func TestCompilerVariants(t *testing.T) {
	got := map[string][]string{}
	for _, tt := range Catalogue() {
		if !strings.Contains(tt.Variant, "also weak x") {
			continue
		}
		got[tt.Family] = append(got[tt.Family], tt.Variant)
		base := findTest(t, tt.Family+" "+compilerBases[tt.Family])
		if tt.Regs() != base.Regs()+1 || tt.TargetText() != base.TargetText() {
			t.Errorf("%s: %d registers and target %s, want %d and %s", tt.Name(), tt.Regs(), tt.TargetText(), base.Regs()+1, base.TargetText())
		}
		r := tt.Threads[len(tt.Threads)-1]
		weakX := 0
		for _, op := range r {
			if op.Kind == Load && op.Sem == kernels.Weak && op.Loc == x && op.Reg == base.Regs() {
				weakX++
			}
		}
		if weakX != 1 {
			t.Errorf("%s: %d extra weak loads of x in the reader, want 1", tt.Name(), weakX)
		}
		for _, pl := range tt.Placements(CTAs) {
			if v, why := pl.Verdict(tt); v != Forbidden {
				t.Errorf("%s %s: %v (%s), want forbidden", tt.Name(), pl, v, why)
			}
		}
	}
	want := map[string]int{"MP": 3, "WRC": 3, "ISA2": 3, "MP once": 2, "WRC once": 2, "ISA2 once": 2}
	for f, n := range want {
		if len(got[f]) != n {
			t.Errorf("family %s: compiler-sensitive variants %q, want %d", f, got[f], n)
		}
	}
}
