// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package health

import (
	"errors"
	"fmt"
	"strings"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/harness/health"
)

// Check IDs of this suite.
const (
	idNoXid      = "health.no-xid"
	idLinkErrors = "health.link-errors"
	idLinksUp    = "health.links-up"
	idFabric     = "health.fabric"
)

var _ = Describe("health:", func() {
	h := harness.New()

	for _, g := range harness.GPUs() {
		/*
		   ID: health.no-xid
		   Requirement: no Xid or other critical NVML event MAY arrive on the GPU while the suite runs;
		   after a short workload on the GPU the events collected since the suite started are listed.
		   Source: NVML nvmlEventSetCreate, nvmlDeviceRegisterEvents, nvmlEventSetWait.
		   Applies to: every GPU that supports the Xid event type.
		*/
		It(fmt.Sprintf("%s reports no Xid or other critical event while the suite runs", g),
			harness.GPULabels(idNoXid, g), func(ctx SpecContext) {
				_, reg, _, err := harness.HealthEvents(g)
				Expect(err).NotTo(HaveOccurred(), "watching %s's NVML events", g)
				if reg.Types&nvml.EventTypeXidCriticalError == 0 {
					Skip(fmt.Sprintf("needs Xid event reporting on %s (found registered mask 0x%x: %s)", g, reg.Types, reg.Note))
				}
				harness.Finding("health.watched-events", fmt.Sprintf("0x%x", reg.Types), g.String()+": NVML event types registered for the whole suite")

				By(fmt.Sprintf("running a short workload on %s so a fault it causes can show", g))
				const words = 1 << 20
				st := h.Stream(g)
				buf := h.Alloc(g, words*4)
				for i := range 8 {
					h.Memset32Async(st, buf, uint32(i), words)
				}
				h.MustWait(ctx, st, "the workload on "+g.String())

				By("collecting the events NVML has queued")
				evs, _, began, err := harness.HealthEvents(g)
				Expect(err).NotTo(HaveOccurred(), "watching %s's NVML events", g)
				Expect(evs).To(BeEmpty(), "%s: NVML delivered critical events since %s: %s", g,
					began.UTC().Format("15:04:05.000"), list(evs))
			})

		/*
		   ID: health.fabric
		   Requirement: the GPU's fabric registration MUST be COMPLETED with SUCCESS and no unhealthy
		   field in its health mask.
		   Source: NVML nvmlDeviceGetGpuFabricInfoV (v3).
		   Applies to: GPUs with a fabric.
		*/
		It(fmt.Sprintf("%s's NVLink fabric registration completed with success and reports no unhealthy state", g),
			harness.GPULabels(idFabric, g), func() {
				d, err := harness.HealthDevice(g)
				Expect(err).NotTo(HaveOccurred())
				f, err := health.ReadFabric(d, g.String())
				Expect(err).NotTo(HaveOccurred(), "reading %s's fabric registration", g)
				if !f.Supported {
					Skip(fmt.Sprintf("needs an NVLink fabric on %s (found %s)", g, f.Why))
				}
				harness.Claim("nvml", "nvmlDeviceGetGpuFabricInfoV", f.String(), g.String())
				Expect(f.OK()).To(BeTrue(), "%s's fabric registration: %s; CUDA is not ready for peer traffic until it is COMPLETED with SUCCESS", g, f)
			})
	}

	for _, p := range harness.Pairs() {
		/*
		   ID: health.link-errors
		   Requirement: across the suite's window, with peer copies both ways, the NVLink error counters of
		   the links joining A and B and both GPUs' PCIe replay counters MUST NOT increase, and at least one
		   of them MUST be readable at both ends of the window (none readable compares nothing: a failure).
		   Source: NVML nvmlDeviceGetNvLinkErrorCounter, nvmlDeviceGetPcieReplayCounter.
		   Applies to: every ordered pair.
		*/
		It(fmt.Sprintf("the NVLink and PCIe error counters of %s and %s do not increase while data moves between them", p.A, p.B),
			harness.PairLabels(idLinkErrors, p), func(ctx SpecContext) {
				startA, err := harness.HealthAtStart(p.A)
				Expect(err).NotTo(HaveOccurred(), "reading %s's counters at the suite's start", p.A)
				startB, err := harness.HealthAtStart(p.B)
				Expect(err).NotTo(HaveOccurred(), "reading %s's counters at the suite's start", p.B)

				copyBothWays(ctx, h, p)

				nowA, err := harness.HealthNow(p.A)
				Expect(err).NotTo(HaveOccurred(), "reading %s's counters", p.A)
				nowB, err := harness.HealthNow(p.B)
				Expect(err).NotTo(HaveOccurred(), "reading %s's counters", p.B)
				var incs []health.Increase
				incs = append(incs, health.PairIncreases(health.Diff(startA, nowA), nowA, p.B.Info.PCIBusID)...)
				incs = append(incs, health.PairIncreases(health.Diff(startB, nowB), nowB, p.A.Info.PCIBusID)...)
				harness.Finding("health.counters-compared", counted(nowA)+"; "+counted(nowB),
					fmt.Sprintf("since the suite started at %s", startA.Time.UTC().Format("15:04:05.000")))
				compared := append(health.PairCompared(startA, nowA, p.B.Info.PCIBusID), health.PairCompared(startB, nowB, p.A.Info.PCIBusID)...)
				harness.Metric("counters compared", float64(len(compared)), "counters", strings.Join(compared, ", "))
				Expect(compared).NotTo(BeEmpty(), "no error counter on the path of %s was readable at both ends of the window (NVML answered NOT_SUPPORTED), so nothing was compared", p)
				Expect(incs).To(BeEmpty(), "error counters increased on %s: %s", p, list(incs))
			})

		/*
		   ID: health.links-up
		   Requirement: every NVLink NVML reports on the pair's path MUST be active, at one version and
		   speed, and the active count MUST equal the topology's claim.
		   Source: NVML nvmlDeviceGetNvLinkState, nvmlDeviceGetNvLinkVersion, nvmlDeviceGetNvLinkRemotePciInfo.
		   Applies to: pairs joined by NVLink.
		*/
		It(fmt.Sprintf("every NVLink between %s and %s is active at one version and speed, as many as the topology claims", p.A, p.B),
			harness.PairLabels(idLinksUp, p), func() {
				a, err := harness.HealthNow(p.A)
				Expect(err).NotTo(HaveOccurred(), "reading %s's NVLinks", p.A)
				b, err := harness.HealthNow(p.B)
				Expect(err).NotTo(HaveOccurred(), "reading %s's NVLinks", p.B)
				claims := p.Claims.NVML
				Expect(claims.Err).NotTo(HaveOccurred(), "NVML's claims for %s", p)
				if !health.HasLinks(a, b, p.A.Info.PCIBusID, p.B.Info.PCIBusID) {
					Skip(fmt.Sprintf("needs an NVLink pair (found link=%s, NVML NVLINK P2P status %s, no NVLink of %s or %s ends at the other or at an NVSwitch)",
						p.Link, claims.NVLink, p.A, p.B))
				}
				da, err := harness.HealthDevice(p.A)
				Expect(err).NotTo(HaveOccurred())
				db, err := harness.HealthDevice(p.B)
				Expect(err).NotTo(HaveOccurred())
				sa, err := health.LinkSpeed(da, p.A.String())
				Expect(err).NotTo(HaveOccurred(), "reading %s's NVLink speed", p.A)
				sb, err := health.LinkSpeed(db, p.B.String())
				Expect(err).NotTo(HaveOccurred(), "reading %s's NVLink speed", p.B)
				v := health.JudgeLinks(a, b, p.A.Info.PCIBusID, p.B.Info.PCIBusID, sa, sb, claims.NVLinkCount)
				harness.Finding("health.links-counted", v.String(), fmt.Sprintf("%s; common speed %s / %s MB/s", p, sa, sb))
				Expect(v.Problems).To(BeEmpty(), "%s: %s", p, strings.Join(v.Problems, "; "))
			})
	}
})

// copyBothWays moves data A→B and B→A with cuMemcpyPeerAsync, and reads
// both GPUs' PCIe link while the copies run.
func copyBothWays(ctx SpecContext, h *harness.Harness, p harness.Pair) {
	GinkgoHelper()
	size, reps := uint64(256<<20), 16
	if lim := h.Limits(); lim.MaxTransfer > 0 && lim.MaxTransfer < size {
		size, reps = lim.MaxTransfer, 4 // a backend that moves less at once (the fake)
	}
	bufA, bufB := h.Alloc(p.A, size), h.Alloc(p.B, size)
	stA, stB := h.Stream(p.A), h.Stream(p.B)
	By(fmt.Sprintf("copying %d × %d MiB each way between %s and %s", reps, size>>20, p.A, p.B))
	for range reps {
		h.CopyPeerAsync(stA, bufB, p.B, bufA, p.A, size)
		h.CopyPeerAsync(stB, bufA, p.A, bufB, p.B, size)
	}
	for _, g := range []harness.GPU{p.A, p.B} {
		if d, err := harness.HealthDevice(g); err == nil {
			harness.Finding("health.pcie-link", pcieLink(d), g.String()+" while peer copies were queued (a copy over NVLink leaves PCIe idle)")
		}
	}
	h.MustWait(ctx, stA, "copies "+p.String())
	h.MustWait(ctx, stB, "copies "+p.Reverse().String())
}

// pcieLink reads a GPU's current and maximum PCIe generation and width.
func pcieLink(d nvml.Device) string {
	gen, r1 := d.GetCurrPcieLinkGeneration()
	width, r2 := d.GetCurrPcieLinkWidth()
	maxGen, r3 := d.GetMaxPcieLinkGeneration()
	maxWidth, r4 := d.GetMaxPcieLinkWidth()
	if err := errors.Join(retErr(r1), retErr(r2), retErr(r3), retErr(r4)); err != nil {
		return "unknown: " + err.Error()
	}
	return fmt.Sprintf("Gen%d x%d of Gen%d x%d", gen, width, maxGen, maxWidth)
}

func retErr(r nvml.Return) error {
	if r == nvml.SUCCESS {
		return nil
	}
	return r
}

// counted says which counters a snapshot holds and which NVML does not
// support, so a pass shows what it compared.
func counted(s health.Snapshot) string {
	n, unsupported := 0, 0
	for _, r := range s.Counters() {
		if r.Unsupported {
			unsupported++
		} else {
			n++
		}
	}
	return fmt.Sprintf("%s: %d counters compared over %d NVLinks, %d not supported", s.GPU, n, len(s.Links), unsupported)
}

func list[T fmt.Stringer](xs []T) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = x.String()
	}
	return strings.Join(s, "; ")
}
