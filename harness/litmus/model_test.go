// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/machine"
	"github.com/p2pconf/p2pconf/kernels"
)

// TestCatalogueIsSound checks what makes a verdict trustworthy: every test
// validates; a forbidden target is not sequentially consistent (else the
// "violation" would be a legal interleaving); a forbidden test on several
// locations has no weak outcome but its target (so counting every weak
// outcome as a violation is exactly the litmus test's claim); names are
// unique; every family has a mutant and a forbidden test.
func TestCatalogueIsSound(t *testing.T) {
	names := map[string]bool{}
	kinds := map[string]map[Verdict]bool{}
	for _, tt := range Catalogue() {
		if err := tt.Validate(); err != nil {
			t.Fatal(err)
		}
		if names[tt.Name()] {
			t.Errorf("%s: name used twice", tt.Name())
		}
		names[tt.Name()] = true
		if kinds[tt.Family] == nil {
			kinds[tt.Family] = map[Verdict]bool{}
		}
		m := tt.Model()
		if tt.Verdict == Forbidden && m.TargetIsSC() {
			t.Errorf("%s: forbidden target %s is sequentially consistent", tt.Name(), tt.TargetText())
		}
		for bin := 0; bin < m.Bins; bin++ {
			// The compiler-sensitive variants' extra register makes
			// outcomes weak that the target does not name; a run counts as
			// violations exactly the outcomes the model forbids
			// (Case.ModelForbids), so their claim stays exact.
			if tt.Verdict == Forbidden && len(tt.Locs) > 1 && m.Class(bin) == OtherWeak && !strings.Contains(tt.Variant, "also weak x") {
				t.Errorf("%s: weak outcome %s besides the target", tt.Name(), m.Text(bin))
			}
		}
		for _, pl := range slices.Concat(tt.Placements(CTAs), tt.Placements(WithHost), tt.Placements(TwoGPUs), tt.Placements(ThreeGPUs)) {
			v, _ := pl.Verdict(tt)
			kinds[tt.Family][v] = true
		}
	}
	for f, k := range kinds {
		if !k[Forbidden] || !k[Allowed] {
			t.Errorf("family %s has forbidden=%v mutant=%v; it needs both", f, k[Forbidden], k[Allowed])
		}
	}
}

func twoGPUs() (machine.GPU, machine.GPU) {
	return machine.GPU{Ordinal: 0}, machine.GPU{Ordinal: backend.Device(1)}
}

func aTriple() machine.Triple {
	a, b := twoGPUs()
	c := machine.GPU{Ordinal: backend.Device(2)}
	return machine.Triple{A: a, B: b, C: c, AB: machine.Pair{A: a, B: b, Link: "nvlink"},
		BC: machine.Pair{A: b, B: c, Link: "nvlink"}, AC: machine.Pair{A: a, B: c, Link: "pcie"}}
}

// TestEveryForbiddenCaseHasAMutant: in every placement on a GPU, pair or
// triple, a forbidden spec of one location (coherence, RMW atomicity) has
// an interleaving mutant of its family that runs before it, and every other
// forbidden spec a weakened mutant of its own shape that runs before it and
// can give it power.
func TestEveryForbiddenCaseHasAMutant(t *testing.T) {
	a, b := twoGPUs()
	cases := slices.Concat(GPUCases(a), PairCases(machine.Pair{A: a, B: b, Link: "nvlink"}), TripleCases(aTriple()))
	names := map[string]bool{}
	for i, c := range cases {
		if names[c.Name()] {
			t.Errorf("spec name %q used twice", c.Name())
		}
		names[c.Name()] = true
		if c.Verdict == Allowed && c.Test.Verdict == Forbidden && c.Why == "" {
			t.Errorf("%s: became a mutant without a reason", c.Name())
		}
		if c.Verdict != Forbidden {
			continue
		}
		powered, interleaved := false, false
		for j, m := range cases {
			gp, gi := GivesPower(m, c), GivesInterleaving(m, c)
			if gp && gi {
				t.Errorf("%s gives %s both weak and interleaving evidence", m.Name(), c.Name())
			}
			if (gp || gi) && j > i {
				t.Errorf("%s: its mutant %s runs after it (it could not give it evidence)", c.Name(), m.Name())
			}
			powered, interleaved = powered || gp, interleaved || gi
		}
		oneLoc := len(c.Test.Locs) == 1
		if oneLoc && !interleaved {
			t.Errorf("%s: a one-location test without an interleaving mutant", c.Name())
		}
		if !oneLoc && !powered {
			t.Errorf("%s: no weakened mutant of its shape", c.Name())
		}
		if !oneLoc && interleaved {
			t.Errorf("%s: interleaving evidence for a test of several locations", c.Name())
		}
	}
}

// TestPowerNeedsAWeakOutcome: a mutant gives power only to forbidden tests
// of its shape in its placement, and never when its target outcome is
// sequentially consistent.
func TestPowerNeedsAWeakOutcome(t *testing.T) {
	a, _ := twoGPUs()
	byName := map[string]Case{}
	for _, c := range GPUCases(a) {
		if c.Place.Kind == CTAs {
			byName[c.Test.Name()] = c
		}
	}
	for _, c := range []struct {
		mutant, forbidden string
		want              bool
	}{
		{"MP rlx.sys", "MP rel.sys/acq.sys", true},
		{"CoRR rlx.cta", "CoRR rlx.sys", true},               // a scope mutant between CTAs
		{"CoRR rlx.sys interleaving", "CoRR rlx.sys", false}, // r0=0 ∧ r1=1 is sequentially consistent
		{"MP rlx.sys", "CoWW st.volatile", false},            // another shape
		{"CoRW weak", "CoRW rlx.sys", true},
		{"CoRW weak", "CoWR rlx.sys", false},
		{"SB rlx.sys", "SB F.sc.sys", true},
		{"MP rel.cta/acq.cta", "MP rel.sys/acq.sys", true}, // a scope mutant between CTAs
	} {
		m, f := byName[c.mutant], byName[c.forbidden]
		if m.Test == nil || f.Test == nil {
			t.Fatalf("%s or %s does not run between CTAs", c.mutant, c.forbidden)
		}
		if got := GivesPower(m, f); got != c.want {
			t.Errorf("%s gives power to %s: %v, want %v", c.mutant, c.forbidden, got, c.want)
		}
	}
	host := GPUCases(a)
	for _, m := range host {
		for _, f := range host {
			if GivesPower(m, f) && m.Where() != f.Where() {
				t.Errorf("%s gives power to %s in another placement", m.Name(), f.Name())
			}
		}
	}
}

func TestMPModel(t *testing.T) {
	m := findTest(t, "MP rel.sys/acq.sys").Model()
	if m.Bins != 9 || len(m.Obs) != 2 || m.Obs[0].Name != "r0" || m.Obs[1].Name != "r1" {
		t.Fatalf("MP model: %d bins, observations %+v", m.Bins, m.Obs)
	}
	want := map[string]Class{
		"r0=0 r1=0": Sequential, "r0=1 r1=1": Sequential, "r0=0 r1=1": Interleaved,
		"r0=1 r1=0": Target, "r0>1 r1=0": Impossible, "r0=1 r1>1": Impossible,
	}
	got := map[string]Class{}
	for bin := 0; bin < m.Bins; bin++ {
		got[m.Text(bin)] = m.Class(bin)
	}
	for text, c := range want {
		if got[text] != c {
			t.Errorf("MP outcome %s: class %v, want %v", text, got[text], c)
		}
	}
	if bin := m.Encode([]uint32{1, 0}); m.Text(bin) != "r0=1 r1=0" || m.Class(bin) != Target {
		t.Errorf("Encode(1,0) = %d (%s, %v)", bin, m.Text(bin), m.Class(bin))
	}
	if bin := m.Encode([]uint32{7, 0}); m.Class(bin) != Impossible {
		t.Errorf("a flag value of 7 is %v, want impossible", m.Class(bin))
	}
}

func TestCoherenceModelUsesFinalValues(t *testing.T) {
	m := findTest(t, "CoWR rlx.sys").Model()
	if len(m.Obs) != 2 || m.Obs[1].Name != "x" || m.Obs[1].Reg != NoReg {
		t.Fatalf("CoWR observations %+v", m.Obs)
	}
	for _, c := range []struct {
		vals []uint32
		want Class
	}{{[]uint32{2, 1}, Target}, {[]uint32{1, 2}, Sequential}, {[]uint32{2, 2}, Interleaved}, {[]uint32{0, 2}, OtherWeak}} {
		if got := m.Class(m.Encode(c.vals)); got != c.want {
			t.Errorf("CoWR %v: %v, want %v", c.vals, got, c.want)
		}
	}
}

func TestDomainsAreBounded(t *testing.T) {
	m := findTest(t, "lost-update ld/st increments").Model()
	for i, d := range m.Domain {
		if !sort.SliceIsSorted(d, func(a, b int) bool { return d[a] < d[b] }) || d[len(d)-1] > 2 {
			t.Errorf("observation %s: domain %v, want within 0..2 (two increments)", m.Obs[i].Name, d)
		}
	}
}

func TestVerdictRule(t *testing.T) {
	a, b := twoGPUs()
	verdicts := func(name string, kind PlaceKind) []Verdict {
		var out []Verdict
		for _, pl := range findTest(t, name).Placements(kind) {
			v, _ := pl.Verdict(findTest(t, name))
			out = append(out, v)
		}
		return out
	}
	for _, c := range []struct {
		test string
		kind PlaceKind
		want []Verdict
	}{
		{"MP rel.gpu/acq.gpu", CTAs, []Verdict{Forbidden}},
		{"MP rel.gpu/acq.gpu", TwoGPUs, []Verdict{Allowed, Allowed, Allowed, Allowed}},
		{"MP rel.sys/acq.sys", TwoGPUs, []Verdict{Forbidden, Forbidden, Forbidden, Forbidden}},
		{"MP rel.cta/acq.cta", CTAs, []Verdict{Allowed}},
		{"SB F.sc.gpu", CTAs, []Verdict{Forbidden}},
		{"SB F.sc.gpu", TwoGPUs, []Verdict{Allowed, Allowed, Allowed}},
		{"SB F.sc.cta", CTAs, []Verdict{Allowed}},
		{"CoRR rlx.gpu", TwoGPUs, []Verdict{Allowed, Allowed}},
		// ABA, ABB, AAB and AAB with z on B: the first hop inside one GPU
		// may be .gpu.
		{"ISA2 hop 1 .gpu, hop 2 .sys", TwoGPUs, []Verdict{Allowed, Allowed, Forbidden, Forbidden}},
		{"ISA2 hop 1 .gpu, hop 2 .sys", WithHost, []Verdict{Forbidden}},
		{"ISA2 hop 1 .sys, hop 2 .gpu", TwoGPUs, []Verdict{Allowed, Forbidden, Allowed, Allowed}},
		// ABB: x is observed at .sys, the .gpu hop stays inside GPU B.
		{"WRC rel.gpu/acq.gpu", TwoGPUs, []Verdict{Allowed, Forbidden, Allowed, Allowed}},
	} {
		got := verdicts(c.test, c.kind)
		if len(got) != len(c.want) {
			t.Errorf("%s: %d placements of kind %d, want %d", c.test, len(got), c.kind, len(c.want))
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s placement %d (%s): %v, want %v", c.test, i, c.test, got[i], c.want[i])
			}
		}
	}
	_ = b
	c := newCase(findTest(t, "MP rel.gpu/acq.gpu"), findTest(t, "MP rel.gpu/acq.gpu").Placements(TwoGPUs)[0], a, b, &machine.Pair{A: a, B: b})
	if c.Why == "" || !strings.Contains(c.Name(), "GPU0") || !strings.Contains(c.Name(), "GPU1") || !strings.Contains(c.Name(), "mutant") {
		t.Errorf("pair case: name %q, why %q", c.Name(), c.Why)
	}
}

func TestHomes(t *testing.T) {
	isa2 := findTest(t, "ISA2 rel.sys/acq.sys").Placements(WithHost)[0]
	if want := []Unit{UnitHost, UnitA, UnitHost}; !equalUnits(isa2.Homes, want) {
		t.Errorf("ISA2 with T2 on the host: homes %v, want %v (x, z touched by the host)", isa2.Homes, want)
	}
	wrc := findTest(t, "WRC rel.sys/acq.sys").Placements(TwoGPUs)
	if !equalUnits(wrc[1].Roles, []Unit{UnitA, UnitB, UnitB}) || !equalUnits(wrc[1].Homes, []Unit{UnitA, UnitB}) {
		t.Errorf("WRC ABB: roles %v homes %v, want x with its writer on A, y with its writer on B", wrc[1].Roles, wrc[1].Homes)
	}
	// A symmetric test runs with both locations on A (the reverse pair
	// covers B) and split both ways, so each thread's store crosses the
	// link in one of them.
	sb := findTest(t, "SB rlx.sys").Placements(TwoGPUs)
	if len(sb) != 3 || !equalUnits(sb[1].Homes, []Unit{UnitA, UnitB}) || !equalUnits(sb[2].Homes, []Unit{UnitB, UnitA}) {
		t.Errorf("SB on a pair: placements %+v, want x,y on A, then x on A and y on B, then x on B and y on A", sb)
	}
	if got := len(findTest(t, "MP rel.sys/acq.sys").Placements(TwoGPUs)); got != 4 {
		t.Errorf("MP on a pair: %d placements, want 4 (both on A, both on B, split both ways)", got)
	}
	if got := len(findTest(t, "CoRR rlx.sys").Placements(TwoGPUs)); got != 2 {
		t.Errorf("CoRR on a pair: %d placements, want 2 (one location cannot be split)", got)
	}
	isa2Pair := findTest(t, "ISA2 rel.sys/acq.sys").Placements(TwoGPUs)
	if len(isa2Pair) != 4 || !equalUnits(isa2Pair[2].Homes, []Unit{UnitA, UnitA, UnitA}) || !equalUnits(isa2Pair[3].Homes, []Unit{UnitA, UnitA, UnitB}) {
		t.Errorf("ISA2 on a pair: placements %+v, want AAB with its locations on A, then with z on B", isa2Pair)
	}
}

func equalUnits(a, b []Unit) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestValidateRejects(t *testing.T) {
	bad := []*Test{
		{Family: "X", Variant: "ld.release", Locs: []string{"x"}, Threads: [][]Op{{ld(x, 0, relSys)}}, Target: out{"r0": 1}},
		{Family: "X", Variant: "st.acquire", Locs: []string{"x"}, Threads: [][]Op{{st(x, 1, acqSys)}}, Target: out{"r0": 1}},
		{Family: "X", Variant: "weak atom", Locs: []string{"x"}, Threads: [][]Op{{rmw(kernels.OpAdd, x, 1, 0, weak)}}, Target: out{"r0": 1}},
		{Family: "X", Variant: "reg twice", Locs: []string{"x"}, Threads: [][]Op{{ld(x, 0, rlxSys), ld(x, 0, rlxSys)}}, Target: out{"r0": 1}},
		{Family: "X", Variant: "unknown target", Locs: []string{"x"}, Threads: [][]Op{{ld(x, 0, rlxSys)}}, Target: out{"r3": 1}},
		{Family: "X", Variant: "fence.release", Locs: []string{"x"}, Threads: [][]Op{{fence(relSys), ld(x, 0, rlxSys)}}, Target: out{"r0": 1}},
		{Family: "X", Variant: "bad host", Locs: []string{"x"}, Threads: [][]Op{{ld(x, 0, rlxSys)}}, Target: out{"r0": 1}, Host: []string{"HH"}},
	}
	for _, tt := range bad {
		if err := tt.Validate(); err == nil {
			t.Errorf("%s: accepted", tt.Name())
		}
	}
}
