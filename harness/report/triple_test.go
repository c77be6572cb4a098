// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"
)

// tripleRun is an ordering run with three-GPU litmus specs: two on
// 0-1-2 (a passing mutant, a failing forbidden test) and a skipped one on
// 0-2-3.
func tripleRun(t *testing.T, start time.Time) Document {
	t.Helper()
	mk := func(triple, link, kind, variant, text string, state types.SpecState, msg string) spec {
		return spec{id: "ordering.litmus", suite: "ordering", kind: kind, text: text, gpu: -1, src: -1, dst: -1,
			state: state, msg: msg, dur: time.Millisecond, extraLabels: []string{"triple:" + triple, "link:" + link, "variant:" + variant, "slow"}}
	}
	specs := []spec{
		mk("0-1-2", "pcie", "mutant", "wrc-rlx-sys-triple-abc-ab", "WRC rlx.sys on GPU0→GPU1→GPU2 with T0 on GPU0, T1 on GPU1, T2 on GPU2 counts the allowed weak outcome (mutant)", types.SpecStatePassed, ""),
		mk("0-1-2", "pcie", "conf", "wrc-rel-sys-acq-sys-triple-abc-ab", "WRC rel.sys/acq.sys on GPU0→GPU1→GPU2 with T0 on GPU0, T1 on GPU1, T2 on GPU2 never shows the forbidden outcome", types.SpecStateFailed, "forbidden outcome observed on GPU0→GPU1→GPU2"),
		mk("0-2-3", "nvlink", "conf", "wrc-rel-sys-acq-sys-triple-abc-ab", "WRC rel.sys/acq.sys on GPU0→GPU2→GPU3 with T0 on GPU0, T1 on GPU2, T2 on GPU3 never shows the forbidden outcome", types.SpecStateSkipped, "needs peer access among all three GPUs of GPU0→GPU2→GPU3"),
	}
	r := suiteReport("ordering", "", specs)
	r.StartTime = start
	meta := testMeta("ordering")
	return Convert(fakeSystem(4, "fake:mixed", "node1"), own(t, r), meta)
}

// TestTripleResults: a triple: label makes a triple result that names its
// GPUs in role order, reruns with exactly those GPUs selected, renders as
// a row of the family's three-GPU checks, and merges by its key.
func TestTripleResults(t *testing.T) {
	doc := tripleRun(t, t0)
	if len(doc.Results) != 3 {
		t.Fatalf("%d results, want 3", len(doc.Results))
	}
	r := doc.Results[0]
	if r.Target != TargetTriple || len(r.GPUs) != 3 || r.GPUs[1] != 1 || r.GPU != nil || r.Src != nil || r.Dst != nil ||
		r.TargetName() != "GPU0→GPU1→GPU2" || r.Link != "pcie" {
		t.Fatalf("triple result: %+v", r)
	}
	if v := doc.Results[0].Variant; v != "wrc-rel-sys-acq-sys-triple-abc-ab" && v != "wrc-rlx-sys-triple-abc-ab" {
		t.Errorf("the variant of a triple spec is %q, not its declared key", v)
	}
	if doc.Results[0].Key() == doc.Results[1].Key() {
		t.Errorf("two specs on one triple share the key %q", doc.Results[0].Key())
	}
	want := "P2PCONF_BACKEND=fake P2PCONF_FAKE=mixed P2PCONF_GPUS=0,1,2 P2PCONF_TRIPLES=0-1-2 go tool ginkgo --label-filter='id:ordering.litmus && triple:0-1-2' ./suites/ordering"
	if got := RerunCommand(doc.System, r); got != want {
		t.Errorf("RerunCommand = %q, want %q", got, want)
	}
	if name := CaseName(r); !strings.Contains(name, "GPU0→GPU1→GPU2 [pcie]") {
		t.Errorf("JUnit case name %q", name)
	}
	if j := string(JUnit(doc)); !strings.Contains(j, `name="uuid_c" value="GPU-00000002`) {
		t.Errorf("JUnit lacks the triple's GPU uuids:\n%s", j)
	}

	md := Markdown(doc)
	for _, w := range []string{"Three-GPU checks", "| ordering.litmus (2 specs) | GPU0→GPU1→GPU2 | pcie | ✗ |", "| ordering.litmus | GPU0→GPU2→GPU3 | nvlink | –¹ |",
		"needs peer access among all three GPUs"} {
		if !strings.Contains(md, w) {
			t.Errorf("matrix.md lacks %q:\n%s", w, md)
		}
	}
	if strings.Contains(md, "(system)") {
		t.Errorf("a triple result is shown as a system result:\n%s", md)
	}
	html := HTML(doc)
	if !strings.Contains(html, `data-grid="ordering-triples"`) || !strings.Contains(html, "GPU0→GPU2→GPU3") {
		t.Errorf("matrix.html lacks the three-GPU checks")
	}

	// A later run that reran the failing spec and passed wins on its key;
	// the other results stay.
	later := tripleRun(t, t0.Add(time.Hour))
	later.Results = later.Results[1:2]
	later.Results[0].Status, later.Results[0].Reason = StatusPass, ""
	m := Merge([]Document{doc, later})
	if len(m.Results) != 3 {
		t.Fatalf("merged %d results, want 3", len(m.Results))
	}
	for _, x := range m.Results {
		if x.Key() == doc.Results[1].Key() && x.Status != StatusPass {
			t.Errorf("the later run's result did not win: %+v", x)
		}
		if x.Target != TargetTriple || len(x.GPUs) != 3 {
			t.Errorf("merged result lost its triple: %+v", x)
		}
	}
	if m.Results[0].TargetName() != "GPU0→GPU1→GPU2" || m.Results[2].TargetName() != "GPU0→GPU2→GPU3" {
		t.Errorf("merged order: %s, %s, %s", m.Results[0].TargetName(), m.Results[1].TargetName(), m.Results[2].TargetName())
	}
}
