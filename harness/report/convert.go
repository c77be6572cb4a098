// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"
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
}

// labels is a spec's p2pconf labels, parsed.
type labels struct {
	id, suite, kind, gpus, link string
	gpu, src, dst               *int
	all                         []string
}

var pairLabel = regexp.MustCompile(`^(\d+)-(\d+)$`)

func parseLabels(all []string) labels {
	l := labels{all: all}
	for _, s := range all {
		k, v, ok := strings.Cut(s, ":")
		if !ok {
			continue
		}
		switch k {
		case "id":
			l.id = v
		case "suite":
			l.suite = v
		case "kind":
			l.kind = v
		case "gpus":
			l.gpus = v
		case "link":
			l.link = v
		case "gpu":
			if n, err := strconv.Atoi(v); err == nil {
				l.gpu = &n
			}
		case "pair":
			if m := pairLabel.FindStringSubmatch(v); m != nil {
				a, _ := strconv.Atoi(m[1])
				b, _ := strconv.Atoi(m[2])
				l.src, l.dst = &a, &b
			}
		}
	}
	return l
}

// suiteName picks the suite's name (see RunMeta.Suite).
func suiteName(r types.Report, meta RunMeta) string {
	if meta.Suite != "" {
		return meta.Suite
	}
	if s := parseLabels(r.SuiteLabels).suite; s != "" {
		return s
	}
	seen := map[string]bool{}
	for _, sr := range r.SpecReports {
		if s := parseLabels(sr.Labels()).suite; s != "" {
			seen[s] = true
		}
	}
	if len(seen) == 1 {
		for s := range seen {
			return s
		}
	}
	if name := sanitizeName(r.SuiteDescription); name != "" {
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

// Convert turns one suite's Ginkgo report into a conformance document.
func Convert(sys System, r types.Report, meta RunMeta) Document {
	meta = completeMeta(r, meta)
	suite := suiteName(r, meta)
	var results []Result
	for _, sr := range r.SpecReports {
		if res, ok := convertSpec(sr, r, suite); ok {
			results = append(results, res)
		}
	}
	disambiguate(results)
	applyPower(results)
	sortResults(results)
	start, end := timePtr(meta.Start), timePtr(meta.End)
	return Document{
		SchemaVersion: SchemaVersion,
		Tool:          Tool{Name: ToolName, Version: meta.ToolVersion, Commit: meta.Commit},
		Run: Run{Start: start, End: end, Host: sys.Host, Args: meta.Args,
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

func completeMeta(r types.Report, meta RunMeta) RunMeta {
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
func convertSpec(sr types.SpecReport, r types.Report, suite string) (Result, bool) {
	l := parseLabels(sr.Labels())
	res := Result{
		Check: l.id, Family: l.suite, Kind: l.kind, Link: l.link,
		GPU: l.gpu, Src: l.src, Dst: l.dst,
		Spec: sr.FullText(), Labels: nonNil(l.all),
		DurationMS: sr.RunTime.Milliseconds(),
	}
	if res.Family == "" {
		res.Family, _, _ = strings.Cut(res.Check, ".")
		if res.Family == "" || res.Check == "" {
			res.Family = suite
		}
	}
	isSpec := sr.LeafNodeType.Is(types.NodeTypeIt)
	if !isSpec {
		if sr.State.Is(types.SpecStatePassed | types.SpecStateSkipped | types.SpecStatePending) {
			return res, false
		}
		res.Check = "(" + sr.LeafNodeType.String() + ")"
		res.Kind = "setup"
		res.Spec = strings.TrimSpace(sr.LeafNodeType.String() + " " + sr.LeafNodeText)
	}
	if res.Check == "" {
		res.Check = "(no id) " + sr.FullText()
	}
	switch {
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
	switch {
	case sr.State.Is(types.SpecStatePassed):
		res.Status = StatusPass
	case sr.State.Is(types.SpecStatePending):
		res.Status, res.Reason = StatusSkip, "pending"
	case sr.State.Is(types.SpecStateSkipped):
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
	case sr.State.Is(types.SpecStateTimedout):
		res.Status = StatusTimeout
	case sr.State.Is(types.SpecStateInterrupted):
		res.Status = StatusError
		if strings.Contains(strings.ToLower(msg), "timeout") {
			res.Status = StatusTimeout
		}
	case sr.State.Is(types.SpecStateFailed):
		res.Status = StatusFail
	default: // panicked, aborted, invalid: the harness broke, not the GPUs
		res.Status = StatusError
	}
	if res.Status != StatusPass && res.Status != StatusSkip {
		res.Step = failedStep(sr)
		if loc := sr.Failure.Location; loc.FileName != "" {
			res.Location = fmt.Sprintf("%s:%d", filepath.Base(loc.FileName), loc.LineNumber)
		}
		res.Timeline = reporters.RenderTimeline(sr, true)
	}
	res.Entries = nonNil(specEntries(sr))
	res.Metrics, res.Power = digestEntries(res.Entries)
	return res, true
}

// selected reports whether the spec was meant to run: it matches the label
// filter and no focus or skip strings narrow the run.
func selected(sr types.SpecReport, r types.Report) bool {
	c := r.SuiteConfig
	if len(c.FocusStrings)+len(c.SkipStrings)+len(c.FocusFiles)+len(c.SkipFiles) > 0 {
		return false
	}
	ok, err := sr.MatchesLabelFilter(c.LabelFilter)
	return err == nil && ok
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	const max = 300
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}

// failedStep is the step the spec was in: the running step of a timeout's
// progress report, else the last By before the failure.
func failedStep(sr types.SpecReport) string {
	if s := sr.Failure.ProgressReport.CurrentStepText; s != "" {
		return s
	}
	step := ""
	for _, ev := range sr.SpecEvents {
		if ev.SpecEventType.Is(types.SpecEventByStart) {
			if !sr.Failure.TimelineLocation.Time.IsZero() && ev.TimelineLocation.Time.After(sr.Failure.TimelineLocation.Time) {
				break
			}
			step = ev.Message
		}
	}
	return step
}

// specEntries decodes the spec's p2pconf entries. In the process that ran
// the spec the value is the Entry itself; read back from JSON it is AsJSON.
func specEntries(sr types.SpecReport) []Entry {
	var out []Entry
	for _, re := range sr.ReportEntries {
		if re.Name != EntryName {
			continue
		}
		data := []byte(re.Value.AsJSON)
		if len(data) == 0 {
			var err error
			if data, err = json.Marshal(re.GetRawValue()); err != nil {
				out = append(out, Entry{Kind: KindFinding, Name: "undecodable-entry", Value: err.Error()})
				continue
			}
		}
		var e Entry
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&e); err != nil {
			out = append(out, Entry{Kind: KindFinding, Name: "undecodable-entry", Value: string(data)})
			continue
		}
		out = append(out, e)
	}
	return out
}

// digestEntries collects metrics (numbers or null) and the power verdict.
func digestEntries(entries []Entry) (map[string]*float64, *bool) {
	metrics := map[string]*float64{}
	var power *bool
	for _, e := range entries {
		switch e.Kind {
		case KindMetric:
			name := e.Name
			for i := 2; ; i++ {
				if _, dup := metrics[name]; !dup {
					break
				}
				name = fmt.Sprintf("%s#%d", e.Name, i)
			}
			metrics[name] = number(e.Value)
		case KindPower:
			seen := truthy(e.Value)
			if power == nil || seen {
				power = &seen
			}
		}
	}
	return metrics, power
}

func number(v any) *float64 {
	var f float64
	switch x := v.(type) {
	case json.Number:
		var err error
		if f, err = x.Float64(); err != nil {
			return nil
		}
	case float64:
		f = x
	case float32:
		f = float64(x)
	case int:
		f = float64(x)
	case int64:
		f = float64(x)
	case uint64:
		f = float64(x)
	default:
		return nil
	}
	return &f
}

// truthy reads a power value: true, a positive count, or an object with a
// true "observed" field.
func truthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case map[string]any:
		return truthy(x["observed"])
	}
	if n := number(v); n != nil {
		return *n > 0
	}
	return false
}

// applyPower marks each conf result whose check a mutant on the same
// target names in a power entry (the entry's name is the conf check's ID).
func applyPower(results []Result) {
	type key struct{ check, target string }
	seen := map[key]bool{}
	for _, r := range results {
		for _, e := range r.Entries {
			if e.Kind == KindPower {
				k := key{e.Name, r.TargetName()}
				seen[k] = seen[k] || truthy(e.Value)
			}
		}
	}
	for i := range results {
		results[i].PowerShown = nil
		if v, ok := seen[key{results[i].Check, results[i].TargetName()}]; ok {
			results[i].PowerShown = &v
		}
	}
}

// disambiguate sets Variant where one check has several specs on a target.
func disambiguate(results []Result) {
	byKey := map[string][]int{}
	for i, r := range results {
		byKey[r.Key()] = append(byKey[r.Key()], i)
	}
	for _, idx := range byKey {
		if len(idx) < 2 {
			continue
		}
		seen := map[string]int{}
		for _, i := range idx {
			v := variantText(results[i])
			seen[v]++
			if seen[v] > 1 {
				v = fmt.Sprintf("%s #%d", v, seen[v])
			}
			results[i].Variant = v
		}
	}
}

// variantText is the spec text without the target's GPU names, so the same
// variant keeps its name across runs on other pairs.
var gpuWord = regexp.MustCompile(`\s*GPU\d+(\s*(→|->)\s*GPU\d+)?\s*`)

func variantText(r Result) string {
	t := strings.TrimSpace(gpuWord.ReplaceAllString(r.Spec, " "))
	if t == "" {
		t = r.Spec
	}
	return t
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
	case r.Src != nil && r.Dst != nil:
		return 1<<20 + *r.Src<<10 + *r.Dst
	case r.GPU != nil:
		return *r.GPU
	}
	return 1 << 30
}
