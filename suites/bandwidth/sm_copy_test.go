// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package bandwidth

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"

	"github.com/p2pconf/p2pconf/harness"
)

var _ = Describe("bandwidth: a kernel", func() {
	h := harness.New()

	for _, p := range harness.Pairs() {
		/*
		   ID: bandwidth.sm-read-write (info + gate)
		   Requirement: with peer access enabled A→B, a kernel on A (bw_copy_v4: ld/st.global.v4.u32,
		   grid-stride) MUST read all of B's buffer into A's, and MUST write all of A's buffer into B's; the
		   effective bandwidth of each is recorded per size with the fraction of the link's nominal rate.
		   With P2PCONF_BASELINE the figures MUST NOT fall below the baseline by more than the tolerance.
		   Source: CUDA Programming Guide "Peer-to-Peer Memory Access"; docs/observations.md, two H200:
		   bandwidth (read 375, write 368 GB/s).
		   Applies to: ordered pairs with cuDeviceCanAccessPeer(A, B) = 1.
		*/
		It(fmt.Sprintf("on %s reads %s's memory into its own at every size", p.A, p.B),
			harness.PairLabels(idSMCopy, p, harness.Variant("peer-read"), harness.Slow), func(ctx SpecContext) {
				s := pairSession(h, ctx, idSMCopy, p)
				s.requirePeers(p, false)
				b := s.bench("sm", "read", fmt.Sprintf("a kernel on %s reading %s's memory", p.A, p.B))
				b.addLane(p.B.String()+"→"+p.A.String(), h.Stream(p.A), s.devBuf(p.B), s.devBuf(p.A), s.kernelCopy(p.A))
				b.measure(pairNominal(p), 1)
			}, sizedTimeout())

		/*
		   ID: bandwidth.sm-read-write (info + gate)
		   Requirement: with peer access A→B, a kernel on A MUST write all of A's buffer into B's memory;
		   recorded per size with the link's fraction. Source: as above. Applies to: as above.
		*/
		It(fmt.Sprintf("on %s writes its memory into %s's at every size", p.A, p.B),
			harness.PairLabels(idSMCopy, p, harness.Variant("peer-write"), harness.Slow), func(ctx SpecContext) {
				s := pairSession(h, ctx, idSMCopy, p)
				s.requirePeers(p, false)
				b := s.bench("sm", "write", fmt.Sprintf("a kernel on %s writing into %s's memory", p.A, p.B))
				b.addLane(p.String(), h.Stream(p.A), s.devBuf(p.A), s.devBuf(p.B), s.kernelCopy(p.A))
				b.measure(pairNominal(p), 1)
			}, sizedTimeout())

		if !runsBidirectional(p) {
			continue
		}
		/*
		   ID: bandwidth.sm-read-write (info + gate)
		   Requirement: with peer access both ways, kernels on A and B each reading the other's memory at
		   once MUST each copy every byte; the total is recorded as the bidirectional figure.
		   Source: as above. Applies to: unordered pairs with cuDeviceCanAccessPeer = 1 both ways, once.
		*/
		It(fmt.Sprintf("on each of %s reads the other's memory at once", both(p)),
			harness.PairLabels(idSMCopy, p, harness.Variant("peer-read-both-ways"), harness.Slow), func(ctx SpecContext) {
				s := pairSession(h, ctx, idSMCopy, p)
				s.requirePeers(p, true)
				b := s.bench("sm", "read-bidir", "kernels on "+both(p)+" each reading the other's memory")
				b.addLane(p.B.String()+"→"+p.A.String(), h.Stream(p.A), s.devBuf(p.B), s.devBuf(p.A), s.kernelCopy(p.A))
				b.addLane(p.A.String()+"→"+p.B.String(), h.Stream(p.B), s.devBuf(p.A), s.devBuf(p.B), s.kernelCopy(p.B))
				b.measure(pairNominal(p), 2)
			}, sizedTimeout())

		/*
		   ID: bandwidth.sm-read-write (info + gate)
		   Requirement: kernels on A and B each writing into the other's memory at once MUST each copy
		   every byte; the total is recorded. Source and applies to: as above.
		*/
		It(fmt.Sprintf("on each of %s writes into the other's memory at once", both(p)),
			harness.PairLabels(idSMCopy, p, harness.Variant("peer-write-both-ways"), harness.Slow), func(ctx SpecContext) {
				s := pairSession(h, ctx, idSMCopy, p)
				s.requirePeers(p, true)
				b := s.bench("sm", "write-bidir", "kernels on "+both(p)+" each writing into the other's memory")
				b.addLane(p.String(), h.Stream(p.A), s.devBuf(p.A), s.devBuf(p.B), s.kernelCopy(p.A))
				b.addLane(p.Reverse().String(), h.Stream(p.B), s.devBuf(p.B), s.devBuf(p.A), s.kernelCopy(p.B))
				b.measure(pairNominal(p), 2)
			}, sizedTimeout())
	}

	for _, g := range harness.GPUs() {
		/*
		   ID: bandwidth.sm-read-write (info + gate)
		   Requirement: a kernel copy within one GPU's memory MUST copy every byte (recorded counting read
		   and write, 2 × bytes copied); a kernel reading mapped pinned host memory into the GPU's, and one
		   writing the GPU's memory into it, MUST move every byte (recorded with the PCIe link's fraction).
		   Source: CUDA Driver API cuMemHostAlloc(DEVICEMAP), cuMemHostGetDevicePointer. Applies to: every GPU.
		*/
		It(fmt.Sprintf("copies within %s's memory at every size", g),
			harness.GPULabels(idSMCopy, g, harness.Variant("local-copy"), harness.Slow), func(ctx SpecContext) {
				s := gpuSession(h, ctx, idSMCopy, g)
				b := s.bench("sm", "local", "a kernel copy within "+g.String())
				b.countReadWrite()
				b.addLane(g.String(), h.Stream(g), s.devBuf(g), s.devBuf(g), s.kernelCopy(g))
				b.measure(nil, 0)
			}, sizedTimeout())

		/*
		   ID: bandwidth.sm-read-write (info + gate)
		   Requirement: a kernel reading mapped pinned host memory into the GPU's MUST move every byte.
		   Source: CUDA Driver API cuMemHostGetDevicePointer. Applies to: GPUs that map host memory.
		*/
		It(fmt.Sprintf("on %s reads pinned host memory into its own at every size", g),
			harness.GPULabels(idSMCopy, g, harness.Variant("host-read"), harness.Slow), func(ctx SpecContext) {
				s := gpuSession(h, ctx, idSMCopy, g)
				s.requireHostMapping(g)
				b := s.bench("sm", "h2d", "a kernel on "+g.String()+" reading pinned host memory")
				b.addLane("host→"+g.String(), h.Stream(g), s.hostBuf(g), s.devBuf(g), s.kernelCopy(g))
				b.measure(hostNominal(g), 1)
			}, sizedTimeout())

		/*
		   ID: bandwidth.sm-read-write (info + gate)
		   Requirement: a kernel writing the GPU's memory into mapped pinned host memory MUST move every
		   byte. Source: as above. Applies to: GPUs that map host memory.
		*/
		It(fmt.Sprintf("on %s writes its memory into pinned host memory at every size", g),
			harness.GPULabels(idSMCopy, g, harness.Variant("host-write"), harness.Slow), func(ctx SpecContext) {
				s := gpuSession(h, ctx, idSMCopy, g)
				s.requireHostMapping(g)
				b := s.bench("sm", "d2h", "a kernel on "+g.String()+" writing into pinned host memory")
				b.addLane(g.String()+"→host", h.Stream(g), s.devBuf(g), s.hostBuf(g), s.kernelCopy(g))
				b.measure(hostNominal(g), 1)
			}, sizedTimeout())
	}
})
