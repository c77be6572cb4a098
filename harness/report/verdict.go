// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/p2pconf/p2pconf/harness/checks"
)

// KnownSuites are the suites of the check catalogue, sorted: what a run of
// every suite is expected to leave results from.
func KnownSuites() []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range checks.All() {
		if !seen[c.Family] {
			seen[c.Family] = true
			out = append(out, c.Family)
		}
	}
	sort.Strings(out)
	return out
}

// MissingSuites are the expected suites that left nothing in doc: no suite
// entry and no result. A suite is known by its name or by its binary
// ("./access.test", what dist/run.sh launches). A suite that started writes
// its file even when a label filter left it no spec, so a suite missing here
// did not start, was stopped before its report, or was not selected.
func MissingSuites(doc Document, expected []string) []string {
	have := map[string]bool{}
	for _, s := range doc.Suites {
		have[s.Name] = true
		if len(s.Args) > 0 {
			have[strings.TrimSuffix(filepath.Base(s.Args[0]), ".test")] = true
		}
	}
	for _, r := range doc.Results {
		have[r.Family] = true
	}
	var out []string
	for _, s := range expected {
		if !have[s] {
			out = append(out, s)
		}
	}
	return out
}

// Verdict is what a run says for an exit status: the checks that failed on
// the GPUs, and what keeps the run from being complete.
type Verdict struct {
	// Failed are conformance failures: checks that failed or timed out.
	Failed []Result
	// Accepted are failures a known-deviations file accepted
	// (AcceptKnown): still failures in every report, but they alone do not
	// make the run fail.
	Accepted []Result
	// Incomplete says why the run cannot be judged whole: suites that did
	// not run or stopped early, harness errors, setup failures, no result.
	Incomplete []string
}

// Judge reads a merged document against the suites the run was meant to
// run. A failed suite setup (BeforeSuite) or a result with status error is
// the harness's problem, not a verdict on the GPUs, so it makes the run
// incomplete rather than failed.
func Judge(doc Document, expected []string) Verdict {
	var v Verdict
	errs := 0
	for _, r := range doc.Results {
		switch {
		case r.Status == StatusError:
			errs++
		case r.Kind == "setup" && r.Failed():
			v.Incomplete = append(v.Incomplete, fmt.Sprintf("%s: suite setup %s: %s", r.Family, r.Status, orDash(r.Reason)))
		case r.Accepted():
			v.Accepted = append(v.Accepted, r)
		case r.Failed():
			v.Failed = append(v.Failed, r)
		}
	}
	if missing := MissingSuites(doc, expected); len(missing) > 0 {
		v.Incomplete = append(v.Incomplete, fmt.Sprintf("%s did not run: %s", plural(len(missing), "suite"), strings.Join(missing, ", ")))
	}
	for _, s := range doc.Suites {
		if len(s.FailureReasons) > 0 {
			v.Incomplete = append(v.Incomplete, fmt.Sprintf("%s stopped early: %s", s.Name, strings.Join(s.FailureReasons, "; ")))
		}
	}
	if errs > 0 {
		v.Incomplete = append(v.Incomplete, fmt.Sprintf("%s with a harness error (status error)", plural(errs, "result")))
	}
	if len(doc.Results) == 0 {
		v.Incomplete = append(v.Incomplete, "no results: no spec ran (check the label filter)")
	}
	return v
}
