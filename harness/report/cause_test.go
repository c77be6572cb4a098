// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"
)

// TestCauseInEveryForm: a failing litmus spec's cause finding becomes the
// result's Cause and CauseDetail, and every form that lists failures
// prints the one line a ticket quotes; a result without one prints none.
func TestCauseInEveryForm(t *testing.T) {
	detail := "the weak load of x in role 1's poll loop is merged or hoisted out of the loop (1 LDG for 64 iterations); at JIT level 0: 0 of 1000000 (1700 of 1000000 at the default level)"
	specs := []spec{
		{id: "ordering.litmus", suite: "ordering", kind: "conf", text: "MP rel.gpu/acq.gpu between CTAs", gpu: 0, src: -1, dst: -1,
			state: types.SpecStateFailed, msg: "forbidden outcome r0=1 r1=0 observed on GPU0 in 1700 of 1000000 instances", dur: 1e9,
			entries: []Entry{{Kind: KindFinding, Name: CauseEntry, Value: map[string]any{"cause": "compiler", "detail": detail}}}},
		{id: "ordering.litmus", suite: "ordering", kind: "conf", text: "SB between CTAs", gpu: 0, src: -1, dst: -1,
			state: types.SpecStateFailed, msg: "forbidden outcome observed", dur: 1e9, extraLabels: []string{"variant:sb"}},
	}
	specs[0].extraLabels = []string{"variant:mp"}
	doc := Convert(fakeSystem(1, "cuda", "h200"), own(t, suiteReport("ordering", "", specs)), testMeta("ordering"))
	if len(doc.Results) != 2 {
		t.Fatalf("%d results", len(doc.Results))
	}
	r := doc.Results[0]
	if r.Cause != "compiler" || r.CauseDetail != detail || doc.Results[1].Cause != "" {
		t.Fatalf("cause %q detail %q; the other's %q", r.Cause, r.CauseDetail, doc.Results[1].Cause)
	}
	line := "cause: compiler — " + detail
	if r.CauseLine() != line || doc.Results[1].CauseLine() != "" {
		t.Errorf("CauseLine %q", r.CauseLine())
	}
	esc := strings.NewReplacer("'", "&#39;").Replace
	for name, text := range map[string]string{"markdown": Markdown(doc), "html": HTML(doc), "junit": string(JUnit(doc))} {
		if !strings.Contains(text, line) && !strings.Contains(text, esc(line)) {
			t.Errorf("%s lacks the cause line", name)
		}
		if n := strings.Count(text, "cause: "); n != 1 && name != "junit" {
			t.Errorf("%s has %d cause lines, want 1", name, n)
		}
	}
}
