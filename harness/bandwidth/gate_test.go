// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package bandwidth

import (
	"reflect"
	"strings"
	"testing"
)

// previousRun is a trimmed conformance.json of an earlier run.
const previousRun = `{
  "schema_version": 1,
  "results": [
    {"check": "bandwidth.copy-engine", "target": "pair", "gpu": null, "src": 0, "dst": 1,
     "metrics": {"bandwidth_gbps": 396.0, "bandwidth_gbps.ce.uni.1GiB": 396.0, "bandwidth_gbps.ce.uni.4KiB": 1.5,
                 "bandwidth_gbps.ce.uni.1GiB#2": 1.0, "link_fraction.ce.uni": 0.83}},
    {"check": "bandwidth.copy-engine", "target": "gpu", "gpu": 0, "src": null, "dst": null,
     "metrics": {"bandwidth_gbps.ce.h2d.1GiB": 55.0, "bandwidth_gbps.ce.h2d.64MiB": null}},
    {"check": "access.peer-copy", "target": "pair", "gpu": null, "src": 0, "dst": 1,
     "metrics": {"bandwidth_gbps.ce.uni.1GiB": 1000}}
  ]
}`

func mustBaseline(t *testing.T, doc string) *Baseline {
	t.Helper()
	b, err := ParseBaseline([]byte(doc), "base.json")
	if err != nil {
		t.Fatalf("ParseBaseline: %v", err)
	}
	return b
}

func TestGatePreviousRun(t *testing.T) {
	b := mustBaseline(t, previousRun)
	uni := func(gbps float64) BandwidthFigure {
		return BandwidthFigure{Target: "pair:0-1", Link: "nvlink", Metric: "bandwidth_gbps.ce.uni.1GiB", Bytes: GiB, GBps: gbps}
	}
	cases := []struct {
		name        string
		f           BandwidthFigure
		gated, pass bool
		threshold   float64
	}{
		{"at the baseline", uni(396), true, true, 356.4},
		{"within the tolerance", uni(357), true, true, 356.4},
		{"below the tolerance", uni(356), true, false, 356.4},
		{"another pair is not in the baseline", BandwidthFigure{Target: "pair:1-0", Metric: "bandwidth_gbps.ce.uni.1GiB", Bytes: GiB, GBps: 1}, false, true, 0},
		{"small sizes are not gated", BandwidthFigure{Target: "pair:0-1", Metric: "bandwidth_gbps.ce.uni.4KiB", Bytes: 4 * KiB, GBps: 0.1}, false, true, 0},
		{"unless the largest measured", BandwidthFigure{Target: "pair:0-1", Metric: "bandwidth_gbps.ce.uni.4KiB", Bytes: 4 * KiB, GBps: 0.1, Largest: true}, true, false, 1.35},
		{"per-GPU figures", BandwidthFigure{Target: "gpu:0", Metric: "bandwidth_gbps.ce.h2d.1GiB", Bytes: GiB, GBps: 40}, true, false, 49.5},
		{"null metrics are ignored", BandwidthFigure{Target: "gpu:0", Metric: "bandwidth_gbps.ce.h2d.64MiB", Bytes: 64 * MiB, GBps: 1}, false, true, 0},
	}
	for _, c := range cases {
		v := b.Judge(c.f, 0.10)
		if v.Gated != c.gated || v.Pass != c.pass || (c.gated && !near(v.Threshold, c.threshold)) {
			t.Errorf("%s: %+v; want gated %v pass %v threshold %v", c.name, v, c.gated, c.pass, c.threshold)
		}
	}
	if v := b.Judge(uni(300), 0.25); !v.Pass {
		t.Errorf("tolerance 25%%: 300 of 396 should pass: %v", v)
	}
	failed, ungated := b.JudgeAll([]BandwidthFigure{uni(100), uni(396), {Target: "pair:0-1", Metric: "bandwidth_gbps.ce.uni.4KiB", Bytes: 4 * KiB}}, 0.10)
	if len(failed) != 1 || len(ungated) != 1 || !strings.Contains(failed[0].String(), "below the threshold 356.4 GB/s") {
		t.Errorf("JudgeAll: failed %v, ungated %v", failed, ungated)
	}
	var nilBaseline *Baseline
	if v := nilBaseline.Judge(uni(0), 0.1); v.Gated || !v.Pass {
		t.Errorf("no baseline gates nothing: %v", v)
	}
}

func TestGateMinimums(t *testing.T) {
	b := mustBaseline(t, `{"minimums": [
	  {"applies_to": "nvlink", "metric": "bandwidth_gbps.ce.uni.1GiB", "gbps": 350},
	  {"applies_to": "pair:0-1", "metric": "bandwidth_gbps.ce.uni.1GiB", "gbps": 380},
	  {"applies_to": "pcie", "metric": "bandwidth_gbps.ce.uni.1GiB", "gbps": 20},
	  {"applies_to": "gpu", "metric": "bandwidth_gbps.ce.h2d.4KiB", "gbps": 1}
	]}`)
	f := func(target, link, metric string, size uint64, gbps float64) BandwidthFigure {
		return BandwidthFigure{Target: target, Link: link, Metric: metric, Bytes: size, GBps: gbps}
	}
	cases := []struct {
		name        string
		f           BandwidthFigure
		gated, pass bool
		threshold   float64
	}{
		{"the most demanding minimum counts", f("pair:0-1", "nvlink", "bandwidth_gbps.ce.uni.1GiB", GiB, 370), true, false, 380},
		{"link class", f("pair:1-0", "nvlink", "bandwidth_gbps.ce.uni.1GiB", GiB, 370), true, true, 350},
		{"minimums are floors, no tolerance", f("pair:1-0", "nvlink", "bandwidth_gbps.ce.uni.1GiB", GiB, 349), true, false, 350},
		{"other link class", f("pair:2-3", "pcie", "bandwidth_gbps.ce.uni.1GiB", GiB, 21), true, true, 20},
		{"no class", f("pair:2-3", "none", "bandwidth_gbps.ce.uni.1GiB", GiB, 1), false, true, 0},
		{"a GPU is not a pair", f("gpu:0", "", "bandwidth_gbps.ce.uni.1GiB", GiB, 1), false, true, 0},
		{"named small sizes are gated", f("gpu:3", "", "bandwidth_gbps.ce.h2d.4KiB", 4*KiB, 0.5), true, false, 1},
	}
	for _, c := range cases {
		v := b.Judge(c.f, 0.10)
		if v.Gated != c.gated || v.Pass != c.pass || (c.gated && !near(v.Threshold, c.threshold)) {
			t.Errorf("%s: %+v; want gated %v pass %v threshold %v", c.name, v, c.gated, c.pass, c.threshold)
		}
	}
}

func TestParseBaselineErrors(t *testing.T) {
	for name, doc := range map[string]string{
		"not JSON":             `minimums: []`,
		"neither format":       `{"figures": []}`,
		"newer schema":         `{"schema_version": 2, "results": []}`,
		"no bandwidth":         `{"schema_version": 1, "results": [{"check": "access.peer-copy", "target": "pair", "src": 0, "dst": 1, "metrics": {}}]}`,
		"unknown field":        `{"minimums": [{"applies_to": "gpu", "metric": "bandwidth_gbps.ce.h2d.1GiB", "gbps": 1, "gpbs": 2}]}`,
		"bad applies_to":       `{"minimums": [{"applies_to": "nvlink4", "metric": "bandwidth_gbps.ce.uni.1GiB", "gbps": 1}]}`,
		"bad metric":           `{"minimums": [{"applies_to": "gpu", "metric": "ce.uni.1GiB", "gbps": 1}]}`,
		"non-positive minimum": `{"minimums": [{"applies_to": "gpu", "metric": "bandwidth_gbps.ce.h2d.1GiB", "gbps": 0}]}`,
		// Minimums that could never apply would gate nothing, silently.
		"size in decimal units":  `{"minimums": [{"applies_to": "nvlink", "metric": "bandwidth_gbps.ce.uni.1GB", "gbps": 1}]}`,
		"size not measured":      `{"minimums": [{"applies_to": "nvlink", "metric": "bandwidth_gbps.ce.uni.8KiB", "gbps": 1}]}`,
		"size missing":           `{"minimums": [{"applies_to": "nvlink", "metric": "bandwidth_gbps.ce.uni", "gbps": 1}]}`,
		"unknown method":         `{"minimums": [{"applies_to": "nvlink", "metric": "bandwidth_gbps.dma.uni.1GiB", "gbps": 1}]}`,
		"gpu target not numeric": `{"minimums": [{"applies_to": "gpu:first", "metric": "bandwidth_gbps.ce.h2d.1GiB", "gbps": 1}]}`,
		"pair target malformed":  `{"minimums": [{"applies_to": "pair:0-", "metric": "bandwidth_gbps.ce.uni.1GiB", "gbps": 1}]}`,
	} {
		if _, err := ParseBaseline([]byte(doc), "x.json"); err == nil {
			t.Errorf("%s: accepted %s", name, doc)
		}
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestParseSize(t *testing.T) {
	for in, want := range map[string]uint64{
		"4096": 4096, "4K": 4 * KiB, "4KiB": 4 * KiB, "64m": 64 * MiB, "64 MiB": 64 * MiB,
		"1G": GiB, "1GiB": GiB, "2GB": 2 * GiB, "512B": 512,
	} {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "x", "1.5G", "-4K", "4TiB", "99999999999999999999G"} {
		if got, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", in, got)
		}
	}
}

func TestTransferSizes(t *testing.T) {
	got := TransferSizes(GiB)
	var labels []string
	for _, s := range got {
		labels = append(labels, SizeLabel(s))
	}
	want := "4KiB 16KiB 64KiB 256KiB 1MiB 4MiB 16MiB 64MiB 256MiB 1GiB"
	if strings.Join(labels, " ") != want {
		t.Errorf("TransferSizes(1GiB) = %v, want %s", labels, want)
	}
	if got := TransferSizes(100 * MiB); SizeLabel(got[len(got)-1]) != "64MiB" {
		t.Errorf("TransferSizes(100MiB) ends at %s, want 64MiB", SizeLabel(got[len(got)-1]))
	}
	if got := TransferSizes(4 * KiB); !reflect.DeepEqual(got, []uint64{4 * KiB}) {
		t.Errorf("TransferSizes(4KiB) = %v", got)
	}
}
