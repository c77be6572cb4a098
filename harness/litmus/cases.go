// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"fmt"

	"github.com/p2pconf/p2pconf/harness"
)

// CheckID is the catalogue ID of every litmus spec, forbidden and mutant.
const CheckID = "ordering.litmus"

// Case is one test in one placement on one GPU or pair: one spec.
type Case struct {
	Test  *Test
	Place Placement
	A     harness.GPU
	B     harness.GPU   // TwoGPUs only
	Pair  *harness.Pair // TwoGPUs only
	// Verdict is the test's verdict here; Why says why a forbidden test
	// became a mutant (a scope that does not cover the threads).
	Verdict Verdict
	Why     string
}

// GPUCases lists the cases on one GPU: every test between CTAs, then the
// tests with host threads.
func GPUCases(g harness.GPU) []Case {
	var out []Case
	for _, kind := range []PlaceKind{CTAs, WithHost} {
		for _, t := range Catalogue() {
			for _, pl := range t.Placements(kind) {
				out = append(out, newCase(t, pl, g, harness.GPU{}, nil))
			}
		}
	}
	return out
}

// PairCases lists the cases on an ordered pair: thread 0 on p.A, the others
// on p.A or p.B as the placements say.
func PairCases(p harness.Pair) []Case {
	var out []Case
	for _, t := range Catalogue() {
		for _, pl := range t.Placements(TwoGPUs) {
			out = append(out, newCase(t, pl, p.A, p.B, &p))
		}
	}
	return out
}

func newCase(t *Test, pl Placement, a, b harness.GPU, p *harness.Pair) Case {
	v, why := pl.Verdict(t)
	return Case{Test: t, Place: pl, A: a, B: b, Pair: p, Verdict: v, Why: why}
}

// Where describes the placement with the GPUs' names.
func (c Case) Where() string { return c.Place.Describe(c.Test, c.A.String(), c.B.String()) }

// Name is the spec text: it names the test, the placement and the GPUs, and
// what the spec checks.
func (c Case) Name() string {
	if c.Verdict == Forbidden {
		return fmt.Sprintf("%s %s never shows the forbidden outcome %s", c.Test.Name(), c.Where(), c.Test.TargetText())
	}
	return fmt.Sprintf("%s %s counts the allowed weak outcome %s (mutant)", c.Test.Name(), c.Where(), c.Test.TargetText())
}

// Labels are the extra labels of the spec (with GPULabels or PairLabels).
func (c Case) Labels() []harness.Extra {
	if c.Verdict == Allowed {
		return []harness.Extra{harness.KindLabel(harness.Mutant), harness.Slow}
	}
	return []harness.Extra{harness.Slow}
}

// group identifies the tests that give each other power: the same family in
// the same placement on the same GPUs.
func (c Case) group() string {
	return c.Test.Family + "|" + c.Where()
}

// Siblings lists the forbidden cases a mutant case gives power to.
func (c Case) Siblings() []string {
	var all []Case
	if c.Pair != nil {
		all = PairCases(*c.Pair)
	} else {
		all = GPUCases(c.A)
	}
	var out []string
	for _, o := range all {
		if o.Verdict == Forbidden && o.group() == c.group() {
			out = append(out, o.Test.Name())
		}
	}
	return out
}

// Target names the GPU or pair, for messages.
func (c Case) Target() string {
	if c.Pair != nil {
		return c.Pair.String()
	}
	return c.A.String()
}
