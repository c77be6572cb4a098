// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"encoding/json"
	"fmt"
	"time"
)

// SchemaVersion is the version of the conformance.json layout. It grows by
// one whenever a field changes meaning or disappears; adding a field does not
// change it. reports/README.md documents every field.
const SchemaVersion = 1

// ToolName is the tool named in every document.
const ToolName = "p2pconf"

// Result statuses. Every result has exactly one.
const (
	StatusPass    = "pass"
	StatusFail    = "fail"
	StatusSkip    = "skip"
	StatusTimeout = "timeout"
	StatusError   = "error" // a harness or infrastructure problem, not a verdict on the GPUs
)

// Target kinds: what a result is about.
const (
	TargetGPU    = "gpu"    // one GPU (label gpu:<n>)
	TargetPair   = "pair"   // an ordered pair (label pair:<src>-<dst>)
	TargetTriple = "triple" // three GPUs in role order (label triple:<a>-<b>-<c>)
	TargetSystem = "system" // the machine (3+ GPU checks) or the suite itself (setup nodes)
)

// Document is one conformance.json: the results of one run on one host,
// either of one suite (<suite>.conformance.json) or merged over all suites
// of a run folder (conformance.json).
type Document struct {
	SchemaVersion int        `json:"schema_version"`
	Tool          Tool       `json:"tool"`
	Run           Run        `json:"run"`
	System        System     `json:"system"`
	Suites        []SuiteRun `json:"suites"`
	Results       []Result   `json:"results"`
	Summary       Summary    `json:"summary"`
	// Schedule says which suite processes ran at the same time, on which
	// GPUs (p2pconf run); absent for a run of one process per suite.
	Schedule *Schedule `json:"schedule,omitempty"`
}

// Tool names the program that wrote the results.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Commit  string `json:"commit"`
}

// Run says when, where and how the suites ran. In a merged document it spans
// all suites (earliest start, latest end); args, label_filter and seed are
// those of the first suite, and each suite keeps its own in Suites.
type Run struct {
	// ID names the run the results belong to (P2PCONF_RUN_ID, see
	// CurrentRunID); a folder never merges results of two IDs.
	ID          string     `json:"id,omitempty"`
	Start       *time.Time `json:"start"`
	End         *time.Time `json:"end"`
	Host        string     `json:"host"`
	Args        []string   `json:"args"`
	LabelFilter string     `json:"label_filter"`
	Seed        int64      `json:"seed"`
}

// SuiteRun is one suite binary's part of a run.
type SuiteRun struct {
	Name        string     `json:"name"`
	Backend     string     `json:"backend"`
	Start       *time.Time `json:"start"`
	End         *time.Time `json:"end"`
	Args        []string   `json:"args"`
	LabelFilter string     `json:"label_filter"`
	Seed        int64      `json:"seed"`
	// Succeeded is Ginkgo's verdict on the whole suite.
	Succeeded bool `json:"succeeded"`
	// FailureReasons are Ginkgo's suite-level reasons (interrupted, suite
	// timeout, --fail-on-empty, ...).
	FailureReasons []string `json:"failure_reasons"`
	// SpecsTotal and SpecsRun are Ginkgo's pre-run counts.
	SpecsTotal int `json:"specs_total"`
	SpecsRun   int `json:"specs_run"`
}

// Result is one spec's outcome: one check on one GPU, one ordered pair, or
// the whole machine.
type Result struct {
	Check  string `json:"check"`  // catalogue ID, e.g. "access.peer-copy"
	Family string `json:"family"` // suite: label, e.g. "access"
	Kind   string `json:"kind"`   // conf, info, mutant (or "setup" for a suite node)
	Target string `json:"target"` // gpu, pair or system
	GPU    *int   `json:"gpu"`    // for Target gpu, else null
	Src    *int   `json:"src"`    // for Target pair, else null
	Dst    *int   `json:"dst"`    // for Target pair, else null
	// GPUs are a triple's three GPUs in role order, for Target triple.
	GPUs []int  `json:"gpus,omitempty"`
	Link string `json:"link,omitempty"`
	// Variant is the spec's declared variant key (its variant: label, such
	// as "4-kib-no-peer"): it tells apart several specs of one check on one
	// target and stays the same on every GPU or pair and when the spec's
	// text is reworded. Empty when the spec declares none (a check with one
	// spec per target, the usual case).
	Variant string `json:"variant,omitempty"`
	Status  string `json:"status"`
	// Reason is one line: the skip reason ("needs X (found Y)") or the first
	// line of the failure message.
	Reason      string `json:"reason"`
	Cause       string `json:"cause,omitempty"`
	CauseDetail string `json:"cause_detail,omitempty"`
	// Message is Ginkgo's whole failure or skip message.
	Message string `json:"message"`
	// Step is the By step the spec was in when it failed or timed out.
	Step string `json:"step,omitempty"`
	// Location is file:line of the failure.
	Location string `json:"location,omitempty"`
	// Metrics are the metric entries by name: numbers, or null where a
	// metric has no numeric value. A repeated name gets "#2", "#3".
	Metrics map[string]*float64 `json:"metrics"`
	// Power is, on a mutant's result, true when its power entries say its
	// weak outcome was observed, false when they say it was not, null
	// without power entries.
	Power *bool `json:"power"`
	// PowerShown is, on a conf check's result, true when a mutant on the
	// same target observed the weak outcome that gives this check power (a
	// "power-gated pass"), false when mutants for it ran there and saw
	// nothing ("pass, no power shown"), null when no mutant names it.
	PowerShown *bool `json:"power_shown"`
	// PowerFrom names the pair whose mutants gave PowerShown, when they
	// ran there instead of on this result's own pair (p2pconf run
	// --mutants representative: the same test and placement on the
	// representative pair of the same link class); empty otherwise.
	PowerFrom  string   `json:"power_from,omitempty"`
	Entries    []Entry  `json:"entries"`
	DurationMS int64    `json:"duration_ms"`
	Spec       string   `json:"spec"` // the full spec text
	Labels     []string `json:"labels"`
	// Timeline is Ginkgo's rendering of what happened, kept for results
	// that did not pass (it becomes the JUnit failure body).
	Timeline string `json:"timeline,omitempty"`
	// Contended is true when another process used the GPUs while the
	// check measured (it then ends as an error): its figures are not the
	// hardware's.
	Contended bool `json:"contended,omitempty"`
	// Shard is the process of the schedule that ran the spec
	// (Schedule.Rounds[].Processes[].Shard), empty without a schedule.
	Shard string `json:"shard,omitempty"`
	// Repro is, on a failing conf result of a reproducible check, the
	// command that writes its standalone C reproducer (ReproCommand).
	Repro string `json:"repro,omitempty"`
	// KnownDeviation is, on a failure a known-deviations file accepts
	// (p2pconf run/report/diff --known-deviations), that entry's note,
	// reference and file:line. The result stays a failure; only the run's
	// exit status lets it pass (Verdict.Accepted).
	KnownDeviation string `json:"known_deviation,omitempty"`
}

// Summary counts results by status.
type Summary struct {
	Pass     int                `json:"pass"`
	Fail     int                `json:"fail"`
	Skip     int                `json:"skip"`
	Timeout  int                `json:"timeout"`
	Error    int                `json:"error"`
	Total    int                `json:"total"`
	ByFamily map[string]Summary `json:"by_family,omitempty"`
}

func (s *Summary) add(status string) {
	s.Total++
	switch status {
	case StatusPass:
		s.Pass++
	case StatusFail:
		s.Fail++
	case StatusSkip:
		s.Skip++
	case StatusTimeout:
		s.Timeout++
	default:
		s.Error++
	}
}

// Bad is the number of results that did not pass and were not skipped.
func (s Summary) Bad() int { return s.Fail + s.Timeout + s.Error }

// Summarize counts results by status, in total and per family.
func Summarize(results []Result) Summary {
	s := Summary{ByFamily: map[string]Summary{}}
	for _, r := range results {
		s.add(r.Status)
		f := s.ByFamily[r.Family]
		f.add(r.Status)
		s.ByFamily[r.Family] = f
	}
	return s
}

// TargetName names what a result is about: "GPU3", "GPU0→GPU1",
// "GPU0→GPU1→GPU2" or "system".
func (r Result) TargetName() string {
	switch {
	case len(r.GPUs) == 3:
		return fmt.Sprintf("GPU%d→GPU%d→GPU%d", r.GPUs[0], r.GPUs[1], r.GPUs[2])
	case r.Src != nil && r.Dst != nil:
		return fmt.Sprintf("GPU%d→GPU%d", *r.Src, *r.Dst)
	case r.GPU != nil:
		return fmt.Sprintf("GPU%d", *r.GPU)
	}
	return "system"
}

// Key identifies a result within one host's run: check, target and variant.
func (r Result) Key() string {
	k := r.Check + " " + r.TargetName()
	if r.Variant != "" {
		k += " (" + r.Variant + ")"
	}
	return k
}

// CauseEntry is the name of the finding that says why a forbidden
// outcome showed: its value has "cause" (compiler, hardware or
// undetermined) and "detail", which the result's Cause and CauseDetail
// carry.
const CauseEntry = "cause"

// CauseLine is the one line a ticket quotes, "cause: compiler — the weak
// load of x in role 1's poll loop is merged …; at JIT level 0: 0 of N", or
// "" for a result without a cause.
func (r Result) CauseLine() string {
	if r.Cause == "" {
		return ""
	}
	return "cause: " + r.Cause + " — " + r.CauseDetail
}

// causeOf reads the cause finding of a spec's entries.
func causeOf(entries []Entry) (cause, detail string) {
	for _, e := range entries {
		if e.Kind != KindFinding || e.Name != CauseEntry {
			continue
		}
		if m, ok := e.Value.(map[string]any); ok {
			cause, _ = m["cause"].(string)
			detail, _ = m["detail"].(string)
		}
	}
	return cause, detail
}

// Failed reports whether the result is a fail, timeout or error.
func (r Result) Failed() bool {
	return r.Status == StatusFail || r.Status == StatusTimeout || r.Status == StatusError
}

// DecodeDocument reads a conformance.json and checks its schema version.
func DecodeDocument(data []byte) (Document, error) {
	var d Document
	if err := json.Unmarshal(data, &d); err != nil {
		return d, fmt.Errorf("decoding conformance document: %w", err)
	}
	if d.SchemaVersion == 0 {
		return d, fmt.Errorf("not a p2pconf conformance document (no schema_version)")
	}
	if d.SchemaVersion > SchemaVersion {
		return d, fmt.Errorf("conformance document has schema_version %d; this p2pconf reads up to %d (update p2pconf)",
			d.SchemaVersion, SchemaVersion)
	}
	return d, nil
}

// IsFake reports whether the results came from something other than the
// CUDA driver (the fake backend, or an unknown source).
func (s System) IsFake() bool { return s.Backend != "cuda" }
