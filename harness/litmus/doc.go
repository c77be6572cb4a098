// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package litmus holds the memory-model litmus tests of the ordering suite
// (check ordering.litmus) and everything needed to run them at scale:
//
//   - test.go, catalogue*.go: litmus tests as data: threads of PTX memory
//     operations (semantics and scope from package kernels), locations, the
//     outcome a test is about, and its verdict (forbidden, or allowed and run
//     as a mutant that shows the forbidden sibling could have failed);
//     catalogue_single.go holds the single-shot forms of MP, WRC and ISA2,
//     whose readers read their flag once instead of polling it.
//   - model.go: the tests' sequentially consistent outcomes (enumerated), the
//     value domains, the histogram encoding and the outcome classifier.
//   - placement.go: where the threads run (between CTAs of one GPU, GPU and
//     host thread, two GPUs, three GPUs of a triple) and the rule that turns a forbidden test into a
//     mutant when a scope does not cover the threads it must synchronise.
//   - layout.go: the memory layout, kernel parameters and per-iteration
//     permutations shared by the PTX, the Sim and the host side.
//   - ptx.go, ptx_protocol.go, kernel.go: the PTX generated from a test at
//     run time (.version 7.0, .target sm_70) and its *kernels.Kernel
//     descriptor, built in memory (not registered with package kernels).
//   - sim.go: the same kernel interpreted in Go for the fake backend.
//   - host.go: the host thread's side (sync/atomic on mapped pinned memory).
//   - cases.go, env.go, settings.go: the specs' cases and their variant
//     keys, the parallel testing environment (many instances per
//     iteration, permuted roles and locations, a bounded start gate and
//     bounded barriers, optional stress CTAs) and the settings that say
//     when a run stops and what a forbidden test needs to pass
//     (P2PCONF_LITMUS_*).
//   - runner.go, fixture.go, limits.go: the run of one case through a
//     Fixture (the spec fixture, handed in by package litmusrun), and the
//     sizes a reproducer's host side shares with the kernel.
//   - result.go, coverage.go, evidence.go, evidence_class.go, mutant_run.go:
//     outcome statistics; when a forbidden run without violations still
//     does not count (too few instances, a stored value never observed, a
//     polled flag seen too rarely, a 95 % bound too wide: the spec then
//     ends as an error, "inconclusive"); the evidence classes of a
//     forbidden result, judged from the mutants that ran before it.
//
// The kernel is persistent: each launch passes a start gate opened by the
// host, then runs a number of iterations. In each iteration every testing
// thread plays one role of one instance, or, between CTAs of one GPU when
// the testing environment says so (Env.For, package litmusenv), every role
// for a different instance each; the roles of an instance sit in different
// CTAs (or GPUs, or the host), and which thread plays which instance, and
// where each location lies, changes every iteration. Between CTAs the
// environment also draws per iteration a CTA shuffle, a spin barrier
// before the roles and pre-stress, and lays the locations out separately
// or interleaved. After a
// barrier the collector threads read the instance's registers and final
// values, count the outcome in a shared-memory histogram and reset the
// instance; two location sets alternate so that the reset needs no second
// barrier. Histograms are added into device memory at the end of a launch,
// so the host reads one small buffer per launch. A run stops on evidence,
// not on the clock (env.go, Goal): a forbidden test once it has counted its
// instance target, a mutant once it has shown its weak outcome often
// enough, either at its time cap at the latest; each launch is sized from
// the rate so far to end near the target. Every wait in the kernel is
// bounded by %globaltimer and ends in a status word, never in a hang.
//
// The package is the Ginkgo-free model: it imports neither the test
// framework nor the root harness package (internal/layout holds it), so the
// reproducers (harness/repro) and the p2pconf command build on the very
// cases, PTX and rules the specs run. The suites run it through package
// litmusrun, which holds what needs Ginkgo or the fixture: the adapter
// that hands Run the harness fixture, and the report entries with the
// in-process power registry (a mutant gives power only to the forbidden
// tests of its shape in its placement, and never when its target outcome
// is sequentially consistent). It never imports a backend.
package litmus
