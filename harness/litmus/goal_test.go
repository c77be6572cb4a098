// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/p2pconf/p2pconf/harness/machine"
)

func goalEnv() Env {
	return Env{LaunchTime: 100 * time.Millisecond, Evidence: Settings{Target: 1e9, LinkTarget: 1e7, MutantHits: 100,
		Budget: 2 * time.Second, MutantBudget: time.Second}}
}

// TestGoal: forbidden tests between CTAs run to the target, those with the
// host or another GPU to the link target, mutants to their weak outcomes.
func TestGoal(t *testing.T) {
	e := goalEnv()
	var sawCTA, sawHost, sawPair, sawTriple, sawMutant bool
	for _, c := range slices.Concat(GPUCases(machine.GPU{}), PairCases(machine.Pair{}), TripleCases(aTriple())) {
		g := e.Goal(c)
		switch {
		case c.Verdict == Allowed:
			sawMutant = true
			if g != (Goal{Want: 100, Hits: true, Cap: time.Second}) {
				t.Errorf("%s: mutant goal %+v", c.Name(), g)
			}
		case c.Place.Kind == CTAs:
			sawCTA = true
			if g != (Goal{Want: 1e9, Cap: 2 * time.Second}) {
				t.Errorf("%s: goal %+v", c.Name(), g)
			}
		default:
			sawHost = sawHost || c.Place.Kind == WithHost
			sawPair = sawPair || c.Place.Kind == TwoGPUs
			sawTriple = sawTriple || c.Place.Kind == ThreeGPUs
			if g != (Goal{Want: 1e7, Cap: 2 * time.Second}) {
				t.Errorf("%s: goal %+v", c.Name(), g)
			}
		}
	}
	if !sawCTA || !sawHost || !sawPair || !sawTriple || !sawMutant {
		t.Errorf("not every kind of case was seen: CTAs %v, host %v, pair %v, triple %v, mutant %v", sawCTA, sawHost, sawPair, sawTriple, sawMutant)
	}
}

// TestGeneratedGoalInTheDefaultProfile: the default run's generated cases
// run to the space profile's targets and mutant cap; the hand-written ones
// and every case of the certify profile keep theirs.
func TestGeneratedGoalInTheDefaultProfile(t *testing.T) {
	var generated, written int
	for _, profile := range []string{ProfileDefault, ProfileCertify} {
		e := goalEnv()
		e.Evidence.Profile = profile
		e.Evidence.MutantLongBudget = 2 * time.Second
		for _, c := range RunGPUCases(machine.GPU{}, profile) {
			g := e.Goal(c)
			want, spaceWant := e.Evidence.Target, uint64(SpaceTarget)
			if c.Place.Kind != CTAs {
				want, spaceWant = e.Evidence.LinkTarget, SpaceLinkTarget
			}
			cap, long := e.Evidence.MutantBudget, e.Evidence.MutantLongBudget
			if c.Test.Generated != nil && profile == ProfileDefault {
				generated++
				want = min(want, spaceWant)
				cap, long = SpaceMutantBudget, SpaceMutantBudget
			} else {
				written++
			}
			switch {
			case c.Verdict == Allowed && (g.Cap != cap || g.LongCap != long):
				t.Errorf("%s (%s): mutant caps %v and %v, want %v and %v", c.Name(), profile, g.Cap, g.LongCap, cap, long)
			case c.Verdict == Forbidden && g.Want != want:
				t.Errorf("%s (%s): target %d, want %d", c.Name(), profile, g.Want, want)
			}
		}
	}
	if generated == 0 || written == 0 {
		t.Errorf("generated cases %d, hand-written %d: want both", generated, written)
	}
}

// TestNextIters: launches grow at most 4× and end the run at the target
// with less than one iteration to spare.
func TestNextIters(t *testing.T) {
	c := firstForbidden(t)
	r := &runner{env: goalEnv(), res: &Result{Case: c, Hist: make([]uint64, c.Test.Model().Bins)}}
	g := r.env.Goal(c)
	count := func(iters uint64) {
		r.res.Iterations += iters
		r.res.Hist[0] += iters * 65536
	}
	count(16)
	if got := r.nextIters(g, 16, time.Millisecond); got != 64 {
		t.Errorf("after a first launch of 16 iterations in 1ms: next %d, want 64 (4×)", got)
	}
	// 62.5 µs per iteration: a 100 ms launch is 1600 iterations.
	r.res.Wall = time.Second
	if got := r.nextIters(g, 1600, 100*time.Millisecond); got != 1600 {
		t.Errorf("at full size: next %d, want 1600", got)
	}
	// Less than one iteration short of the target: one iteration.
	r.res.Iterations = 15258
	r.res.Hist[0] = 15258 * 65536
	if got := r.nextIters(g, 1600, 100*time.Millisecond); got != 1 {
		t.Errorf("near the target: next %d, want 1", got)
	}
	// 0.1 s of the cap left: 1600 iterations would overrun it.
	r.res.Hist[0], r.res.Iterations, r.res.Wall = 65536, 1, 1900*time.Millisecond
	if got := r.nextIters(g, 1600, 100*time.Millisecond); got != 1600 {
		t.Errorf("0.1 s before the cap: next %d, want 1600", got)
	}
	r.res.Wall = 1950 * time.Millisecond
	if got := r.nextIters(g, 1600, 100*time.Millisecond); got != 800 {
		t.Errorf("50 ms before the cap: next %d, want 800", got)
	}
}

func TestTargetMissed(t *testing.T) {
	c := firstForbidden(t)
	r := &Result{Case: c, Goal: Goal{Want: 1e9, Cap: 2 * time.Second}, Hist: make([]uint64, c.Test.Model().Bins),
		Elapsed: 2 * time.Second, Wall: 2 * time.Second, Stop: StopCap}
	r.Hist[0] = 4e8
	msg := r.TargetMissed()
	for _, want := range []string{"target not reached", "400000000 of 1000000000 instances", "2s", "2e+08 instances/s", "cap 2s"} {
		if !strings.Contains(msg, want) {
			t.Errorf("TargetMissed() = %q, lacks %q", msg, want)
		}
	}
	r.Stop = StopTarget
	if msg := r.TargetMissed(); msg != "" || !strings.Contains(r.Summary(), "stopped at the target of 1000000000") {
		t.Errorf("a run stopped by its target: %q, summary %q", msg, r.Summary())
	}
}

// firstForbidden is the first forbidden case between CTAs of a GPU.
func firstForbidden(t *testing.T) Case {
	for _, c := range GPUCases(machine.GPU{}) {
		if c.Verdict == Forbidden && c.Place.Kind == CTAs {
			return c
		}
	}
	t.Fatal("no forbidden case between CTAs")
	return Case{}
}

// TestStopRule: a forbidden run at its target stops only once every stored
// value was seen (else it goes on to its cap); a mutant stops at its hit
// target, at its cap when it has shown nothing, and at the longer cap when
// it has shown some but too few.
func TestStopRule(t *testing.T) {
	a, _ := twoGPUs()
	coww := ctaCase(t, "CoWW st.volatile")
	m := coww.Test.Model()
	r := &runner{ctx: t.Context(), res: &Result{Case: coww, Goal: Goal{Want: 100, Cap: 2 * time.Second}, Hist: make([]uint64, m.Bins)}}
	g := Goal{Want: 100, Cap: 2 * time.Second}
	r.res.Hist[m.Encode([]uint32{2, 2})] = 100 // value 1 never seen
	if got := r.stopped(g); got != "" {
		t.Errorf("vacuous at the target: stopped by %q, want to go on", got)
	}
	r.res.Wall = 2 * time.Second
	if got := r.stopped(g); got != StopCap {
		t.Errorf("vacuous at the cap: %q", got)
	}
	r.res.Wall = 0
	r.res.Hist[m.Encode([]uint32{1, 2})] = 1
	if got := r.stopped(g); got != StopTarget {
		t.Errorf("covered at the target: %q", got)
	}
	var mutant Case
	for _, c := range GPUCases(a) {
		if c.Test.Name() == "MP rlx.sys" && c.Place.Kind == CTAs {
			mutant = c
		}
	}
	mm := mutant.Test.Model()
	mg := Goal{Want: 12, Hits: true, Cap: 250 * time.Millisecond, LongCap: 2 * time.Second}
	mr := &runner{ctx: t.Context(), res: &Result{Case: mutant, Goal: mg, Hist: make([]uint64, mm.Bins), Wall: 300 * time.Millisecond}}
	mr.res.Hist[mm.Encode([]uint32{1, 1})] = 1000
	if got := mr.stopped(mg); got != StopCap {
		t.Errorf("mutant with no weak outcome past its cap: %q", got)
	}
	mr.res.Hist[mm.Encode([]uint32{1, 0})] = 3
	if got := mr.stopped(mg); got != "" {
		t.Errorf("mutant with 3 of 12 weak outcomes at 300 ms: stopped by %q, want the longer cap", got)
	}
	mr.res.Wall = 2 * time.Second
	if got := mr.stopped(mg); got != StopCap {
		t.Errorf("mutant with 3 of 12 at the longer cap: %q", got)
	}
	mr.res.Hist[mm.Encode([]uint32{1, 0})] = 12
	if got := mr.stopped(mg); got != StopTarget {
		t.Errorf("mutant at 12 weak outcomes: %q", got)
	}
	if s := mg.String(); !strings.Contains(s, "(2s once one has shown)") {
		t.Errorf("goal text %q", s)
	}
}
