// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package litmusrun runs the litmus tests of package litmus as specs: it
// hands litmus.Run the harness fixture (run.go: requirements that skip,
// allocations released after the spec, failures that name the spec's line)
// and records what a run saw in the spec's report entry (power.go: metrics,
// findings, the evidence classes and the in-process power registry: a
// mutant gives power only to the forbidden tests of its shape in its
// placement, and never when its target outcome is sequentially consistent).
//
// Package litmus is the model (catalogue, outcomes, PTX, placement, the
// Sim, the run and its evidence rules) and imports neither the test
// framework nor the harness fixture, so the reproducers (harness/repro) and
// the p2pconf command build on it; everything that needs Ginkgo or the
// fixture lives here. The suites import both.
package litmusrun
