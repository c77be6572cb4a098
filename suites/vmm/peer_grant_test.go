// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package vmm_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/p2pconf/p2pconf/harness"
)

var _ = Describe("vmm: peer access to a mapping", func() {
	h := harness.New()

	for _, p := range harness.Pairs() {
		/*
			ID: vmm.peer-access-grant
			Requirement: for physical memory on A mapped in one address range, a
			kernel on B MUST NOT succeed in touching it while B has no access
			(cuMemGetAccess reports PROT_NONE for B); after cuMemSetAccess grants
			B PROT_READWRITE (with no cuCtxEnablePeerAccess), B's kernel MUST read
			and write every word.
			Source: CUDA Driver API cuMemSetAccess; CUDA Programming Guide,
			Virtual Memory Management, "Controlling access rights"; observed on
			2× H200: 700 before, correct data after.
			Applies to: pairs where cuDeviceCanAccessPeer(B, A)=1.
		*/
		It(fmt.Sprintf("lets a kernel on %s use %s's VMM memory only once cuMemSetAccess grants it (%s)", p.B, p.A, p),
			harness.PairLabels("vmm.peer-access-grant", p, harness.ProcessMulti), func(ctx SpecContext) {
				size := granule(h, p.A, harness.HandleNone)
				h.RequirePeerAccess(p.Reverse())
				n, seed := size/4, uint32(harness.Seed("vmm.peer-access-grant", p.ID()))
				By(fmt.Sprintf("in a helper: a kernel on %s reading %s's memory mapped with access for %s only", p.B, p.A, p.A))
				res := runProbes(ctx, h, faultReq{Owner: int(p.A.Ordinal), Ranges: []rangeReq{{[]harness.Access{rw(p.A)}}},
					Fill: 0, Seed: seed, Probes: []probeReq{{Range: 0, Device: int(p.B.Ordinal)}}})
				Expect(res).NotTo(BeEmpty(), "probe results for %s", p)
				Expect(res[0].Access).To(Equal(harness.ProtNone), "cuMemGetAccess(%s) on %s's memory with access for %s only", p.B, p.A, p.A)
				expectFault(res, 0, fmt.Sprintf("kernel on %s reading %s's memory without access", p.B, p.A))

				By(fmt.Sprintf("granting %s, then %s read-write on a mapping of %s's memory in this process", p.A, p.B, p.A))
				r := mustMap(h, p.A, mustCreate(h, p.A, size, harness.HandleNone))
				r.SetAccess(rw(p.A))
				wa, wb := h.GPUWork(p.A), h.GPUWork(p.B)
				harness.ExpectNoError(wa.Fill(ctx, r.Ptr, n, seed), "fill on %s", p.A)
				r.SetAccess(rw(p.B))
				Expect(r.Access(p.B)).To(Equal(harness.ProtReadWrite), "cuMemGetAccess(%s) after the grant", p.B)

				By(fmt.Sprintf("reading and rewriting every word with a kernel on %s", p.B))
				v, err := wb.Verify(ctx, r.Ptr, n, seed)
				harness.ExpectNoError(err, "kernel on %s reading %s's memory after the grant", p.B, p.A)
				Expect(v.Mismatches).To(BeZero(), "data read by %s from %s's memory: %s", p.B, p.A, v)
				harness.ExpectNoError(wb.Fill(ctx, r.Ptr, n, seed+1), "kernel on %s writing %s's memory after the grant", p.B, p.A)
				v, err = wa.Verify(ctx, r.Ptr, n, seed+1)
				harness.ExpectNoError(err, "kernel on %s reading back", p.A)
				Expect(v.Mismatches).To(BeZero(), "data %s wrote into %s's memory, read on %s: %s", p.B, p.A, p.A, v)
			}, harness.Timeout(0.5))
	}
})
