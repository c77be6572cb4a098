// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"fmt"
	"runtime"
	"time"

	"github.com/p2pconf/p2pconf/harness"
)

// Env is the testing environment of a litmus run.
type Env struct {
	// Instances is the most instances per iteration (a power of two); the
	// co-resident capacity of the GPUs may lower it.
	Instances int
	// HostInstances replaces Instances when a host thread takes part: the
	// host plays its instances one after another.
	HostInstances int
	Block         int           // threads per CTA (a power of two)
	Stride        int           // bytes between two locations (a multiple of 4)
	FirstIters    int           // iterations of the first launch
	LaunchTime    time.Duration // what later launches aim for
	Timeout       time.Duration // bound of every wait inside a launch
	HostWorkers   int           // host goroutines playing the host threads
	Stress        bool          // fill the rest of each GPU with stress CTAs
	StressLines   int           // lines of the stress buffer
	// Evidence says when a run stops (targets and time caps, see Goal)
	// and what a forbidden test needs, besides no violation, for its run to
	// count as a pass.
	Evidence harness.LitmusSettings
}

// Goal is when one case's run stops: once it has counted Want instances (a
// forbidden test) or Want weak outcomes of its target (a mutant, Hits), or
// once it has run for Cap, whichever comes first. A run always makes at
// least one launch.
type Goal struct {
	Want uint64
	Hits bool
	Cap  time.Duration
	// LongCap is a mutant's longer cap: one that has shown its weak
	// outcome by Cap, but fewer than Want times, runs on to it.
	LongCap time.Duration
}

// CapAt is the cap that holds once the run has reached reached: LongCap
// for a mutant that has shown its weak outcome, Cap otherwise.
func (g Goal) CapAt(reached uint64) time.Duration {
	if g.Hits && reached > 0 && g.LongCap > g.Cap {
		return g.LongCap
	}
	return g.Cap
}

// Goal is c's goal: a forbidden test between CTAs of one GPU runs to the
// target, one that involves the host or another GPU (slower by two orders
// of magnitude with host threads) to the link target, each within the
// budget; a mutant runs until it has shown its weak outcome MutantHits
// times, within the mutant budget, since once it has shown it often its
// power is settled and further instances tell nothing new; one that has
// shown it, but fewer times, runs on to the longer mutant cap.
func (e Env) Goal(c Case) Goal {
	s := e.Evidence
	if c.Verdict == Allowed {
		return Goal{Want: s.MutantHits, Hits: true, Cap: s.MutantBudget, LongCap: s.MutantLongBudget}
	}
	if c.Place.Kind == CTAs {
		return Goal{Want: s.Target, Cap: s.Budget}
	}
	return Goal{Want: s.LinkTarget, Cap: s.Budget}
}

// String says the goal in words: "1e+09 instances within 2s".
func (g Goal) String() string {
	what := "instances"
	if g.Hits {
		what = "weak outcomes"
	}
	if g.Hits && g.LongCap > g.Cap {
		return fmt.Sprintf("%.3g %s within %s (%s once one has shown)", float64(g.Want), what, g.Cap, g.LongCap)
	}
	return fmt.Sprintf("%.3g %s within %s", float64(g.Want), what, g.Cap)
}

// DefaultEnv is the environment for the run: on a GPU, 2^17 instances per
// iteration at most (65,536 for three threads on an H200), 128-byte
// strides, launches of at most about 100 ms sized to end at the goal; on
// the fake backend, which interprets every access in Go, 16 instances per
// iteration and the fake's targets and caps (one launch of 4 iterations
// reaches the 64-instance target), so the suite stays fast; injected
// ordering defects show within that (release-not-ordered breaks MP and
// ISA2 in most instances).
func DefaultEnv(cfg harness.Config, s harness.LitmusSettings) Env {
	e := Env{
		Instances:     1 << 17,
		HostInstances: 1024,
		Block:         256,
		Stride:        128,
		FirstIters:    16,
		LaunchTime:    100 * time.Millisecond,
		Timeout:       2 * time.Second,
		HostWorkers:   max(1, min(4, runtime.NumCPU()/4)),
		StressLines:   1 << 14,
		Evidence:      s,
	}
	e.Stress = cfg.LitmusStress
	if cfg.Backend == "fake" {
		e.Instances, e.HostInstances, e.Block, e.Stride = 16, 16, 16, 16
		e.FirstIters, e.LaunchTime, e.HostWorkers = 4, time.Millisecond, 1
		e.Timeout, e.StressLines = 5*time.Second, 64
		e.Stress = false
	}
	return e
}
