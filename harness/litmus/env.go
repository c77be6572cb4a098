// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
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
	Budget        time.Duration // time per test
	FirstIters    int           // iterations of the first launch
	LaunchTime    time.Duration // what later launches aim for
	Timeout       time.Duration // bound of every wait inside a launch
	HostWorkers   int           // host goroutines playing the host threads
	Stress        bool          // fill the rest of each GPU with stress CTAs
	StressLines   int           // lines of the stress buffer
	// Evidence is what a forbidden test needs, besides no violation, for
	// its run to count as a pass.
	Evidence harness.LitmusSettings
}

// DefaultEnv is the environment for the run: on a GPU, 2^17 instances per
// iteration at most (65,536 for three threads on an H200), 128-byte
// strides, launches of about 100 ms within the litmus budget; on the fake
// backend, which interprets every access in Go, 16 instances and a budget
// of s.FakeBudget (1 ms, one launch of 4 iterations, unless
// P2PCONF_LITMUS_BUDGET is set), so the suite stays fast; injected ordering
// defects show within that (release-not-ordered breaks MP and ISA2 in most
// instances).
func DefaultEnv(cfg harness.Config, s harness.LitmusSettings) Env {
	e := Env{
		Instances:     1 << 17,
		HostInstances: 1024,
		Block:         256,
		Stride:        128,
		Budget:        cfg.LitmusBudget,
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
		e.Budget = s.FakeBudget
		e.FirstIters, e.LaunchTime, e.HostWorkers = 4, time.Millisecond, 1
		e.Timeout, e.StressLines = 5*time.Second, 64
		e.Stress = false
	}
	return e
}
