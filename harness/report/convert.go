// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/p2pconf/p2pconf/harness/checks"
)

// RunMeta is what a suite binary knows about its own run. Zero fields are
// filled by WriteRun: versions from Version/Commit (or the build info), Args
// from os.Args, the rest from the Ginkgo report.
type RunMeta struct {
	// Suite names the suite (access, ipc, ...). Empty: the suite: label of
	// the suite or its specs, else Ginkgo's suite description.
	Suite       string
	ToolVersion string
	Commit      string
	Args        []string
	LabelFilter string
	Start, End  time.Time
	Seed        int64
	// RunID names the run (see CurrentRunID); WriteRun fills it.
	RunID string
}

// suiteName picks the suite's name (see RunMeta.Suite).
func suiteName(r SuiteReport, meta RunMeta) string {
	if meta.Suite != "" {
		return meta.Suite
	}
	if s := checks.Parse(r.SuiteLabels).Suite; s != "" {
		return s
	}
	seen := map[string]bool{}
	for _, sr := range r.SpecReports {
		if s := checks.Parse(sr.Labels()).Suite; s != "" {
			seen[s] = true
		}
	}
	if len(seen) == 1 {
		for s := range seen {
			return s
		}
	}
	// The harness names suites "access [fake:nvlink8]"; the name is the
	// part before the backend.
	desc, _, _ := strings.Cut(r.SuiteDescription, " [")
	if name := sanitizeName(desc); name != "" {
		return name
	}
	if r.SuitePath != "" {
		return sanitizeName(filepath.Base(r.SuitePath))
	}
	return "suite"
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func sanitizeName(s string) string {
	return strings.Trim(unsafeName.ReplaceAllString(strings.ToLower(s), "-"), "-.")
}

// Convert turns one suite's Ginkgo report (decoded by DecodeGinkgoJSON)
// into a conformance document.
func Convert(sys System, r SuiteReport, meta RunMeta) Document {
	meta = completeMeta(r, meta)
	suite := suiteName(r, meta)
	var results []Result
	for _, sr := range r.SpecReports {
		if res, ok := convertSpec(sr, r, suite); ok {
			results = append(results, res)
		}
	}
	disambiguate(results)
	setReproCommands(results)
	applyPower(results)
	sortResults(results)
	start, end := timePtr(meta.Start), timePtr(meta.End)
	return Document{
		SchemaVersion: SchemaVersion,
		Tool:          Tool{Name: ToolName, Version: meta.ToolVersion, Commit: meta.Commit},
		Run: Run{ID: meta.RunID, Start: start, End: end, Host: sys.Host, Args: meta.Args,
			LabelFilter: meta.LabelFilter, Seed: meta.Seed},
		System: sys,
		Suites: []SuiteRun{{
			Name: suite, Backend: sys.Backend, Start: start, End: end, Args: meta.Args,
			LabelFilter: meta.LabelFilter, Seed: meta.Seed, Succeeded: r.SuiteSucceeded,
			FailureReasons: nonNil(r.SpecialSuiteFailureReasons),
			SpecsTotal:     r.PreRunStats.TotalSpecs, SpecsRun: r.PreRunStats.SpecsThatWillRun,
		}},
		Results: nonNil(results),
		Summary: Summarize(results),
	}
}

func completeMeta(r SuiteReport, meta RunMeta) RunMeta {
	v, c := ToolVersion()
	if meta.ToolVersion == "" {
		meta.ToolVersion = v
	}
	if meta.Commit == "" {
		meta.Commit = c
	}
	if meta.Args == nil {
		meta.Args = os.Args
	}
	if meta.LabelFilter == "" {
		meta.LabelFilter = r.SuiteConfig.LabelFilter
	}
	if meta.Seed == 0 {
		meta.Seed = r.SuiteConfig.RandomSeed
	}
	if meta.Start.IsZero() {
		meta.Start = r.StartTime
	}
	if meta.End.IsZero() {
		meta.End = r.EndTime
		if meta.End.IsZero() && !meta.Start.IsZero() {
			// ReportAfterSuite runs before Ginkgo stamps the end time.
			meta.End = time.Now()
		}
	}
	return meta
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.UTC().Round(time.Millisecond)
	return &t
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// convertSpec makes the result of one spec; ok is false for specs that were
// not selected (label filter, focus) and suite nodes that passed.
func convertSpec(sr SpecReport, r SuiteReport, suite string) (Result, bool) {
	l := checks.Parse(sr.Labels())
	res := Result{
		Check: l.ID, Family: l.Suite, Kind: l.Kind, Link: l.Link,
		GPU: l.GPU, Src: l.Src, Dst: l.Dst, GPUs: l.TripleGPUs,
		Spec: sr.FullText(), Variant: l.Variant, Labels: nonNil(l.All),
		DurationMS: sr.RunTime.Milliseconds(),
	}
	if res.Family == "" {
		res.Family, _, _ = strings.Cut(res.Check, ".")
		if res.Family == "" || res.Check == "" {
			res.Family = suite
		}
	}
	if !sr.isSpec() {
		if sr.State == SpecPassed || sr.State == SpecSkipped || sr.State == SpecPending {
			return res, false
		}
		// Qualified with the suite: every suite has its BeforeSuite, and a
		// merged run (a broken driver fails them all) must keep each one.
		res.Check = res.Family + ".(" + sr.LeafNodeType.String() + ")"
		res.Kind = "setup"
		res.Spec = strings.TrimSpace(sr.LeafNodeType.String() + " " + sr.LeafNodeText)
	}
	if res.Check == "" {
		res.Check = "(no id) " + sr.FullText()
	}
	switch {
	case len(res.GPUs) == 3:
		res.Target, res.GPU, res.Src, res.Dst = TargetTriple, nil, nil, nil
	case res.Src != nil && res.Dst != nil:
		res.Target, res.GPU = TargetPair, nil
	case res.GPU != nil:
		res.Target = TargetGPU
	default:
		res.Target = TargetSystem
	}
	msg := sr.Failure.Message
	if sr.Failure.ForwardedPanic != "" {
		msg = strings.TrimSpace(msg + "\npanic: " + sr.Failure.ForwardedPanic)
	}
	res.Message = msg
	res.Reason = firstLine(msg)
	switch sr.State {
	case SpecPassed:
		res.Status = StatusPass
	case SpecPending:
		res.Status, res.Reason = StatusSkip, "pending"
	case SpecSkipped:
		if msg == "" {
			// Skipped without a message: either not selected, or never
			// reached because the suite stopped early.
			if !selected(sr, r) {
				return res, false
			}
			res.Status, res.Reason = StatusSkip, "not run: the suite stopped before this spec (--fail-fast?)"
			if len(r.SpecialSuiteFailureReasons) > 0 {
				res.Status = StatusError
				res.Reason = "not run: " + strings.Join(r.SpecialSuiteFailureReasons, "; ")
			}
			res.Message = res.Reason
		} else {
			res.Status = StatusSkip
		}
	case SpecTimedout:
		res.Status = StatusTimeout
	case SpecInterrupted:
		res.Status = StatusError
		if strings.Contains(strings.ToLower(msg), "timeout") {
			res.Status = StatusTimeout
		}
	case SpecFailed:
		res.Status = StatusFail
	default: // panicked, aborted, invalid: the harness broke, not the GPUs
		res.Status = StatusError
	}
	res.Entries = nonNil(specEntries(sr))
	// A spec that ends as an error on purpose (an inconclusive run: neither
	// a pass nor a violation) records why (KindError) and fails with it.
	errMsg, isError := errorOf(res.Entries)
	if isError && res.Status == StatusFail {
		res.Status, res.Message, res.Reason = StatusError, errMsg, firstLine(errMsg)
	}
	if res.Status != StatusPass && res.Status != StatusSkip {
		res.Step = failedStep(sr)
		if loc := sr.Failure.Location; loc.FileName != "" {
			res.Location = fmt.Sprintf("%s:%d", filepath.Base(loc.FileName), loc.LineNumber)
		}
		res.Timeline = renderTimeline(sr, isError)
	}
	res.Contended = isContended(res.Entries)
	res.Metrics, res.Power = digestEntries(res.Entries)
	res.Cause, res.CauseDetail = causeOf(res.Entries)
	return res, true
}

// selected reports whether the spec was meant to run: it matches the label
// filter and no focus or skip strings narrow the run.
func selected(sr SpecReport, r SuiteReport) bool {
	c := r.SuiteConfig
	if len(c.FocusStrings)+len(c.SkipStrings)+len(c.FocusFiles)+len(c.SkipFiles) > 0 {
		return false
	}
	ok, err := matchesLabelFilter(c.LabelFilter, sr.Labels())
	return err == nil && ok
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	const max = 300
	if len(s) > max {
		// Cut on a rune boundary: the text is UTF-8 (GPU0→GPU1), and half
		// a rune would come out of JSON and XML as U+FFFD.
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// failedStep is the step the spec was in: the running step of a timeout's
// progress report, else the last By before the failure.
func failedStep(sr SpecReport) string {
	if s := sr.Failure.ProgressReport.CurrentStepText; s != "" {
		return s
	}
	step := ""
	for _, ev := range sr.SpecEvents {
		if ev.SpecEventType == EventByStart {
			if !sr.Failure.TimelineLocation.Time.IsZero() && ev.TimelineLocation.Time.After(sr.Failure.TimelineLocation.Time) {
				break
			}
			step = ev.Message
		}
	}
	return step
}

func sortResults(rs []Result) {
	sort.SliceStable(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		if a.Family != b.Family {
			return a.Family < b.Family
		}
		if a.Check != b.Check {
			return a.Check < b.Check
		}
		if ta, tb := targetOrder(a), targetOrder(b); ta != tb {
			return ta < tb
		}
		return a.Variant < b.Variant
	})
}

func targetOrder(r Result) int {
	switch {
	case len(r.GPUs) == 3:
		return 1<<29 + r.GPUs[0]<<18 + r.GPUs[1]<<9 + r.GPUs[2]
	case r.Src != nil && r.Dst != nil:
		return 1<<20 + *r.Src<<10 + *r.Dst
	case r.GPU != nil:
		return *r.GPU
	}
	return 1 << 30
}
