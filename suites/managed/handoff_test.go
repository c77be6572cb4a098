// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package managed_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/kernels"
)

var _ = Describe("managed: data handed over", func() {
	h := harness.New()

	/*
		ID: managed.handoff
		Requirement: data a kernel on A writes into managed memory MUST be
		read exactly by a kernel on B once A's stream has completed, without
		a prefetch and after cuMemPrefetchAsync to B; on one GPU, between
		the GPU and the host. After a prefetch from A to B and a write on B,
		a read on A and one on the host MUST see the write, not a copy the
		prefetch left at A (write-after-prefetch; on one GPU with the host
		as either end).
		Source: CUDA Driver API cuMemAllocManaged, cuMemPrefetchAsync_v2,
		cuMemRangeGetAttribute; Programming Guide, Unified Memory.
		Applies to: GPUs and pairs with MANAGED_MEMORY=1; the prefetches
		with CONCURRENT_MANAGED_ACCESS=1 and CUDA 12.2.
	*/
	for _, p := range harness.Pairs() {
		It(fmt.Sprintf("a kernel on %s reads exactly what a kernel on %s wrote into managed memory, without a prefetch", p.B, p.A),
			harness.PairLabels("managed.handoff", p, variant("direct")), func(ctx SpecContext) {
				requireManaged(h, p.A, p.B)
				a := managedBuffer(h, p.A, handoffBytes, "a managed buffer written on A and read on B", p.B)
				n, seed := a.Size/4, seed32("managed.handoff direct", p.ID())
				wa, wb := h.GPUWork(p.A), h.GPUWork(p.B)
				By(fmt.Sprintf("a kernel on %s fills %d bytes of managed memory; its stream completes", p.A, a.Size))
				harness.ExpectNoError(wa.Fill(ctx, a.Ptr, n, seed), "fill the managed buffer on %s", p.A)
				expectPattern(ctx, wb, p.B, a.Ptr, n, seed, fmt.Sprintf("managed memory written by %s, not prefetched", p.A))
			}, harness.Timeout(1))

		It(fmt.Sprintf("a kernel on %s reads exactly what a kernel on %s wrote into managed memory, after a prefetch to %s", p.B, p.A, p.B),
			harness.PairLabels("managed.handoff", p, variant("prefetch")), func(ctx SpecContext) {
				requireManaged(h, p.A, p.B)
				requirePrefetch(h, "a prefetch of managed memory to B", p.A, p.B)
				a := managedBuffer(h, p.A, handoffBytes, "a managed buffer written on A and prefetched to B", p.B)
				n, seed := a.Size/4, seed32("managed.handoff prefetch", p.ID())
				wa, wb := h.GPUWork(p.A), h.GPUWork(p.B)
				By(fmt.Sprintf("a kernel on %s fills %d bytes of managed memory; then a prefetch to %s on %s's stream", p.A, a.Size, p.B, p.B))
				harness.ExpectNoError(wa.Fill(ctx, a.Ptr, n, seed), "fill the managed buffer on %s", p.A)
				harness.ExpectNoError(wb.Prefetch(ctx, a.Ptr, a.Size, harness.GPULocation(p.B)), "prefetch to %s", p.B)
				expectLastPrefetch(h, p.B, a.Ptr, a.Size, harness.GPULocation(p.B))
				expectPattern(ctx, wb, p.B, a.Ptr, n, seed, fmt.Sprintf("managed memory written by %s and prefetched to %s", p.A, p.B))
			}, harness.Timeout(1))

		It(fmt.Sprintf("a kernel on %s and the host read what a kernel on %s wrote into managed memory after a prefetch from %s to %s", p.A, p.B, p.A, p.B),
			harness.PairLabels("managed.handoff", p, variant("write-after-prefetch")), func(ctx SpecContext) {
				requireManaged(h, p.A, p.B)
				requirePrefetch(h, "a prefetch of managed memory from A to B", p.A, p.B)
				a := managedBuffer(h, p.A, handoffBytes, "a managed buffer prefetched from A to B, then written on B", p.B)
				n, seed := a.Size/4, seed32("managed.handoff write-after-prefetch", p.ID())
				wa, wb := h.GPUWork(p.A), h.GPUWork(p.B)
				By(fmt.Sprintf("a kernel on %s fills %d bytes; a prefetch to %s; a kernel on %s writes a new pattern", p.A, a.Size, p.B, p.B))
				harness.ExpectNoError(wa.Fill(ctx, a.Ptr, n, seed), "fill the managed buffer on %s", p.A)
				harness.ExpectNoError(wb.Prefetch(ctx, a.Ptr, a.Size, harness.GPULocation(p.B)), "prefetch to %s", p.B)
				expectLastPrefetch(h, p.B, a.Ptr, a.Size, harness.GPULocation(p.B))
				harness.ExpectNoError(wb.Fill(ctx, a.Ptr, n, seed+1), "write the managed buffer on %s after the prefetch", p.B)
				By(fmt.Sprintf("a kernel on %s, the prefetch's source, and then the host read it", p.A))
				what := fmt.Sprintf("managed memory prefetched from %s to %s, then written by %s", p.A, p.B, p.B)
				expectPattern(ctx, wa, p.A, a.Ptr, n, seed+1, what)
				expectPatternOnHost(h, p.A, a.Ptr, n, seed+1, what)
			}, harness.Timeout(1))
	}

	for _, g := range harness.GPUs() {
		It(fmt.Sprintf("the host reads exactly what a kernel on %s wrote into managed memory, and so does %s again", g, g),
			harness.GPULabels("managed.handoff", g, variant("gpu-to-host")), func(ctx SpecContext) {
				requireManaged(h, g)
				a := managedBuffer(h, g, handoffBytes, "a managed buffer written on the GPU and read on the host")
				n, seed := a.Size/4, seed32("managed.handoff gpu-to-host", g)
				w := h.GPUWork(g)
				By(fmt.Sprintf("a kernel on %s fills %d bytes; the host reads them without a prefetch", g, a.Size))
				harness.ExpectNoError(w.Fill(ctx, a.Ptr, n, seed), "fill the managed buffer on %s", g)
				expectPatternOnHost(h, g, a.Ptr, n, seed, fmt.Sprintf("managed memory written by %s", g))
				expectPattern(ctx, w, g, a.Ptr, n, seed, "managed memory after the host read it")
			}, harness.Timeout(1))

		It(fmt.Sprintf("data a kernel on %s wrote into managed memory survives a prefetch to the host and back", g),
			harness.GPULabels("managed.handoff", g, variant("prefetch-host-and-back")), func(ctx SpecContext) {
				requireManaged(h, g)
				requirePrefetch(h, "prefetches of managed memory between the GPU and the host", g)
				a := managedBuffer(h, g, handoffBytes, "a managed buffer prefetched to the host and back")
				n, seed := a.Size/4, seed32("managed.handoff prefetch-host-and-back", g)
				w := h.GPUWork(g)
				harness.ExpectNoError(w.Fill(ctx, a.Ptr, n, seed), "fill the managed buffer on %s", g)
				By("prefetching to the host; the host reads it")
				harness.ExpectNoError(w.Prefetch(ctx, a.Ptr, a.Size, harness.HostLocation), "prefetch to the host")
				expectLastPrefetch(h, g, a.Ptr, a.Size, harness.HostLocation)
				expectPatternOnHost(h, g, a.Ptr, n, seed, "managed memory prefetched to the host")
				By("prefetching back to " + g.String() + "; a kernel reads it")
				harness.ExpectNoError(w.Prefetch(ctx, a.Ptr, a.Size, harness.GPULocation(g)), "prefetch to %s", g)
				expectLastPrefetch(h, g, a.Ptr, a.Size, harness.GPULocation(g))
				expectPattern(ctx, w, g, a.Ptr, n, seed, "managed memory prefetched to the host and back")
			}, harness.Timeout(1))

		It(fmt.Sprintf("a kernel on %s reads exactly what the host wrote into managed memory, after a prefetch to %s", g, g),
			harness.GPULabels("managed.handoff", g, variant("host-to-gpu")), func(ctx SpecContext) {
				requireManaged(h, g)
				requirePrefetch(h, "a prefetch of host-written managed memory to the GPU", g)
				a := managedBuffer(h, g, handoffBytes, "a managed buffer written by the host and read on the GPU")
				n, seed := a.Size/4, seed32("managed.handoff host-to-gpu", g)
				w := h.GPUWork(g)
				By(fmt.Sprintf("the host writes %d bytes (cuMemcpyHtoD); a prefetch to %s", a.Size, g))
				h.Upload(g, a.Ptr, kernels.Pattern(seed, int(n)))
				harness.ExpectNoError(w.Prefetch(ctx, a.Ptr, a.Size, harness.GPULocation(g)), "prefetch to %s", g)
				expectLastPrefetch(h, g, a.Ptr, a.Size, harness.GPULocation(g))
				expectPattern(ctx, w, g, a.Ptr, n, seed, "host-written managed memory prefetched to the GPU")
			}, harness.Timeout(1))

		It(fmt.Sprintf("the host reads what a kernel on %s wrote into managed memory after a prefetch from the host to %s", g, g),
			harness.GPULabels("managed.handoff", g, variant("write-after-prefetch-to-gpu")), func(ctx SpecContext) {
				requireManaged(h, g)
				requirePrefetch(h, "a prefetch of host-written managed memory to the GPU", g)
				a := managedBuffer(h, g, handoffBytes, "a managed buffer written by the host, prefetched to the GPU and written there")
				n, seed := a.Size/4, seed32("managed.handoff write-after-prefetch-to-gpu", g)
				w := h.GPUWork(g)
				By(fmt.Sprintf("the host writes %d bytes (cuMemcpyHtoD); a prefetch to %s; a kernel on %s writes a new pattern", a.Size, g, g))
				h.Upload(g, a.Ptr, kernels.Pattern(seed, int(n)))
				harness.ExpectNoError(w.Prefetch(ctx, a.Ptr, a.Size, harness.GPULocation(g)), "prefetch to %s", g)
				expectLastPrefetch(h, g, a.Ptr, a.Size, harness.GPULocation(g))
				harness.ExpectNoError(w.Fill(ctx, a.Ptr, n, seed+1), "write the managed buffer on %s after the prefetch", g)
				By("the host, the prefetch's source, reads it; then " + g.String())
				what := fmt.Sprintf("managed memory prefetched from the host to %s, then written by %s", g, g)
				expectPatternOnHost(h, g, a.Ptr, n, seed+1, what)
				expectPattern(ctx, w, g, a.Ptr, n, seed+1, what)
			}, harness.Timeout(1))

		It(fmt.Sprintf("a kernel on %s reads what the host wrote into managed memory after a prefetch from %s to the host", g, g),
			harness.GPULabels("managed.handoff", g, variant("write-after-prefetch-to-host")), func(ctx SpecContext) {
				requireManaged(h, g)
				requirePrefetch(h, "a prefetch of managed memory from the GPU to the host", g)
				a := managedBuffer(h, g, handoffBytes, "a managed buffer written on the GPU, prefetched to the host and written there")
				n, seed := a.Size/4, seed32("managed.handoff write-after-prefetch-to-host", g)
				w := h.GPUWork(g)
				By(fmt.Sprintf("a kernel on %s fills %d bytes; a prefetch to the host; the host writes a new pattern (cuMemcpyHtoD)", g, a.Size))
				harness.ExpectNoError(w.Fill(ctx, a.Ptr, n, seed), "fill the managed buffer on %s", g)
				harness.ExpectNoError(w.Prefetch(ctx, a.Ptr, a.Size, harness.HostLocation), "prefetch to the host")
				expectLastPrefetch(h, g, a.Ptr, a.Size, harness.HostLocation)
				h.Upload(g, a.Ptr, kernels.Pattern(seed+1, int(n)))
				By(g.String() + ", the prefetch's source, reads it; then the host")
				what := fmt.Sprintf("managed memory prefetched from %s to the host, then written by the host", g)
				expectPattern(ctx, w, g, a.Ptr, n, seed+1, what)
				expectPatternOnHost(h, g, a.Ptr, n, seed+1, what)
			}, harness.Timeout(1))
	}
})
