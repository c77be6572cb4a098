// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package managed_test

import (
	"fmt"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/p2pconf/p2pconf/harness"
)

// adviseBytes is the managed range the advice specs advise: two 2 MiB pages.
const adviseBytes = 4 << 20

var _ = Describe("managed: advice", func() {
	h := harness.New()

	/*
		ID: managed.advise-readback
		Requirement: cuMemRangeGetAttribute(s) MUST report back the advice
		given with cuMemAdvise and the last prefetch, and nothing after the
		UNSET advice.
		Source: CUDA Driver API cuMemAdvise_v2, cuMemRangeGetAttribute,
		cuMemRangeGetAttributes.
		Applies to: GPUs and pairs with MANAGED_MEMORY=1 and
		CONCURRENT_MANAGED_ACCESS=1, CUDA 12.2.
	*/
	for _, p := range harness.Pairs() {
		It(fmt.Sprintf("the range attributes report the advice given about %s and %s for managed memory of %s", p.A, p.B, p.A),
			harness.PairLabels("managed.advise-readback", p), func(ctx SpecContext) {
				requireManaged(h, p.A, p.B)
				requirePrefetch(h, "the prefetch whose location the range attributes report", p.A, p.B)
				a := managedBuffer(h, p.A, adviseBytes, "an advised managed range", p.B)
				adviseAndReadBack(ctx, h, a, p.A, harness.GPULocation(p.B), []harness.GPU{p.A, p.B})
			}, harness.Timeout(0.5))
	}

	for _, g := range harness.GPUs() {
		It(fmt.Sprintf("the range attributes report the advice given about the host and %s for managed memory of %s", g, g),
			harness.GPULabels("managed.advise-readback", g), func(ctx SpecContext) {
				requireManaged(h, g)
				requirePrefetch(h, "the prefetch whose location the range attributes report", g)
				a := managedBuffer(h, g, adviseBytes, "an advised managed range")
				adviseAndReadBack(ctx, h, a, g, harness.HostLocation, []harness.GPU{g})
				By("advising " + g.String() + " as the preferred location and prefetching there")
				h.Advise(g, a.Ptr, a.Size, harness.AdviseSetPreferredLocation, harness.GPULocation(g))
				expectRange(h, g, a, harness.RangePreferredLocation, int32(g.Ordinal))
				harness.ExpectNoError(h.GPUWork(g).Prefetch(ctx, a.Ptr, a.Size, harness.GPULocation(g)), "prefetch to %s", g)
				expectLastPrefetch(h, g, a.Ptr, a.Size, harness.GPULocation(g))
			}, harness.Timeout(0.5))
	}
})

// adviseAndReadBack gives a (managed memory of owner) READ_MOSTLY,
// to as its preferred location and every GPU of readers as an accessor,
// prefetches it to to, and reads each back in the context of every reader,
// one attribute at a time and all at once; then the UNSET advice, and reads
// again. ACCESSED_BY is compared as a set: the documentation lists the
// devices without an order.
func adviseAndReadBack(ctx SpecContext, h *harness.Harness, a *harness.Allocation, owner harness.GPU, to harness.Location, readers []harness.GPU) {
	GinkgoHelper()
	By(fmt.Sprintf("SET_READ_MOSTLY, SET_PREFERRED_LOCATION(%s), SET_ACCESSED_BY(%v), then a prefetch to %s", to, readers, to))
	h.Advise(owner, a.Ptr, a.Size, harness.AdviseSetReadMostly, harness.GPULocation(owner))
	h.Advise(owner, a.Ptr, a.Size, harness.AdviseSetPreferredLocation, to)
	for _, r := range readers {
		h.Advise(owner, a.Ptr, a.Size, harness.AdviseSetAccessedBy, harness.GPULocation(r))
	}
	w := h.GPUWork(owner)
	if !to.Host {
		w = h.GPUWork(readers[len(readers)-1])
	}
	harness.ExpectNoError(w.Prefetch(ctx, a.Ptr, a.Size, to), "prefetch to %s", to)

	room := len(readers) + 1 // one slot more than the accessors: it must stay CU_DEVICE_INVALID
	wantBy := []int32{harness.RangeInvalid}
	for _, r := range readers {
		wantBy = append(wantBy, int32(r.Ordinal))
	}
	slices.Sort(wantBy)
	attrs := []harness.MemRangeAttr{harness.RangeReadMostly, harness.RangePreferredLocation, harness.RangeAccessedBy, harness.RangeLastPrefetchLocation}
	for _, r := range readers {
		expectRange(h, r, a, harness.RangeReadMostly, 1)
		expectRange(h, r, a, harness.RangePreferredLocation, to.RangeValue())
		expectRange(h, r, a, harness.RangeLastPrefetchLocation, to.RangeValue())
		by := h.RangeAccessedBy(r, a.Ptr, a.Size, room)
		Expect(sorted(by)).To(Equal(wantBy),
			"ACCESSED_BY (%d slots) read with %s after SET_ACCESSED_BY(%v): those devices and CU_DEVICE_INVALID (-2) in the slot left over", room, r, readers)
		all := h.RangeAttributes(r, attrs, room, a.Ptr, a.Size)
		Expect(len(all)).To(Equal(3+room), "values from cuMemRangeGetAttributes with %s", r)
		Expect([]int32{all[0], all[1], all[2+room]}).To(Equal([]int32{1, to.RangeValue(), to.RangeValue()}),
			"READ_MOSTLY, PREFERRED_LOCATION and LAST_PREFETCH_LOCATION from one cuMemRangeGetAttributes call with %s", r)
		Expect(sorted(all[2:2+room])).To(Equal(wantBy), "ACCESSED_BY from one cuMemRangeGetAttributes call with %s", r)
	}
	harness.Claim("cuda", "CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY", wantBy, fmt.Sprintf("managed memory of %s after SET_ACCESSED_BY(%v), as read back (sorted)", owner, readers))

	By("UNSET_READ_MOSTLY, UNSET_PREFERRED_LOCATION and UNSET_ACCESSED_BY")
	h.Advise(owner, a.Ptr, a.Size, harness.AdviseUnsetReadMostly, harness.GPULocation(owner))
	h.Advise(owner, a.Ptr, a.Size, harness.AdviseUnsetPreferredLocation, to)
	for _, r := range readers {
		h.Advise(owner, a.Ptr, a.Size, harness.AdviseUnsetAccessedBy, harness.GPULocation(r))
	}
	none := make([]int32, room)
	for i := range none {
		none[i] = harness.RangeInvalid
	}
	for _, r := range readers {
		expectRange(h, r, a, harness.RangeReadMostly, 0)
		expectRange(h, r, a, harness.RangePreferredLocation, harness.RangeInvalid)
		Expect(h.RangeAccessedBy(r, a.Ptr, a.Size, room)).To(Equal(none), "ACCESSED_BY read with %s after UNSET_ACCESSED_BY", r)
	}
}

// sorted is a sorted copy of v.
func sorted(v []int32) []int32 {
	out := slices.Clone(v)
	slices.Sort(out)
	return out
}

func expectRange(h *harness.Harness, g harness.GPU, a *harness.Allocation, attr harness.MemRangeAttr, want int32) {
	GinkgoHelper()
	got := h.RangeAttribute(g, attr, a.Ptr, a.Size)
	Expect(got).To(Equal(want), "%s of the advised range, read with %s: %s, want %s", attr, g, harness.RangeValue(got), harness.RangeValue(want))
}
