// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"strings"
	"testing"

	"github.com/p2pconf/p2pconf/harness/machine"
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
		if !strings.Contains(tt.Variant, "weak x in loop") {
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
