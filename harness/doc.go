// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package harness is everything the suites use: the GPUs and ordered pairs of
// the run, the per-spec fixture, labels tied to the check catalogue,
// requirement helpers that skip with a reason, matchers, bounded waits and
// report entries. Suites import harness, harness/cuerr codes and the kernels
// descriptors, and never a backend implementation or a cgo package, so a
// spec cannot tell whether a real GPU sits underneath.
//
// Package harness is the Ginkgo fixture only. What does not need Ginkgo
// lives beside it and is re-exported here under the suites' names:
// harness/checks (the check catalogue and the label grammar),
// harness/machine (configuration, opening the backend, GPU and pair
// selection) and harness/claims (what CUDA and NVML claim about a pair, and
// the one comparison of those sources). The command-line tools use those
// packages directly.
//
// Lifecycle, in order:
//
//  1. The suite binary's TestMain calls Main, which runs a helper-process
//     role instead of the tests when the binary was re-executed as a helper.
//  2. The suite's Test function calls RunSuite: it reads the configuration
//     (P2PCONF_* environment variables), opens the backend (cuda or fake),
//     reads what CUDA and NVML claim about every ordered pair, applies
//     P2PCONF_GPUS / P2PCONF_PAIRS, builds the spec tree once to check every
//     spec's labels against the catalogue, and only then runs the specs.
//  3. Specs are built per GPU (GPUs) and per ordered pair (Pairs), with
//     GPULabels / PairLabels carrying the check ID, kind, scope and target.
//  4. Each spec takes resources through the fixture (New), which releases
//     them afterwards and checks no file descriptor leaked.
//  5. After each spec a progress line goes to stderr; after the suite the
//     reports are written to P2PCONF_REPORT_DIR when it is set.
package harness
