// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package bandwidth

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"

	"github.com/p2pconf/p2pconf/harness"
)

var _ = Describe("bandwidth: copy engines", func() {
	h := harness.New()

	for _, p := range harness.Pairs() {
		/*
		   ID: bandwidth.copy-engine (info + gate)
		   Requirement: cuMemcpyPeerAsync from A's memory to B's MUST copy every byte; its effective
		   bandwidth (bytes / time between two events of A on the issuing stream) is recorded per size from
		   4 KiB, with the fraction of the link's nominal rate (NVML). With P2PCONF_BASELINE the figures
		   MUST NOT fall below the baseline by more than the tolerance.
		   Source: CUDA Driver API cuMemcpyPeerAsync, cuEventElapsedTime; docs/observations.md, two H200: bandwidth (NV18: 396 GB/s).
		   Applies to: every ordered pair (staged through the host where peer access is unavailable).
		*/
		It(fmt.Sprintf("move data from %s to %s with cuMemcpyPeerAsync at every size", p.A, p.B),
			harness.PairLabels(idCopyEngine, p, harness.Variant("peer-copy"), harness.Slow), func(ctx SpecContext) {
				s := pairSession(h, ctx, idCopyEngine, p)
				s.enablePeers(p)
				b := s.bench("ce", "uni", "cuMemcpyPeerAsync "+p.String())
				b.addLane(p.String(), h.Stream(p.A), s.devBuf(p.A), s.devBuf(p.B), s.peerCopy)
				b.measure(pairNominal(p), 1)
			}, sizedTimeout())

		if !runsBidirectional(p) {
			continue
		}
		/*
		   ID: bandwidth.copy-engine (info + gate)
		   Requirement: cuMemcpyPeerAsync A→B on a stream of A and B→A on a stream of B, started together,
		   MUST each copy every byte; the total (both directions' bytes over the slower direction's time) is
		   recorded as the bidirectional figure.
		   Source: CUDA Driver API cuMemcpyPeerAsync, cuStreamWaitEvent; docs/observations.md, two H200: bandwidth (783 GB/s both ways).
		   Applies to: every unordered pair, once.
		*/
		It(fmt.Sprintf("move data between %s in both directions at once with cuMemcpyPeerAsync", both(p)),
			harness.PairLabels(idCopyEngine, p, harness.Variant("peer-copy-both-ways"), harness.Slow), func(ctx SpecContext) {
				s := pairSession(h, ctx, idCopyEngine, p)
				s.enablePeers(p)
				b := s.bench("ce", "bidir", "cuMemcpyPeerAsync both ways between "+both(p))
				b.addLane(p.String(), h.Stream(p.A), s.devBuf(p.A), s.devBuf(p.B), s.peerCopy)
				b.addLane(p.Reverse().String(), h.Stream(p.B), s.devBuf(p.B), s.devBuf(p.A), s.peerCopy)
				b.measure(pairNominal(p), 2)
			}, sizedTimeout())
	}

	for _, g := range harness.GPUs() {
		/*
		   ID: bandwidth.copy-engine (info + gate)
		   Requirement: cuMemcpyAsync within one GPU's memory MUST copy every byte; recorded counting every
		   byte read and written (2 × bytes copied), as memory bandwidth is quoted.
		   Source: CUDA Driver API cuMemcpyAsync. Applies to: every GPU.
		*/
		It(fmt.Sprintf("copy within %s's memory with cuMemcpyAsync at every size", g),
			harness.GPULabels(idCopyEngine, g, harness.Variant("local-copy"), harness.Slow), func(ctx SpecContext) {
				s := gpuSession(h, ctx, idCopyEngine, g)
				b := s.bench("ce", "local", "cuMemcpyAsync within "+g.String())
				b.countReadWrite()
				b.addLane(g.String(), h.Stream(g), s.devBuf(g), s.devBuf(g), s.copyAsync)
				b.measure(nil, 0)
			}, sizedTimeout())

		/*
		   ID: bandwidth.copy-engine (info + gate)
		   Requirement: cuMemcpyAsync between pinned host memory and the GPU MUST copy every byte, each
		   direction alone and both at once on two streams; recorded with the fraction of the GPU's PCIe
		   link (NVML current generation and width).
		   Source: CUDA Driver API cuMemHostAlloc, cuMemcpyAsync. Applies to: every GPU that maps host memory.
		*/
		It(fmt.Sprintf("copy from pinned host memory to %s with cuMemcpyAsync at every size", g),
			harness.GPULabels(idCopyEngine, g, harness.Variant("host-to-gpu"), harness.Slow), func(ctx SpecContext) {
				s := gpuSession(h, ctx, idCopyEngine, g)
				s.requireHostMapping(g)
				b := s.bench("ce", "h2d", "cuMemcpyAsync host→"+g.String())
				b.addLane("host→"+g.String(), h.Stream(g), s.hostBuf(g), s.devBuf(g), s.copyAsync)
				b.measure(hostNominal(g), 1)
			}, sizedTimeout())

		/*
		   ID: bandwidth.copy-engine (info + gate)
		   Requirement: cuMemcpyAsync from the GPU's memory to pinned host memory MUST copy every byte;
		   recorded per size with the fraction of the GPU's PCIe link.
		   Source: CUDA Driver API cuMemcpyAsync. Applies to: every GPU that maps host memory.
		*/
		It(fmt.Sprintf("copy from %s to pinned host memory with cuMemcpyAsync at every size", g),
			harness.GPULabels(idCopyEngine, g, harness.Variant("gpu-to-host"), harness.Slow), func(ctx SpecContext) {
				s := gpuSession(h, ctx, idCopyEngine, g)
				s.requireHostMapping(g)
				b := s.bench("ce", "d2h", "cuMemcpyAsync "+g.String()+"→host")
				b.addLane(g.String()+"→host", h.Stream(g), s.devBuf(g), s.hostBuf(g), s.copyAsync)
				b.measure(hostNominal(g), 1)
			}, sizedTimeout())

		/*
		   ID: bandwidth.copy-engine (info + gate)
		   Requirement: host→device and device→host cuMemcpyAsync on two streams of one GPU, started
		   together, MUST each copy every byte; the total is recorded as the bidirectional host figure.
		   Source: CUDA Driver API cuMemcpyAsync. Applies to: every GPU that maps host memory.
		*/
		It(fmt.Sprintf("copy between pinned host memory and %s in both directions at once", g),
			harness.GPULabels(idCopyEngine, g, harness.Variant("host-both-ways"), harness.Slow), func(ctx SpecContext) {
				s := gpuSession(h, ctx, idCopyEngine, g)
				s.requireHostMapping(g)
				b := s.bench("ce", "h2d+d2h", "cuMemcpyAsync host↔"+g.String()+" on two streams")
				b.addLane("host→"+g.String(), h.Stream(g), s.hostBuf(g), s.devBuf(g), s.copyAsync)
				b.addLane(g.String()+"→host", h.Stream(g), s.devBuf(g), s.hostBuf(g), s.copyAsync)
				b.measure(hostNominal(g), 2)
			}, sizedTimeout())
	}
})
