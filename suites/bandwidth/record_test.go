// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package bandwidth

import (
	"errors"
	"fmt"
	"strings"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/p2pconf/p2pconf/harness"
	bw "github.com/p2pconf/p2pconf/harness/bandwidth"
	"github.com/p2pconf/p2pconf/harness/topology"
)

// metricName is a per-size figure's name: "bandwidth_gbps.ce.uni.1GiB".
func metricName(method, direction string, size uint64) string {
	return fmt.Sprintf("%s%s.%s.%s", bw.BandwidthMetricPrefix, method, direction, bw.SizeLabel(size))
}

// detail describes a figure so that it explains itself in a report, in a
// fixed key=value form the report's bandwidth grid can read.
func (b *bench) detail(r sizeResult) string {
	s := b.s
	var parts []string
	parts = append(parts, fmt.Sprintf("method=%s direction=%s size=%s bytes=%d %s=%s (%s) counted=%s",
		b.method, b.direction, bw.SizeLabel(r.size), r.size, s.targetKind(), s.targetID(), s.targetName, b.counted))
	parts = append(parts, fmt.Sprintf("%s; median of %d timed batches of %d × %s after a warm-up (min %.1f, max %.1f, stddev %.2f GB/s); events on each issuing stream",
		b.what, r.reps, r.batch, bw.SizeLabel(r.size), r.min, r.max, r.stddev))
	if len(r.laneMedian) > 1 {
		var lanes []string
		for i, l := range r.laneLabels {
			lanes = append(lanes, fmt.Sprintf("%s %.1f", l, r.laneMedian[i]))
		}
		parts = append(parts, "total of both directions over the slower one's time; per direction (GB/s): "+strings.Join(lanes, ", "))
	}
	if b.counted == "read+write" {
		parts = append(parts, "every copied byte counted twice (read and written); the copy rate is half")
	}
	if r.submissionBoundNote {
		parts = append(parts, "submission-bound: the host could not enqueue a batch before the GPU was released")
	}
	return strings.Join(append(parts, s.notes...), "; ")
}

// record attaches every size's median as a metric named per size, the
// largest size's as the headline "bandwidth_gbps", and returns the figures.
func (b *bench) record(results []sizeResult) []bw.BandwidthFigure {
	var figs []bw.BandwidthFigure
	for i, r := range results {
		name := metricName(b.method, b.direction, r.size)
		harness.Metric(name, r.median, "GB/s", b.detail(r))
		figs = append(figs, bw.BandwidthFigure{Target: b.s.target, Link: b.s.link, Metric: name, Bytes: r.size, GBps: r.median,
			Largest: i == len(results)-1})
	}
	last := results[len(results)-1]
	harness.Metric("bandwidth_gbps", last.median, "GB/s", b.detail(last))
	return figs
}

// nominalFn computes a nominal rate from the NVML of the spec's machine
// (the fixture's, a mock on the fake backend).
type nominalFn func(lib nvml.Interface) (topology.Nominal, error)

// pairNominal is the nominal rate of p's link from NVML.
func pairNominal(p harness.Pair) nominalFn {
	return func(lib nvml.Interface) (topology.Nominal, error) {
		return topology.PairNominal(lib, gpuRef(p.A), gpuRef(p.B))
	}
}

// hostNominal is the nominal rate of g's PCIe link from NVML.
func hostNominal(g harness.GPU) nominalFn {
	return func(lib nvml.Interface) (topology.Nominal, error) { return topology.HostNominal(lib, gpuRef(g)) }
}

func gpuRef(g harness.GPU) topology.GPURef {
	return topology.GPURef{Name: g.String(), UUID: g.Info.UUID, PCIBusID: g.Info.PCIBusID}
}

// recordFraction reports the largest size's median as a fraction of the
// nominal rate (per direction × directions). NVML that cannot tell is a
// finding, not a failure; any other NVML error fails the spec.
func (b *bench) recordFraction(results []sizeResult, nominal nominalFn, directions int) {
	GinkgoHelper()
	n, err := nominal(b.s.h.NVML())
	if errors.Is(err, topology.ErrNominalUnavailable) {
		harness.Finding("bandwidth.nominal-unavailable", err.Error(),
			fmt.Sprintf("%s on %s: the fraction of the link's nominal rate is omitted", b.what, b.s.targetName))
		return
	}
	Expect(err).NotTo(HaveOccurred(), "reading the nominal rate of %s's link from NVML", b.s.targetName)
	last := results[len(results)-1]
	limit := n.GBps * float64(directions)
	harness.Metric(fmt.Sprintf("link_fraction.%s.%s", b.method, b.direction), last.median/limit, "ratio",
		fmt.Sprintf("%.1f GB/s at %s of a nominal %.1f GB/s (%d direction(s) of %s; source NVML)%s",
			last.median, bw.SizeLabel(last.size), limit, directions, n.Path, b.s.noteSuffix()))
}

// gate fails the spec when a figure falls below the baseline; without one
// it does nothing.
func (b *bench) gate(figs []bw.BandwidthFigure) {
	GinkgoHelper()
	cfg := b.s.cfg
	if cfg.Baseline == nil {
		return
	}
	By(fmt.Sprintf("comparing the figures of %s with the baseline %s", b.what, cfg.BaselinePath))
	failed, ungated := cfg.Baseline.JudgeAll(figs, cfg.Tolerance)
	if len(ungated) == len(figs) {
		harness.Finding("bandwidth.baseline-uncovered", len(ungated),
			fmt.Sprintf("%s has no figure or minimum for the gated sizes of %s on %s: not gated", cfg.BaselinePath, b.what, b.s.target))
	}
	var msgs []string
	for _, v := range failed {
		msgs = append(msgs, v.String())
	}
	if len(msgs) == 0 {
		return
	}
	// The first line is what JUnit and the matrix show: it names the
	// first figure; the list below it has them all.
	Expect(msgs).To(BeEmpty(), "%s fell below the baseline on %s in %d figure(s), first %s",
		b.what, b.s.targetName, len(msgs), msgs[0])
}
