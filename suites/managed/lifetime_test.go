// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package managed_test

import (
	"fmt"
	"slices"

	. "github.com/onsi/ginkgo/v2"

	"github.com/p2pconf/p2pconf/harness"
)

// lifetimeBytes is the managed allocation of the lifetime check: far above
// the 1 MiB the free-memory comparison forgives.
const lifetimeBytes = 64 << 20

// lifetimeCycles is how many times the check allocates, fills and frees
// the managed allocation. The driver's managed memory moves cuMemGetInfo's
// free memory in units larger than one allocation: on an H200 (driver
// 580.159.04) a 64 MiB allocation resident on the GPU took 128 MiB of free
// memory in every other cycle and none in the others, and each free gave
// back 64 MiB then the rest, so free memory after a free alternated
// between its start and 64 MiB below it, never lower. A cuMemFree that
// keeps the memory lowers it by the allocation in every cycle. So the
// check compares the last two cycles with the first two: six cycles leave
// a leak four allocations deep.
const lifetimeCycles = 6

var _ = Describe("managed: lifetime", func() {
	h := harness.New()

	for _, g := range harness.GPUs() {
		/*
			ID: managed.free-returns-memory
			Requirement: cuMemFree of a managed allocation resident on the GPU
			MUST give the memory back: over six cycles of allocating,
			prefetching to the GPU, filling and freeing it, free memory after
			the last two frees is no lower than after the first two.
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
				baseline := int64(h.FreeMemory(g))

				By(fmt.Sprintf("%d cycles: allocating %d bytes of managed memory, prefetching them to %s, filling them there and freeing them", lifetimeCycles, size, g))
				var resident, freed []int64 // free memory while the allocation is resident, and after its free, per cycle
				for i := range lifetimeCycles {
					a := h.AllocManaged(g, size)
					harness.ExpectNoError(w.Prefetch(ctx, a.Ptr, size, harness.GPULocation(g)), "prefetch to %s (cycle %d)", g, i+1)
					harness.ExpectNoError(w.Fill(ctx, a.Ptr, n, seed+uint32(i)), "fill on %s (cycle %d)", g, i+1)
					if i == 0 {
						expectPattern(ctx, w, g, a.Ptr, n, seed, "the resident managed allocation")
					}
					resident = append(resident, int64(h.FreeMemory(g)))
					a.Free()
					freed = append(freed, int64(h.FreeMemory(g)))
				}
				drop := baseline - slices.Min(resident)
				harness.Metric("managed-resident-drop", float64(drop), "B", fmt.Sprintf("largest fall of free memory on %s while %d managed bytes were resident there, over %d cycles", g, size, lifetimeCycles))
				harness.Finding("managed-free-memory-cycles", cycleDeltas(baseline, resident, freed),
					fmt.Sprintf("free memory on %s relative to its baseline, per cycle: while %d managed bytes were resident, and after their cuMemFree", g, size))
				if drop < int64(size) {
					// The CUDA documentation does not say that cuMemGetInfo
					// counts resident managed memory: where it never falls by
					// the allocation, the return cannot be measured, so the
					// check is not made, before its first assertion.
					Skip(fmt.Sprintf("needs free memory on %s to count managed memory resident there (found: it fell by at most %d bytes while %d managed bytes were resident, over %d cycles)", g, drop, size, lifetimeCycles))
				}

				first := min(freed[0], freed[1])
				h.ExpectFreeMemoryAtLeast(ctx, g, uint64(first), fmt.Sprintf("%d cycles of cuMemFree of a managed allocation resident on the GPU (after the first two: %+d bytes from the baseline; after the last two: %+d)",
					lifetimeCycles, first-baseline, min(freed[lifetimeCycles-2], freed[lifetimeCycles-1])-baseline))
			}, harness.Timeout(1))
	}
})

// cycleDeltas lists, per cycle, free memory while resident and after the
// free, relative to the baseline, in bytes.
func cycleDeltas(baseline int64, resident, freed []int64) []map[string]int64 {
	out := make([]map[string]int64, len(resident))
	for i := range resident {
		out[i] = map[string]int64{"cycle": int64(i + 1), "resident": resident[i] - baseline, "freed": freed[i] - baseline}
	}
	return out
}
