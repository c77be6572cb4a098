// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"fmt"

	"github.com/onsi/ginkgo/v2"

	"github.com/p2pconf/p2pconf/harness/report"
)

// Inconclusive ends the spec as an error, neither a pass nor a violation:
// the run could not tell (too little evidence, another program on a GPU the
// check needs to itself). The message says why; it becomes the result's
// reason and message, and the result's status is error. The spec ends as
// a failure of the framework's, which fails the run, as any error does.
func Inconclusive(format string, a ...any) {
	ginkgo.GinkgoHelper()
	msg := fmt.Sprintf(format, a...)
	ginkgo.AddReportEntry(report.EntryName, report.Entry{Kind: report.KindError, Name: report.ErrorInconclusive, Value: msg},
		ginkgo.ReportEntryVisibilityNever)
	ginkgo.Fail(msg)
}
