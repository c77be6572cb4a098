// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// withEvidence adds an evidence finding as conformance.json holds it.
func withEvidence(r Result, classes []string, fromLinkClass bool) Result {
	v := map[string]any{"classes": classes, "from_link_class": fromLinkClass}
	var m map[string]any
	data, _ := json.Marshal(v)
	_ = json.Unmarshal(data, &m)
	r.Entries = append(r.Entries, Entry{Kind: KindFinding, Name: FindingEvidence, Value: m})
	return r
}

// TestEvidenceCounts: each class is counted on its own, a pass with none
// is counted as none, a pass whose mutants ran on its link class's
// representative pair takes that pair's weak and interleaving classes but
// keeps its own checker class, and results without the finding (or that
// did not pass) are not counted.
func TestEvidenceCounts(t *testing.T) {
	rs := []Result{
		withEvidence(litmusPairResult(0, 1, "nvlink", "CoRR", FindingNoPowerShown), []string{"interleaving", "checker"}, false),
		withEvidence(litmusPairResult(0, 1, "nvlink", "MP", FindingPowerShown), []string{"weak"}, false),
		withEvidence(litmusPairResult(0, 1, "nvlink", "WRC", FindingNoPowerShown), []string{}, false),
		withEvidence(litmusPairResult(2, 3, "nvlink", "CoRR", FindingPowerFromLinkClass), []string{"checker"}, true),
		withEvidence(litmusPairResult(2, 3, "nvlink", "MP", FindingPowerFromLinkClass), []string{}, true),
		litmusPairResult(0, 1, "nvlink", "SB", FindingNoPowerShown), // states no classes
	}
	failed := withEvidence(litmusPairResult(0, 1, "nvlink", "LB", FindingNoPowerShown), []string{"weak"}, false)
	failed.Status = StatusFail
	rs = append(rs, failed)
	attributePower(rs)
	if got, _ := EvidenceClasses(rs[3], rs); !slices.Equal(got, []string{"checker", "interleaving"}) {
		t.Errorf("borrowed CoRR classes %v, want checker and the donor's interleaving", got)
	}
	if got, _ := EvidenceClasses(rs[4], rs); !slices.Equal(got, []string{"weak"}) {
		t.Errorf("borrowed MP classes %v, want the donor's weak", got)
	}
	text := evidenceText(rs)
	for _, want := range []string{"the 5 forbidden litmus passes", "weak 2, interleaving 2, checker 2; none 1"} {
		if !strings.Contains(text, want) {
			t.Errorf("evidence text lacks %q: %s", want, text)
		}
	}
	if evidenceText([]Result{litmusPairResult(0, 1, "nvlink", "SB", FindingNoPowerShown)}) != "" {
		t.Error("a report without evidence findings should say nothing about them")
	}
	if md := Markdown(Document{Results: rs}); !strings.Contains(md, "weak 2, interleaving 2, checker 2; none 1") {
		t.Errorf("matrix.md does not count the classes:\n%s", md)
	}
}
