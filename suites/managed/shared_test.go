// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package managed_test

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/kernels"
)

// handoffBytes is the managed buffer of the data checks: three 2 MiB pages
// and one 4 KiB page more, so a migration that stops at a large-page
// boundary, or handles only whole large pages, leaves words unchecked-for
// that the verify kernel still reads.
const handoffBytes = 3*(2<<20) + 4096

// requireManaged skips unless every GPU of gs has MANAGED_MEMORY=1.
func requireManaged(h *harness.Harness, gs ...harness.GPU) {
	GinkgoHelper()
	for _, g := range gs {
		h.RequireAttribute(g, harness.AttrManagedMemory, 1)
	}
}

// requirePrefetch skips unless the driver has the CUmemLocation form of
// cuMemPrefetchAsync and cuMemAdvise (CUDA 12.2) and every GPU of gs has
// CONCURRENT_MANAGED_ACCESS=1, which cuMemPrefetchAsync_v2 documents as
// needed by the destination GPU and by the stream's GPU.
func requirePrefetch(h *harness.Harness, what string, gs ...harness.GPU) {
	GinkgoHelper()
	h.RequireEntryPoint("cuMemPrefetchAsync", what)
	h.RequireEntryPoint("cuMemAdvise", what)
	for _, g := range gs {
		h.RequireAttribute(g, harness.AttrConcurrentManagedAccess, 1)
	}
}

// managedBuffer sizes (from free memory, at most harness.ManagedMaxBuffer)
// and allocates a managed buffer in owner's context, after stating the need
// on every GPU that will hold it; the size is a whole number of words.
func managedBuffer(h *harness.Harness, owner harness.GPU, want uint64, what string, holders ...harness.GPU) *harness.Allocation {
	GinkgoHelper()
	n := h.ManagedSize(owner, want) &^ 3
	for _, g := range append([]harness.GPU{owner}, holders...) {
		h.RequireFreeMemory(g, n, what)
	}
	return h.AllocManaged(owner, n)
}

// expectPattern verifies the seeded pattern in n words at p with a kernel
// on w's GPU.
func expectPattern(ctx context.Context, w *harness.GPUWork, g harness.GPU, p harness.DevicePtr, n uint64, seed uint32, what string) {
	GinkgoHelper()
	v, err := w.Verify(ctx, p, n, seed)
	harness.ExpectNoError(err, "verify %s on %s", what, g)
	Expect(v.Mismatches).To(BeZero(), "%s read by a kernel on %s: %s", what, g, v)
}

// expectPatternOnHost copies n words at p to the host (cuMemcpyDtoH in g's
// context) and compares them with the seeded pattern.
func expectPatternOnHost(h *harness.Harness, g harness.GPU, p harness.DevicePtr, n uint64, seed uint32, what string) {
	GinkgoHelper()
	got := h.Download(g, p, int(n))
	Expect(got).To(harness.EqualWords(kernels.Pattern(seed, int(n))), "%s read on the host (cuMemcpyDtoH with %s)", what, g)
}

// expectLastPrefetch checks LAST_PREFETCH_LOCATION of [p, p+n).
func expectLastPrefetch(h *harness.Harness, g harness.GPU, p harness.DevicePtr, n uint64, to harness.Location) {
	GinkgoHelper()
	v := h.RangeAttribute(g, harness.RangeLastPrefetchLocation, p, n)
	Expect(v).To(Equal(to.RangeValue()), "LAST_PREFETCH_LOCATION after the prefetch to %s, read with %s: %s", to, g, harness.RangeValue(v))
}

func seed32(parts ...any) uint32 { return uint32(harness.Seed(parts...)) }

// variant is the label naming one spec of a check among several on one
// target.
func variant(key string) harness.Extra { return "variant:" + key }

// recordAttributes records g's Unified Memory attributes as claims and
// returns them by name.
func recordAttributes(h *harness.Harness, g harness.GPU) map[string]int {
	GinkgoHelper()
	out := map[string]int{}
	for _, a := range []harness.DeviceAttr{harness.AttrManagedMemory, harness.AttrConcurrentManagedAccess, harness.AttrPageableMemoryAccess} {
		v := h.Attribute(g, a)
		out[a.String()] = v
		harness.Claim("cuda", a.String(), v, fmt.Sprintf("cuDeviceGetAttribute on %s", g))
	}
	return out
}
