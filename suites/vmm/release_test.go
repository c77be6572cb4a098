// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package vmm_test

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/p2pconf/p2pconf/harness"
)

var _ = Describe("vmm: the driver", func() {
	h := harness.New()

	for _, g := range harness.GPUs() {
		/*
			ID: vmm.release-while-mapped
			Requirement: cuMemRelease of a handle whose memory is still mapped
			MUST leave the mapping usable (the data stays readable) and MUST NOT
			free the memory; after the last cuMemUnmap the memory MUST be free
			again (cuMemGetInfo back to its baseline).
			Source: CUDA Driver API cuMemRelease ("the memory ... is not freed
			until all mappings are unmapped"); cuda-samples vectorAddMMAP.
			Applies to: every GPU with VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED=1.
		*/
		It(fmt.Sprintf("keeps memory on %s alive after cuMemRelease until the last cuMemUnmap", g),
			harness.GPULabels("vmm.release-while-mapped", g), func(ctx SpecContext) {
				size := granule(h, g, harness.HandleNone)
				n, seed := size/4, uint32(harness.Seed("vmm.release-while-mapped", g))
				w := h.GPUWork(g)
				r := h.AddressReserve(g, size)
				warmUp(ctx, h, w, g, r)
				baseline := h.FreeMemory(g)

				By(fmt.Sprintf("creating, mapping and filling %d bytes on %s", size, g))
				p := mustCreate(h, g, size, harness.HandleNone)
				r.Map(p)
				r.SetAccess(harness.Access{Device: g.Ordinal, Flags: harness.ProtReadWrite})
				harness.ExpectNoError(w.Fill(ctx, r.Ptr, n, seed), "fill the mapping on %s", g)

				By("releasing the handle while the range is still mapped")
				p.Release()
				Expect(h.FreeMemory(g)).To(BeNumerically("<=", baseline-size),
					"free memory on %s right after cuMemRelease of a mapped %d-byte allocation (baseline %d): the memory must still be held", g, size, baseline)
				v, err := w.Verify(ctx, r.Ptr, n, seed)
				harness.ExpectNoError(err, "read the released-but-mapped range on %s", g)
				Expect(v.Mismatches).To(BeZero(), "data read on %s after cuMemRelease while mapped: %s", g, v)

				By("unmapping the last mapping")
				r.Unmap()
				h.ExpectFreeMemoryBackTo(ctx, g, baseline, "cuMemUnmap of the last mapping of a released allocation")
			}, harness.Timeout(0.5))
	}
})

// warmUp runs one whole create, map, grant, fill, verify, unmap and release
// cycle at r, so the kernels are loaded and the range's page tables exist
// before a spec reads its free-memory baseline.
func warmUp(ctx context.Context, h *harness.Harness, w *harness.GPUWork, g harness.GPU, r *harness.AddressRange) {
	GinkgoHelper()
	By("warming up: one VMM cycle and the kernels on " + g.String())
	p := h.MemCreate(g, r.Size, harness.HandleNone)
	r.Map(p)
	r.SetAccess(harness.Access{Device: g.Ordinal, Flags: harness.ProtReadWrite})
	harness.ExpectNoError(w.Fill(ctx, r.Ptr, r.Size/4, 1), "warm-up fill on %s", g)
	_, err := w.Verify(ctx, r.Ptr, r.Size/4, 1)
	harness.ExpectNoError(err, "warm-up verify on %s", g)
	r.Unmap()
	p.Release()
}
