// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package vmm_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

var _ = Describe("vmm: cuMemGetAllocationGranularity", func() {
	h := harness.New()

	for _, g := range harness.GPUs() {
		/*
			ID: vmm.granularity
			Requirement: cuMemGetAllocationGranularity MUST report a non-zero
			minimum and recommended granularity, the recommended a multiple of
			the minimum, and cuMemCreate of a size that is not a multiple of the
			minimum MUST fail with CUDA_ERROR_INVALID_VALUE.
			Source: CUDA Driver API, Virtual Memory Management, cuMemCreate
			("size ... must be aligned to the granularity") and
			cuMemGetAllocationGranularity.
			Applies to: every GPU with VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED=1.
		*/
		It(fmt.Sprintf("reports a non-zero granularity on %s, and cuMemCreate refuses a size that is not a multiple of it", g),
			harness.GPULabels("vmm.granularity", g), func(ctx SpecContext) {
				h.RequireAttribute(g, harness.AttrVirtualMemoryManagementSupported, 1)

				By("querying the minimum and recommended granularity on " + g.String())
				minimum := h.Granularity(g, harness.HandleNone, false)
				recommended := h.Granularity(g, harness.HandleNone, true)
				harness.Claim("cuda", "granularity.minimum", minimum, g.String())
				harness.Claim("cuda", "granularity.recommended", recommended, g.String())
				Expect(minimum).To(BeNumerically(">", 0), "minimum granularity on %s", g)
				Expect(recommended).To(BeNumerically(">", 0), "recommended granularity on %s", g)
				Expect(recommended%minimum).To(BeZero(),
					"recommended granularity %d on %s is not a multiple of the minimum %d", recommended, g, minimum)

				odd := minimum + max(minimum/2, 1) // one and a half granules
				By(fmt.Sprintf("creating %d bytes, not a multiple of %d, on %s", odd, minimum, g))
				_, err := h.TryMemCreate(g, odd, harness.HandleNone)
				Expect(err).To(harness.MatchCUDAError(cuerr.InvalidValue),
					"cuMemCreate(%d bytes) on %s with minimum granularity %d", odd, g, minimum)
			}, harness.Timeout(0.5))
	}
})
