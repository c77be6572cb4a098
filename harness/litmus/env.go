// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"fmt"
	"time"

	"github.com/p2pconf/p2pconf/harness/litmusenv"
	"github.com/p2pconf/p2pconf/harness/machine"
	"github.com/p2pconf/p2pconf/kernels"
)

// Env is the testing environment of a litmus run.
type Env struct {
	// Instances is the most instances per iteration (a power of two); the
	// co-resident capacity of the GPUs may lower it.
	Instances int
	// HostInstances replaces Instances when a host thread takes part: the
	// host plays its instances one after another.
	HostInstances int
	Block         int // threads per CTA (a power of two)
	// WarpSize is how far apart the lanes of two roles of one CTA must be
	// to run on different warps: 32 on a GPU, 1 on the fake, which has none.
	WarpSize   int
	Stride     int           // bytes between two locations (a multiple of 4)
	FirstIters int           // iterations of the first launch
	LaunchTime time.Duration // what later launches aim for
	Timeout    time.Duration // bound of every wait inside a launch
	// HostWorkers is how many host goroutines play the host threads, each
	// for its own share of the instances; 0 sizes it to the machine
	// (HostWorkersFor).
	HostWorkers int
	Stress      bool // fill the rest of each GPU with stress CTAs
	StressLines int  // lines of the stress buffer
	// Evidence says when a run stops (targets and time caps, see Goal)
	// and what a forbidden test needs, besides no violation, for its run to
	// count as a pass.
	Evidence Settings
	// JIT is how the driver compiles the test's kernel; the zero value is
	// the driver's default. Diagnose runs a case that showed a forbidden
	// outcome again at a lowered optimization level: the same PTX, with
	// the compiler keeping every access.
	JIT kernels.JITOptions

	// Between is the environment of the runs between CTAs of one GPU
	// (package litmusenv: the P2PCONF_LITMUS_ENV file or the committed
	// default), Source where it came from. For uses it.
	Between litmusenv.Knobs
	Source  string
	// Set by For for a case between CTAs: every role in every thread,
	// interleaved locations, the lt_env bits and the pre-stress iterations.
	Every       bool
	Interleaved bool
	Bits        uint32
	PreIters    int
}

// For is the environment of case c: between CTAs of one GPU the knobs of
// Between (Instances, Block, Stride, Stress, StressLines from them, the
// rest into Every, Interleaved, Bits and PreIters); elsewhere e itself.
func (e Env) For(c Case) Env {
	if c.Place.Kind != CTAs {
		return e
	}
	k := e.Between
	e.Instances, e.Block, e.Stride = k.Instances, k.Block, k.Stride
	e.Stress = e.Stress || k.Stress
	e.StressLines = k.StressLines
	// Threads grouped into one CTA need every role in every thread: that
	// layout is the one that puts the roles of a group in one CTA.
	e.Every = (k.Roles == litmusenv.RolesEvery || c.Place.Groups.Shared()) && len(c.Test.Threads) > 1
	e.Interleaved = k.Layout == litmusenv.LayoutInterleaved
	e.PreIters = k.PreStressIterations
	e.Bits = uint32(k.CTAShufflePct)<<envShiftShuffle | uint32(k.BarrierSpinPct)<<envShiftSpin | uint32(k.PreStressPct)<<envShiftPre
	if e.Every {
		e.Bits |= envEvery
	}
	if k.PermuteLanes {
		e.Bits |= envPermuteLanes
	}
	if !k.PermuteLocations {
		e.Bits |= envSameSlot
	}
	if k.PreStressPct == 0 || k.PreStressIterations == 0 {
		e.PreIters = 0
	}
	return e
}

// Finding is the environment a case ran in, for its report entry.
func (e Env) Finding(c Case) map[string]any {
	if c.Place.Kind != CTAs {
		return map[string]any{"source": "built in (the environment file acts between CTAs only)", "instances": e.Instances,
			"block": e.Block, "stride_bytes": e.Stride, "roles": litmusenv.RolesSplit, "stress": e.Stress}
	}
	m := e.Between.Map()
	m["source"] = e.Source
	m["every_role_in_every_thread"] = e.Every
	m["stress"] = e.Stress
	return m
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
//
// In the default profile a generated case (the subset of the generated
// space the model picks, there to cover every verdict and scope relation)
// runs to the space profile's targets and mutant cap, if they are lower:
// the hand-written catalogue keeps the default's depth and the subset adds
// breadth without doubling the default run.
func (e Env) Goal(c Case) Goal {
	s := e.Evidence
	if c.Test.Generated != nil && (s.Profile == "" || s.Profile == ProfileDefault) {
		s.Target, s.LinkTarget = min(s.Target, SpaceTarget), min(s.LinkTarget, SpaceLinkTarget)
		s.MutantBudget = min(s.MutantBudget, SpaceMutantBudget)
		s.MutantLongBudget = min(s.MutantLongBudget, SpaceMutantBudget)
	}
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
func DefaultEnv(cfg machine.Config, s Settings) Env {
	e := Env{
		Instances:     1 << 17,
		HostInstances: 4096,
		Block:         256,
		Stride:        128,
		FirstIters:    16,
		LaunchTime:    100 * time.Millisecond,
		Timeout:       2 * time.Second,
		StressLines:   1 << 14,
		WarpSize:      32,
		Evidence:      s,
	}
	e.Stress = cfg.LitmusStress
	e.Between, e.Source = cfg.LitmusEnv.Env, cfg.LitmusEnvSource
	if cfg.LitmusEnv.Format == "" { // a Config not read from the environment
		e.Between, e.Source = litmusenv.Default().Env, "committed default (harness/litmusenv/h200.json)"
	}
	if cfg.Backend == "fake" {
		e.Instances, e.HostInstances, e.Block, e.Stride = 16, 16, 16, 16
		e.FirstIters, e.LaunchTime, e.HostWorkers = 4, time.Millisecond, 1
		e.Timeout, e.StressLines = 5*time.Second, 64
		e.Stress, e.WarpSize = false, 1
		// The fake keeps the file's choices but not its sizes: 16
		// instances in CTAs of 4 threads (so every role of a three-thread
		// test finds its own CTA), a few pre-stress accesses, no stress.
		e.Between.Instances, e.Between.Block = 16, 4
		e.Between.Stride = min(e.Between.Stride, 16)
		e.Between.PreStressIterations = min(e.Between.PreStressIterations, 4)
		e.Between.Stress, e.Between.StressLines = false, min(e.Between.StressLines, 8)
	}
	return e
}

// HostWorkersFor is the number of host goroutines of a run with host
// threads on a machine with this many CPUs and GPUs: half the CPUs shared
// among the GPUs, since p2pconf run tests every GPU at once, one process
// each; at least 1, at most 8. The host side is what limits the instances
// per second of a placement with the host: on one H200 with 16 CPUs (driver
// 580), the forbidden host-placement tests counted 1.3-5.8 × 10^7 instances
// per second with 8 goroutines of 512 instances each, 0.7-3.0 × 10^7 with
// 4 of 256, and the host-placement litmus specs took 9.3 s instead of
// 20.7 s (docs/litmus.md).
func HostWorkersFor(cpus, gpus int) int {
	return max(1, min(8, cpus/(2*max(gpus, 1))))
}
