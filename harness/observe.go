// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"

	"github.com/p2pconf/p2pconf/harness/report"
)

// Observations are attached to the running spec as Ginkgo report entries
// (name report.EntryName); the reports turn them into claims, metrics,
// findings and power per check and pair.

// Claim records what a source says, e.g. Claim("cuda", "cuDeviceCanAccessPeer", 1, "GPU0→GPU1").
func Claim(source, name string, value any, detail string) {
	AddReportEntry(report.EntryName, report.Entry{Kind: report.KindClaim, Source: source, Name: name, Value: value, Detail: detail},
		ReportEntryVisibilityFailureOrVerbose)
}

// Metric records a measured number with its unit.
func Metric(name string, value float64, unit, detail string) {
	AddReportEntry(report.EntryName, report.Entry{Kind: report.KindMetric, Name: name, Value: value, Unit: unit, Detail: detail},
		ReportEntryVisibilityFailureOrVerbose)
}

// Finding records an observation that the CUDA documentation does not fix,
// such as the exact error code of a call documented only to fail.
func Finding(name string, value any, detail string) {
	AddReportEntry(report.EntryName, report.Entry{Kind: report.KindFinding, Name: name, Value: value, Detail: detail},
		ReportEntryVisibilityFailureOrVerbose)
}

// PowerResult is what a mutant spec saw.
type PowerResult struct {
	Observed bool `json:"observed"`
	Hits     int  `json:"hits"`   // trials or instances that showed the weak outcome
	Trials   int  `json:"trials"` // trials or instances run
}

// String reads "seen in 3 of 20" or "not seen in 20".
func (r PowerResult) String() string {
	if r.Observed {
		return fmt.Sprintf("seen in %d of %d", r.Hits, r.Trials)
	}
	return fmt.Sprintf("not seen in %d", r.Trials)
}

// Power records, from a mutant spec, whether its weak outcome was seen. name
// is the ID of the conf check it gives power to; the report marks that
// check's pass on the same target "power shown" when Observed is true.
func Power(confCheck string, r PowerResult, detail string) {
	AddReportEntry(report.EntryName, report.Entry{Kind: report.KindPower, Name: confCheck, Value: r, Detail: detail},
		ReportEntryVisibilityFailureOrVerbose)
}
