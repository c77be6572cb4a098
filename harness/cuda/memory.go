// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cuda

/*
#include "shim.h"

static inline CUresult p2pc_cuMemGetInfo(uintptr_t fn, size_t *free, size_t *total) {
	return ((CUresult (*)(size_t *, size_t *))fn)(free, total);
}
static inline CUresult p2pc_cuMemAlloc(uintptr_t fn, CUdeviceptr *p, size_t n) {
	return ((CUresult (*)(CUdeviceptr *, size_t))fn)(p, n);
}
static inline CUresult p2pc_cuMemFree(uintptr_t fn, CUdeviceptr p) {
	return ((CUresult (*)(CUdeviceptr))fn)(p);
}
static inline CUresult p2pc_cuMemHostAlloc(uintptr_t fn, void **p, size_t n, unsigned int flags) {
	return ((CUresult (*)(void **, size_t, unsigned int))fn)(p, n, flags);
}
static inline CUresult p2pc_cuMemFreeHost(uintptr_t fn, void *p) {
	return ((CUresult (*)(void *))fn)(p);
}
static inline CUresult p2pc_cuMemHostGetDevicePointer(uintptr_t fn, CUdeviceptr *d, void *p, unsigned int flags) {
	return ((CUresult (*)(CUdeviceptr *, void *, unsigned int))fn)(d, p, flags);
}
static inline CUresult p2pc_cuMemsetD8(uintptr_t fn, CUdeviceptr d, unsigned char v, size_t n) {
	return ((CUresult (*)(CUdeviceptr, unsigned char, size_t))fn)(d, v, n);
}
static inline CUresult p2pc_cuMemsetD32(uintptr_t fn, CUdeviceptr d, unsigned int v, size_t n) {
	return ((CUresult (*)(CUdeviceptr, unsigned int, size_t))fn)(d, v, n);
}
static inline CUresult p2pc_cuMemsetD32Async(uintptr_t fn, CUdeviceptr d, unsigned int v, size_t n, uintptr_t s) {
	return ((CUresult (*)(CUdeviceptr, unsigned int, size_t, CUstream))fn)(d, v, n, (CUstream)s);
}
static inline CUresult p2pc_cuMemcpyHtoD(uintptr_t fn, CUdeviceptr d, const void *h, size_t n) {
	return ((CUresult (*)(CUdeviceptr, const void *, size_t))fn)(d, h, n);
}
static inline CUresult p2pc_cuMemcpyDtoH(uintptr_t fn, void *h, CUdeviceptr d, size_t n) {
	return ((CUresult (*)(void *, CUdeviceptr, size_t))fn)(h, d, n);
}
static inline CUresult p2pc_cuMemcpyDtoD(uintptr_t fn, CUdeviceptr dst, CUdeviceptr src, size_t n) {
	return ((CUresult (*)(CUdeviceptr, CUdeviceptr, size_t))fn)(dst, src, n);
}
static inline CUresult p2pc_cuMemcpyAsync(uintptr_t fn, CUdeviceptr dst, CUdeviceptr src, size_t n, uintptr_t s) {
	return ((CUresult (*)(CUdeviceptr, CUdeviceptr, size_t, CUstream))fn)(dst, src, n, (CUstream)s);
}
static inline CUresult p2pc_cuMemcpyHtoDAsync(uintptr_t fn, CUdeviceptr d, const void *h, size_t n, uintptr_t s) {
	return ((CUresult (*)(CUdeviceptr, const void *, size_t, CUstream))fn)(d, h, n, (CUstream)s);
}
static inline CUresult p2pc_cuMemcpyDtoHAsync(uintptr_t fn, void *h, CUdeviceptr d, size_t n, uintptr_t s) {
	return ((CUresult (*)(void *, CUdeviceptr, size_t, CUstream))fn)(h, d, n, (CUstream)s);
}
static inline CUresult p2pc_cuPointerGetAttribute(uintptr_t fn, void *data, int attr, CUdeviceptr p) {
	return ((CUresult (*)(void *, int, CUdeviceptr))fn)(data, attr, p);
}
*/
import "C"

import (
	"unsafe"

	"github.com/p2pconf/p2pconf/harness/cuenum"
)

// DevicePtr is a device address (CUdeviceptr). With unified addressing it is
// unique across all devices and the host, which is what lets a kernel on one
// GPU use a peer's pointer unchanged.
type DevicePtr uint64

// MemGetInfo returns free and total memory of the current context's device;
// wraps cuMemGetInfo_v2. Needs a current context.
func (d *Driver) MemGetInfo() (free, total uint64, err error) {
	fn, err := d.proc(cuMemGetInfo)
	if err != nil {
		return 0, 0, err
	}
	var f, t C.size_t
	r := C.p2pc_cuMemGetInfo(fn, &f, &t)
	return uint64(f), uint64(t), cuMemGetInfo.check(r)
}

// MemAlloc allocates device memory on the current context's device; wraps
// cuMemAlloc_v2. Needs a current context. The memory is not cleared.
func (d *Driver) MemAlloc(size uint64) (DevicePtr, error) {
	fn, err := d.proc(cuMemAlloc)
	if err != nil {
		return 0, err
	}
	var p C.CUdeviceptr
	r := C.p2pc_cuMemAlloc(fn, &p, C.size_t(size))
	return DevicePtr(p), cuMemAlloc.check(r)
}

// MemFree frees memory from MemAlloc; wraps cuMemFree_v2. Needs a current
// context.
func (d *Driver) MemFree(p DevicePtr) error {
	fn, err := d.proc(cuMemFree)
	if err != nil {
		return err
	}
	return cuMemFree.check(C.p2pc_cuMemFree(fn, C.CUdeviceptr(p)))
}

// MemHostAlloc allocates pinned host memory; wraps cuMemHostAlloc. Needs a
// current context. The pointer is C memory: use it with unsafe.Slice or
// sync/atomic, never store Go pointers in it, free it with MemFreeHost.
func (d *Driver) MemHostAlloc(size uint64, flags cuenum.HostAllocFlags) (unsafe.Pointer, error) {
	fn, err := d.proc(cuMemHostAlloc)
	if err != nil {
		return nil, err
	}
	var p unsafe.Pointer
	r := C.p2pc_cuMemHostAlloc(fn, &p, C.size_t(size), C.uint(flags))
	return p, cuMemHostAlloc.check(r)
}

// MemFreeHost frees memory from MemHostAlloc; wraps cuMemFreeHost. Needs a
// current context.
func (d *Driver) MemFreeHost(p unsafe.Pointer) error {
	fn, err := d.proc(cuMemFreeHost)
	if err != nil {
		return err
	}
	return cuMemFreeHost.check(C.p2pc_cuMemFreeHost(fn, p))
}

// HostDevicePointer returns the device address of mapped pinned memory
// (cuenum.HostAllocDeviceMap); wraps cuMemHostGetDevicePointer_v2 with flags 0.
// Needs a current context. With UVA it usually equals the host address.
func (d *Driver) HostDevicePointer(p unsafe.Pointer) (DevicePtr, error) {
	fn, err := d.proc(cuMemHostGetDevicePointer)
	if err != nil {
		return 0, err
	}
	var dp C.CUdeviceptr
	r := C.p2pc_cuMemHostGetDevicePointer(fn, &dp, p, 0)
	return DevicePtr(dp), cuMemHostGetDevicePointer.check(r)
}

// MemsetD8 sets n bytes at dst to v; wraps cuMemsetD8_v2. Needs a current
// context. Asynchronous with respect to the host for device memory.
func (d *Driver) MemsetD8(dst DevicePtr, v uint8, n uint64) error {
	fn, err := d.proc(cuMemsetD8)
	if err != nil {
		return err
	}
	return cuMemsetD8.check(C.p2pc_cuMemsetD8(fn, C.CUdeviceptr(dst), C.uchar(v), C.size_t(n)))
}

// MemsetD32 sets n 32-bit words at dst (4-byte aligned) to v; wraps
// cuMemsetD32_v2. Needs a current context.
func (d *Driver) MemsetD32(dst DevicePtr, v uint32, n uint64) error {
	fn, err := d.proc(cuMemsetD32)
	if err != nil {
		return err
	}
	return cuMemsetD32.check(C.p2pc_cuMemsetD32(fn, C.CUdeviceptr(dst), C.uint(v), C.size_t(n)))
}

// MemsetD32Async is MemsetD32 ordered on stream s; wraps cuMemsetD32Async.
// Needs a current context.
func (d *Driver) MemsetD32Async(dst DevicePtr, v uint32, n uint64, s Stream) error {
	fn, err := d.proc(cuMemsetD32Async)
	if err != nil {
		return err
	}
	return cuMemsetD32Async.check(C.p2pc_cuMemsetD32Async(fn, C.CUdeviceptr(dst), C.uint(v), C.size_t(n), s.h))
}

// MemcpyHtoD copies src to device memory; wraps cuMemcpyHtoD_v2. Needs a
// current context. src may be Go memory: the driver has finished reading it
// (staged or copied) when the call returns.
func (d *Driver) MemcpyHtoD(dst DevicePtr, src []byte) error {
	fn, err := d.proc(cuMemcpyHtoD)
	if err != nil {
		return err
	}
	r := C.p2pc_cuMemcpyHtoD(fn, C.CUdeviceptr(dst), unsafe.Pointer(unsafe.SliceData(src)), C.size_t(len(src)))
	return cuMemcpyHtoD.check(r)
}

// MemcpyDtoH copies len(dst) bytes of device memory into dst; wraps
// cuMemcpyDtoH_v2. Needs a current context. Synchronous: dst is complete on
// return.
func (d *Driver) MemcpyDtoH(dst []byte, src DevicePtr) error {
	fn, err := d.proc(cuMemcpyDtoH)
	if err != nil {
		return err
	}
	r := C.p2pc_cuMemcpyDtoH(fn, unsafe.Pointer(unsafe.SliceData(dst)), C.CUdeviceptr(src), C.size_t(len(dst)))
	return cuMemcpyDtoH.check(r)
}

// MemcpyDtoD copies n bytes between device addresses; wraps cuMemcpyDtoD_v2.
// Needs a current context.
func (d *Driver) MemcpyDtoD(dst, src DevicePtr, n uint64) error {
	fn, err := d.proc(cuMemcpyDtoD)
	if err != nil {
		return err
	}
	return cuMemcpyDtoD.check(C.p2pc_cuMemcpyDtoD(fn, C.CUdeviceptr(dst), C.CUdeviceptr(src), C.size_t(n)))
}

// MemcpyAsync copies n bytes between any two UVA addresses (the driver infers
// the direction, including device to peer device) ordered on s; wraps
// cuMemcpyAsync. Needs a current context.
func (d *Driver) MemcpyAsync(dst, src DevicePtr, n uint64, s Stream) error {
	fn, err := d.proc(cuMemcpyAsync)
	if err != nil {
		return err
	}
	return cuMemcpyAsync.check(C.p2pc_cuMemcpyAsync(fn, C.CUdeviceptr(dst), C.CUdeviceptr(src), C.size_t(n), s.h))
}

// MemcpyHtoDAsync copies n bytes from host memory src, ordered on s; wraps
// cuMemcpyHtoDAsync_v2. Needs a current context. src must be pinned memory
// from MemHostAlloc (never Go memory: the copy outlives the call).
func (d *Driver) MemcpyHtoDAsync(dst DevicePtr, src unsafe.Pointer, n uint64, s Stream) error {
	fn, err := d.proc(cuMemcpyHtoDAsync)
	if err != nil {
		return err
	}
	return cuMemcpyHtoDAsync.check(C.p2pc_cuMemcpyHtoDAsync(fn, C.CUdeviceptr(dst), src, C.size_t(n), s.h))
}

// MemcpyDtoHAsync copies n bytes into host memory dst, ordered on s; wraps
// cuMemcpyDtoHAsync_v2. Needs a current context. dst must be pinned memory
// from MemHostAlloc.
func (d *Driver) MemcpyDtoHAsync(dst unsafe.Pointer, src DevicePtr, n uint64, s Stream) error {
	fn, err := d.proc(cuMemcpyDtoHAsync)
	if err != nil {
		return err
	}
	return cuMemcpyDtoHAsync.check(C.p2pc_cuMemcpyDtoHAsync(fn, dst, C.CUdeviceptr(src), C.size_t(n), s.h))
}

// PointerAttribute reads one attribute of a UVA address as an integer; wraps
// cuPointerGetAttribute. Needs a current context. The driver writes 1, 4 or 8
// bytes depending on attr (see the cuenum.Pointer* constants) into a zeroed
// buffer, so bools and unsigned values read correctly whatever their C width;
// use
// PointerDeviceOrdinal for the one signed attribute. The buffer is 64 bytes
// so that a struct-valued attribute (P2P_TOKENS, 16 bytes) cannot overrun it;
// only its first 8 bytes are returned.
func (d *Driver) PointerAttribute(attr cuenum.PointerAttr, p DevicePtr) (uint64, error) {
	fn, err := d.proc(cuPointerGetAttribute)
	if err != nil {
		return 0, err
	}
	var v [8]C.ulonglong
	r := C.p2pc_cuPointerGetAttribute(fn, unsafe.Pointer(&v), C.int(attr), C.CUdeviceptr(p))
	return uint64(v[0]), cuPointerGetAttribute.check(r)
}

// PointerDeviceOrdinal is the ordinal the memory was allocated or registered
// against (cuenum.PointerDeviceOrdinal). For memory imported through legacy IPC
// it is the importing device, not the owner (docs/observations.md, IPC and
// pointer attributes). Needs a current context.
func (d *Driver) PointerDeviceOrdinal(p DevicePtr) (Device, error) {
	v, err := d.PointerAttribute(cuenum.PointerDeviceOrdinal, p)
	return Device(int32(uint32(v))), err
}

// PointerRange is the base and size of the allocation containing p
// (cuenum.PointerRangeStartAddr, cuenum.PointerRangeSize). Needs a current context.
func (d *Driver) PointerRange(p DevicePtr) (base DevicePtr, size uint64, err error) {
	b, err := d.PointerAttribute(cuenum.PointerRangeStartAddr, p)
	if err != nil {
		return 0, 0, err
	}
	size, err = d.PointerAttribute(cuenum.PointerRangeSize, p)
	return DevicePtr(b), size, err
}
