// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package vmm_test

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/p2pconf/p2pconf/harness"
)

// vmm.no-access-until-set maps where nothing was ever mapped, in a fresh
// helper process, so a driver that keeps access with the address (its page
// tables) rather than with the mapping passes it. These specs map a second
// allocation where a first one, with access granted and used, was unmapped,
// and hold the second to the same contract: no access for any device until
// cuMemSetAccess, then the access it grants.
var _ = Describe("vmm: a mapping at a reused address", func() {
	h := harness.New()

	for _, g := range harness.GPUs() {
		/*
			ID: vmm.no-access-after-remap
			Requirement: after memory mapped with PROT_READWRITE for the
			owner, which its kernel used, is unmapped and released, another
			allocation mapped at the same address MUST have no access until
			cuMemSetAccess: cuMemGetAccess reports PROT_NONE and a kernel
			touching it MUST NOT succeed (in a helper process; this process's
			context stays healthy). Once cuMemSetAccess grants PROT_READWRITE
			again, the owner's kernel MUST write and read every word.
			Source: CUDA Driver API cuMemMap ("the memory ... is not
			accessible until cuMemSetAccess"), cuMemUnmap, cuMemSetAccess
			(access is set "for the given virtual address range").
			Applies to: every GPU with VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED=1.
		*/
		It(fmt.Sprintf("on %s gives no access to memory mapped where an unmapped mapping had it, until cuMemSetAccess", g),
			harness.GPULabels("vmm.no-access-after-remap", g, harness.ProcessMulti), func(ctx SpecContext) {
				size := granule(h, g, harness.HandleNone)
				checkRemap(ctx, h, g, []harness.GPU{g}, size, uint32(harness.Seed("vmm.no-access-after-remap", g)))
				h.ExpectHealthy(ctx, g)
			}, harness.Timeout(0.5))
	}

	for _, p := range harness.Pairs() {
		/*
			ID: vmm.no-access-after-remap
			Requirement: as above, per device, with the memory on A and the
			first mapping granted PROT_READWRITE to A and B (A's kernel fills
			it, B's reads it): after it is unmapped and released, another
			allocation of A mapped at the same address MUST have no access for
			either: cuMemGetAccess reports PROT_NONE for A and for B, and B's
			kernel touching it MUST NOT succeed (in a helper process; this
			process's contexts stay healthy). Once cuMemSetAccess grants both
			PROT_READWRITE again, A's kernel writes what B's reads and B's
			writes what A's reads.
			Source: CUDA Driver API cuMemMap, cuMemUnmap, cuMemSetAccess (one
			CUmemAccessDesc per device).
			Applies to: pairs where cuDeviceCanAccessPeer(B, A)=1.
		*/
		It(fmt.Sprintf("of %s's memory gives %s no access to memory mapped where an unmapped mapping granted it, until cuMemSetAccess (%s)", p.A, p.B, p),
			harness.PairLabels("vmm.no-access-after-remap", p, harness.ProcessMulti), func(ctx SpecContext) {
				size := granule(h, p.A, harness.HandleNone)
				h.RequirePeerAccess(p.Reverse())
				checkRemap(ctx, h, p.A, []harness.GPU{p.A, p.B}, size, uint32(harness.Seed("vmm.no-access-after-remap", p.ID())))
				h.ExpectHealthy(ctx, p.A, p.B)
			}, harness.Timeout(0.5))
	}
})

// checkRemap is the check of vmm.no-access-after-remap for memory on owner
// and the devices (owner first) the first mapping grants: in a helper, the
// last device's kernel touches the second allocation before any grant;
// here, no device has access to it until cuMemSetAccess, and then each
// device's kernel writes it and the next one's reads it.
func checkRemap(ctx context.Context, h *harness.Harness, owner harness.GPU, devs []harness.GPU, size uint64, seed uint32) {
	GinkgoHelper()
	grant := make([]harness.Access, len(devs))
	for i, d := range devs {
		grant[i] = rw(d)
	}
	prober := devs[len(devs)-1]
	By(fmt.Sprintf("in a helper: mapping %s's memory with %s, using it, unmapping and releasing it, mapping a second allocation there and reading it with a kernel on %s",
		owner, describeAccess(grant), prober))
	rep := runRemapRole(ctx, h, remapReq{Owner: int(owner.Ordinal), Grant: grant, Probe: int(prober.Ordinal), Seed: seed})
	first := fmt.Sprintf("the first allocation of %s's memory, mapped with %s", owner, describeAccess(grant))
	for i, res := range rep.First {
		d, what := owner, "filling"
		if i > 0 {
			d, what = devs[i-1], "reading"
		}
		Expect(res.Access).To(Equal(harness.ProtReadWrite), "cuMemGetAccess(%s) on %s", d, first)
		Expect(res.Code).To(BeZero(), "kernel on %s %s %s: %s", d, what, first, res)
		Expect(res.Verdict.Mismatches).To(BeZero(), "data read on %s from %s: %s", d, first, res.Verdict)
	}
	Expect(rep.First).To(HaveLen(len(devs)+1), "kernels run on %s (a store by %s, then a load by each device)", first, owner)
	second := fmt.Sprintf("a second allocation mapped at 0x%x, where %s was unmapped, before cuMemSetAccess", rep.Address, first)
	Expect(rep.Access).To(HaveLen(len(devs)), "cuMemGetAccess answers on %s", second)
	for i, d := range devs {
		Expect(rep.Access[i]).To(Equal(harness.ProtNone), "cuMemGetAccess(%s) on %s", d, second)
	}
	expectFault(rep.Probes, 0, fmt.Sprintf("kernel on %s reading %s", prober, second))

	By(fmt.Sprintf("here: the same reuse of one address; no access until cuMemSetAccess grants %s, then each device's kernel writes and the next one's reads", describeAccess(grant)))
	r := h.AddressReserve(owner, size)
	a := mustCreate(h, owner, size, harness.HandleNone)
	r.Map(a)
	r.SetAccess(grant...)
	n := size / 4
	harness.ExpectNoError(h.GPUWork(owner).Fill(ctx, r.Ptr, n, seed), "kernel on %s filling %s", owner, first)
	for _, d := range devs {
		v, err := h.GPUWork(d).Verify(ctx, r.Ptr, n, seed)
		harness.ExpectNoError(err, "kernel on %s reading %s", d, first)
		Expect(v.Mismatches).To(BeZero(), "data read on %s from %s: %s", d, first, v)
	}
	r.Unmap()
	a.Release()
	r.Map(mustCreate(h, owner, size, harness.HandleNone))
	second = fmt.Sprintf("a second allocation mapped at 0x%x, where %s was unmapped", uint64(r.Ptr), first)
	for _, d := range devs {
		Expect(r.Access(d)).To(Equal(harness.ProtNone), "cuMemGetAccess(%s) on %s, before cuMemSetAccess", d, second)
	}
	r.SetAccess(grant...)
	for i, d := range devs {
		Expect(r.Access(d)).To(Equal(harness.ProtReadWrite), "cuMemGetAccess(%s) on %s, after cuMemSetAccess", d, second)
		next := devs[(i+1)%len(devs)]
		s := seed + uint32(i) + 1
		harness.ExpectNoError(h.GPUWork(d).Fill(ctx, r.Ptr, n, s), "kernel on %s writing %s after cuMemSetAccess", d, second)
		v, err := h.GPUWork(next).Verify(ctx, r.Ptr, n, s)
		harness.ExpectNoError(err, "kernel on %s reading %s after cuMemSetAccess", next, second)
		Expect(v.Mismatches).To(BeZero(), "data %s wrote into %s, read on %s: %s", d, second, next, v)
	}
}

// The remap role performs the helper's part of vmm.no-access-after-remap:
// its last kernel may fault, which poisons the context for good (see
// faultRole).
var remapRole = harness.RegisterRole("vmm.remap",
	func(d harness.Driver) harness.RoleServer[remapReq, remapReply] {
		return &remapProbe{faultProbe{b: d, works: map[harness.Device]*harness.GPUWork{}}}
	})

// remapReq: one granule on Owner is mapped in a reservation with Grant
// (Grant[0] is the owner), filled by the owner's kernel and read by each
// device of Grant; then it is unmapped and released, a second granule is
// mapped at the same address without cuMemSetAccess, and Probe's kernel
// reads it.
type remapReq struct {
	Owner int              `json:"owner"`
	Grant []harness.Access `json:"grant"`
	Probe int              `json:"probe"`
	Seed  uint32           `json:"seed"`
}

// remapReply is what the role saw; a kernel that failed on the first
// allocation ends the request there.
type remapReply struct {
	// First: on the first allocation, the owner's store, then a load by
	// each device of Grant, in order.
	First []probeResult `json:"first"`
	// Address is where both allocations were mapped.
	Address uint64 `json:"address"`
	// Access is cuMemGetAccess on the second allocation for each device
	// of Grant, before any cuMemSetAccess.
	Access []harness.AccessFlags `json:"access"`
	// Probes holds Probe's load of the second allocation.
	Probes []probeResult `json:"probes"`
}

type remapProbe struct{ faultProbe }

func (f *remapProbe) Serve(ctx context.Context, s *harness.RoleSession, req remapReq) (remapReply, error) {
	var rep remapReply
	owner := harness.Device(req.Owner)
	s.Step("reserve, create and map the first allocation")
	size, err := f.b.Granularity(owner, harness.AllocProp{Device: owner}, false)
	if err != nil {
		return rep, fmt.Errorf("granularity on GPU%d: %w", req.Owner, err)
	}
	n := size / 4
	r, err := reserve(f.b, owner, size)
	if err != nil {
		return rep, err
	}
	f.u.push(r.free)
	a, err := createPhysical(f.b, owner, size, harness.HandleNone)
	if err != nil {
		return rep, err
	}
	f.u.push(a.release)
	if err := r.mapTo(a.handle); err != nil {
		return rep, err
	}
	if err := r.setAccess(req.Grant...); err != nil {
		return rep, err
	}
	rep.Address = uint64(r.ptr)

	// A store probe writes PatternWord(seed+1, i), so it gets Seed-1 for
	// the loads to check Seed's.
	s.CheckStep(fmt.Sprintf("first allocation: store by GPU%d, then a load by each granted device", req.Owner))
	todo := []probeReq{{Device: req.Owner, Store: true}}
	for _, g := range req.Grant {
		todo = append(todo, probeReq{Device: int(g.Device)})
	}
	for _, pr := range todo {
		seed := req.Seed
		if pr.Store {
			seed--
		}
		res, err := f.probe(ctx, r, pr, n, seed)
		if err != nil {
			return rep, err
		}
		rep.First = append(rep.First, res)
		if res.Code != 0 {
			f.faulted = true
			return rep, nil
		}
	}

	s.Step("unmap and release the first allocation, map a second at the same address")
	if err := r.unmap(); err != nil {
		return rep, err
	}
	if err := a.release(); err != nil {
		return rep, err
	}
	b, err := createPhysical(f.b, owner, size, harness.HandleNone)
	if err != nil {
		return rep, err
	}
	f.u.push(b.release)
	if err := r.mapTo(b.handle); err != nil {
		return rep, err
	}

	s.CheckStep("access to the second allocation before cuMemSetAccess")
	for _, g := range req.Grant {
		fl, err := r.access(g.Device)
		if err != nil {
			return rep, err
		}
		rep.Access = append(rep.Access, fl)
	}
	s.CheckStep(fmt.Sprintf("load by GPU%d of the second allocation", req.Probe))
	res, err := f.probe(ctx, r, probeReq{Device: req.Probe}, n, req.Seed)
	if err != nil {
		return rep, err
	}
	rep.Probes = append(rep.Probes, res)
	f.faulted = res.Code != 0
	return rep, nil
}

// runRemapRole runs req in a remap helper and returns its reply; it fails
// the spec if the helper fails.
func runRemapRole(ctx context.Context, h *harness.Harness, req remapReq) remapReply {
	GinkgoHelper()
	harness.ExpectDeviceFaults("a helper process's kernel touches a mapping at a reused address before cuMemSetAccess")
	hp := remapRole.Start(ctx, h, harness.HelperOptions{Deadline: 30 * time.Second})
	rep, err := hp.Call(ctx, req)
	harness.ExpectNoError(err, "the results of helper %s", hp.Role)
	harness.ExpectNoError(hp.End(ctx), "helper %s", hp.Role)
	return rep
}
