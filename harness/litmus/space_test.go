// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"flag"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/p2pconf/p2pconf/harness/checks"
	"github.com/p2pconf/p2pconf/harness/machine"
)

var update = flag.Bool("update", false, "rewrite space_default.txt")

// TestSpaceKeys holds the generated space's variant keys: each one a valid
// label, unique in its kind of placement, and the same from one listing to
// the next.
func TestSpaceKeys(t *testing.T) {
	lists := map[string][]Case{
		"one GPU": SpaceGPUCases(machine.GPU{}),
		"pair":    SpacePairCases(machine.Pair{}),
		"triple":  SpaceTripleCases(machine.Triple{}),
	}
	for what, cases := range lists {
		if len(cases) == 0 {
			t.Fatalf("%s: no generated cases", what)
		}
		seen := map[string]bool{}
		for _, c := range cases {
			k := c.Key()
			if !checks.ValidVariantKey(k) {
				t.Errorf("%s: key %q is no valid variant key", what, k)
			}
			if seen[k] {
				t.Errorf("%s: key %s twice", what, k)
			}
			seen[k] = true
		}
	}
	again := SpaceGPUCases(machine.GPU{})
	for i, c := range lists["one GPU"] {
		if again[i].Key() != c.Key() || again[i].Verdict != c.Verdict {
			t.Fatalf("the listing changed at %d: %s %v, then %s %v", i, c.Key(), c.Verdict, again[i].Key(), again[i].Verdict)
		}
	}
}

// TestSpacedSubset holds the default run's subset to what it promises: every
// pair of verdict and scope relation of the whole space once, every
// forbidden case with its relaxed mutant where the model allows that, and
// nothing the space does not have.
func TestSpacedSubset(t *testing.T) {
	all := SpaceGPUCases(machine.GPU{})
	sub := Spaced(all)
	var keys []string
	for _, c := range slices.Concat(sub, Spaced(SpacePairCases(machine.Pair{})), Spaced(SpaceTripleCases(machine.Triple{}))) {
		keys = append(keys, c.Key())
	}
	text := "# The default run's subset of the generated litmus space, as Spaced picks it from the\n" +
		"# model's verdicts: one case per verdict and scope relation, and the relaxed mutant of\n" +
		"# each forbidden one. Written by go test ./harness/litmus -run TestSpacedSubset -update.\n" +
		strings.Join(keys, "\n") + "\n"
	if *update {
		if err := os.WriteFile("space_default.txt", []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	} else if text != spacedKeysText {
		t.Errorf("space_default.txt is not the subset the model picks now; rewrite it with -update and read the diff")
	}
	run := RunGPUCases(machine.GPU{}, ProfileDefault)[len(GPUCases(machine.GPU{})):]
	if len(run) != len(sub) {
		t.Errorf("a default run lists %d generated cases on one GPU, the subset has %d", len(run), len(sub))
	}
	if len(sub) == 0 || len(sub) >= len(all) {
		t.Fatalf("the subset has %d of %d cases", len(sub), len(all))
	}
	inSub := map[string]bool{}
	for _, c := range sub {
		inSub[c.Key()] = true
	}
	want := map[string]bool{}
	for _, c := range all {
		want[c.Verdict.String()+"|"+scopeRelation(c.Test, c.Place)] = true
	}
	got := map[string]bool{}
	forbidden := 0
	for _, c := range sub {
		got[c.Verdict.String()+"|"+scopeRelation(c.Test, c.Place)] = true
		if c.Verdict != Forbidden {
			continue
		}
		forbidden++
		g := c.Test.Generated
		relaxed, ok := g.Shape.Variant("RELAXED")
		if !ok {
			continue
		}
		m := g.Shape.Generate(relaxed, g.Scope, g.Scope)
		if v, _ := c.Place.Verdict(m); v == Allowed && !inSub[spaceKey(m, c.Place)] {
			t.Errorf("%s is in the subset without its relaxed mutant %s", c.Key(), spaceKey(m, c.Place))
		}
	}
	for sig := range want {
		if !got[sig] {
			t.Errorf("no case of %s in the subset", sig)
		}
	}
	if forbidden == 0 {
		t.Error("the subset has no forbidden case")
	}
}
