// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"strings"
	"testing"
)

// cowwResult is a run of CoWW st.volatile between CTAs with the given
// counts of (r0, r1) outcomes.
func cowwResult(t *testing.T, counts map[[2]uint32]uint64) *Result {
	t.Helper()
	test := findTest(t, "CoWW st.volatile")
	r := &Result{Case: ctasCase(test), Hist: make([]uint64, test.Model().Bins)}
	for v, n := range counts {
		r.Hist[test.Model().Encode(v[:])] += n
	}
	return r
}

func TestStoredValues(t *testing.T) {
	for name, want := range map[string]string{
		"CoWW st.volatile":                "[1 of x 2 of x]",
		"CoWW rlx.gpu, atom.exch second":  "[1 of x 2 of x]", // the exchange's value counts
		"MP rel.sys/acq.sys":              "[1 of x 1 of y]",
		"atomicity atom.add.rlx.sys":      "[2 of x]", // what an add writes depends on what it read
		"lost-update ld/st increments":    "[]",
		"MP exch.rel.sys/cas.acq.sys":     "[1 of x 1 of y]",
		"ISA2 rel.sys/acq.sys":            "[1 of x 1 of y 1 of z]",
		"SB F.sc.sys":                     "[1 of x 1 of y]",
		"CoRW rlx.sys":                    "[1 of x 2 of x]",
		"IRIW F.sc.sys readers":           "[1 of x 1 of y]",
		"WRC rel.sys/acq.sys":             "[1 of x 1 of y]",
		"MP weak flag+F.sc.sys":           "[1 of x 1 of y]",
		"LB acq.sys/rel.sys":              "[1 of x 1 of y]",
		"CoWR rlx.sys":                    "[1 of x 2 of x]",
		"CoRR rlx.sys":                    "[1 of x]",
		"atomicity ld/st increment":       "[2 of x]",
		"SB atom.acq_rel.sys":             "[1 of x 1 of y]",
		"SB atom.acq_rel.sys, T1 plain":   "[1 of x 1 of y]",
		"lost-update atom.add.rlx.sys":    "[]",
		"CoWW st.volatile interleaving":   "[1 of x 2 of x]",
		"ISA2 hop 1 .gpu, hop 2 .sys":     "[1 of x 1 of y 1 of z]",
		"MP rel.sys/rlx.sys (no acquire)": "[1 of x 1 of y]",
	} {
		var got []string
		for _, v := range findTest(t, name).StoredValues() {
			got = append(got, v.String())
		}
		if s := "[" + strings.Join(got, " ") + "]"; s != want {
			t.Errorf("%s: stored values %s, want %s", name, s, want)
		}
	}
}

// TestVacuous: a forbidden run whose histogram lacks a value the threads
// store is an error (the compiler kept only the second of two stores), one
// that saw every stored value counts.
func TestVacuous(t *testing.T) {
	s := Settings{MinInstances: 64, MinFlagShare: 0.01, MaxViolationBound: 0.1}
	// What ptxas made of two st.relaxed of x: the reader sees 0 or 2, never 1.
	merged := cowwResult(t, map[[2]uint32]uint64{{0, 0}: 40, {2, 2}: 50, {0, 2}: 10})
	want := "vacuous: value 1 of x never observed in 100 instances"
	if why := merged.Vacuous(); !strings.HasPrefix(why, want) {
		t.Errorf("Vacuous: %q, want it to start with %q", why, want)
	}
	if why := Inconclusive(merged, s); !strings.HasPrefix(why, want) {
		t.Errorf("Inconclusive: %q, want it to start with %q", why, want)
	}
	cov := merged.Coverage()
	if len(cov) != 2 || cov[0].Text != "1 of x" || cov[0].Instances != 0 || cov[1].Text != "2 of x" || cov[1].Instances != 60 {
		t.Errorf("coverage %+v", cov)
	}
	// Value 1 seen by one read of one instance is enough.
	covered := cowwResult(t, map[[2]uint32]uint64{{0, 0}: 40, {2, 2}: 50, {0, 2}: 9, {1, 2}: 1})
	if why := covered.Vacuous(); why != "" {
		t.Errorf("full coverage: %q", why)
	}
	if why := Inconclusive(covered, s); why != "" {
		t.Errorf("full coverage, enough instances: %q", why)
	}
	// A final value counts as observed: atomicity's store of 2 shows in x.
	at := findTest(t, "atomicity atom.add.rlx.sys")
	r := &Result{Case: ctasCase(at), Hist: make([]uint64, at.Model().Bins)}
	r.Hist[at.Model().Encode([]uint32{0, 2})] = 64 // the add, then the store
	if why := r.Vacuous(); why != "" {
		t.Errorf("atomicity with x=2 final: %q", why)
	}
	r.Hist = make([]uint64, at.Model().Bins)
	r.Hist[at.Model().Encode([]uint32{2, 3})] = 64 // the store, then the add: 2 read, never left in x
	if why := r.Vacuous(); why != "" {
		t.Errorf("atomicity with r0=2: %q", why)
	}
	// No instance counted: reported as such, not as vacuous.
	if why := (&Result{Case: merged.Case, Hist: make([]uint64, len(merged.Hist))}).Vacuous(); why != "" {
		t.Errorf("no instances: %q", why)
	}
}
