// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Progress prints one line per finished spec, with the time the suite still
// needs (ETA) at the pace of the specs so far, e.g.
//
//	[access 12/40] pass access.peer-copy GPU0→GPU1 (1.2s) [ETA 34s]
//	[access 13/40] skip access.peer-copy GPU0→GPU2: needs peer access (found cuDeviceCanAccessPeer=0) [ETA 31s]
//
// The harness makes one in ReportBeforeSuite and feeds it from
// ReportAfterEach, each Ginkgo spec report converted by package
// ginkgoadapt:
//
//	var progress *report.Progress
//	ReportBeforeSuite(func(r Report) { progress = report.NewProgress(os.Stderr, "access", r.PreRunStats.SpecsThatWillRun) })
//	ReportAfterEach(func(sr SpecReport) { progress.Spec(ginkgoadapt.Spec(sr)) })
//
// Specs that were not selected (label filter) print nothing and are not
// counted. Under ginkgo -p each process counts its own specs.
type Progress struct {
	// AfterDots starts every line on a line of its own: Ginkgo's default
	// and succinct output print a dot per spec without ending the line, so
	// a progress line would otherwise run on after the dots.
	AfterDots bool

	mu    sync.Mutex
	w     io.Writer
	suite string
	total int
	n     int
	start time.Time
	now   func() time.Time
}

// NewProgress returns a printer for suite, which will run total specs.
func NewProgress(w io.Writer, suite string, total int) *Progress {
	return &Progress{w: w, suite: suite, total: total, start: time.Now(), now: time.Now}
}

// Spec prints the line of one finished spec. A nil Progress does nothing.
func (p *Progress) Spec(sr SpecReport) {
	if p == nil || !sr.isSpec() {
		return
	}
	if sr.State == SpecSkipped && sr.Failure.Message == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	if p.AfterDots {
		fmt.Fprintln(p.w)
	}
	fmt.Fprintln(p.w, ProgressLine(p.suite, p.n, p.total, sr)+" [ETA "+ETA(p.now().Sub(p.start), p.n, p.total)+"]")
}

// ETA is the time left when done of total specs took elapsed: the mean
// time per spec so far times the specs left, rounded to a second ("0s" when
// none is left). Litmus specs stop on evidence and take about the same time
// each, so the mean is a fair guess within a suite.
func ETA(elapsed time.Duration, done, total int) string {
	if done <= 0 || total <= done {
		return "0s"
	}
	left := time.Duration(float64(elapsed) / float64(done) * float64(total-done))
	return left.Round(time.Second).String()
}

// ProgressLine formats one progress line.
func ProgressLine(suite string, n, total int, sr SpecReport) string {
	res, _ := convertSpec(sr, SuiteReport{}, suite)
	if res.Status == "" {
		res.Status = sr.State.String()
	}
	target := ""
	if res.Target != TargetSystem {
		target = " " + res.TargetName()
	}
	line := fmt.Sprintf("[%s %d/%d] %s %s%s", suite, n, total, res.Status, res.Check, target)
	if res.Status != StatusPass && res.Reason != "" {
		line += ": " + res.Reason
	}
	return line + fmt.Sprintf(" (%.1fs)", sr.RunTime.Seconds())
}
