// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package distsuite is a stand-in suite for the dist tarball test: it is
// built by dist/build.sh like the real suites, and checks what the run
// script promises a suite binary (its package folder as working directory,
// the report folder, Ginkgo's report flags), then writes its reports the
// way the harness does.
package distsuite

import (
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/p2pconf/p2pconf/harness/report"
	"github.com/p2pconf/p2pconf/harness/report/ginkgoadapt"
)

func TestDist(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "dist [fake:dist]", Label("suite:dist"))
}

var _ = ReportAfterSuite("p2pconf reports", func(r Report) {
	dir := os.Getenv("P2PCONF_REPORT_DIR")
	if dir == "" {
		return
	}
	sys := report.System{Backend: "fake:dist", Host: "disthost", CUDAVersion: 13000,
		GPUs: []report.GPU{{Ordinal: 0, Name: "fake"}, {Ordinal: 1, Name: "fake"}}}
	Expect(ginkgoadapt.WriteRun(dir, sys, r, report.RunMeta{})).To(Succeed())
})

var _ = Describe("the dist run script", func() {
	It("runs GPU0's suite binary in its package folder", Label("id:dist.cwd", "kind:conf", "gpus:1", "gpu:0"), func() {
		_, err := os.Stat(filepath.Join("testdata", "marker.txt"))
		Expect(err).NotTo(HaveOccurred(), "testdata/marker.txt beside the binary")
	})
	It("gives GPU0→GPU1 an absolute report folder", Label("id:dist.report-dir", "kind:conf", "gpus:pair", "pair:0-1", "link:nvlink"), func() {
		Expect(filepath.IsAbs(os.Getenv("P2PCONF_REPORT_DIR"))).To(BeTrue(), "P2PCONF_REPORT_DIR=%q", os.Getenv("P2PCONF_REPORT_DIR"))
		AddReportEntry(report.EntryName, report.Entry{Kind: report.KindMetric, Name: "bandwidth_gbps", Value: 123.4})
	})
	It("is left out by a label filter on GPU1", Label("id:dist.filtered", "kind:mutant", "gpus:1", "gpu:1"), func() {
		Fail("the run script's label filter should have left this spec out")
	})
})
