// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cuda

/*
#include "shim.h"

static inline CUresult p2pc_cuMemAllocManaged(uintptr_t fn, CUdeviceptr *p, size_t n, unsigned int flags) {
	return ((CUresult (*)(CUdeviceptr *, size_t, unsigned int))fn)(p, n, flags);
}
// cuMemPrefetchAsync_v2 and cuMemAdvise_v2 take the CUmemLocation by value
// (8 bytes: passed in one register on x86-64 and AArch64 alike).
static inline CUresult p2pc_cuMemPrefetchAsync(uintptr_t fn, CUdeviceptr p, size_t n, CUmemLocation loc, uintptr_t s) {
	return ((CUresult (*)(CUdeviceptr, size_t, CUmemLocation, unsigned int, CUstream))fn)(p, n, loc, 0, (CUstream)s);
}
static inline CUresult p2pc_cuMemAdvise(uintptr_t fn, CUdeviceptr p, size_t n, int advice, CUmemLocation loc) {
	return ((CUresult (*)(CUdeviceptr, size_t, int, CUmemLocation))fn)(p, n, advice, loc);
}
static inline CUresult p2pc_cuMemRangeGetAttribute(uintptr_t fn, void *data, size_t size, int attr, CUdeviceptr p, size_t n) {
	return ((CUresult (*)(void *, size_t, int, CUdeviceptr, size_t))fn)(data, size, attr, p, n);
}
// p2pc_cuMemRangeGetAttributes asks for count attributes at once, each
// answered into its own slice of out (sizes[i] bytes, in order).
static inline CUresult p2pc_cuMemRangeGetAttributes(uintptr_t fn, int32_t *out, size_t *sizes, int *attrs, size_t count, CUdeviceptr p, size_t n) {
	void *data[16];
	if (count > 16) return 1; // CUDA_ERROR_INVALID_VALUE
	size_t off = 0;
	for (size_t i = 0; i < count; i++) {
		data[i] = (char *)out + off;
		off += sizes[i];
	}
	return ((CUresult (*)(void **, size_t *, int *, size_t, CUdeviceptr, size_t))fn)(data, sizes, attrs, count, p, n);
}
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/p2pconf/p2pconf/harness/cuenum"
)

// HostLocation is the host as a CUmemLocation (CU_MEM_LOCATION_TYPE_HOST;
// the id is ignored).
func HostLocation() MemLocation { return MemLocation{Type: cuenum.LocationHost} }

// MemAllocManaged allocates Unified Memory, reachable at one address from
// the host and every device; wraps cuMemAllocManaged. Needs a current
// context.
func (d *Driver) MemAllocManaged(size uint64, flags cuenum.MemAttachFlags) (DevicePtr, error) {
	fn, err := d.proc(cuMemAllocManaged)
	if err != nil {
		return 0, err
	}
	var p C.CUdeviceptr
	r := C.p2pc_cuMemAllocManaged(fn, &p, C.size_t(size), C.uint(flags))
	return DevicePtr(p), cuMemAllocManaged.check(r)
}

// MemPrefetchAsync queues a migration of [p, p+n) to loc on s; wraps
// cuMemPrefetchAsync_v2 with flags 0. The driver needs CUDA 12.2 (the first
// with the CUmemLocation form); on an older one the call returns a
// *SymbolError.
func (d *Driver) MemPrefetchAsync(p DevicePtr, n uint64, loc MemLocation, s Stream) error {
	fn, err := d.proc(cuMemPrefetchAsync)
	if err != nil {
		return err
	}
	return cuMemPrefetchAsync.check(C.p2pc_cuMemPrefetchAsync(fn, C.CUdeviceptr(p), C.size_t(n), loc.c(), s.h))
}

// MemAdvise gives advice for [p, p+n) about loc; wraps cuMemAdvise_v2 (CUDA
// 12.2 and newer, like MemPrefetchAsync).
func (d *Driver) MemAdvise(p DevicePtr, n uint64, advice cuenum.MemAdvice, loc MemLocation) error {
	fn, err := d.proc(cuMemAdvise)
	if err != nil {
		return err
	}
	return cuMemAdvise.check(C.p2pc_cuMemAdvise(fn, C.CUdeviceptr(p), C.size_t(n), C.int(advice), loc.c()))
}

// MemRangeAttribute reads a 4-byte range attribute (READ_MOSTLY,
// PREFERRED_LOCATION, LAST_PREFETCH_LOCATION) of [p, p+n); wraps
// cuMemRangeGetAttribute with dataSize 4.
func (d *Driver) MemRangeAttribute(attr cuenum.MemRangeAttr, p DevicePtr, n uint64) (int32, error) {
	if attr == cuenum.RangeAccessedBy {
		return 0, fmt.Errorf("cuda: MemRangeAttribute(%s): use MemRangeAccessedBy, which reads an array", attr)
	}
	fn, err := d.proc(cuMemRangeGetAttribute)
	if err != nil {
		return 0, err
	}
	var v C.int32_t
	r := C.p2pc_cuMemRangeGetAttribute(fn, unsafe.Pointer(&v), 4, C.int(attr), C.CUdeviceptr(p), C.size_t(n))
	return int32(v), cuMemRangeGetAttribute.check(r)
}

// MemRangeAccessedBy reads ACCESSED_BY of [p, p+n) into room slots: the
// devices (or DeviceCPU) advised as accessors of every page, the unused
// slots left at DeviceInvalid by the driver. Wraps cuMemRangeGetAttribute.
func (d *Driver) MemRangeAccessedBy(p DevicePtr, n uint64, room int) ([]int32, error) {
	fn, err := d.proc(cuMemRangeGetAttribute)
	if err != nil {
		return nil, err
	}
	if room <= 0 {
		return nil, fmt.Errorf("cuda: MemRangeAccessedBy: room %d", room)
	}
	out := make([]int32, room)
	r := C.p2pc_cuMemRangeGetAttribute(fn, unsafe.Pointer(&out[0]), C.size_t(4*room), C.int(cuenum.RangeAccessedBy), C.CUdeviceptr(p), C.size_t(n))
	return out, cuMemRangeGetAttribute.check(r)
}

// MemRangeAttributes reads several range attributes in one call; wraps
// cuMemRangeGetAttributes. Each attribute gets 4 bytes, except ACCESSED_BY,
// which gets room 4-byte slots; the answer holds the values in the order
// asked (ACCESSED_BY's room slots in its place).
func (d *Driver) MemRangeAttributes(attrs []cuenum.MemRangeAttr, room int, p DevicePtr, n uint64) ([]int32, error) {
	fn, err := d.proc(cuMemRangeGetAttributes)
	if err != nil {
		return nil, err
	}
	if len(attrs) == 0 || len(attrs) > 16 || room <= 0 {
		return nil, fmt.Errorf("cuda: MemRangeAttributes: %d attributes, room %d", len(attrs), room)
	}
	sizes := make([]C.size_t, len(attrs))
	cattrs := make([]C.int, len(attrs))
	words := 0
	for i, a := range attrs {
		w := 1
		if a == cuenum.RangeAccessedBy {
			w = room
		}
		sizes[i], cattrs[i], words = C.size_t(4*w), C.int(a), words+w
	}
	out := make([]int32, words)
	r := C.p2pc_cuMemRangeGetAttributes(fn, (*C.int32_t)(unsafe.Pointer(&out[0])), &sizes[0], &cattrs[0], C.size_t(len(attrs)), C.CUdeviceptr(p), C.size_t(n))
	return out, cuMemRangeGetAttributes.check(r)
}
