// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package bandwidth

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"

	"github.com/p2pconf/p2pconf/harness"
)

var _ = Describe("bandwidth: latency probes", func() {
	h := harness.New()

	for _, p := range harness.Pairs() {
		/*
		   ID: bandwidth.latency (info)
		   Requirement: a 4-byte cuMemcpyPeerAsync A→B MUST deliver its word; its completion time is
		   recorded as a round trip (enqueue to the host seeing the event complete), as one copy between
		   two events, and per copy when pipelined.
		   Source: CUDA Driver API cuMemcpyPeerAsync, cuEventElapsedTime; docs/observations.md,
		   two H200: latency (8.2 µs round trip, 2.9 µs pipelined). Applies to: every ordered pair.
		*/
		It(fmt.Sprintf("time a 4-byte cuMemcpyPeerAsync from %s to %s", p.A, p.B),
			harness.PairLabels(idLatency, p, harness.Variant("peer-copy-4b")), func(ctx SpecContext) {
				s := pairSession(h, ctx, idLatency, p)
				s.enablePeers(p)
				src, dst := s.wordBuf(p.A), s.wordBuf(p.B)
				st := h.Stream(p.A)
				s.smallCopyLatency(st, src, dst, "cuMemcpyPeerAsync "+p.String(), func() {
					h.CopyPeerAsync(st, dst.cePtr, p.B, src.cePtr, p.A, 4)
				})
			}, harness.Timeout(1))

		/*
		   ID: bandwidth.latency (info)
		   Requirement: with peer access A→B, one thread on A following a random pointer cycle in B's memory
		   (ld.global.cg) MUST end on the element the chain leads to; the time per hop is recorded.
		   Source: CUDA Programming Guide "Peer-to-Peer Memory Access"; docs/observations.md, two H200:
		   latency (857 ns per hop over NV18). Applies to: ordered pairs with cuDeviceCanAccessPeer(A, B) = 1.
		*/
		It(fmt.Sprintf("time a kernel on %s chasing pointers through %s's memory", p.A, p.B),
			harness.PairLabels(idLatency, p, harness.Variant("pointer-chase-peer")), func(ctx SpecContext) {
				s := pairSession(h, ctx, idLatency, p)
				s.requirePeers(p, false)
				s.chaseLatency(p.A, p.B)
			}, harness.Timeout(1))
	}

	for _, g := range harness.GPUs() {
		/*
		   ID: bandwidth.latency (info)
		   Requirement: a 4-byte cuMemcpyAsync within one GPU MUST deliver its word, and a pointer chase
		   through the GPU's own memory MUST end on the right element; both times are recorded.
		   Source: CUDA Driver API cuMemcpyAsync; docs/observations.md, two H200: latency (148 ns per
		   hop, second run).
		   Applies to: every GPU.
		*/
		It(fmt.Sprintf("time a 4-byte cuMemcpyAsync within %s's memory", g),
			harness.GPULabels(idLatency, g, harness.Variant("local-copy-4b")), func(ctx SpecContext) {
				s := gpuSession(h, ctx, idLatency, g)
				src, dst := s.wordBuf(g), s.wordBuf(g)
				st := h.Stream(g)
				s.smallCopyLatency(st, src, dst, "cuMemcpyAsync within "+g.String(), func() {
					h.CopyAsync(st, dst.cePtr, src.cePtr, 4)
				})
			}, harness.Timeout(1))

		/*
		   ID: bandwidth.latency (info)
		   Requirement: one thread following a random cycle in its own GPU's memory MUST end on the element
		   the chain leads to; ns per hop recorded. Source: docs/observations.md, two H200: latency.
		   Applies to: every GPU.
		*/
		It(fmt.Sprintf("time a kernel on %s chasing pointers through its own memory", g),
			harness.GPULabels(idLatency, g, harness.Variant("pointer-chase-local")), func(ctx SpecContext) {
				s := gpuSession(h, ctx, idLatency, g)
				s.chaseLatency(g, g)
			}, harness.Timeout(1))
	}
})
