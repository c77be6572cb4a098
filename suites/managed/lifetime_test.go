// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package managed_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"

	"github.com/p2pconf/p2pconf/harness"
)

// lifetimeBytes is the managed allocation of the lifetime check: far above
// the 1 MiB the free-memory comparison forgives.
const lifetimeBytes = 64 << 20

var _ = Describe("managed: lifetime", func() {
	h := harness.New()

	for _, g := range harness.GPUs() {
		/*
			ID: managed.free-returns-memory
			Requirement: cuMemFree of a managed allocation resident on the GPU
			MUST give the memory back (free memory back to its baseline).
			Source: CUDA Driver API cuMemAllocManaged, cuMemFree, cuMemGetInfo.
			Applies to: GPUs with MANAGED_MEMORY=1 and
			CONCURRENT_MANAGED_ACCESS=1, CUDA 12.2.
		*/
		It(fmt.Sprintf("cuMemFree of managed memory resident on %s gives the memory back", g),
			harness.GPULabels("managed.free-returns-memory", g), func(ctx SpecContext) {
				requireManaged(h, g)
				requirePrefetch(h, "making the managed allocation resident on the GPU", g)
				size := h.ManagedSize(g, lifetimeBytes)
				h.RequireFreeMemory(g, size, "a managed allocation resident on the GPU")
				n, seed := size/4, seed32("managed.free-returns-memory", g)
				w := h.GPUWork(g)

				By("warming up: one managed allocation prefetched, filled and freed, so the driver's own structures exist before the baseline")
				warm := h.AllocManaged(g, size)
				harness.ExpectNoError(w.Prefetch(ctx, warm.Ptr, size, harness.GPULocation(g)), "warm-up prefetch to %s", g)
				harness.ExpectNoError(w.Fill(ctx, warm.Ptr, n, seed), "warm-up fill on %s", g)
				warm.Free()
				baseline := h.FreeMemory(g)

				By(fmt.Sprintf("allocating %d bytes of managed memory, prefetching them to %s and filling them there", size, g))
				a := h.AllocManaged(g, size)
				harness.ExpectNoError(w.Prefetch(ctx, a.Ptr, size, harness.GPULocation(g)), "prefetch to %s", g)
				harness.ExpectNoError(w.Fill(ctx, a.Ptr, n, seed), "fill on %s", g)
				expectPattern(ctx, w, g, a.Ptr, n, seed, "the resident managed allocation")
				during := h.FreeMemory(g)
				drop := int64(baseline) - int64(during)
				harness.Metric("managed-resident-drop", float64(drop), "B", fmt.Sprintf("fall of free memory on %s while %d managed bytes were resident there", g, size))
				if drop < int64(size) {
					// The CUDA documentation does not say that cuMemGetInfo
					// counts resident managed memory (driver 580 on an H200
					// does not): the return cannot be measured, so the
					// check is not made, before its first assertion.
					Skip(fmt.Sprintf("needs free memory on %s to count managed memory resident there (found: it fell by %d bytes while %d managed bytes were resident)", g, drop, size))
				}

				By("cuMemFree of the managed allocation")
				a.Free()
				h.ExpectFreeMemoryBackTo(ctx, g, baseline, "cuMemFree of a managed allocation resident on the GPU")
			}, harness.Timeout(1))
	}
})
