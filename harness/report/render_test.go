// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/onsi/ginkgo/v2/types"
)

func intp(n int) *int { return &n }

func metrics(kv ...any) map[string]*float64 {
	m := map[string]*float64{}
	for i := 0; i < len(kv); i += 2 {
		v := kv[i+1].(float64)
		m[kv[i].(string)] = &v
	}
	return m
}

// TestMergeKeepsEverySuitesSetupFailure: with a broken driver every suite's
// BeforeSuite fails; the merged run must list each, not one of them.
func TestMergeKeepsEverySuitesSetupFailure(t *testing.T) {
	var docs []Document
	for _, suite := range []string{"ipc", "vmm"} {
		specs := []spec{{id: "", suite: suite, gpu: -1, src: -1, dst: -1, state: types.SpecStateFailed,
			node: types.NodeTypeBeforeSuite, msg: "loading libcuda.so.1: cannot open shared object file"}}
		docs = append(docs, Convert(System{Backend: "cuda", Host: "n1"}, own(t, suiteReport(suite, "", specs)), testMeta(suite)))
	}
	m := Merge(docs)
	if m.Summary.Fail != 2 {
		t.Fatalf("merged setup failures: %+v", m.Results)
	}
	for _, key := range []string{"ipc.(BeforeSuite) system", "vmm.(BeforeSuite) system"} {
		findResult(t, m, key)
	}
	names := map[string]bool{}
	for _, ts := range junitSuites(m, "").TestSuites {
		for _, tc := range ts.TestCases {
			if names[tc.Name] {
				t.Errorf("duplicate JUnit case name %q", tc.Name)
			}
			names[tc.Name] = true
		}
	}
}

func TestFirstLineCutsOnRuneBoundary(t *testing.T) {
	s := strings.Repeat("→", 200) // 3 bytes each: byte 300 is a rune start, 301 is not
	for _, prefix := range []string{"", "a", "ab"} {
		got := firstLine(prefix + s)
		if !utf8.ValidString(got) || !strings.HasSuffix(got, "…") || len(got) > 300+len("…") {
			t.Errorf("firstLine(%q…) = %q", prefix, got[:20])
		}
	}
}

// TestBandwidthSection: the one-way and the bidirectional spec of a pair
// both carry the headline bandwidth_gbps; each keeps its own grid, per-GPU
// figures and latencies are shown, and every figure names its unit.
func TestBandwidthSection(t *testing.T) {
	pair := func(variant string, m map[string]*float64) Result {
		return Result{Check: "bandwidth.copy-engine", Family: "bandwidth", Kind: "info", Target: TargetPair,
			Src: intp(0), Dst: intp(1), Status: StatusPass, Variant: variant, Metrics: m}
	}
	doc := Document{System: System{Backend: "cuda", GPUs: []GPU{{Ordinal: 0}, {Ordinal: 1}}}, Results: []Result{
		pair("uni", metrics("bandwidth_gbps", 390.0, "bandwidth_gbps.ce.uni.4KiB", 10.0, "bandwidth_gbps.ce.uni.1GiB", 390.0)),
		pair("bidir", metrics("bandwidth_gbps", 780.0, "bandwidth_gbps.ce.bidir.4KiB", 20.0, "bandwidth_gbps.ce.bidir.1GiB", 780.0)),
		{Check: "bandwidth.latency", Family: "bandwidth", Kind: "info", Target: TargetGPU, GPU: intp(1), Status: StatusPass,
			Metrics: metrics("chase_ns_per_hop", 213.7, "chase_ns_per_hop.revisit", 148.7, "latency_us.single", 8.176),
			Entries: []Entry{{Kind: KindMetric, Name: "chase_ns_per_hop", Unit: "ns"}, {Kind: KindMetric, Name: "latency_us.single", Unit: "µs"}}},
	}}
	doc.Summary = Summarize(doc.Results)
	md := Markdown(doc)
	for _, want := range []string{
		"bandwidth.copy-engine — ce.uni at 1GiB (GB/s) — GPU(row) → GPU(column)\n\n| src \\ dst | GPU0 | GPU1 |\n|---|---|---|\n| **GPU0** | X | 390.0 |",
		"bandwidth.copy-engine — ce.bidir at 1GiB (GB/s) — GPU(row) → GPU(column)\n\n| src \\ dst | GPU0 | GPU1 |\n|---|---|---|\n| **GPU0** | X | 780.0 |",
		"| bandwidth.latency | chase_ns_per_hop (ns) | · | 213.7 |",
		"| bandwidth.latency | chase_ns_per_hop.revisit (GB/s) |", // no entry: the default unit
		"| bandwidth.latency | latency_us.single (µs) | · | 8.18 |",
		"| bandwidth.copy-engine | ce.uni (GB/s) | GPU0→GPU1 | 10.0 | 390.0 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("matrix.md lacks %q:\n%s", want, md[strings.Index(md, "## Bandwidth"):])
		}
	}
	if strings.Contains(md, "— bandwidth_gbps ") {
		t.Errorf("the headline bandwidth_gbps of two specs got one grid:\n%s", md)
	}
	if html := HTML(doc); !strings.Contains(html, `data-grid="bw:bandwidth.copy-engine:bandwidth_gbps.ce.bidir"`) {
		t.Errorf("matrix.html lacks the bidirectional grid")
	}
}

// TestAggregateCellShowsSkips: a per-GPU row over several results that
// passed and skipped shows both, so its footnote points at something.
func TestAggregateCellShowsSkips(t *testing.T) {
	r := func(status, reason string) Result {
		return Result{Check: "ordering.litmus", Family: "ordering", Kind: "conf", Target: TargetGPU, GPU: intp(0), Status: status, Reason: reason}
	}
	doc := Document{System: System{Backend: "cuda", GPUs: []GPU{{Ordinal: 0}}},
		Results: []Result{r(StatusPass, ""), r(StatusSkip, "needs X (found Y)"), r(StatusPass, "")}}
	doc.Summary = Summarize(doc.Results)
	md := Markdown(doc)
	for _, want := range []string{"| ordering.litmus (3 specs per GPU) | ✓ –¹ |", "¹ needs X (found Y)",
		"None to look for: the run had no GPU pair (1 GPU)"} {
		if !strings.Contains(md, want) {
			t.Errorf("matrix.md lacks %q:\n%s", want, md)
		}
	}
}
