// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package report turns Ginkgo's results into p2pconf's reports: the
// versioned conformance.json, CI-shaped JUnit, matrix.md and a
// self-contained matrix.html, fleet views over several hosts, and the
// check-by-check diff of two runs that gates driver upgrades.
//
// Lifecycle, as the harness uses it:
//
//  1. Specs attach observations with AddReportEntry(report.EntryName,
//     report.Entry{...}); the check ID, GPU and pair come from the spec's
//     labels (id:, gpu:, pair:, link:, kind:, suite:).
//  2. ReportAfterEach feeds a Progress, which prints one line per spec.
//  3. ReportAfterSuite calls ginkgoadapt.WriteRun(dir, system, report,
//     RunMeta{}), which hands Ginkgo's report over as Ginkgo's JSON to
//     WriteRun: it writes <suite>.ginkgo.json, <suite>.junit.xml and
//     <suite>.conformance.json, then re-renders conformance.json,
//     junit.xml, matrix.md and matrix.html from every suite present in dir.
//  4. `p2pconf report` and `p2pconf diff` read those files back
//     (LoadInput, Merge, ByHost, WriteFleet, Diff).
//
// The package is pure Go and does not import the test framework: it reads
// Ginkgo's JSON report with its own types (SuiteReport, SpecReport), and
// only package ginkgoadapt, which the harness imports, touches Ginkgo's. No
// cgo, no backend, so the command-line tool can read reports anywhere.
// reports/README.md documents the files and the schema.
package report
