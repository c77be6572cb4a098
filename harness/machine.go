// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import "github.com/p2pconf/p2pconf/harness/machine"

// The machine (configuration, backend, GPU and pair selection, claims)
// lives in harness/machine, which has no test framework in it, so the
// command-line tools can open it too. These names keep the suites' spelling.

// GPU is one GPU of the run.
type GPU = machine.GPU

// Pair is an ordered pair of GPUs: A the accessor, B the owner.
type Pair = machine.Pair

// current returns the machine opened by RunSuite. Specs are built after it,
// so a nil machine is a bug in the bootstrap, not a user error.
func current() *machine.Machine {
	m := machine.Current()
	if m == nil {
		panic("harness: the machine is not open; call harness.RunSuite from the suite's Test function")
	}
	return m
}

// GPUs lists the GPUs selected for this run, sorted by PCI address.
func GPUs() []GPU { return current().GPUs() }

// Pairs lists the ordered pairs selected for this run.
func Pairs() []Pair { return current().Pairs() }

// AllGPUs lists every GPU of the machine, selected or not: what a check
// that needs a second GPU counts, so that it skips for the same reason in
// a process that runs one GPU of a parallel run as in a serial run.
func AllGPUs() []GPU { return current().AllGPUs() }

// RunConfig is the configuration the run was started with.
func RunConfig() machine.Config { return current().Config }
