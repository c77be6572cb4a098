// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"slices"
	"strings"
	"testing"

	"github.com/p2pconf/p2pconf/harness/fake"
)

// ctaCase is the case of the named test between CTAs of one GPU.
func ctaCase(t *testing.T, name string) Case {
	t.Helper()
	a, _ := twoGPUs()
	for _, c := range GPUCases(a) {
		if c.Test.Name() == name && c.Place.Kind == CTAs {
			return c
		}
	}
	t.Fatalf("%s does not run between CTAs", name)
	return Case{}
}

// TestEvidenceClasses: each class comes from its own source and none is
// merged into another: weak from a weakened mutant that showed, interleaving
// from a one-location interleaving mutant that showed, checker from the
// declared fake defects.
func TestEvidenceClasses(t *testing.T) {
	corr := ctaCase(t, "CoRR rlx.sys")
	inter := ctaCase(t, "CoRR rlx.sys interleaving")
	scope := ctaCase(t, "CoRR rlx.cta") // a scope mutant between CTAs
	run := func(c Case, hits uint64) MutantRun {
		return MutantRun{Test: c.Test.Name(), Hits: hits, Trials: 1000, Spec: c}
	}
	for _, tc := range []struct {
		name string
		runs []MutantRun
		want []string
	}{
		{"nothing showed", []MutantRun{run(inter, 0), run(scope, 0)}, []string{EvidenceChecker}},
		{"the interleaving mutant showed", []MutantRun{run(inter, 5), run(scope, 0)}, []string{EvidenceInterleaving, EvidenceChecker}},
		{"the scope mutant showed", []MutantRun{run(inter, 0), run(scope, 3)}, []string{EvidenceWeak, EvidenceChecker}},
		{"both showed", []MutantRun{run(inter, 5), run(scope, 3)}, []string{EvidenceWeak, EvidenceInterleaving, EvidenceChecker}},
	} {
		v := Evidence(corr, tc.runs, false)
		if !slices.Equal(v.Classes, tc.want) {
			t.Errorf("%s: classes %v, want %v (%+v)", tc.name, v.Classes, tc.want, v)
		}
		if slices.Contains(v.Classes, EvidenceWeak) != (v.Why == "") {
			t.Errorf("%s: a result without weak evidence says why, one with it does not: %q", tc.name, v.Why)
		}
	}
	// An interleaving mutant gives nothing to a test of two locations, and
	// a weak mutant of another family nothing to CoRR.
	mp := ctaCase(t, "MP rel.sys/acq.sys")
	if GivesInterleaving(inter, mp) || GivesInterleaving(ctaCase(t, "MP rlx.sys"), mp) || GivesInterleaving(ctaCase(t, "MP rlx.sys"), corr) {
		t.Error("interleaving evidence crossed a family or went to a two-location test")
	}
	v := Evidence(mp, []MutantRun{run(ctaCase(t, "MP rlx.sys"), 0)}, false)
	if len(v.Classes) != 0 || !strings.Contains(v.Why, "none of its 1 weakened mutants") || !strings.Contains(v.Why, "no fake defect") {
		t.Errorf("MP with a silent mutant: %+v", v)
	}
	// The non-atomic increments are interleaving mutants of the RMW tests.
	if !GivesInterleaving(ctaCase(t, "atomicity ld/st increment"), ctaCase(t, "atomicity atom.add.rlx.sys")) ||
		!GivesInterleaving(ctaCase(t, "lost-update ld/st increments"), ctaCase(t, "lost-update atom.add.rlx.gpu")) {
		t.Error("the ld/st increments give no interleaving evidence to the RMW tests")
	}
}

// TestCheckerDefects: the checker class names the fake defects that act on
// a thread of the test, and none in placements with host threads.
func TestCheckerDefects(t *testing.T) {
	a, _ := twoGPUs()
	got := map[string][]string{}
	for _, c := range GPUCases(a) {
		if c.Verdict == Forbidden {
			got[c.Test.Name()+" "+c.Where()] = checkerFor(c)
		}
	}
	for name, want := range map[string][]string{
		"CoRR rlx.sys between CTAs of GPU0":                   {"same-address-loads-reordered"},
		"CoWW st.volatile between CTAs of GPU0":               {"same-address-loads-reordered", "same-address-stores-reordered"},
		"CoWW rlx.gpu, atom.exch second between CTAs of GPU0": {"same-address-loads-reordered", "same-address-stores-reordered"},
		"CoW-exch rlx.sys between CTAs of GPU0":               {"same-address-stores-reordered", "first-of-two-stores-lost"},
		"atomicity atom.add.rlx.gpu between CTAs of GPU0":     {"non-atomic-add"},
		"lost-update atom.add.rlx.sys between CTAs of GPU0":   {"non-atomic-add"},
		"CoWR rlx.sys between CTAs of GPU0":                   nil,
		"MP rel.sys/acq.sys between CTAs of GPU0":             nil,
	} {
		if g, ok := got[name]; !ok || !slices.Equal(g, want) {
			t.Errorf("%s: checker %v (found %v), want %v", name, g, ok, want)
		}
	}
	for name, ds := range got {
		if strings.Contains(name, "host") && len(ds) > 0 {
			t.Errorf("%s: checker %v with a host thread", name, ds)
		}
	}
	if d := CheckerDefects(); !slices.Equal(d, []string{"first-of-two-stores-lost", "non-atomic-add", "same-address-loads-reordered", "same-address-stores-reordered"}) {
		t.Errorf("CheckerDefects %v", d)
	}
}

// TestCheckerDefectsAreDeclared: every defect named as checker evidence is
// a fake defect of the ordering suite whose declared catcher is this check,
// so cmd/mutation injects it and holds the check to catching it.
func TestCheckerDefectsAreDeclared(t *testing.T) {
	declared := map[string]fake.DefectInfo{}
	for _, d := range fake.Defects() {
		declared[d.Name] = d
	}
	for _, name := range CheckerDefects() {
		d, ok := declared[name]
		if !ok || d.Suite != "ordering" || !slices.Contains(d.Catchers, CheckID) {
			t.Errorf("checker defect %s: declared %v, suite %q, catchers %v", name, ok, d.Suite, d.Catchers)
		}
	}
}
