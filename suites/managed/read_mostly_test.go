// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package managed_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"

	"github.com/p2pconf/p2pconf/harness"
)

var _ = Describe("managed: read-mostly copies", func() {
	h := harness.New()

	/*
		ID: managed.read-mostly-coherent
		Requirement: with READ_MOSTLY set, a write after a prefetch made a
		read-only copy MUST be what the copy's processor reads next.
		Source: CUDA Driver API cuMemAdvise (SET_READ_MOSTLY: a write
		invalidates every other copy), cuMemPrefetchAsync.
		Applies to: GPUs and pairs with MANAGED_MEMORY=1 and
		CONCURRENT_MANAGED_ACCESS=1, CUDA 12.2.
	*/
	for _, p := range harness.Pairs() {
		It(fmt.Sprintf("after %s writes READ_MOSTLY managed memory that %s holds a copy of, a kernel on %s reads the new data", p.A, p.B, p.B),
			harness.PairLabels("managed.read-mostly-coherent", p), func(ctx SpecContext) {
				requireManaged(h, p.A, p.B)
				requirePrefetch(h, "read-only copies made by a prefetch", p.A, p.B)
				a := managedBuffer(h, p.A, handoffBytes, "a read-mostly managed buffer", p.B)
				n := a.Size / 4
				first, second := seed32("managed.read-mostly-coherent first", p.ID()), seed32("managed.read-mostly-coherent second", p.ID())
				wa, wb := h.GPUWork(p.A), h.GPUWork(p.B)
				h.Advise(p.A, a.Ptr, a.Size, harness.AdviseSetReadMostly, harness.GPULocation(p.A))
				By(fmt.Sprintf("%s fills it; a prefetch to %s makes %s's read-only copy, which %s reads", p.A, p.B, p.B, p.B))
				harness.ExpectNoError(wa.Fill(ctx, a.Ptr, n, first), "first fill on %s", p.A)
				harness.ExpectNoError(wb.Prefetch(ctx, a.Ptr, a.Size, harness.GPULocation(p.B)), "prefetch to %s", p.B)
				expectRange(h, p.B, a, harness.RangeReadMostly, 1)
				expectPattern(ctx, wb, p.B, a.Ptr, n, first, fmt.Sprintf("%s's read-only copy", p.B))
				By(fmt.Sprintf("%s writes it again (which invalidates %s's copy); %s reads", p.A, p.B, p.B))
				harness.ExpectNoError(wa.Fill(ctx, a.Ptr, n, second), "second fill on %s", p.A)
				expectPattern(ctx, wb, p.B, a.Ptr, n, second, fmt.Sprintf("read-mostly managed memory rewritten by %s", p.A))
			}, harness.Timeout(1))
	}

	for _, g := range harness.GPUs() {
		It(fmt.Sprintf("after %s writes READ_MOSTLY managed memory that the host holds a copy of, the host reads the new data", g),
			harness.GPULabels("managed.read-mostly-coherent", g), func(ctx SpecContext) {
				requireManaged(h, g)
				requirePrefetch(h, "read-only copies made by a prefetch", g)
				a := managedBuffer(h, g, handoffBytes, "a read-mostly managed buffer")
				n := a.Size / 4
				first, second := seed32("managed.read-mostly-coherent first", g), seed32("managed.read-mostly-coherent second", g)
				w := h.GPUWork(g)
				h.Advise(g, a.Ptr, a.Size, harness.AdviseSetReadMostly, harness.GPULocation(g))
				By(fmt.Sprintf("%s fills it; a prefetch to the host makes the host's read-only copy, which the host reads", g))
				harness.ExpectNoError(w.Fill(ctx, a.Ptr, n, first), "first fill on %s", g)
				harness.ExpectNoError(w.Prefetch(ctx, a.Ptr, a.Size, harness.HostLocation), "prefetch to the host")
				expectPatternOnHost(h, g, a.Ptr, n, first, "the host's read-only copy")
				By(fmt.Sprintf("%s writes it again (which invalidates the host's copy); the host reads", g))
				harness.ExpectNoError(w.Fill(ctx, a.Ptr, n, second), "second fill on %s", g)
				expectPatternOnHost(h, g, a.Ptr, n, second, fmt.Sprintf("read-mostly managed memory rewritten by %s", g))
			}, harness.Timeout(1))
	}
})
