// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"testing"

	"github.com/p2pconf/p2pconf/harness/machine"
)

// TestModelAgreesWithExpectations: each catalogue test's typed verdict is
// what its authors expect where every scope covers the threads; the model,
// given the test with all its threads in one CTA (every scope covers every
// thread there), must agree, and a test expected allowed is allowed in
// every placement it runs in (a narrower scope only weakens).
func TestModelAgreesWithExpectations(t *testing.T) {
	n := 0
	for _, test := range Catalogue() {
		one := Placement{Kind: CTAs, Roles: units(len(test.Threads), UnitA), Homes: units(len(test.Locs), UnitA), Groups: make(Grouping, len(test.Threads))}
		if v, why := one.Verdict(test); v != test.Verdict {
			t.Errorf("%s: expected %s where every scope covers the threads, the model says %s (%s)", test.Name(), test.Verdict, v, why)
		}
		for _, kind := range []PlaceKind{CTAs, WithHost, TwoGPUs, ThreeGPUs} {
			for _, pl := range test.Placements(kind) {
				n++
				if v, why := pl.Verdict(test); test.Verdict == Allowed && v != Allowed {
					t.Errorf("%s [%s]: expected allowed everywhere, the model forbids it here (%s)", test.Name(), pl, why)
				}
			}
		}
	}
	if n < 282 {
		t.Errorf("%d (test, placement) verdicts, want at least the 282 of the hand-written catalogue", n)
	}
}

// TestIRIWFenceSCOnOneGPU: IRIW with fence.sc.gpu between each reader's
// loads is forbidden when both readers run on one GPU, whatever GPUs the
// writers run on: the fences are morally strong, so Fence-SC order
// orders them. A scope rule that asked each fence's scope to cover every
// thread called it allowed.
func TestIRIWFenceSCOnOneGPU(t *testing.T) {
	var iriw *Test
	for _, test := range Catalogue() {
		if test.Name() == "IRIW F.sc.gpu readers" {
			iriw = test
		}
	}
	if iriw == nil {
		t.Fatal("no IRIW F.sc.gpu readers in the catalogue")
	}
	for _, roles := range [][]Unit{{UnitA, UnitB, UnitC, UnitC}, {UnitA, UnitA, UnitB, UnitB}, {UnitA, UnitB, UnitA, UnitA}} {
		pl := Placement{Kind: ThreeGPUs, Roles: roles, Homes: iriw.homes(roles)}
		if v, why := pl.Verdict(iriw); v != Forbidden {
			t.Errorf("readers on one GPU (%s): %s (%s)", pl, v, why)
		}
	}
	split := Placement{Kind: ThreeGPUs, Roles: []Unit{UnitA, UnitB, UnitC, UnitB}, Homes: iriw.homes([]Unit{UnitA, UnitB, UnitC, UnitB})}
	if v, _ := split.Verdict(iriw); v != Allowed {
		t.Errorf("readers on two GPUs (%s): %s, want allowed (the .gpu fences are not morally strong)", split, v)
	}
}

// ctasCase is test's case between CTAs of one GPU, with the model's
// verdict, for tests that judge a run's histogram.
func ctasCase(test *Test) Case {
	return newCase(test, test.Placements(CTAs)[0], machine.GPU{}, machine.GPU{}, nil)
}
