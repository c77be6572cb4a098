// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/p2pconf/p2pconf/harness/checks"
	"github.com/p2pconf/p2pconf/harness/machine"
)

// CheckID is the catalogue ID of every litmus spec, forbidden and mutant.
const CheckID = "ordering.litmus"

// Case is one test in one placement on one GPU, pair or triple: one spec.
type Case struct {
	Test   *Test
	Place  Placement
	A      machine.GPU
	B      machine.GPU     // TwoGPUs and ThreeGPUs only
	C      machine.GPU     // ThreeGPUs only
	Pair   *machine.Pair   // TwoGPUs only
	Triple *machine.Triple // ThreeGPUs only
	// Verdict is the test's verdict here; Why says why a forbidden test
	// became a mutant (a scope that does not cover the threads).
	Verdict Verdict
	Why     string
}

// GPUCases lists the cases on one GPU: every test between CTAs, then the
// tests with host threads.
func GPUCases(g machine.GPU) []Case {
	var out []Case
	for _, kind := range []PlaceKind{CTAs, WithHost} {
		var cases []Case
		for _, t := range Catalogue() {
			for _, pl := range t.Placements(kind) {
				cases = append(cases, newCase(t, pl, g, machine.GPU{}, nil))
			}
		}
		out = append(out, mutantsFirst(cases)...)
	}
	return out
}

// mutantsFirst orders each family's cases so that the mutants (including
// forbidden tests that are scope mutants in their placement) come before
// the forbidden ones, keeping the order otherwise.
func mutantsFirst(cases []Case) []Case {
	rank := map[string]int{}
	for _, c := range cases {
		if _, ok := rank[c.Test.Family]; !ok {
			rank[c.Test.Family] = len(rank)
		}
	}
	sort.SliceStable(cases, func(i, j int) bool {
		fi, fj := rank[cases[i].Test.Family], rank[cases[j].Test.Family]
		if fi != fj {
			return fi < fj
		}
		return cases[i].Verdict == Allowed && cases[j].Verdict == Forbidden
	})
	return cases
}

// PairCases lists the cases on an ordered pair: thread 0 on p.A, the others
// on p.A or p.B as the placements say.
func PairCases(p machine.Pair) []Case {
	var out []Case
	for _, t := range Catalogue() {
		for _, pl := range t.Placements(TwoGPUs) {
			out = append(out, newCase(t, pl, p.A, p.B, &p))
		}
	}
	return mutantsFirst(out)
}

// TripleCases lists the cases on a triple (see machine.SelectTriples):
// IRIW, WRC and ISA2 with their threads on A, B and C as
// Test.triplePlacements says, mutants first within a family.
func TripleCases(tr machine.Triple) []Case {
	var out []Case
	for _, t := range Catalogue() {
		for _, pl := range t.Placements(ThreeGPUs) {
			c := newCase(t, pl, tr.A, tr.B, nil)
			c.C, c.Triple = tr.C, &tr
			out = append(out, c)
		}
	}
	return mutantsFirst(out)
}

func newCase(t *Test, pl Placement, a, b machine.GPU, p *machine.Pair) Case {
	v, why := pl.Verdict(t)
	return Case{Test: t, Place: pl, A: a, B: b, Pair: p, Verdict: v, Why: why}
}

// GPUs are the case's GPUs in role order: A, then B and C where the
// placement has them.
func (c Case) GPUs() []machine.GPU {
	switch c.Place.Kind {
	case TwoGPUs:
		return []machine.GPU{c.A, c.B}
	case ThreeGPUs:
		return []machine.GPU{c.A, c.B, c.C}
	}
	return []machine.GPU{c.A}
}

// Where describes the placement with the GPUs' names.
func (c Case) Where() string {
	var names []string
	for _, g := range c.GPUs() {
		names = append(names, g.String())
	}
	return c.Place.Describe(c.Test, names...)
}

// Name is the spec text: it names the test, the pair or triple, the
// placement and the GPUs, and what the spec checks.
func (c Case) Name() string {
	where := c.Where()
	switch {
	case c.Pair != nil:
		where = "on " + c.Pair.String() + " " + where
	case c.Triple != nil:
		where = "on " + c.Triple.String() + " " + where
	}
	if c.Verdict == Forbidden {
		return fmt.Sprintf("%s %s never shows the forbidden outcome %s", c.Test.Name(), where, c.Test.TargetText())
	}
	return fmt.Sprintf("%s %s counts the allowed weak outcome %s (mutant)", c.Test.Name(), where, c.Test.TargetText())
}

// Labels are the extra labels of the spec (with GPULabels, PairLabels or
// TripleLabels): its variant key, its kind and slow.
func (c Case) Labels() []string {
	if c.Verdict == Allowed {
		return []string{checks.VariantLabel(c.Key()), checks.KindLabel(checks.Mutant), checks.Slow}
	}
	return []string{checks.VariantLabel(c.Key()), checks.Slow}
}

// Key is the case's variant key: the test and its placement by role,
// without GPU names, the same on every GPU, pair or triple ("mp-rel-sys-
// acq-sys-ctas", "sb-f-sc-sys-host-gh", "mp-rlx-sys-rlx-sys-pair-ab-ba":
// threads on A and B, x in B's memory and y in A's).
func (c Case) Key() string {
	if c.Test.Generated != nil {
		return spaceKey(c.Test, c.Place)
	}
	words := strings.FieldsFunc(strings.ToLower(c.Test.Name()), func(r rune) bool {
		return (r < 'a' || r > 'z') && (r < '0' || r > '9')
	})
	units := func(us []Unit) string {
		var b strings.Builder
		for _, u := range us {
			b.WriteByte(map[Unit]byte{UnitA: 'a', UnitB: 'b', UnitC: 'c', UnitHost: 'h'}[u])
		}
		return b.String()
	}
	switch c.Place.Kind {
	case CTAs:
		words = append(words, "ctas")
	case WithHost:
		words = append(words, "host", strings.ReplaceAll(units(c.Place.Roles), "a", "g"))
	case TwoGPUs:
		words = append(words, "pair", units(c.Place.Roles), units(c.Place.Homes))
	case ThreeGPUs:
		words = append(words, "triple", units(c.Place.Roles), units(c.Place.Homes))
	}
	return strings.Join(words, "-")
}

// group identifies the cases that can give each other power: the same
// family in the same placement on the same GPUs.
func (c Case) group() string {
	return c.Test.Family + "|" + c.Target() + "|" + c.Where()
}

// Group is the key of the cases that can give each other power (the same
// family in the same placement on the same GPUs): the runner remembers the
// mutants of a process by it.
func (c Case) Group() string { return c.group() }

// GivesPower reports whether mutant case m gives power to forbidden case f:
// the same shape (family, threads, locations, final values, target
// outcome, how each thread polls) in the same placement on the same GPUs,
// weakened (its verdict here is allowed), and with a target outcome that
// is not sequentially consistent: an interleaving mutant's outcome shows
// on every correct machine, so seeing it says nothing about whether f
// could fail.
func GivesPower(m, f Case) bool {
	return m.Verdict == Allowed && f.Verdict == Forbidden && m.group() == f.group() &&
		sameShape(m.Test, f.Test) && !m.Test.Model().TargetIsSC()
}

func sameShape(a, b *Test) bool {
	if a.Family != b.Family || len(a.Threads) != len(b.Threads) || !slices.Equal(a.Locs, b.Locs) ||
		!slices.Equal(a.Finals, b.Finals) || len(a.Target) != len(b.Target) || a.pollForms() != b.pollForms() {
		return false
	}
	for k, v := range a.Target {
		if w, ok := b.Target[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// Siblings lists the forbidden cases a mutant case gives power to.
func (c Case) Siblings() []Case {
	if c.Test.Generated != nil {
		return c.spaceSiblings()
	}
	var all []Case
	switch {
	case c.Pair != nil:
		all = PairCases(*c.Pair)
	case c.Triple != nil:
		all = TripleCases(*c.Triple)
	default:
		all = GPUCases(c.A)
	}
	var out []Case
	for _, o := range all {
		if GivesPower(c, o) {
			out = append(out, o)
		}
	}
	return out
}

// Target names the GPU, pair or triple, for messages.
func (c Case) Target() string {
	switch {
	case c.Pair != nil:
		return c.Pair.String()
	case c.Triple != nil:
		return c.Triple.String()
	}
	return c.A.String()
}
