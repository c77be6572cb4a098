// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"github.com/onsi/ginkgo/v2"

	"github.com/p2pconf/p2pconf/harness/report"
)

// PowerTo records, from a mutant spec, whether its weak outcome was seen,
// for the conf specs it names on the same target: each name is a conf
// spec's variant key (its Variant label). Where a conf check has
// several specs on a target (variants, placements), a mutant gives power to
// those of its own shape only; the report marks just those "power shown".
func PowerTo(confCheck string, specs []string, r PowerResult, detail string) {
	ginkgo.AddReportEntry(report.EntryName, report.Entry{Kind: report.KindPower, Name: confCheck,
		Value: report.PowerValue{Observed: r.Observed, Hits: uint64(max(r.Hits, 0)), Trials: uint64(max(r.Trials, 0)), For: specs}, Detail: detail},
		ginkgo.ReportEntryVisibilityFailureOrVerbose)
}
