// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// capabilityReportDoc is the h200x2 shape: both directions claim native
// atomics and NVML agrees, while the per-operation capabilities are all 0,
// so atomics.capability-report fails with claims from two sources.
func capabilityReportDoc() Document {
	ops := []string{"INTEGER_ADD", "INTEGER_MIN", "INTEGER_MAX", "INTEGER_INCREMENT", "INTEGER_DECREMENT", "AND", "OR", "XOR",
		"EXCHANGE", "CAS", "FLOAT_ADD", "FLOAT_MIN", "FLOAT_MAX"}
	doc := Document{System: System{Backend: "fake:h200x2", GPUs: []GPU{{Ordinal: 0}, {Ordinal: 1}}}}
	for _, p := range [][2]int{{0, 1}, {1, 0}} {
		entries := []Entry{
			{Kind: KindClaim, Source: "cuda", Name: "CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED", Value: 1},
			{Kind: KindClaim, Source: "cuda", Name: "CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED", Value: 0},
		}
		var list []string
		for _, op := range ops {
			entries = append(entries, Entry{Kind: KindClaim, Source: "cuda", Name: "cuDeviceGetP2PAtomicCapabilities CU_ATOMIC_OPERATION_" + op, Value: "0"})
			list = append(list, op+"=0")
		}
		entries = append(entries, Entry{Kind: KindClaim, Source: "nvml", Name: "P2P ATOMICS", Value: "P2P_STATUS_OK"})
		msg := "CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED=1 (every atomic native) but cuDeviceGetP2PAtomicCapabilities does not cover every operation: " + strings.Join(list, ", ")
		doc.Results = append(doc.Results, Result{Check: "atomics.capability-report", Family: "atomics", Kind: "conf", Target: TargetPair,
			Src: intp(p[0]), Dst: intp(p[1]), Status: StatusFail, Reason: firstLine(msg), Message: msg, Entries: entries})
	}
	doc.Summary = Summarize(doc.Results)
	return doc
}

// TestDisagreementIsOneLine checks the Markdown form without a browser: one
// numbered line per disagreement with pair, claim and observed, each claim
// source once and the 13 operations folded into a count, the whole message
// in the sub-list under it.
func TestDisagreementIsOneLine(t *testing.T) {
	md := Markdown(capabilityReportDoc())
	dis := md[strings.Index(md, "## Disagreements"):strings.Index(md, "## Claimed vs observed")]
	items := regexp.MustCompile(`(?m)^\d+\. .*$`).FindAllString(dis, -1)
	if len(items) != 2 {
		t.Fatalf("%d numbered disagreements, want 2:\n%s", len(items), dis)
	}
	want := "1. **GPU0→GPU1** — sources disagree: claimed CUDA NATIVE_ATOMIC_SUPPORTED=1, ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED=0, " +
		"cuDeviceGetP2PAtomicCapabilities=0 for all 13; NVML P2P ATOMICS=OK · observed atomics.capability-report ✗ fail"
	if items[0] != want {
		t.Errorf("first disagreement:\n got %s\nwant %s", items[0], want)
	}
	for _, it := range items {
		if strings.Contains(it, "…") || strings.Count(it, "INTEGER_ADD") > 0 || len([]rune(it)) > 240 {
			t.Errorf("disagreement line is not one short line (%d runes): %s", len([]rune(it)), it)
		}
	}
	// The details are a sub-list: the whole message, uncut, and the rerun.
	for _, want := range []string{
		"   - result: CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED=1 (every atomic native) but cuDeviceGetP2PAtomicCapabilities does not cover every operation: INTEGER_ADD=0,",
		"FLOAT_MAX=0\n",
		"   - cuda claims cuDeviceGetP2PAtomicCapabilities: INTEGER_ADD=0, INTEGER_MIN=0,",
		"   - rerun: `P2PCONF_BACKEND=fake P2PCONF_FAKE=h200x2 P2PCONF_PAIRS=1-0 go tool ginkgo --label-filter='id:atomics.capability-report && pair:1-0' ./suites/atomics`",
	} {
		if !strings.Contains(dis, want) {
			t.Errorf("disagreement details lack %q:\n%s", want, dis)
		}
	}
	// The observed grid names the suite that failed instead of a row of symbols.
	if !strings.Contains(md, "| **GPU0** | X | ✗ atomics |") || !strings.Contains(md, "Observed cells: ✓ when every conf check of atomics passed") {
		t.Errorf("observed grid:\n%s", md)
	}
}

// TestDisagreementHTMLFolds: in matrix.html every disagreement is a
// <details> whose <summary> is the one line, and the cell legend is on the
// page once, however many suites it has.
func TestDisagreementHTMLFolds(t *testing.T) {
	page := HTML(capabilityReportDoc())
	items := regexp.MustCompile(`<li class="dis-item"><details><summary>(.*?)</summary>`).FindAllStringSubmatch(page, -1)
	if len(items) != 2 {
		t.Fatalf("%d folded disagreements, want 2", len(items))
	}
	for _, it := range items {
		if strings.Contains(it[1], "INTEGER_ADD") || strings.Contains(it[1], "<br") || !strings.Contains(it[1], "observed <span class=\"obs\">atomics.capability-report ✗ fail</span>") {
			t.Errorf("summary is not the one line: %s", it[1])
		}
	}

	dir := writeFixtureRun(t, "testdata/fake8")
	for _, f := range []string{MatrixMDFile, MatrixHTMLFile} {
		text := readFile(t, filepath.Join(dir, f))
		if n := strings.Count(text, "Cells: ✓ pass, ✗ fail"); n != 1 {
			t.Errorf("%s shows the cell legend %d times, want once", f, n)
		}
	}
}
