// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"fmt"

	"github.com/p2pconf/p2pconf/harness/deviations"
)

// AcceptKnown marks the failures of doc that s accepts with the entry's
// note (Result.KnownDeviation), matching each by check, variant key, the
// run's driver version (System.DriverVersion) and the cause the suite
// found. Every earlier mark is cleared first, so a document read back
// never carries an acceptance the file given now does not make: with a nil
// s nothing is accepted. Only status fail is ever accepted (a timeout or a
// harness error is no known behaviour of the GPUs), and a result keeps its
// status. It returns how many results it marked.
func AcceptKnown(doc *Document, s *deviations.Set) int {
	n := 0
	for i := range doc.Results {
		r := &doc.Results[i]
		r.KnownDeviation = ""
		if s == nil || r.Status != StatusFail || r.Kind == "setup" {
			continue
		}
		if e, ok := s.Match(r.Check, r.Variant, doc.System.DriverVersion, r.Cause); ok {
			r.KnownDeviation = e.Text()
			n++
		}
	}
	return n
}

// Accepted reports whether the result is a failure a known-deviations file
// accepted (AcceptKnown).
func (r Result) Accepted() bool { return r.Status == StatusFail && r.KnownDeviation != "" }

// ReasonLine is the reason a report prints beside a result's status: the
// reason ("-" when there is none) and, for an accepted failure, its
// known-deviation note.
func (r Result) ReasonLine() string {
	s := orDash(r.Reason)
	if r.Accepted() {
		s += " — known deviation: " + r.KnownDeviation
	}
	return s
}

// AcceptedCount is the number of accepted failures of doc.
func AcceptedCount(doc Document) int {
	n := 0
	for _, r := range doc.Results {
		if r.Accepted() {
			n++
		}
	}
	return n
}

// acceptedNote is the line under a report's counts when failures were
// accepted, "" otherwise.
func acceptedNote(doc Document) string {
	n := AcceptedCount(doc)
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%s accepted as known deviations: still failures, listed with their notes under Failures; only the exit status lets them pass",
		plural(n, "failure"))
}
