// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cuda

/*
#include "shim.h"

static inline CUresult p2pc_cuDeviceCanAccessPeer(uintptr_t fn, int *v, CUdevice dev, CUdevice peer) {
	return ((CUresult (*)(int *, CUdevice, CUdevice))fn)(v, dev, peer);
}
static inline CUresult p2pc_cuCtxEnablePeerAccess(uintptr_t fn, uintptr_t peer, unsigned int flags) {
	return ((CUresult (*)(CUcontext, unsigned int))fn)((CUcontext)peer, flags);
}
static inline CUresult p2pc_cuCtxDisablePeerAccess(uintptr_t fn, uintptr_t peer) {
	return ((CUresult (*)(CUcontext))fn)((CUcontext)peer);
}
static inline CUresult p2pc_cuDeviceGetP2PAttribute(uintptr_t fn, int *v, int attr, CUdevice src, CUdevice dst) {
	return ((CUresult (*)(int *, int, CUdevice, CUdevice))fn)(v, attr, src, dst);
}
// CUatomicOperation is an enum, so the operations array is an int array.
static inline CUresult p2pc_cuDeviceGetP2PAtomicCapabilities(uintptr_t fn, unsigned int *caps,
		const int *ops, unsigned int n, CUdevice src, CUdevice dst) {
	return ((CUresult (*)(unsigned int *, const int *, unsigned int, CUdevice, CUdevice))fn)(caps, ops, n, src, dst);
}
static inline CUresult p2pc_cuDeviceGetHostAtomicCapabilities(uintptr_t fn, unsigned int *caps,
		const int *ops, unsigned int n, CUdevice dev) {
	return ((CUresult (*)(unsigned int *, const int *, unsigned int, CUdevice))fn)(caps, ops, n, dev);
}
static inline CUresult p2pc_cuMemcpyPeer(uintptr_t fn, CUdeviceptr dst, uintptr_t dctx,
		CUdeviceptr src, uintptr_t sctx, size_t n) {
	return ((CUresult (*)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t))fn)(
		dst, (CUcontext)dctx, src, (CUcontext)sctx, n);
}
static inline CUresult p2pc_cuMemcpyPeerAsync(uintptr_t fn, CUdeviceptr dst, uintptr_t dctx,
		CUdeviceptr src, uintptr_t sctx, size_t n, uintptr_t s) {
	return ((CUresult (*)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t, CUstream))fn)(
		dst, (CUcontext)dctx, src, (CUcontext)sctx, n, (CUstream)s);
}
*/
import "C"

import "github.com/p2pconf/p2pconf/harness/cuenum"

// CanAccessPeer reports whether contexts on a can access memory of b
// directly (a is the accessor, b where the memory lives); wraps
// cuDeviceCanAccessPeer. No context needed.
func (d *Driver) CanAccessPeer(a, b Device) (bool, error) {
	fn, err := d.proc(cuDeviceCanAccessPeer)
	if err != nil {
		return false, err
	}
	var v C.int
	r := C.p2pc_cuDeviceCanAccessPeer(fn, &v, C.CUdevice(a), C.CUdevice(b))
	return v != 0, cuDeviceCanAccessPeer.check(r)
}

// EnablePeerAccess lets the current context access peer's memory; wraps
// cuCtxEnablePeerAccess with flags 0. One direction only: the reverse needs a
// call with peer current. Needs a current context (the accessor's).
func (d *Driver) EnablePeerAccess(peer *Context) error {
	fn, err := d.proc(cuCtxEnablePeerAccess)
	if err != nil {
		return err
	}
	return cuCtxEnablePeerAccess.check(C.p2pc_cuCtxEnablePeerAccess(fn, peer.h, 0))
}

// DisablePeerAccess undoes EnablePeerAccess for the current context; wraps
// cuCtxDisablePeerAccess. Needs a current context.
func (d *Driver) DisablePeerAccess(peer *Context) error {
	fn, err := d.proc(cuCtxDisablePeerAccess)
	if err != nil {
		return err
	}
	return cuCtxDisablePeerAccess.check(C.p2pc_cuCtxDisablePeerAccess(fn, peer.h))
}

// P2PAttribute reads one attribute of the src→dst link; wraps
// cuDeviceGetP2PAttribute. src == dst gives CUDA_ERROR_INVALID_DEVICE. No
// context needed.
func (d *Driver) P2PAttribute(attr cuenum.P2PAttr, src, dst Device) (int, error) {
	fn, err := d.proc(cuDeviceGetP2PAttribute)
	if err != nil {
		return 0, err
	}
	var v C.int
	r := C.p2pc_cuDeviceGetP2PAttribute(fn, &v, C.int(attr), C.CUdevice(src), C.CUdevice(dst))
	return int(v), cuDeviceGetP2PAttribute.check(r)
}

// P2PAtomicCapabilities returns, for each op, the capabilities the src→dst
// link supports natively; wraps cuDeviceGetP2PAtomicCapabilities (CUDA 13.0+:
// older drivers give a *SymbolError). No context needed.
func (d *Driver) P2PAtomicCapabilities(ops []cuenum.AtomicOperation, src, dst Device) ([]cuenum.AtomicCaps, error) {
	fn, err := d.proc(cuDeviceGetP2PAtomicCapabilities)
	if err != nil {
		return nil, err
	}
	cops, caps := atomicArrays(ops)
	r := C.p2pc_cuDeviceGetP2PAtomicCapabilities(fn, ptrOrNil(caps), ptrOrNil(cops), C.uint(len(ops)), C.CUdevice(src), C.CUdevice(dst))
	return capsOf(caps), cuDeviceGetP2PAtomicCapabilities.check(r)
}

// HostAtomicCapabilities is P2PAtomicCapabilities for the dev↔host link;
// wraps cuDeviceGetHostAtomicCapabilities (CUDA 13.0+). No context needed.
func (d *Driver) HostAtomicCapabilities(ops []cuenum.AtomicOperation, dev Device) ([]cuenum.AtomicCaps, error) {
	fn, err := d.proc(cuDeviceGetHostAtomicCapabilities)
	if err != nil {
		return nil, err
	}
	cops, caps := atomicArrays(ops)
	r := C.p2pc_cuDeviceGetHostAtomicCapabilities(fn, ptrOrNil(caps), ptrOrNil(cops), C.uint(len(ops)), C.CUdevice(dev))
	return capsOf(caps), cuDeviceGetHostAtomicCapabilities.check(r)
}

// atomicArrays converts ops to the C enum array and makes the output array.
func atomicArrays(ops []cuenum.AtomicOperation) ([]C.int, []C.uint) {
	cops := make([]C.int, len(ops))
	for i, op := range ops {
		cops[i] = C.int(op)
	}
	return cops, make([]C.uint, len(ops))
}

// ptrOrNil passes an empty slice as NULL, so the driver reports
// INVALID_VALUE for count 0 instead of reading a dangling pointer.
func ptrOrNil[T any](s []T) *T {
	if len(s) == 0 {
		return nil
	}
	return &s[0]
}

func capsOf(caps []C.uint) []cuenum.AtomicCaps {
	out := make([]cuenum.AtomicCaps, len(caps))
	for i, c := range caps {
		out[i] = cuenum.AtomicCaps(c)
	}
	return out
}

// MemcpyPeer copies n bytes from src in srcCtx's device to dst in dstCtx's
// device, synchronously; wraps cuMemcpyPeer. It works without peer access
// (the driver stages through the host). Needs a current context.
func (d *Driver) MemcpyPeer(dst DevicePtr, dstCtx *Context, src DevicePtr, srcCtx *Context, n uint64) error {
	fn, err := d.proc(cuMemcpyPeer)
	if err != nil {
		return err
	}
	r := C.p2pc_cuMemcpyPeer(fn, C.CUdeviceptr(dst), dstCtx.h, C.CUdeviceptr(src), srcCtx.h, C.size_t(n))
	return cuMemcpyPeer.check(r)
}

// MemcpyPeerAsync is MemcpyPeer ordered on s (a stream of the source or
// destination context); wraps cuMemcpyPeerAsync. Needs a current context.
func (d *Driver) MemcpyPeerAsync(dst DevicePtr, dstCtx *Context, src DevicePtr, srcCtx *Context, n uint64, s Stream) error {
	fn, err := d.proc(cuMemcpyPeerAsync)
	if err != nil {
		return err
	}
	r := C.p2pc_cuMemcpyPeerAsync(fn, C.CUdeviceptr(dst), dstCtx.h, C.CUdeviceptr(src), srcCtx.h, C.size_t(n), s.h)
	return cuMemcpyPeerAsync.check(r)
}
