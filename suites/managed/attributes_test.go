// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package managed_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/p2pconf/p2pconf/harness"
)

var _ = Describe("managed: attributes", func() {
	h := harness.New()

	for _, g := range harness.GPUs() {
		/*
			ID: managed.attributes
			Requirement: the Unified Memory attributes are recorded; managed
			memory MUST be allocatable and flagged IS_MANAGED, and a prefetch
			to the GPU MUST succeed exactly where CONCURRENT_MANAGED_ACCESS=1.
			Source: CUDA Driver API cuDeviceGetAttribute, cuMemAllocManaged,
			cuPointerGetAttribute, cuMemPrefetchAsync_v2.
			Applies to: GPUs with MANAGED_MEMORY=1 and CUDA 12.2.
		*/
		It(fmt.Sprintf("records the Unified Memory attributes of %s, and managed memory there does what they say", g),
			harness.GPULabels("managed.attributes", g), func(ctx SpecContext) {
				attrs := recordAttributes(h, g)
				requireManaged(h, g)
				h.RequireEntryPoint("cuMemPrefetchAsync", "the prefetch that CONCURRENT_MANAGED_ACCESS decides")
				if attrs["CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS"] == 1 && attrs["CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS"] == 0 {
					harness.Finding("pageable-without-concurrent-managed", 1,
						fmt.Sprintf("%s has PAGEABLE_MEMORY_ACCESS=1 but CONCURRENT_MANAGED_ACCESS=0 (recorded: the documentation states no implication)", g))
				}
				const n = 2 << 20
				h.RequireFreeMemory(g, n, "a managed buffer")
				a := h.AllocManaged(g, n)
				dev := h.Alloc(g, 4096)
				By("reading IS_MANAGED of managed and of cuMemAlloc memory")
				Expect(h.PointerAttribute(g, harness.PointerIsManaged, a.Ptr)).To(BeEquivalentTo(1),
					"cuPointerGetAttribute(IS_MANAGED) of cuMemAllocManaged memory on %s", g)
				Expect(h.PointerAttribute(g, harness.PointerIsManaged, dev)).To(BeEquivalentTo(0),
					"cuPointerGetAttribute(IS_MANAGED) of cuMemAlloc memory on %s", g)

				w := h.GPUWork(g)
				err := w.Prefetch(ctx, a.Ptr, n, harness.GPULocation(g))
				if attrs["CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS"] == 1 {
					By("prefetching to the GPU, which CONCURRENT_MANAGED_ACCESS=1 allows")
					harness.ExpectNoError(err, "cuMemPrefetchAsync to %s with CONCURRENT_MANAGED_ACCESS=1", g)
					expectLastPrefetch(h, g, a.Ptr, n, harness.GPULocation(g))
					return
				}
				By("prefetching to the GPU, which CONCURRENT_MANAGED_ACCESS=0 rules out")
				Expect(err).To(HaveOccurred(), "cuMemPrefetchAsync to %s with CONCURRENT_MANAGED_ACCESS=0 succeeded; the documentation requires the attribute", g)
				harness.Finding("prefetch-without-concurrent-managed", harness.CodeOf(err),
					fmt.Sprintf("cuMemPrefetchAsync to %s (CONCURRENT_MANAGED_ACCESS=0) failed as documented, with this code", g))
			}, harness.Timeout(0.5))
	}
})
