// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"slices"
	"strings"
	"testing"
)

// TestTripleCases: on a triple, WRC and ISA2 put each thread on its own
// GPU (each hop crosses a link) and IRIW puts its writers on A and B and
// one reader on C; every forbidden test comes with its mutants, and a
// .gpu scope across the GPUs makes a scope mutant.
func TestTripleCases(t *testing.T) {
	tr := aTriple()
	cases := TripleCases(tr)
	families := map[string]map[Verdict]int{}
	for _, c := range cases {
		if families[c.Test.Family] == nil {
			families[c.Test.Family] = map[Verdict]int{}
		}
		families[c.Test.Family][c.Verdict]++
		if c.Triple == nil || c.Target() != "GPU0→GPU1→GPU2" || !strings.HasPrefix(c.Name(), c.Test.Name()+" on GPU0→GPU1→GPU2 with T0 on GPU0, T1 on GPU1, T2 on GPU") {
			t.Errorf("%s: target %s", c.Name(), c.Target())
		}
		roles := c.Place.Roles
		switch c.Test.Family {
		case "WRC", "ISA2":
			if !slices.Equal(roles, []Unit{UnitA, UnitB, UnitC}) {
				t.Errorf("%s: roles %v, want one thread per GPU", c.Name(), roles)
			}
		case "IRIW":
			if roles[0] != UnitA || roles[1] != UnitB || !slices.Contains(roles[2:], UnitC) || roles[2] == roles[3] {
				t.Errorf("%s: roles %v, want writers on A and B, readers on C and a writer's GPU", c.Name(), roles)
			}
		default:
			t.Errorf("%s: family %s on a triple", c.Name(), c.Test.Family)
		}
		scope := strings.Contains(c.Test.Variant, ".gpu")
		if c.Test.Verdict == Forbidden && scope && (c.Verdict != Allowed || !strings.Contains(c.Why, "scope does not cover")) {
			t.Errorf("%s: a .gpu scope across GPUs must be a scope mutant (verdict %s, %q)", c.Name(), c.Verdict, c.Why)
		}
	}
	for _, f := range []string{"IRIW", "WRC", "ISA2"} {
		if families[f][Forbidden] == 0 || families[f][Allowed] == 0 {
			t.Errorf("family %s on a triple: %d forbidden, %d mutants; it needs both", f, families[f][Forbidden], families[f][Allowed])
		}
	}
	if len(families) != 3 {
		t.Errorf("families on a triple: %v", families)
	}
	// IRIW runs only on triples.
	for _, c := range GPUCases(tr.A) {
		if c.Test.Family == "IRIW" {
			t.Errorf("%s runs on one GPU", c.Name())
		}
	}
	for _, c := range PairCases(tr.AB) {
		if c.Test.Family == "IRIW" {
			t.Errorf("%s runs on a pair", c.Name())
		}
	}
	for _, c := range cases {
		t.Logf("%s [%s]", c.Name(), c.Verdict)
	}
}
