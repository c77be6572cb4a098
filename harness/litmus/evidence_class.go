// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"fmt"
	"slices"
	"strings"

	"github.com/p2pconf/p2pconf/harness/report"
	"github.com/p2pconf/p2pconf/kernels"
)

// Evidence classes say what showed that a forbidden pass could have failed.
// They are reported side by side and never merged into one number, since
// they show different things:
//
//   - weak: a mutant of the same shape in the same placement (weakened:
//     plain accesses, a missing release or acquire, a narrower scope) showed
//     its weak outcome in this run. The testing environment can make that
//     kind of reordering visible here (GivesPower).
//   - interleaving: for a test of one location (coherence, RMW atomicity),
//     a mutant in the same placement whose target is a sequentially
//     consistent outcome that needs the threads' accesses to that location
//     to interleave, one between two of the other, showed it in this run:
//     the accesses did interleave at the granularity the forbidden outcome
//     needs (GivesInterleaving). No weakened form of these tests has a weak
//     outcome the hardware shows.
//   - checker: a defect of the fake backend (harness/fake, with
//     ordering.litmus as its declared catcher, tried by cmd/mutation) makes
//     the forbidden outcome occur, and the checker flags it: the check can
//     fail, but nothing of the hardware's showed it.
const (
	EvidenceWeak         = "weak"
	EvidenceInterleaving = "interleaving"
	EvidenceChecker      = "checker"
)

// FindingEvidence is the name of the finding in which a forbidden result
// names its evidence classes (its value is an EvidenceValue).
const FindingEvidence = report.FindingEvidence

// EvidenceValue is the value of the evidence finding of a forbidden result.
type EvidenceValue struct {
	// Classes are the classes this result has, in the order weak,
	// interleaving, checker; empty when it has none (Why says why).
	Classes []string `json:"classes"`
	// Weak and Interleaving name the mutants that showed their target
	// outcome; Checker the fake defects.
	Weak         []string `json:"weak,omitempty"`
	Interleaving []string `json:"interleaving,omitempty"`
	Checker      []string `json:"checker,omitempty"`
	// FromLinkClass is true on a pair whose mutants ran on the
	// representative pair of its link class: the report takes the weak and
	// interleaving classes of the same test there.
	FromLinkClass bool   `json:"from_link_class,omitempty"`
	Why           string `json:"why,omitempty"`
}

// checkerDefects are, per family, the fake backend's defects that make the
// family's forbidden outcome occur on the fake (CoRR and CoWW readers
// reorder their loads, CoWW's writes land in the wrong order, CoW-exch's
// store lands after its exchange or never, atomicity's and lost-update's
// adds are not atomic). harness/fake declares them with ordering.litmus as
// catcher; cmd/mutation injects them. first-of-two-stores-lost is not
// CoWW's: it leaves CoWW's first value unobserved, so CoWW ends as
// vacuous (an error), which shows no forbidden outcome.
var checkerDefects = map[string][]string{
	"CoRR":        {"same-address-loads-reordered"},
	"CoWW":        {"same-address-loads-reordered", "same-address-stores-reordered"},
	"CoW-exch":    {"same-address-stores-reordered", "first-of-two-stores-lost"},
	"atomicity":   {"non-atomic-add"},
	"lost-update": {"non-atomic-add"},
}

// CheckerDefects lists every fake defect named as checker evidence, for the
// test that holds harness/fake to them.
func CheckerDefects() []string {
	var out []string
	for _, ds := range checkerDefects {
		for _, d := range ds {
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	slices.Sort(out)
	return out
}

// checkerFor lists the fake defects that show the checker flags c's
// forbidden outcome: those of its family that act on one of its threads,
// in placements without host threads. With a host thread the fake run has
// too few instances for the GPU side's reordering to meet the host's
// accesses reliably (on the fake, CoRR with a host writer and atomicity
// with a host store passed under the defects), so no checker evidence is
// claimed there.
func checkerFor(c Case) []string {
	ds := checkerDefects[c.Test.Family]
	if len(ds) == 0 || c.Place.Kind == WithHost {
		return nil
	}
	var out []string
	for _, d := range ds {
		for _, ops := range c.Test.Threads {
			if actsOn(d, ops) {
				out = append(out, d)
				break
			}
		}
	}
	return out
}

// actsOn reports whether defect d acts on a thread with these operations:
// two relaxed loads of one location, two writes of one location (both
// store defects), a relaxed atom.add.
func actsOn(d string, ops []Op) bool {
	loads, writes, adds := map[int]int{}, map[int]int{}, 0
	for _, op := range ops {
		switch {
		case op.Kind == Load && op.Sem == kernels.Relaxed:
			loads[op.Loc]++
		case op.Kind == Store || op.Kind == RMW && op.Atom == kernels.OpExch:
			writes[op.Loc]++
		}
		if op.Kind == RMW && op.Atom == kernels.OpAdd && op.Sem == kernels.Relaxed {
			adds++
		}
	}
	most := func(m map[int]int) int {
		n := 0
		for _, v := range m {
			n = max(n, v)
		}
		return n
	}
	switch d {
	case "same-address-loads-reordered":
		return most(loads) >= 2
	case "same-address-stores-reordered", "first-of-two-stores-lost":
		return most(writes) >= 2
	case "non-atomic-add":
		return adds > 0
	}
	return false
}

// GivesInterleaving reports whether mutant case m shows that the threads of
// forbidden case f interleave on its location: f tests one location
// (coherence, RMW atomicity), m is of the same family and placement on the
// same GPUs, and m's target is an interleaved outcome (sequentially
// consistent, but no serial order of the threads gives it).
func GivesInterleaving(m, f Case) bool {
	return m.Verdict == Allowed && f.Verdict == Forbidden && m.group() == f.group() &&
		len(f.Test.Locs) == 1 && slices.Equal(m.Test.Locs, f.Test.Locs) && len(m.Test.Threads) == len(f.Test.Threads) &&
		m.Test.Model().TargetInterleaved()
}

// Evidence computes a forbidden case's evidence classes from the mutants
// that ran before it and the fake defects that catch it.
func Evidence(c Case, runs []MutantRun, elsewhere bool) EvidenceValue {
	var v EvidenceValue
	var weakRan, interRan int
	for _, m := range runs {
		switch {
		case GivesPower(m.Spec, c):
			weakRan++
			if m.Hits > 0 {
				v.Weak = append(v.Weak, fmt.Sprintf("%s (%d of %d)", m.Test, m.Hits, m.Trials))
			}
		case GivesInterleaving(m.Spec, c):
			interRan++
			if m.Hits > 0 {
				v.Interleaving = append(v.Interleaving, fmt.Sprintf("%s (%d of %d)", m.Test, m.Hits, m.Trials))
			}
		}
	}
	v.Checker = checkerFor(c)
	v.FromLinkClass = elsewhere && c.Pair != nil && weakRan+interRan == 0
	for _, x := range []struct {
		class string
		by    []string
	}{{EvidenceWeak, v.Weak}, {EvidenceInterleaving, v.Interleaving}, {EvidenceChecker, v.Checker}} {
		if len(x.by) > 0 {
			v.Classes = append(v.Classes, x.class)
		}
	}
	if v.Classes == nil {
		v.Classes = []string{}
	}
	if len(v.Weak) == 0 {
		var why []string
		switch {
		case v.FromLinkClass:
			why = append(why, "its mutants ran on the representative pair of its link class (the merged report takes their classes)")
		case weakRan > 0:
			why = append(why, fmt.Sprintf("none of its %d weakened mutants showed its weak outcome here", weakRan))
		case len(c.Test.Locs) == 1:
			why = append(why, "no weakened form of a one-location test has a weak outcome this hardware can show (plain accesses are merged by the compiler, and no coherence or RMW atomicity violation has been reported on NVIDIA GPUs since Maxwell)")
		default:
			why = append(why, "no weakened mutant of its shape runs in this placement")
		}
		if len(c.Test.Locs) == 1 && len(v.Interleaving) == 0 && !v.FromLinkClass {
			why = append(why, fmt.Sprintf("none of its %d interleaving mutants showed its target here", interRan))
		}
		if len(v.Checker) == 0 {
			why = append(why, "no fake defect is declared to make its forbidden outcome occur")
		}
		v.Why = strings.Join(why, "; ")
	}
	return v
}

// TargetInterleaved reports whether the target outcome is sequentially
// consistent but not produced by any serial order of the threads: seeing
// it shows that the threads' accesses interleaved.
func (m *Model) TargetInterleaved() bool {
	for bin := range m.sc {
		if m.Class(bin) == Target && !m.serial[bin] {
			return true
		}
	}
	return false
}
