// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"strings"
	"testing"

	"github.com/p2pconf/p2pconf/harness/deviations"
)

// acceptedRun is fake2 with two passing results turned into failures whose
// cause the suite found to be the compiler: the first of checkA, the first
// of checkB. It returns the run and the two keys.
func acceptedRun(t *testing.T) ([]Document, string, string) {
	t.Helper()
	a, b := checkA, checkB
	var ka, kb string
	docs := mutate(loadRun(t, "testdata/fake2"), func(r *Result) bool {
		if r.Status == StatusPass && ((r.Check == a && ka == "") || (r.Check == b && kb == "")) {
			r.Status, r.Reason, r.Cause = StatusFail, "forbidden outcome seen", "compiler"
			if r.Check == a {
				ka = r.Key()
			} else {
				kb = r.Key()
			}
		}
		return true
	})
	if ka == "" || kb == "" {
		t.Fatalf("fake2 has no passing %s or %s", a, b)
	}
	return docs, ka, kb
}

func deviationSet(t *testing.T, text string) *deviations.Set {
	t.Helper()
	s, err := deviations.Parse("known.txt", []byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func entryFor(check, driver, cause string) string {
	return "check: " + check + "\nvariant: *\ndriver: " + driver + "\ncause: " + cause + "\nnote: the compiler merges a load\n"
}

const (
	checkA = "access.kernel-remote-write"
	checkB = "ordering.flag-handoff-sys"
)

func TestAcceptKnownKeepsTheFailure(t *testing.T) {
	docs, ka, kb := acceptedRun(t)
	doc := Merge(docs)
	s := deviationSet(t, entryFor(checkA, "580.x", "compiler")+entryFor("access.local-copy", "*", "any"))
	if n := AcceptKnown(&doc, s); n != 1 {
		t.Fatalf("accepted %d, want 1", n)
	}
	ra, rb := findResult(t, doc, ka), findResult(t, doc, kb)
	if ra.Status != StatusFail || !ra.Accepted() || !strings.Contains(ra.KnownDeviation, "the compiler merges a load [known.txt:1]") {
		t.Errorf("matched: %+v", ra)
	}
	if rb.Accepted() || rb.Status != StatusFail {
		t.Errorf("an unmatched failure was accepted: %+v", rb)
	}
	v := Judge(doc, KnownSuites()[:0])
	failed := map[string]bool{}
	for _, r := range v.Failed {
		failed[r.Key()] = true
	}
	if len(v.Accepted) != 1 || v.Accepted[0].Key() != ka || failed[ka] || !failed[kb] {
		t.Errorf("verdict: accepted %d, failed %v", len(v.Accepted), failed)
	}
	if doc.Summary = Summarize(doc.Results); doc.Summary.Fail < 2 {
		t.Errorf("the summary no longer counts the accepted failure: %+v", doc.Summary)
	}
	// Every form shows it as a failure with its note.
	for name, text := range map[string]string{"markdown": Markdown(doc), "html": HTML(doc), "junit": string(JUnit(doc))} {
		if !strings.Contains(text, "the compiler merges a load") || !strings.Contains(text, "1 failure accepted as known deviations") && name != "junit" {
			t.Errorf("%s does not show the note or the count", name)
		}
	}
	if j := string(JUnit(doc)); !strings.Contains(j, `name="known_deviation"`) || !strings.Contains(j, "forbidden outcome seen — known deviation: the compiler merges a load") {
		t.Errorf("junit: the failure message does not carry the note")
	}
	if u := s.Unused(); len(u) != 1 || !strings.Contains(u[0], "access.local-copy") || !strings.Contains(u[0], "matched no failure") {
		t.Errorf("unused: %q", u)
	}
	// Without a file nothing stays accepted, whatever the document says.
	if AcceptKnown(&doc, nil) != 0 || findResult(t, doc, ka).Accepted() {
		t.Error("a recorded acceptance survived a run without a file")
	}
}

func TestAcceptKnownNeedsDriverAndCause(t *testing.T) {
	for name, text := range map[string]string{
		"driver outside the range": entryFor(checkA, "<580", "compiler") + entryFor(checkA, "581.x", "any"),
		"cause mismatch":           entryFor(checkA, "580.x", "hardware"),
		"another check":            entryFor(checkB+"x", "*", "any"),
	} {
		docs, ka, _ := acceptedRun(t)
		doc := Merge(docs)
		if n := AcceptKnown(&doc, deviationSet(t, text)); n != 0 || findResult(t, doc, ka).Accepted() {
			t.Errorf("%s: accepted %d", name, n)
		}
	}
	// A driver the run does not record is in no range but "*".
	docs, ka, _ := acceptedRun(t)
	doc := Merge(docs)
	doc.System.DriverVersion = ""
	if AcceptKnown(&doc, deviationSet(t, entryFor(checkA, ">=0", "compiler"))) != 0 {
		t.Error("an unknown driver matched a range")
	}
	if AcceptKnown(&doc, deviationSet(t, entryFor(checkA, "*", "compiler"))) != 1 || !findResult(t, doc, ka).Accepted() {
		t.Error("driver * did not match an unknown driver")
	}
	// Timeouts are never accepted.
	for i := range doc.Results {
		if doc.Results[i].Key() == ka {
			doc.Results[i].Status = StatusTimeout
		}
	}
	if AcceptKnown(&doc, deviationSet(t, entryFor(checkA, "*", "any"))) != 0 {
		t.Error("a timeout was accepted")
	}
}

func TestDiffAcceptedIsNoRegression(t *testing.T) {
	old := loadRun(t, "testdata/fake2")
	newer, ka, kb := acceptedRun(t)
	s := deviationSet(t, entryFor(checkA, "580.x", "compiler"))
	for i := range newer {
		AcceptKnown(&newer[i], s)
	}
	d := Diff(old, newer, DiffOptions{})
	var accepted, regressed bool
	for _, c := range d.NewlyFailing {
		switch c.Key {
		case ka:
			accepted = c.Accepted && !c.Regression && strings.Contains(c.Detail, "known deviation: the compiler merges a load")
		case kb:
			regressed = c.Regression
		}
	}
	if !accepted || !regressed || d.Regressions != 1 || d.Accepted != 1 {
		t.Errorf("accepted %v, unmatched regressed %v, regressions %d, accepted %d:\n%s", accepted, regressed, d.Regressions, d.Accepted, d.Text())
	}
	if !strings.Contains(d.Text(), "1 failure(s) accepted as known deviations") {
		t.Errorf("the text does not say what it accepted:\n%s", d.Text())
	}
}
