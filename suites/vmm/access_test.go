// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package vmm_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/p2pconf/p2pconf/harness"
)

func rw(g harness.GPU) harness.Access {
	return harness.Access{Device: g.Ordinal, Flags: harness.ProtReadWrite}
}

func ro(g harness.GPU) harness.Access {
	return harness.Access{Device: g.Ordinal, Flags: harness.ProtRead}
}

var _ = Describe("vmm: a mapping", func() {
	h := harness.New()

	for _, g := range harness.GPUs() {
		/*
			ID: vmm.no-access-until-set
			Requirement: after cuMemMap and before cuMemSetAccess, cuMemGetAccess
			MUST report PROT_NONE for the mapping device and a kernel touching
			the range MUST NOT succeed (in a helper process; this process's
			context stays healthy).
			Source: CUDA Driver API cuMemMap ("the memory ... is not accessible
			until cuMemSetAccess"); observed on H200: 0, then 700 ILLEGAL_ADDRESS.
			Applies to: every GPU with VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED=1.
		*/
		It(fmt.Sprintf("on %s gives no access until cuMemSetAccess", g),
			harness.GPULabels("vmm.no-access-until-set", g, harness.ProcessMulti), func(ctx SpecContext) {
				granule(h, g, harness.HandleNone)
				By("mapping memory of " + g.String() + " without cuMemSetAccess, then reading it with a kernel in a helper")
				res := runProbes(ctx, h, faultReq{Owner: int(g.Ordinal), Ranges: []rangeReq{{}}, Fill: -1,
					Probes: []probeReq{{Range: 0, Device: int(g.Ordinal)}}})
				Expect(res).NotTo(BeEmpty(), "probe results from the helper on %s", g)
				Expect(res[0].Access).To(Equal(harness.ProtNone), "cuMemGetAccess(%s) after cuMemMap, before cuMemSetAccess", g)
				expectFault(res, 0, fmt.Sprintf("kernel on %s reading a mapping without access", g))
				h.ExpectHealthy(ctx, g)
			}, harness.Timeout(0.5))

		/*
			ID: vmm.read-only-access
			Requirement: with PROT_READ granted to a device, cuMemGetAccess MUST
			report PROT_READ, its kernel MUST read the data correctly and a
			kernel store MUST NOT succeed (in a helper process; this process's
			context stays healthy). The PROT_READ grant MUST NOT take away the
			owner's PROT_READWRITE on another range of the same memory:
			cuMemGetAccess reports PROT_READWRITE there and the owner's kernel
			fills the memory through it (the data the read checks).
			Source: CUDA Driver API CUmemAccess_flags (PROT_READ: "read-only
			access"), cuMemSetAccess (access is set "for the given virtual
			address range"); observed on H200: store → 700.
			Applies to: every GPU with VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED=1.
		*/
		It(fmt.Sprintf("of %s's memory set PROT_READ lets a kernel on %s read but not write it", g, g),
			harness.GPULabels("vmm.read-only-access", g, harness.ProcessMulti), func(ctx SpecContext) {
				granule(h, g, harness.HandleNone)
				By("filling through a read-write range, then loading and storing through a read-only range of the same memory")
				rep := runFaultRole(ctx, h, faultReq{Owner: int(g.Ordinal), Ranges: []rangeReq{{[]harness.Access{rw(g)}}, {[]harness.Access{ro(g)}}},
					Fill: 0, FillChecked: true, Seed: uint32(harness.Seed("vmm.read-only-access", g)),
					Probes: []probeReq{{Range: 1, Device: int(g.Ordinal)}, {Range: 1, Device: int(g.Ordinal), Store: true}}})
				expectOwnerFilled(rep, fmt.Sprintf("%s through the range of its memory granted PROT_READWRITE, with PROT_READ granted to it on a second range of the same memory", g))
				expectReadOnly(rep.Probes, fmt.Sprintf("%s on a PROT_READ mapping of its own memory", g))
				h.ExpectHealthy(ctx, g)
			}, harness.Timeout(0.5))

		/*
			ID: vmm.access-is-per-range
			Requirement: when one physical allocation is mapped at two address
			ranges and access is set on one, the other MUST stay inaccessible:
			cuMemGetAccess reports PROT_NONE there and a kernel touching it does
			not succeed (in a helper process; this process's context stays
			healthy), while the first range is readable.
			Source: CUDA Driver API cuMemSetAccess (access is set "for the given
			virtual address range").
			Applies to: every GPU with VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED=1.
		*/
		It(fmt.Sprintf("with access set gives none to a second mapping of the same memory on %s", g),
			harness.GPULabels("vmm.access-is-per-range", g, harness.ProcessMulti), func(ctx SpecContext) {
				granule(h, g, harness.HandleNone)
				By("mapping one allocation twice, granting read-write on the first range only")
				res := runProbes(ctx, h, faultReq{Owner: int(g.Ordinal), Ranges: []rangeReq{{[]harness.Access{rw(g)}}, {}},
					Fill: 0, Seed: uint32(harness.Seed("vmm.access-is-per-range", g)),
					Probes: []probeReq{{Range: 0, Device: int(g.Ordinal)}, {Range: 1, Device: int(g.Ordinal)}}})
				Expect(res).To(HaveLen(2), "probes run on %s (the first must complete)", g)
				Expect(res[0].Code).To(BeZero(), "kernel on %s reading the range with access: %s", g, res[0])
				Expect(res[0].Verdict.Mismatches).To(BeZero(), "data read on %s through the range with access: %s", g, res[0].Verdict)
				Expect(res[1].Access).To(Equal(harness.ProtNone), "cuMemGetAccess(%s) on the second range", g)
				expectFault(res, 1, fmt.Sprintf("kernel on %s reading the second mapping, which has no access", g))
				h.ExpectHealthy(ctx, g)
			}, harness.Timeout(0.5))
	}

	for _, p := range harness.Pairs() {
		/*
			ID: vmm.read-only-access
			Requirement: as above, with the physical memory on A and PROT_READ
			granted to B: B's kernel MUST read correctly and MUST NOT store; this
			process's contexts on A and B stay healthy. B's PROT_READ MUST NOT
			take away A's PROT_READWRITE on the same range: cuMemGetAccess
			reports PROT_READWRITE for A and A's kernel fills the range.
			Source: CUDA Driver API CUmemAccess_flags, cuMemSetAccess (one
			CUmemAccessDesc per device).
			Applies to: pairs where cuDeviceCanAccessPeer(B, A)=1.
		*/
		It(fmt.Sprintf("of %s's memory set PROT_READ for %s lets a kernel on %s read but not write it (%s)", p.A, p.B, p.B, p),
			harness.PairLabels("vmm.read-only-access", p, harness.ProcessMulti), func(ctx SpecContext) {
				granule(h, p.A, harness.HandleNone)
				h.RequirePeerAccess(p.Reverse())
				By(fmt.Sprintf("granting %s read-write and %s read-only on one range of %s's memory", p.A, p.B, p.A))
				rep := runFaultRole(ctx, h, faultReq{Owner: int(p.A.Ordinal), Ranges: []rangeReq{{[]harness.Access{rw(p.A), ro(p.B)}}},
					Fill: 0, FillChecked: true, Seed: uint32(harness.Seed("vmm.read-only-access", p.ID())),
					Probes: []probeReq{{Range: 0, Device: int(p.B.Ordinal)}, {Range: 0, Device: int(p.B.Ordinal), Store: true}}})
				expectOwnerFilled(rep, fmt.Sprintf("%s through a range of its memory granted PROT_READWRITE to it and PROT_READ to %s", p.A, p.B))
				expectReadOnly(rep.Probes, fmt.Sprintf("%s on %s's memory mapped PROT_READ for it", p.B, p.A))
				h.ExpectHealthy(ctx, p.A, p.B)
			}, harness.Timeout(0.5))
	}
})

// expectOwnerFilled checks the owner's fill of a FillChecked request: a
// PROT_READ grant elsewhere must leave the owner's PROT_READWRITE range
// reported and writable. A fill that failed proves the grant broken, so it
// fails the check here rather than as a helper failure.
func expectOwnerFilled(rep faultReply, what string) {
	GinkgoHelper()
	Expect(rep.Fill.Code).To(BeZero(), "the owner's kernel filling %s must succeed: %s", what, rep.Fill)
	Expect(rep.Fill.Access).To(Equal(harness.ProtReadWrite), "cuMemGetAccess for the owner's fill, %s", what)
}

// expectReadOnly checks a load probe that completed correctly under
// PROT_READ, then a store probe that did not succeed.
func expectReadOnly(res []probeResult, what string) {
	GinkgoHelper()
	Expect(res).NotTo(BeEmpty(), "probe results for %s", what)
	Expect(res[0].Access).To(Equal(harness.ProtRead), "cuMemGetAccess for %s", what)
	Expect(res[0].Code).To(BeZero(), "kernel load by %s: %s", what, res[0])
	Expect(res[0].Verdict.Mismatches).To(BeZero(), "data loaded by %s: %s", what, res[0].Verdict)
	expectFault(res, 1, "kernel store by "+what)
}
