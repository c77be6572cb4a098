// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cuda

/*
#include "shim.h"

static inline CUresult p2pc_cuMemGetAllocationGranularity(uintptr_t fn, size_t *g, const CUmemAllocationProp *prop, int opt) {
	return ((CUresult (*)(size_t *, const CUmemAllocationProp *, int))fn)(g, prop, opt);
}
static inline CUresult p2pc_cuMemCreate(uintptr_t fn, CUmemGenericAllocationHandle *h, size_t n, const CUmemAllocationProp *prop) {
	return ((CUresult (*)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *, unsigned long long))fn)(h, n, prop, 0);
}
static inline CUresult p2pc_cuMemRelease(uintptr_t fn, CUmemGenericAllocationHandle h) {
	return ((CUresult (*)(CUmemGenericAllocationHandle))fn)(h);
}
static inline CUresult p2pc_cuMemAddressReserve(uintptr_t fn, CUdeviceptr *p, size_t n, size_t align, CUdeviceptr addr) {
	return ((CUresult (*)(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long))fn)(p, n, align, addr, 0);
}
// cuMemAddressFree and cuMemUnmap share the (ptr, size) signature.
static inline CUresult p2pc_cuMemRange(uintptr_t fn, CUdeviceptr p, size_t n) {
	return ((CUresult (*)(CUdeviceptr, size_t))fn)(p, n);
}
static inline CUresult p2pc_cuMemMap(uintptr_t fn, CUdeviceptr p, size_t n, size_t off, CUmemGenericAllocationHandle h) {
	return ((CUresult (*)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long))fn)(p, n, off, h, 0);
}
static inline CUresult p2pc_cuMemSetAccess(uintptr_t fn, CUdeviceptr p, size_t n, const CUmemAccessDesc *desc, size_t count) {
	return ((CUresult (*)(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t))fn)(p, n, desc, count);
}
static inline CUresult p2pc_cuMemGetAccess(uintptr_t fn, unsigned long long *flags, const CUmemLocation *loc, CUdeviceptr p) {
	return ((CUresult (*)(unsigned long long *, const CUmemLocation *, CUdeviceptr))fn)(flags, loc, p);
}
static inline CUresult p2pc_cuMemExportToShareableHandle(uintptr_t fn, void *out, CUmemGenericAllocationHandle h, int type) {
	return ((CUresult (*)(void *, CUmemGenericAllocationHandle, int, unsigned long long))fn)(out, h, type, 0);
}
// A POSIX fd is imported by passing the fd's value in the pointer argument.
static inline CUresult p2pc_cuMemImportFromFD(uintptr_t fn, CUmemGenericAllocationHandle *h, int fd) {
	return ((CUresult (*)(CUmemGenericAllocationHandle *, void *, int))fn)(h, (void *)(uintptr_t)fd, 1);
}
// A fabric handle is imported by passing a pointer to its 64 bytes.
static inline CUresult p2pc_cuMemImportFromFabric(uintptr_t fn, CUmemGenericAllocationHandle *h, const void *fabric) {
	return ((CUresult (*)(CUmemGenericAllocationHandle *, void *, int))fn)(h, (void *)fabric, 8);
}
static inline CUresult p2pc_cuMemRetainAllocationHandle(uintptr_t fn, CUmemGenericAllocationHandle *h, CUdeviceptr p) {
	return ((CUresult (*)(CUmemGenericAllocationHandle *, void *))fn)(h, (void *)(uintptr_t)p);
}
*/
import "C"

import (
	"unsafe"

	"github.com/p2pconf/p2pconf/harness/cuenum"
)

// AllocationHandle is a CUmemGenericAllocationHandle: physical memory from
// MemCreate or an import. Its value means nothing in another process.
type AllocationHandle uint64

// FabricHandle is a CUmemFabricHandle (64 bytes), shareable across nodes of
// an NVLink fabric with IMEX.
type FabricHandle [64]byte

// MemLocation is a CUmemLocation.
type MemLocation struct {
	Type cuenum.LocationType
	ID   int32 // device ordinal for cuenum.LocationDevice
}

// DeviceLocation is the location of dev's memory.
func DeviceLocation(dev Device) MemLocation {
	return MemLocation{Type: cuenum.LocationDevice, ID: int32(dev)}
}

// AllocationProp is a CUmemAllocationProp without the Windows field.
type AllocationProp struct {
	Type                 cuenum.AllocationType
	RequestedHandleTypes cuenum.HandleTypes
	Location             MemLocation
	CompressionType      uint8
	GPUDirectRDMACapable bool
	Usage                uint16
}

// DeviceAllocationProp describes pinned memory on dev, exportable as handles.
func DeviceAllocationProp(dev Device, handles cuenum.HandleTypes) AllocationProp {
	return AllocationProp{Type: cuenum.AllocationPinned, RequestedHandleTypes: handles, Location: DeviceLocation(dev)}
}

// c builds the C struct with every other byte zero, as the driver requires.
func (p AllocationProp) c() C.CUmemAllocationProp {
	var cp C.CUmemAllocationProp
	cp._type = C.int(p.Type)
	cp.requestedHandleTypes = C.int(p.RequestedHandleTypes)
	cp.location = p.Location.c()
	cp.allocFlags.compressionType = C.uchar(p.CompressionType)
	if p.GPUDirectRDMACapable {
		cp.allocFlags.gpuDirectRDMACapable = 1
	}
	cp.allocFlags.usage = C.ushort(p.Usage)
	return cp
}

func (l MemLocation) c() C.CUmemLocation {
	return C.CUmemLocation{_type: C.int(l.Type), id: C.int(l.ID)}
}

// AccessDesc is a CUmemAccessDesc: who may access a mapping, and how.
type AccessDesc struct {
	Location MemLocation
	Flags    cuenum.AccessFlags
}

// AllocationGranularity is the size multiple MemCreate and MemMap need for
// prop; wraps cuMemGetAllocationGranularity. Needs a current context.
func (d *Driver) AllocationGranularity(prop AllocationProp, opt cuenum.GranularityOption) (uint64, error) {
	fn, err := d.proc(cuMemGetAllocationGranularity)
	if err != nil {
		return 0, err
	}
	var g C.size_t
	cp := prop.c()
	r := C.p2pc_cuMemGetAllocationGranularity(fn, &g, &cp, C.int(opt))
	return uint64(g), cuMemGetAllocationGranularity.check(r)
}

// MemCreate allocates physical memory (size a multiple of the granularity);
// wraps cuMemCreate with flags 0. Needs a current context.
func (d *Driver) MemCreate(size uint64, prop AllocationProp) (AllocationHandle, error) {
	fn, err := d.proc(cuMemCreate)
	if err != nil {
		return 0, err
	}
	var h C.CUmemGenericAllocationHandle
	cp := prop.c()
	r := C.p2pc_cuMemCreate(fn, &h, C.size_t(size), &cp)
	return AllocationHandle(h), cuMemCreate.check(r)
}

// MemRelease drops a handle; the memory dies with its last handle and
// mapping. Wraps cuMemRelease. Needs a current context.
func (d *Driver) MemRelease(h AllocationHandle) error {
	fn, err := d.proc(cuMemRelease)
	if err != nil {
		return err
	}
	return cuMemRelease.check(C.p2pc_cuMemRelease(fn, C.CUmemGenericAllocationHandle(h)))
}

// MemAddressReserve reserves a virtual range (addr 0: anywhere; alignment 0:
// default); wraps cuMemAddressReserve with flags 0. Needs a current context.
func (d *Driver) MemAddressReserve(size, alignment uint64, addr DevicePtr) (DevicePtr, error) {
	fn, err := d.proc(cuMemAddressReserve)
	if err != nil {
		return 0, err
	}
	var p C.CUdeviceptr
	r := C.p2pc_cuMemAddressReserve(fn, &p, C.size_t(size), C.size_t(alignment), C.CUdeviceptr(addr))
	return DevicePtr(p), cuMemAddressReserve.check(r)
}

// MemAddressFree frees a reservation, with its original size; wraps
// cuMemAddressFree. Needs a current context.
func (d *Driver) MemAddressFree(p DevicePtr, size uint64) error {
	return d.memRange(cuMemAddressFree, p, size)
}

// MemUnmap unmaps a whole mapped range; wraps cuMemUnmap. Needs a current
// context.
func (d *Driver) MemUnmap(p DevicePtr, size uint64) error { return d.memRange(cuMemUnmap, p, size) }

func (d *Driver) memRange(e entry, p DevicePtr, size uint64) error {
	fn, err := d.proc(e)
	if err != nil {
		return err
	}
	return e.check(C.p2pc_cuMemRange(fn, C.CUdeviceptr(p), C.size_t(size)))
}

// MemMap maps h (from its start: the driver requires offset 0) at p; wraps
// cuMemMap. A new mapping has no access for anyone until MemSetAccess.
// Needs a current context.
func (d *Driver) MemMap(p DevicePtr, size, offset uint64, h AllocationHandle) error {
	fn, err := d.proc(cuMemMap)
	if err != nil {
		return err
	}
	r := C.p2pc_cuMemMap(fn, C.CUdeviceptr(p), C.size_t(size), C.size_t(offset), C.CUmemGenericAllocationHandle(h))
	return cuMemMap.check(r)
}

// MemSetAccess grants access to a fully mapped range, one entry per
// location; this, not EnablePeerAccess, is what lets a peer use VMM memory.
// Wraps cuMemSetAccess. Needs a current context.
func (d *Driver) MemSetAccess(p DevicePtr, size uint64, descs ...AccessDesc) error {
	fn, err := d.proc(cuMemSetAccess)
	if err != nil {
		return err
	}
	cd := make([]C.CUmemAccessDesc, len(descs))
	for i, ad := range descs {
		cd[i] = C.CUmemAccessDesc{location: ad.Location.c(), flags: C.int(ad.Flags)}
	}
	return cuMemSetAccess.check(C.p2pc_cuMemSetAccess(fn, C.CUdeviceptr(p), C.size_t(size), ptrOrNil(cd), C.size_t(len(cd))))
}

// MemGetAccess is loc's access to the mapping at p; wraps cuMemGetAccess.
// Needs a current context.
func (d *Driver) MemGetAccess(loc MemLocation, p DevicePtr) (cuenum.AccessFlags, error) {
	fn, err := d.proc(cuMemGetAccess)
	if err != nil {
		return 0, err
	}
	var f C.ulonglong
	cl := loc.c()
	r := C.p2pc_cuMemGetAccess(fn, &f, &cl, C.CUdeviceptr(p))
	return cuenum.AccessFlags(f), cuMemGetAccess.check(r)
}

// ExportToFD exports h, created with cuenum.HandlePosix requested, as a new
// file descriptor the caller owns and must close; wraps
// cuMemExportToShareableHandle. Needs a current context. The driver writes
// an int; it gets a zeroed 64-byte buffer anyway, the size of the largest
// shareable handle, so a wider write could not overrun.
func (d *Driver) ExportToFD(h AllocationHandle) (int, error) {
	fn, err := d.proc(cuMemExportToShareableHandle)
	if err != nil {
		return -1, err
	}
	var buf [16]C.int
	r := C.p2pc_cuMemExportToShareableHandle(fn, unsafe.Pointer(&buf), C.CUmemGenericAllocationHandle(h), C.int(cuenum.HandlePosix))
	if err := cuMemExportToShareableHandle.check(r); err != nil {
		return -1, err
	}
	return int(buf[0]), nil
}

// ExportToFabric exports h, created with cuenum.HandleFabric requested; wraps
// cuMemExportToShareableHandle. Needs a current context.
func (d *Driver) ExportToFabric(h AllocationHandle) (FabricHandle, error) {
	fn, err := d.proc(cuMemExportToShareableHandle)
	if err != nil {
		return FabricHandle{}, err
	}
	var fh FabricHandle
	r := C.p2pc_cuMemExportToShareableHandle(fn, unsafe.Pointer(&fh), C.CUmemGenericAllocationHandle(h), C.int(cuenum.HandleFabric))
	return fh, cuMemExportToShareableHandle.check(r)
}

// ImportFromFD imports memory from a file descriptor (this process's number
// for it); wraps cuMemImportFromShareableHandle. The fd stays open: close it
// after the import. Release the handle with MemRelease. Needs a current
// context.
func (d *Driver) ImportFromFD(fd int) (AllocationHandle, error) {
	fn, err := d.proc(cuMemImportFromShareableHandle)
	if err != nil {
		return 0, err
	}
	var h C.CUmemGenericAllocationHandle
	r := C.p2pc_cuMemImportFromFD(fn, &h, C.int(fd))
	return AllocationHandle(h), cuMemImportFromShareableHandle.check(r)
}

// ImportFromFabric imports memory from a fabric handle; wraps
// cuMemImportFromShareableHandle. Needs a current context.
func (d *Driver) ImportFromFabric(fh FabricHandle) (AllocationHandle, error) {
	fn, err := d.proc(cuMemImportFromShareableHandle)
	if err != nil {
		return 0, err
	}
	var h C.CUmemGenericAllocationHandle
	r := C.p2pc_cuMemImportFromFabric(fn, &h, unsafe.Pointer(&fh))
	return AllocationHandle(h), cuMemImportFromShareableHandle.check(r)
}

// RetainAllocationHandle returns a new handle to the memory mapped at p
// (release it with MemRelease); wraps cuMemRetainAllocationHandle. Needs a
// current context.
func (d *Driver) RetainAllocationHandle(p DevicePtr) (AllocationHandle, error) {
	fn, err := d.proc(cuMemRetainAllocationHandle)
	if err != nil {
		return 0, err
	}
	var h C.CUmemGenericAllocationHandle
	r := C.p2pc_cuMemRetainAllocationHandle(fn, &h, C.CUdeviceptr(p))
	return AllocationHandle(h), cuMemRetainAllocationHandle.check(r)
}
