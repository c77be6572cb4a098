// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package access_test

import (
	"errors"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/harness/cuerr"
	"github.com/p2pconf/p2pconf/kernels"
)

var _ = Describe("access:", func() {
	h := harness.New()
	gpus := harness.GPUs()

	for _, g := range gpus {
		self := harness.Pair{A: g, B: g}

		/*
			ID: access.self-is-not-a-peer
			Requirement: cuDeviceCanAccessPeer(d, d) MUST succeed and report 0;
			cuDeviceGetP2PAttribute(d, d) and cuDeviceGetP2PAtomicCapabilities(d, d)
			MUST fail with CUDA_ERROR_INVALID_DEVICE; enabling peer access to the
			own context MUST fail (the code is recorded: the documentation
			suggests INVALID_CONTEXT, 580.159.04 returned 217).
			Source: CUDA Driver API cuDeviceGetP2PAttribute, cuDeviceGetP2PAtomicCapabilities
			("src == dst" is INVALID_DEVICE), cuCtxEnablePeerAccess; observed on H200.
			Applies to: every GPU.
		*/
		It(fmt.Sprintf("%s is no peer of itself: cuDeviceCanAccessPeer(%s, %s) is 0, P2P queries reject the pair and enabling peer access to itself fails", g, g, g),
			harness.GPULabels("access.self-is-not-a-peer", g), func(ctx SpecContext) {
				By(fmt.Sprintf("asking cuDeviceCanAccessPeer(%s, %s)", g, g))
				can := h.CanAccessPeer(g, g)
				harness.Claim("cuda", "cuDeviceCanAccessPeer", can, self.String())
				Expect(can).To(BeFalse(), "cuDeviceCanAccessPeer(%s, %s) reports 1", g, g)

				for _, attr := range p2pAttrs(h) {
					By(fmt.Sprintf("asking cuDeviceGetP2PAttribute(%s, %s, %s)", attr, g, g))
					v, err := h.TryP2PAttribute(attr, g, g)
					Expect(err).To(harness.MatchCUDAError(cuerr.InvalidDevice), "cuDeviceGetP2PAttribute(%s, %s, %s) (returned value %d)", attr, g, g, v)
				}

				By(fmt.Sprintf("asking cuDeviceGetP2PAtomicCapabilities(%s, %s)", g, g))
				caps, err := h.TryP2PAtomicCapabilities(harness.AllAtomicOperations(), g, g)
				if errors.Is(err, harness.ErrMissingEntryPoint) {
					harness.Finding("cuDeviceGetP2PAtomicCapabilities(d, d) not checked", "missing entry point", err.Error())
				} else {
					Expect(err).To(harness.MatchCUDAError(cuerr.InvalidDevice), "cuDeviceGetP2PAtomicCapabilities(%s, %s) (returned %v)", g, g, caps)
				}

				By(fmt.Sprintf("enabling peer access from %s to itself", g))
				err = h.EnablePeerAccess(self)
				harness.Finding("cuCtxEnablePeerAccess(own context)", harness.CodeOf(err), g.String())
				Expect(err).To(harness.BeCUDAError(), "cuCtxEnablePeerAccess of %s's context to itself", g)
			}, harness.Timeout(1))

		/*
			ID: access.uva-owner
			Requirement: for a cuMemAlloc allocation, cuPointerGetAttribute
			DEVICE_ORDINAL MUST name the GPU it was allocated on and MEMORY_TYPE
			MUST be DEVICE; for pinned host memory MEMORY_TYPE MUST be HOST. With
			2+ GPUs, allocations on the other GPUs, queried in this GPU's context,
			MUST each report their own owner (one address space, separate
			memories).
			Source: CUDA Driver API cuPointerGetAttribute (DEVICE_ORDINAL: "the
			device ordinal of the device against which the memory was allocated
			or registered"), Unified Addressing.
			Applies to: every GPU of a run with 2+ GPUs (with one, the only
			ordinal is 0, which a constant answer gives too).
		*/
		It(fmt.Sprintf("pointers queried on %s name their owner: %s's allocations, pinned host memory and every other GPU's allocations", g, g),
			harness.GPULabels("access.uva-owner", g), func(ctx SpecContext) {
				if n := len(harness.AllGPUs()); n < 2 {
					Skip(fmt.Sprintf("needs 2+ GPUs: with one GPU every allocation's DEVICE_ORDINAL is 0, the answer of a driver that answers 0 for every pointer (found %d GPU)", n))
				}
				By(fmt.Sprintf("querying an allocation of %s", g))
				expectOwner(h, g, g, h.Alloc(g, 4096))

				By(fmt.Sprintf("querying pinned host memory allocated with %s", g))
				hb := h.HostAlloc(g, 4096, 0)
				mt := h.PointerAttribute(g, harness.PointerMemoryType, hb.Ptr)
				Expect(mt).To(BeEquivalentTo(harness.MemoryTypeHost), "MEMORY_TYPE of pinned host memory 0x%x on %s (1 HOST, 2 DEVICE)", uint64(hb.Ptr), g)

				for _, o := range gpus {
					if o.Ordinal != g.Ordinal {
						By(fmt.Sprintf("querying an allocation of %s in %s's context", o, g))
						expectOwner(h, g, o, h.Alloc(o, 4096))
					}
				}
			}, harness.Timeout(1))

		/*
			ID: access.host-mapped
			Requirement: a kernel MUST read and write pinned host memory
			allocated with cuMemHostAlloc(DEVICEMAP|PORTABLE) through the pointer
			cuMemHostGetDevicePointer returns, and the host MUST see the result
			after the stream completes. UNIFIED_ADDRESSING MUST be 1 (a 64-bit
			process) and the host pointer itself MUST work in a kernel as well. Whether the
			device pointer equals the host pointer is recorded (observed: equal).
			Source: CUDA Driver API cuMemHostAlloc, cuMemHostGetDevicePointer
			and Unified Addressing ("host memory allocated ... is accessible
			from all devices ... at the same address"); observed on H200.
			Applies to: GPUs with CAN_MAP_HOST_MEMORY=1.
		*/
		It(fmt.Sprintf("a kernel on %s reads and writes mapped pinned host memory that the host then sees", g),
			harness.GPULabels("access.host-mapped", g), func(ctx SpecContext) {
				h.RequireAttribute(g, harness.AttrCanMapHostMemory, 1)
				const n = 1<<16 + 3
				hb := h.HostAlloc(g, words32(3*n), harness.HostAllocDeviceMap|harness.HostAllocPortable)
				dp := h.HostDevicePointer(g, hb)
				harness.Finding("device pointer equals host pointer", dp == hb.Ptr,
					fmt.Sprintf("%s: cuMemHostGetDevicePointer 0x%x, host pointer 0x%x", g, uint64(dp), uint64(hb.Ptr)))

				in := harness.RandomWords(harness.Seed("access.host-mapped", g), n)
				copy(hb.Mem, harness.WordsToBytes(append(in, poisonWords(2*n)...)))
				add := seed32("access.host-mapped add", g) | 1
				By(fmt.Sprintf("a kernel on %s adds %d to each word through the device pointer", g, add))
				run(ctx, h, g, kernels.Transform, n, "kernel through the mapped device pointer", uint64(dp)+words32(n), uint64(dp), n, uint64(add))
				expectSame(plus(in, add), harness.BytesToWords(hb.Mem[words32(n):words32(2*n)]),
					"host view of what a kernel on %s wrote through device pointer 0x%x", g, uint64(dp))

				// Unified addressing is on in every 64-bit process, so the
				// host-pointer half always runs: a GPU that says otherwise
				// fails here instead of skipping it.
				Expect(h.Attribute(g, harness.AttrUnifiedAddressing)).To(Equal(1),
					"UNIFIED_ADDRESSING of %s in a 64-bit process (CUDA Driver API, Unified Addressing: automatically enabled in 64-bit processes)", g)
				By(fmt.Sprintf("under UVA, a kernel on %s does the same through the host pointer itself", g))
				run(ctx, h, g, kernels.Transform, n, "kernel through the host pointer", uint64(hb.Ptr)+words32(2*n), uint64(hb.Ptr), n, uint64(add+1))
				expectSame(plus(in, add+1), harness.BytesToWords(hb.Mem[words32(2*n):]),
					"host view of what a kernel on %s wrote through host pointer 0x%x", g, uint64(hb.Ptr))
			}, harness.Timeout(1))
	}
})

// expectOwner checks, in g's context, that p was allocated on owner.
func expectOwner(h *harness.Harness, g, owner harness.GPU, p harness.DevicePtr) {
	GinkgoHelper()
	ord := h.PointerAttribute(g, harness.PointerDeviceOrdinal, p)
	Expect(ord).To(BeEquivalentTo(owner.Ordinal), "DEVICE_ORDINAL of 0x%x, allocated on %s, queried in %s's context", uint64(p), owner, g)
	mt := h.PointerAttribute(g, harness.PointerMemoryType, p)
	Expect(mt).To(BeEquivalentTo(harness.MemoryTypeDevice), "MEMORY_TYPE of 0x%x allocated on %s, queried in %s's context (1 HOST, 2 DEVICE)", uint64(p), owner, g)
}

// p2pAttrs lists the P2P attributes this driver knows (attribute 5 needs CUDA 13.0).
func p2pAttrs(h *harness.Harness) []harness.P2PAttr {
	attrs := []harness.P2PAttr{harness.P2PPerformanceRank, harness.P2PAccessSupported,
		harness.P2PNativeAtomicSupported, harness.P2PCudaArrayAccessSupported}
	if h.DriverVersion() >= 13000 {
		attrs = append(attrs, harness.P2POnlyPartialNativeAtomicSupported)
	}
	return attrs
}

// plus returns w[i]+add.
func plus(w []uint32, add uint32) []uint32 {
	out := make([]uint32, len(w))
	for i, v := range w {
		out[i] = v + add
	}
	return out
}
