// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package schedule

import (
	"fmt"
	"strings"
	"testing"
)

func gpuList(n int) []int {
	g := make([]int, n)
	for i := range g {
		g[i] = i
	}
	return g
}

func TestTournamentCoversEveryOrderedPairInDisjointRounds(t *testing.T) {
	for _, n := range []int{2, 3, 4, 5, 8} {
		rounds := Tournament(gpuList(n))
		wantRounds := 2 * (n - 1)
		if n%2 == 1 {
			wantRounds = 2 * n
		}
		if len(rounds) != wantRounds {
			t.Errorf("%d GPUs: %d rounds, want %d", n, len(rounds), wantRounds)
		}
		seen := map[[2]int]int{}
		for i, r := range rounds {
			if len(r) != n/2 {
				t.Errorf("%d GPUs: round %d has %d pairs, want %d", n, i, len(r), n/2)
			}
			busy := map[int]bool{}
			for _, p := range r {
				if busy[p[0]] || busy[p[1]] {
					t.Errorf("%d GPUs: round %d uses a GPU twice: %v", n, i, r)
				}
				busy[p[0]], busy[p[1]] = true, true
				seen[p]++
			}
		}
		if len(seen) != n*(n-1) {
			t.Errorf("%d GPUs: %d ordered pairs, want %d", n, len(seen), n*(n-1))
		}
		for p, c := range seen {
			if c != 1 || p[0] == p[1] {
				t.Errorf("%d GPUs: pair %v played %d times", n, p, c)
			}
		}
	}
}

// specs makes per-GPU, per-pair, triple and machine-wide specs of two
// suites and the path-measuring bandwidth suite on n GPUs.
func specs(t *testing.T, n int) []Spec {
	t.Helper()
	var out []Spec
	add := func(suite, id string, target ...string) {
		labels := append([]string{"id:" + id, "suite:" + suite, "kind:conf"}, target...)
		s, err := SpecFromLabels(suite, fmt.Sprintf("%s %v", id, target), labels)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	add("access", "access.claims")
	for g := 0; g < n; g++ {
		add("access", "access.local", fmt.Sprintf("gpu:%d", g))
		add("bandwidth", "bandwidth.copy-engine", fmt.Sprintf("gpu:%d", g))
		for h := 0; h < n; h++ {
			if h != g {
				add("access", "access.peer", fmt.Sprintf("pair:%d-%d", g, h))
				add("ordering", "ordering.litmus", fmt.Sprintf("pair:%d-%d", g, h))
				add("bandwidth", "bandwidth.copy-engine", fmt.Sprintf("pair:%d-%d", g, h))
			}
		}
	}
	if n >= 3 {
		add("ordering", "ordering.iriw", "triple:0-1-2")
	}
	if n >= 6 {
		add("ordering", "ordering.iriw", "triple:3-4-5")
		add("ordering", "ordering.iriw", "triple:0-3-6")
	}
	return out
}

func TestMakeOnEightGPUs(t *testing.T) {
	all := specs(t, 8)
	plan, err := Make(all, gpuList(8), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Specs() != len(all) {
		t.Fatalf("planned %d specs, want %d", plan.Specs(), len(all))
	}
	kinds := map[string]int{}
	for i, r := range plan.Rounds {
		kinds[r.Kind]++
		if r.Index != i || r.Name != fmt.Sprintf("r%d", i) {
			t.Errorf("round %d is named %s (index %d)", i, r.Name, r.Index)
		}
		busy := map[int]bool{}
		for _, l := range r.Lanes {
			for _, g := range l.GPUs {
				if busy[g] {
					t.Errorf("round %s: GPU %d in two lanes", r.Name, g)
				}
				busy[g] = true
			}
			for _, p := range l.Processes {
				for _, s := range p.Specs {
					for _, g := range s.GPUs() {
						if !contains(l.GPUs, g) {
							t.Errorf("round %s lane %s: spec %q uses GPU %d outside the lane", r.Name, l.ID, s.Text, g)
						}
					}
					if s.Suite == "bandwidth" && r.Kind != KindAlone {
						t.Errorf("bandwidth spec %q in round %s (%s), want it alone", s.Text, r.Name, r.Kind)
					}
				}
				if !strings.HasPrefix(p.Shard, r.Name+"."+l.ID+".") {
					t.Errorf("shard %q of round %s lane %s", p.Shard, r.Name, l.ID)
				}
			}
		}
	}
	want := map[string]int{KindAlone: 1, KindGPU: 1, KindPair: 14, KindTriple: 2}
	for k, n := range want {
		if kinds[k] != n {
			t.Errorf("%d rounds of kind %s, want %d (all: %v)", kinds[k], k, n, kinds)
		}
	}
	if got := len(plan.Rounds[1].Lanes); got != 8 {
		t.Errorf("the per-GPU round has %d lanes, want 8", got)
	}
	for _, r := range plan.Rounds {
		if r.Kind == KindPair && len(r.Lanes) != 4 {
			t.Errorf("pair round %s has %d lanes, want 4", r.Name, len(r.Lanes))
		}
	}
	alone := plan.Rounds[0].Lanes[0].Processes
	if len(alone) != 2 || alone[0].Suite != "access" || alone[0].Filter != MachineWideFilter || alone[1].Suite != "bandwidth" || alone[1].Filter != "" {
		t.Errorf("alone round: %+v", alone)
	}
	p := plan.Rounds[2].Lanes[0].Processes[0]
	if p.GPUsEnv() != fmt.Sprintf("%d,%d", p.Pairs[0][0], p.Pairs[0][1]) && p.GPUsEnv() != fmt.Sprintf("%d,%d", p.Pairs[0][1], p.Pairs[0][0]) {
		t.Errorf("pair process selects GPUs %q for pairs %q", p.GPUsEnv(), p.PairsEnv())
	}
	if p.Filter != "pair:"+p.PairsEnv() {
		t.Errorf("pair process filter %q, pairs %q", p.Filter, p.PairsEnv())
	}
}

func TestMakeSerial(t *testing.T) {
	all := specs(t, 2)
	plan, err := Make(all, gpuList(2), Options{Serial: true, SuiteOrder: []string{"ordering", "access"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Rounds) != 1 || len(plan.Rounds[0].Lanes) != 1 {
		t.Fatalf("serial plan: %+v", plan.Rounds)
	}
	var suites []string
	for _, p := range plan.Rounds[0].Lanes[0].Processes {
		suites = append(suites, p.Suite)
		if p.Filter != "" || p.GPUs != nil {
			t.Errorf("serial process %s narrows the run: filter %q GPUs %v", p.Suite, p.Filter, p.GPUs)
		}
	}
	if got := strings.Join(suites, ","); got != "ordering,access,bandwidth" {
		t.Errorf("serial suite order %s", got)
	}
	if plan.Specs() != len(all) {
		t.Errorf("planned %d specs, want %d", plan.Specs(), len(all))
	}
}

func TestMakeRefusesSpecsOnUnknownGPUs(t *testing.T) {
	if _, err := Make(specs(t, 3), gpuList(2), Options{}); err == nil || !strings.Contains(err.Error(), "GPU 2") {
		t.Errorf("specs on GPU 2 planned on GPUs 0,1: err %v", err)
	}
}

func TestSpecFromLabels(t *testing.T) {
	s, err := SpecFromLabels("ordering", "x", []string{"id:ordering.iriw", "kind:mutant", "triple:2-0-1"})
	if err != nil || s.Scope() != "triple" || s.Target() != "triple:2-0-1" || s.Kind != "mutant" || s.GPU != -1 {
		t.Errorf("triple spec: %+v, %v", s, err)
	}
	for _, bad := range []string{"pair:1", "pair:1-1", "gpu:x", "triple:0-1"} {
		if _, err := SpecFromLabels("s", "x", []string{bad}); err == nil {
			t.Errorf("label %q accepted", bad)
		}
	}
	s, _ = SpecFromLabels("s", "x", []string{"id:a.b"})
	if s.Scope() != "system" || s.Target() != "" || s.GPUs() != nil {
		t.Errorf("machine-wide spec: %+v", s)
	}
}

func contains(v []int, x int) bool {
	for _, y := range v {
		if y == x {
			return true
		}
	}
	return false
}

func TestRepresentativeMutants(t *testing.T) {
	var all []Spec
	add := func(id, kind, link string, a, b int) {
		s, err := SpecFromLabels("ordering", fmt.Sprintf("%s %s %d-%d", id, kind, a, b),
			[]string{"id:" + id, "kind:" + kind, fmt.Sprintf("pair:%d-%d", a, b), "link:" + link})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, s)
	}
	// GPUs 0-1 and 2-3 over NVLink, the rest over PCIe.
	for a := 0; a < 4; a++ {
		for b := 0; b < 4; b++ {
			if a == b {
				continue
			}
			link := "pcie"
			if a/2 == b/2 {
				link = "nvlink"
			}
			add(LitmusCheck, "conf", link, a, b)
			add(LitmusCheck, MutantKind, link, a, b)
			add("ordering.other", MutantKind, link, a, b) // runs on every pair
		}
	}
	rep := Representatives(all)
	want := map[[2]int]bool{{0, 1}: true, {1, 0}: true, {0, 2}: true, {2, 0}: true}
	if len(rep) != len(want) {
		t.Errorf("representatives %v, want %v", rep, want)
	}
	for p := range want {
		if !rep[p] {
			t.Errorf("representatives %v lack %v", rep, p)
		}
	}
	plan, err := Make(all, gpuList(4), Options{RepresentativeMutants: true})
	if err != nil {
		t.Fatal(err)
	}
	if d := Dropped(all, Options{RepresentativeMutants: true}); len(d) != 12-4 || plan.Specs() != 36-8 {
		t.Errorf("dropped %d mutants, planned %d specs; want 8 and 28", len(d), plan.Specs())
	}
	for _, r := range plan.Rounds {
		for _, l := range r.Lanes {
			for _, p := range l.Processes {
				pair := [2]int{p.Pairs[0][0], p.Pairs[0][1]}
				mutants := 0
				for _, s := range p.Specs {
					if s.Kind == MutantKind {
						mutants++
					}
				}
				if rep[pair] != (mutants == 2) || rep[pair] == strings.HasSuffix(p.Filter, "!(kind:mutant && id:ordering.litmus)") || rep[pair] == p.MutantsElsewhere {
					t.Errorf("pair %v (representative %v): %d mutants, filter %q, mutants elsewhere %v", pair, rep[pair], mutants, p.Filter, p.MutantsElsewhere)
				}
			}
		}
	}
	if d := Dropped(all, Options{}); d != nil {
		t.Errorf("dropped %d specs without RepresentativeMutants", len(d))
	}
	every, err := Make(all, gpuList(4), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range every.Rounds {
		for _, l := range r.Lanes {
			for _, p := range l.Processes {
				if p.MutantsElsewhere {
					t.Errorf("%s: mutants elsewhere without RepresentativeMutants", p.Filter)
				}
			}
		}
	}
}

// With BothWays each lane of a pair round plays A→B and B→A in one process
// per suite: n-1 pair rounds on n GPUs (even n), every ordered pair's specs
// in exactly one process, whose filter and P2PCONF_PAIRS name both.
func TestBothWaysPlaysAPairsDirectionsInOneLane(t *testing.T) {
	for _, n := range []int{2, 4, 8} {
		all := specs(t, n)
		plan, err := Make(all, gpuList(n), Options{BothWays: true, RepresentativeMutants: true})
		if err != nil {
			t.Fatal(err)
		}
		rounds, seen := 0, map[string]int{}
		for _, r := range plan.Rounds {
			if r.Kind != KindPair {
				continue
			}
			rounds++
			for _, l := range r.Lanes {
				for _, pr := range l.Processes {
					a, b := l.GPUs[0], l.GPUs[1]
					want := fmt.Sprintf("%d-%d,%d-%d", a, b, b, a)
					if pr.PairsEnv() != want || !strings.HasPrefix(pr.Filter, fmt.Sprintf("(pair:%d-%d || pair:%d-%d)", a, b, b, a)) {
						t.Errorf("%d GPUs: %s: pairs %q, filter %q", n, pr.Shard, pr.PairsEnv(), pr.Filter)
					}
					for _, s := range pr.Specs {
						fwd, back := s.Pair[0] == a && s.Pair[1] == b, s.Pair[0] == b && s.Pair[1] == a
						if s.Scope() != "pair" || !fwd && !back {
							t.Errorf("%d GPUs: %s holds %q", n, pr.Shard, s.Text)
						}
						seen[s.Suite+" "+s.Text]++
					}
				}
			}
		}
		if rounds != n-1 {
			t.Errorf("%d GPUs: %d pair rounds, want %d", n, rounds, n-1)
		}
		pairSpecs := 0
		for _, s := range all {
			if s.Scope() == "pair" && s.Suite != "bandwidth" {
				pairSpecs++
				if seen[s.Suite+" "+s.Text] != 1 {
					t.Errorf("%d GPUs: %q planned %d times", n, s.Text, seen[s.Suite+" "+s.Text])
				}
			}
		}
		if pairSpecs == 0 || plan.Specs()+len(Dropped(all, Options{RepresentativeMutants: true})) != len(all) {
			t.Errorf("%d GPUs: %d pair specs; planned %d of %d", n, pairSpecs, plan.Specs(), len(all))
		}
	}
}
