// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"

	"github.com/p2pconf/p2pconf/harness/backend"
)

// Unified Memory through the fixture: managed allocations, prefetches,
// advice and the range attributes that report them back.

// Location is where managed memory is prefetched to or advised about.
type Location = backend.Location

type (
	// MemRangeAttr is backend.MemRangeAttr.
	MemRangeAttr = backend.MemRangeAttr
)

// HostLocation is the host (CU_MEM_LOCATION_TYPE_HOST).
var HostLocation = backend.HostLocation

// Advice, range attributes and their special answers, re-exported.
const (
	AdviseSetReadMostly          = backend.AdviseSetReadMostly
	AdviseUnsetReadMostly        = backend.AdviseUnsetReadMostly
	AdviseSetPreferredLocation   = backend.AdviseSetPreferredLocation
	AdviseUnsetPreferredLocation = backend.AdviseUnsetPreferredLocation
	AdviseSetAccessedBy          = backend.AdviseSetAccessedBy
	AdviseUnsetAccessedBy        = backend.AdviseUnsetAccessedBy

	RangeReadMostly           = backend.RangeReadMostly
	RangePreferredLocation    = backend.RangePreferredLocation
	RangeAccessedBy           = backend.RangeAccessedBy
	RangeLastPrefetchLocation = backend.RangeLastPrefetchLocation
	RangeCPU                  = backend.RangeCPU
	RangeInvalid              = backend.RangeInvalid

	PointerIsManaged = backend.PointerIsManaged
)

// ManagedMaxBuffer caps every managed allocation of the suites at 1 GiB: an
// allocation beyond free device memory would oversubscribe the GPU, which
// the driver allows for managed memory (it evicts to the host) but which
// turns a check into a test of eviction and can stall the GPU for minutes.
const ManagedMaxBuffer = 1 << 30

func init() {
	// The CUmemLocation forms cuMemPrefetchAsync_v2 and cuMemAdvise_v2.
	optionalEntryPoints["cuMemPrefetchAsync"] = 12020
	optionalEntryPoints["cuMemAdvise"] = 12020
}

// GPULocation is g's memory as a Location.
func GPULocation(g GPU) Location { return backend.DeviceLocation(g.Ordinal) }

// ManagedSize is how many bytes of managed memory a spec may take on g for
// want: want itself, at most ManagedMaxBuffer and at most a quarter of g's
// free memory (cuMemGetInfo); a size cut below want is rounded down to
// 2 MiB (the GPU's large page). The caller still states its need with
// RequireFreeMemory, which skips where even that is too much.
func (h *Harness) ManagedSize(g GPU, want uint64) uint64 {
	GinkgoHelper()
	free, _, err := h.b.MemInfo(g.Ordinal)
	ExpectNoError(err, "cuMemGetInfo on %s", g)
	n := min(want, ManagedMaxBuffer, free/4)
	if n < want && n > 2<<20 {
		n &^= 2<<20 - 1
	}
	return n
}

// AllocManaged allocates managed memory with g's context current
// (cuMemAllocManaged, CU_MEM_ATTACH_GLOBAL); the spec may free it with
// Free (cuMemFree), and what it did not free is freed after the spec.
// bytes above ManagedMaxBuffer fail the spec: that is a bug in the spec.
func (h *Harness) AllocManaged(g GPU, bytes uint64) *Allocation {
	GinkgoHelper()
	if bytes > ManagedMaxBuffer {
		Fail(fmt.Sprintf("AllocManaged(%s, %d): more than the %d bytes a managed buffer may take", g, bytes, uint64(ManagedMaxBuffer)))
	}
	p, err := h.b.AllocManaged(g.Ordinal, bytes)
	ExpectNoError(err, "allocate %d bytes of managed memory with %s", bytes, g)
	a := &Allocation{h: h, GPU: g, Ptr: p, Size: bytes}
	DeferCleanup(a.free)
	return a
}

// Prefetch queues cuMemPrefetchAsync of [p, p+n) to to on the work's
// stream, in order with its kernels, and waits for it.
func (w *GPUWork) Prefetch(ctx context.Context, p backend.DevicePtr, n uint64, to Location) error {
	if err := w.b.PrefetchAsync(w.stream, p, n, to); err != nil {
		return fmt.Errorf("prefetch %d bytes at 0x%x to %s on GPU%d's stream: %w", n, uint64(p), to, int(w.dev), err)
	}
	return w.Wait(ctx, fmt.Sprintf("prefetch to %s", to))
}

// PrefetchAsync queues cuMemPrefetchAsync of [p, p+n) to to on s without
// waiting (a timed sequence waits for its events), and fails the spec if
// the driver refuses.
func (h *Harness) PrefetchAsync(s backend.Stream, p backend.DevicePtr, n uint64, to Location) {
	if err := h.b.PrefetchAsync(s, p, n, to); err != nil {
		GinkgoHelper()
		ExpectNoError(err, "cuMemPrefetchAsync of %d bytes at 0x%x to %s on a stream of GPU%d", n, uint64(p), to, int(s.Device()))
	}
}

// Advise gives advice about [p, p+n) with g's context current
// (cuMemAdvise) and fails the spec if the driver refuses.
func (h *Harness) Advise(g GPU, p backend.DevicePtr, n uint64, advice backend.MemAdvice, about Location) {
	GinkgoHelper()
	ExpectNoError(h.b.Advise(g.Ordinal, p, n, advice, about), "cuMemAdvise(%s, %s) of %d bytes at 0x%x with %s", advice, about, n, uint64(p), g)
}

// RangeAttribute reads a 4-byte range attribute of [p, p+n) with g's
// context current (cuMemRangeGetAttribute).
func (h *Harness) RangeAttribute(g GPU, attr MemRangeAttr, p backend.DevicePtr, n uint64) int32 {
	GinkgoHelper()
	v, err := h.b.RangeAttribute(g.Ordinal, attr, p, n)
	ExpectNoError(err, "cuMemRangeGetAttribute(%s) of %d bytes at 0x%x with %s", attr, n, uint64(p), g)
	return v
}

// RangeAccessedBy reads ACCESSED_BY of [p, p+n) into room slots.
func (h *Harness) RangeAccessedBy(g GPU, p backend.DevicePtr, n uint64, room int) []int32 {
	GinkgoHelper()
	v, err := h.b.RangeAccessedBy(g.Ordinal, p, n, room)
	ExpectNoError(err, "cuMemRangeGetAttribute(ACCESSED_BY, %d slots) of %d bytes at 0x%x with %s", room, n, uint64(p), g)
	return v
}

// RangeAttributes reads several range attributes at once
// (cuMemRangeGetAttributes); ACCESSED_BY takes room slots.
func (h *Harness) RangeAttributes(g GPU, attrs []MemRangeAttr, room int, p backend.DevicePtr, n uint64) []int32 {
	GinkgoHelper()
	v, err := h.b.RangeAttributes(g.Ordinal, attrs, room, p, n)
	ExpectNoError(err, "cuMemRangeGetAttributes(%v) of %d bytes at 0x%x with %s", attrs, n, uint64(p), g)
	return v
}

// RangeValue names a range attribute's answer: "GPU1", "host (CU_DEVICE_CPU)"
// or "none (CU_DEVICE_INVALID)".
func RangeValue(v int32) string {
	switch v {
	case RangeCPU:
		return "host (CU_DEVICE_CPU)"
	case RangeInvalid:
		return "none (CU_DEVICE_INVALID)"
	}
	return fmt.Sprintf("GPU%d", v)
}
