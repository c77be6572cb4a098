// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package vmm_test

import (
	"errors"
	"fmt"

	. "github.com/onsi/ginkgo/v2"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

var _ = Describe("vmm: a FABRIC handle", func() {
	h := harness.New()

	for _, g := range harness.GPUs() {
		/*
			ID: vmm.fabric-handle (info)
			Records: where HANDLE_TYPE_FABRIC_SUPPORTED=1, whether memory created
			with the FABRIC handle type can be exported and imported in another
			process, and what the importer reads. Where creation or export is
			refused with CUDA_ERROR_NOT_PERMITTED (an IMEX channel may be needed)
			or CUDA_ERROR_NOT_SUPPORTED, the code is recorded and the spec is
			skipped with it as the reason; any other error fails the spec.
			Source: CUDA Driver API CU_MEM_HANDLE_TYPE_FABRIC, cuMemCreate
			(NOT_PERMITTED without an IMEX channel).
			Applies to: every GPU with VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED=1.
		*/
		It(fmt.Sprintf("of %s is exported, imported in another process, and the outcome recorded", g),
			harness.GPULabels("vmm.fabric-handle", g, harness.ProcessMulti), func(ctx SpecContext) {
				granule(h, g, harness.HandleNone)
				h.RequireAttribute(g, harness.AttrHandleTypeFabricSupported, 1)
				seed := uint32(harness.Seed("vmm.fabric-handle", g))
				size, err := h.TryGranularity(g, harness.AllocProp{Device: g.Ordinal, HandleTypes: harness.HandleFabric}, false)
				skipRefused(err, "cuMemGetAllocationGranularity(FABRIC)", g)

				By("creating memory with the FABRIC handle type on " + g.String())
				p, err := h.TryMemCreate(g, size, harness.HandleFabric)
				skipRefused(err, "cuMemCreate(FABRIC)", g)
				fh, err := h.TryExportFabric(p)
				skipRefused(err, "cuMemExportToShareableHandle(FABRIC)", g)
				r := mustMap(h, g, p)
				r.SetAccess(rw(g))
				harness.ExpectNoError(h.GPUWork(g).Fill(ctx, r.Ptr, size/4, seed), "fill on %s", g)

				By("importing the 64-byte handle in a helper and reading every word")
				imp := startImporter(ctx, h)
				rep := imp.do(importCmd{Op: opImportFabric, Device: int(g.Ordinal), Size: size, Fabric: fh[:]})
				harness.Finding("cuMemImportFromShareableHandle(FABRIC)", cuerr.Result(rep.Code).Error(), g.String()+": "+rep.Error)
				if rep.Code == 0 {
					rep = imp.do(importCmd{Op: opVerify, Device: int(g.Ordinal), Seed: seed})
					read := rep.Verdict.String()
					if rep.Code != 0 { // the verdict is empty when the kernel failed
						read = rep.Error
					}
					harness.Finding("importer's kernel read", cuerr.Result(rep.Code).Error(), read)
				}
				imp.exit(ctx)
			}, harness.Timeout(0.5))
	}
})

// skipRefused records a refusal documented for FABRIC handles
// (CUDA_ERROR_NOT_PERMITTED: no IMEX channel; CUDA_ERROR_NOT_SUPPORTED: the
// platform lacks them) and skips with it as the reason. It runs before the
// spec's first finding about the import. Any other error fails the spec.
func skipRefused(err error, call string, g harness.GPU) {
	GinkgoHelper()
	why := "an IMEX channel may be needed"
	if errors.Is(err, cuerr.NotSupported) {
		why = "the platform lacks FABRIC handles"
	}
	harness.SkipIfRefused(err, call, g.String(), why, cuerr.NotPermitted, cuerr.NotSupported)
}
