// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"fmt"
	"os"

	. "github.com/onsi/ginkgo/v2"

	"github.com/p2pconf/p2pconf/harness/machine"
	"github.com/p2pconf/p2pconf/harness/report"
	"github.com/p2pconf/p2pconf/harness/report/ginkgoadapt"
	"github.com/p2pconf/p2pconf/harness/sysrecord"
)

// registerReporting adds the suite-wide reporting nodes: a progress line on
// stderr after every spec (which suite, which check and pair, how many are
// done), and, when P2PCONF_REPORT_DIR is set, the suite's reports written
// after it and merged with the other suites' of the same run. Ginkgo's
// reports reach package report through ginkgoadapt, which keeps the report
// (and the p2pconf command) free of the test framework.
func registerReporting(suite string, m *machine.Machine) {
	var progress *report.Progress
	sys := sysrecord.SystemOf(m)
	ReportBeforeSuite(func(r Report) {
		if !r.SuiteConfig.DryRun { // a listing runs nothing to report progress on
			progress = report.NewProgress(os.Stderr, suite, r.PreRunStats.SpecsThatWillRun)
			_, rc := GinkgoConfiguration()
			progress.AfterDots = !rc.Verbose && !rc.VeryVerbose
		}
	})
	ReportAfterEach(func(sr SpecReport) {
		if progress != nil {
			progress.Spec(ginkgoadapt.Spec(sr))
		}
	})
	ReportAfterSuite("p2pconf reports", func(r Report) {
		if m.Config.ReportDir == "" {
			return
		}
		if err := ginkgoadapt.WriteRun(m.Config.ReportDir, sys, r, report.RunMeta{Suite: suite}); err != nil {
			Fail(fmt.Sprintf("writing the reports into %s: %v", m.Config.ReportDir, err))
		}
	})
}
