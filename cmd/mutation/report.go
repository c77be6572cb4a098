// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/p2pconf/p2pconf/harness/checks"
	"github.com/p2pconf/p2pconf/harness/proc"
	"github.com/p2pconf/p2pconf/harness/report"
)

// specResult is one spec of a run, named the way docs/checks.md and the reports
// name checks: its id: label, and its pair: label when it runs per pair.
type specResult struct {
	ID   string // "access.kernel-remote-write", or the node type for suite nodes ("BeforeSuite")
	Pair string // "0-1", or ""
	Text string // the full spec text, for messages
	// Target is the spec's gpu:, pair: or triple: label, Variant its
	// declared variant key ("" for a check with one spec per target): with
	// the ID they identify the spec across runs, whatever its text says.
	Target, Variant string
	State           types.SpecState
	Message         string // the first line of the failure message
	// FailedIn is the node the failure came from: the spec's own body
	// (It), or a setup or cleanup node around it.
	FailedIn types.NodeType
	// Poisoned: the failure quotes a context that a fault in an earlier
	// spec of the same run left unusable, so it is no evidence about this
	// spec's own check. (The first spec to quote the poisoned context
	// faulted itself: the driver reports a kernel's fault as the sticky
	// error of the context, at the next synchronisation.)
	Poisoned bool
	// Inconclusive: the spec ended as an error on purpose (it could not
	// tell), which is no verdict either way.
	Inconclusive bool
	// HelperStep is the step of a helper process that failed, as the
	// failure quotes it ("" when no helper failed); HelperFailed says one
	// did (before its first step, HelperStep is empty).
	HelperStep   string
	HelperFailed bool
}

// helperFailure matches how package proc words a helper's failure, with
// the step it was in.
var helperFailure = regexp.MustCompile(`helper \S+ (?:failed|timed out|was killed|crashed) (?:in step ("(?:[^"\\]|\\.)*")|before its first step)`)

// failedHelperStep finds a helper failure quoted in msg and the step it
// failed in.
func failedHelperStep(msg string) (step string, failed bool) {
	m := helperFailure.FindStringSubmatch(msg)
	if m == nil {
		return "", false
	}
	if m[1] != "" {
		if s, err := strconv.Unquote(m[1]); err == nil {
			return s, true
		}
	}
	return "", true
}

// poisonMark is how the fake backend words an error from a context that an
// earlier fault poisoned (harness/fake's ctx check).
const poisonMark = "poisoned by an earlier fault"

// driverError matches a failed driver call as package cuerr words it:
// "cuCtxDisablePeerAccess: CUDA_ERROR_PEER_ACCESS_NOT_ENABLED (705)".
var driverError = regexp.MustCompile(`\bcu[A-Z][A-Za-z0-9_]*: CUDA_ERROR_[A-Z0-9_]+ \(-?[0-9]+\)`)

// cause says why a failed spec failed: "own assertion" when the spec's body
// failed on a check of its own, "driver error in cleanup" when the body
// passed and a release the spec registered (DeferCleanup) failed with a
// driver call's error; a panic, a failure in setup, any other cleanup
// failure, a timeout or an inherited poisoned context is something else.
//
// A driver call's error in the spec's own cleanup counts: the cleanup
// releases what the spec's check took (disables the peer access it
// enabled, frees its memory, destroys its streams), so a driver that
// refuses that release broke a documented contract of the resources the
// check used, in the spec that used them, and the same release passed
// without the defect (newFailures compares with the clean run). A disable
// that also disables the reverse direction shows only there, when the
// cleanup of the reverse direction is refused. A cleanup failure without a
// driver error (the fixture's leak check, a closed helper) and any cleanup
// failure quoting a context an earlier spec's fault poisoned stay
// uncounted: they prove nothing about a driver contract.
func (s specResult) cause() string {
	switch {
	case !s.failed():
		return ""
	case s.Inconclusive:
		return report.ErrorInconclusive
	case s.State == types.SpecStatePanicked:
		return "panic"
	case s.State != types.SpecStateFailed:
		return s.State.String()
	case s.Poisoned:
		return "poisoned context"
	case s.FailedIn == types.NodeTypeCleanupAfterEach && driverError.MatchString(s.Message):
		return causeCleanup
	case s.FailedIn != types.NodeTypeIt:
		return "in " + s.FailedIn.String()
	case s.HelperFailed && !strings.HasPrefix(s.HelperStep, proc.CheckStepPrefix):
		return "helper failed outside its check"
	}
	return causeOwn
}

// causeOwn and causeCleanup are the causes that count as catching a defect
// (counts).
const (
	causeOwn     = "own assertion"
	causeCleanup = "driver error in cleanup"
)

// counts reports whether the spec's failure catches a defect.
func (s specResult) counts() bool {
	c := s.cause()
	return c == causeOwn || c == causeCleanup
}

// Name is "access.kernel-remote-write[0-1]".
func (s specResult) Name() string {
	if s.Pair == "" {
		return s.ID
	}
	return s.ID + "[" + s.Pair + "]"
}

// key identifies a spec across runs of one suite on one preset: its check,
// its target and its declared variant key, not its display text (a spec
// without an id: label has its text in its ID).
func (s specResult) key() string { return s.ID + "\x00" + s.Target + "\x00" + s.Variant }

func (s specResult) failed() bool { return s.State.Is(types.SpecStateFailureStates) }

// runSummary is what one run of a suite reported.
type runSummary struct {
	Specs                     []specResult
	Passed, Skipped, Failed   int
	SuiteFailure              string // SpecialSuiteFailureReasons, joined
	SuiteSucceeded, HasReport bool
}

// readReport parses a Ginkgo JSON report (a list of suite reports).
func readReport(path string) (runSummary, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return runSummary{}, err
	}
	var reports []types.Report
	if err := json.Unmarshal(raw, &reports); err != nil {
		return runSummary{}, fmt.Errorf("%s is not a Ginkgo JSON report: %w", path, err)
	}
	if len(reports) == 0 {
		return runSummary{}, fmt.Errorf("%s holds no suite report", path)
	}
	sum := runSummary{HasReport: true, SuiteSucceeded: true}
	for _, r := range reports {
		origins := poisonOrigins(r.SpecReports)
		sum.SuiteSucceeded = sum.SuiteSucceeded && r.SuiteSucceeded
		if len(r.SpecialSuiteFailureReasons) > 0 {
			sum.SuiteFailure = strings.Join(r.SpecialSuiteFailureReasons, "; ")
		}
		for _, sr := range r.SpecReports {
			s := fromSpecReport(sr, origins)
			switch {
			case s.failed():
				sum.Failed++
			case sr.State == types.SpecStatePassed && sr.LeafNodeType == types.NodeTypeIt:
				sum.Passed++
			case sr.State.Is(types.SpecStateSkipped | types.SpecStatePending):
				sum.Skipped++
			}
			if sr.LeafNodeType == types.NodeTypeIt || s.failed() {
				sum.Specs = append(sum.Specs, s)
			}
		}
	}
	return sum, nil
}

// poisonOrigins maps each fault quoted as having poisoned a context (the
// fault's detail, which names the address, so it tells one process's fault
// from another's) to the start time of the first spec, in run order, that
// quoted it: that spec's own fault poisoned the context, and the driver
// reports a kernel's fault as the context's sticky error at the next
// synchronisation. A spec that started later and quotes the same fault
// inherited it.
func poisonOrigins(specs types.SpecReports) map[string]time.Time {
	first := map[string]time.Time{}
	for _, sr := range specs {
		if !sr.State.Is(types.SpecStateFailureStates) {
			continue
		}
		for _, f := range quotedFaults(sr.Failure.Message) {
			if t, ok := first[f]; !ok || sr.StartTime.Before(t) {
				first[f] = sr.StartTime
			}
		}
	}
	return first
}

// quotedFaults lists the fault details a failure message quotes after
// poisonMark.
func quotedFaults(msg string) []string {
	var out []string
	for {
		_, rest, ok := strings.Cut(msg, poisonMark)
		if !ok {
			return out
		}
		rest = strings.TrimLeft(rest, ": ")
		end := strings.IndexAny(rest, "\n;\"")
		if end < 0 {
			end = len(rest)
		}
		out = append(out, rest[:end])
		msg = rest
	}
}

// endedAsError reports whether the spec recorded that it ends as an error
// (report.KindError), not on a check of its own.
func endedAsError(sr types.SpecReport) bool {
	for _, e := range sr.ReportEntries {
		var v struct {
			Kind string `json:"kind"`
		}
		if e.Name == report.EntryName && json.Unmarshal([]byte(e.Value.AsJSON), &v) == nil && v.Kind == report.KindError {
			return true
		}
	}
	return false
}

// inherited says whether a failure quotes only faults that an earlier spec
// quoted first.
func inherited(sr types.SpecReport, origins map[string]time.Time) bool {
	faults := quotedFaults(sr.Failure.Message)
	for _, f := range faults {
		if t, ok := origins[f]; !ok || !t.Before(sr.StartTime) {
			return false
		}
	}
	return len(faults) > 0
}

func fromSpecReport(sr types.SpecReport, origins map[string]time.Time) specResult {
	s := specResult{Text: sr.FullText(), State: sr.State}
	l := checks.Parse(sr.Labels())
	s.ID, s.Pair, s.Variant = l.ID, l.Pair, l.Variant
	switch {
	case l.Pair != "":
		s.Target = checks.LabelPair + l.Pair
	case l.Triple != "":
		s.Target = checks.LabelTriple + l.Triple
	case l.GPUText != "":
		s.Target = checks.LabelGPU + l.GPUText
	}
	if s.ID == "" {
		s.ID = sr.LeafNodeType.String()
		if sr.LeafNodeType == types.NodeTypeIt {
			s.ID = "(no id) " + sr.LeafNodeText
		}
	}
	s.FailedIn = sr.Failure.FailureNodeType
	s.Poisoned = inherited(sr, origins)
	s.Inconclusive = endedAsError(sr)
	s.HelperStep, s.HelperFailed = failedHelperStep(sr.Failure.Message)
	msg := sr.Failure.Message
	if sr.State == types.SpecStatePanicked && sr.Failure.ForwardedPanic != "" {
		msg = "panic: " + sr.Failure.ForwardedPanic
	}
	s.Message, _, _ = strings.Cut(strings.TrimSpace(msg), "\n")
	return s
}

// newFailures lists the specs that failed in run but not in base (the
// baseline run of the same suite on the same preset without a defect),
// sorted by name.
func newFailures(base, run runSummary) []specResult {
	failedBefore := map[string]bool{}
	for _, s := range base.Specs {
		if s.failed() {
			failedBefore[s.key()] = true
		}
	}
	var out []specResult
	for _, s := range run.Specs {
		if s.failed() && !failedBefore[s.key()] {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// failures lists the failed specs of a run, sorted by name.
func failures(run runSummary) []specResult {
	return newFailures(runSummary{}, run)
}

// groupByID shortens a failure list for printing: one entry per ID with
// the pairs it failed on ("access.kernel-remote-write [0-1 1-0]").
func groupByID(specs []specResult) []string {
	var ids []string
	pairs := map[string][]string{}
	for _, s := range specs {
		if _, ok := pairs[s.ID]; !ok {
			ids = append(ids, s.ID)
			pairs[s.ID] = nil
		}
		if s.Pair != "" && !slices.Contains(pairs[s.ID], s.Pair) {
			pairs[s.ID] = append(pairs[s.ID], s.Pair)
		}
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id
		if len(pairs[id]) > 0 {
			out[i] += " [" + strings.Join(pairs[id], " ") + "]"
		}
	}
	return out
}
