// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package bandwidth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/p2pconf/p2pconf/harness/report"
)

// The bandwidth gate holds a run's bandwidth figures against a baseline
// (P2PCONF_BASELINE): a previous run's conformance.json, with a tolerance,
// or a file of minimums for a fleet. Where Diff compares two finished runs,
// the gate judges each figure while its spec runs, so the spec fails.
// suites/bandwidth/README.md documents the formats.

// BandwidthMetricPrefix starts the name of every gated figure:
// "bandwidth_gbps.<method>.<direction>.<size>", e.g. "bandwidth_gbps.ce.uni.1GiB".
const BandwidthMetricPrefix = "bandwidth_gbps."

// GateMinSize is the smallest transfer a previous run's figure gates (the
// largest size measured is gated whatever it is, so a run with a small
// P2PCONF_BW_MAX_SIZE still has a gate): below it a figure measures
// submission and latency more than the link, and varies from run to run by
// more than any sensible tolerance. Minimums (which a person wrote on
// purpose) gate every size they name.
const GateMinSize = 16 * MiB

// BandwidthFigure is one measured bandwidth of one GPU or ordered pair.
type BandwidthFigure struct {
	Target string // "gpu:0" or "pair:0-1", as the labels write it
	Link   string // the pair's link ("nvlink", "pcie", "none", "unknown"); "" for a GPU
	Metric string // "bandwidth_gbps.ce.uni.1GiB"
	Bytes  uint64 // transfer size
	GBps   float64
	// Largest marks the largest size measured, gated even below GateMinSize.
	Largest bool
}

// GateVerdict is the gate's answer for one figure.
type GateVerdict struct {
	BandwidthFigure
	Gated     bool    // false: the baseline says nothing about this figure
	Reference float64 // the previous run's figure or the minimum
	Threshold float64 // the figure fails below this
	From      string  // where the reference comes from
	Pass      bool
}

func (v GateVerdict) String() string {
	if !v.Gated {
		return fmt.Sprintf("%s %s = %.1f GB/s (not gated)", v.Target, v.Metric, v.GBps)
	}
	verb := "at or above"
	if !v.Pass {
		verb = "below"
	}
	return fmt.Sprintf("%s %s = %.1f GB/s, %s the threshold %.1f GB/s (%s)", v.Target, v.Metric, v.GBps, verb, v.Threshold, v.From)
}

// Baseline is either a previous run's figures or a list of minimums.
type Baseline struct {
	Path     string
	previous map[string]float64 // target + " " + metric -> GB/s
	minimums []BaselineMinimum
}

// BaselineMinimum is one entry of a minimums file.
type BaselineMinimum struct {
	// AppliesTo is "gpu" (every GPU), "gpu:N", "pair" (every pair),
	// "pair:A-B", or a link class "nvlink", "pcie", "none", "unknown"
	// (every pair whose link: label is that).
	AppliesTo string  `json:"applies_to"`
	Metric    string  `json:"metric"`
	GBps      float64 `json:"gbps"`
}

// minimumsFile is the minimums format (suites/bandwidth/README.md).
type minimumsFile struct {
	Minimums []BaselineMinimum `json:"minimums"`
}

// ParseBaseline reads a baseline file: a previous run's conformance.json
// (it has "results") or a minimums file (it has "minimums").
func ParseBaseline(data []byte, path string) (*Baseline, error) {
	if err := report.CheckJSONObject(data); err != nil {
		return nil, err
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	b := &Baseline{Path: path}
	switch {
	case probe["results"] != nil:
		doc, err := report.DecodeDocument(data)
		if err != nil {
			return nil, fmt.Errorf("reading it as a conformance.json: %w", err)
		}
		b.previous = map[string]float64{}
		for _, r := range doc.Results {
			target, ok := resultTarget(r.Target, r.GPU, r.Src, r.Dst)
			if !ok || !strings.HasPrefix(r.Check, "bandwidth.") {
				continue
			}
			for name, v := range r.Metrics {
				if strings.HasPrefix(name, BandwidthMetricPrefix) && !strings.Contains(name, "#") && v != nil && *v > 0 {
					b.previous[target+" "+name] = *v
				}
			}
		}
		if len(b.previous) == 0 {
			return nil, fmt.Errorf("the run has no %s* metrics of bandwidth checks; was it a bandwidth run?", BandwidthMetricPrefix)
		}
	case probe["minimums"] != nil:
		var mf minimumsFile
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&mf); err != nil {
			return nil, fmt.Errorf("reading it as a minimums file: %w", err)
		}
		for i, m := range mf.Minimums {
			if err := m.validate(); err != nil {
				return nil, fmt.Errorf("minimums[%d]: %w", i, err)
			}
		}
		b.minimums = mf.Minimums
	default:
		return nil, fmt.Errorf(`neither a conformance.json (no "results") nor a minimums file (no "minimums")`)
	}
	return b, nil
}

// minimumMetric is the shape of a figure's name, "bandwidth_gbps.ce.uni.1GiB":
// a minimum naming anything else could never apply and would gate nothing.
var minimumMetric = regexp.MustCompile(`^` + regexp.QuoteMeta(BandwidthMetricPrefix) + `(ce|sm)\.[a-z0-9+-]+\.([0-9]+(B|KiB|MiB|GiB))$`)

// minimumTarget is gpu:N or pair:A-B, as the labels write them.
var minimumTarget = regexp.MustCompile(`^(gpu:[0-9]+|pair:[0-9]+-[0-9]+)$`)

func (m BaselineMinimum) validate() error {
	sm := minimumMetric.FindStringSubmatch(m.Metric)
	if sm == nil {
		return fmt.Errorf("metric %q: want %s<method>.<direction>.<size>, e.g. %sce.uni.1GiB", m.Metric, BandwidthMetricPrefix, BandwidthMetricPrefix)
	}
	if n, err := ParseSize(sm[2]); err != nil || SizeLabel(n) != sm[2] || !slices.Contains(TransferSizes(n), n) {
		return fmt.Errorf("metric %q: %s is not a size the bandwidth suite measures (4KiB, 16KiB, … 1GiB)", m.Metric, sm[2])
	}
	if m.GBps <= 0 || math.IsInf(m.GBps, 0) || math.IsNaN(m.GBps) {
		return fmt.Errorf("gbps %v: want a positive number", m.GBps)
	}
	a := m.AppliesTo
	switch {
	case a == "gpu", a == "pair", a == "nvlink", a == "pcie", a == "none", a == "unknown":
	case minimumTarget.MatchString(a):
	default:
		return fmt.Errorf(`applies_to %q: want gpu, gpu:N, pair, pair:A-B, nvlink, pcie, none or unknown`, a)
	}
	return nil
}

func resultTarget(kind string, gpu, src, dst *int) (string, bool) {
	switch {
	case kind == "gpu" && gpu != nil:
		return fmt.Sprintf("gpu:%d", *gpu), true
	case kind == "pair" && src != nil && dst != nil:
		return fmt.Sprintf("pair:%d-%d", *src, *dst), true
	}
	return "", false
}

func (m BaselineMinimum) applies(f BandwidthFigure) bool {
	if m.Metric != f.Metric {
		return false
	}
	isGPU := strings.HasPrefix(f.Target, "gpu:")
	switch m.AppliesTo {
	case "gpu":
		return isGPU
	case "pair":
		return !isGPU
	case "nvlink", "pcie", "none", "unknown":
		return !isGPU && f.Link == m.AppliesTo
	}
	return m.AppliesTo == f.Target
}

// Judge is the gate for one figure. A previous run's figure gates transfers
// of at least GateMinSize (and the largest size) with the tolerance: the figure fails below
// reference × (1 − tolerance). Minimums are floors (no tolerance); when
// several apply, the highest counts. Without a baseline, or when the
// baseline has nothing for the figure, the figure is not gated.
func (b *Baseline) Judge(f BandwidthFigure, tolerance float64) GateVerdict {
	v := GateVerdict{BandwidthFigure: f, Pass: true}
	if b == nil {
		return v
	}
	if b.previous != nil {
		ref, ok := b.previous[f.Target+" "+f.Metric]
		if !ok || (f.Bytes < GateMinSize && !f.Largest) {
			return v
		}
		v.Gated, v.Reference = true, ref
		v.Threshold = ref * (1 - tolerance)
		v.From = fmt.Sprintf("%.1f GB/s in %s − %g %%", ref, b.Path, 100*tolerance)
	}
	for _, m := range b.minimums {
		if m.applies(f) && (!v.Gated || m.GBps > v.Threshold) {
			v.Gated, v.Reference, v.Threshold = true, m.GBps, m.GBps
			v.From = fmt.Sprintf("minimum for %s in %s", m.AppliesTo, b.Path)
		}
	}
	v.Pass = !v.Gated || f.GBps >= v.Threshold
	return v
}

// JudgeAll judges every figure and returns the failures and the figures the
// baseline did not cover, each sorted for a stable message.
func (b *Baseline) JudgeAll(figs []BandwidthFigure, tolerance float64) (failed []GateVerdict, ungated []string) {
	for _, f := range figs {
		v := b.Judge(f, tolerance)
		switch {
		case !v.Gated:
			ungated = append(ungated, f.Metric)
		case !v.Pass:
			failed = append(failed, v)
		}
	}
	sort.Slice(failed, func(i, j int) bool { return failed[i].Metric < failed[j].Metric })
	sort.Strings(ungated)
	return failed, ungated
}
