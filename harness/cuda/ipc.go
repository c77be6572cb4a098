// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cuda

/*
#include <string.h>
#include "shim.h"

static inline CUresult p2pc_cuIpcGetMemHandle(uintptr_t fn, CUipcMemHandle *h, CUdeviceptr p) {
	return ((CUresult (*)(CUipcMemHandle *, CUdeviceptr))fn)(h, p);
}
// The 64-byte handle is passed BY VALUE (on x86-64 copied onto the stack, on
// AArch64 as a pointer to a caller-made copy). Only a C compiler gets that
// right for every ABI, so Go hands over the bytes and C builds the argument.
static inline CUresult p2pc_cuIpcOpenMemHandle(uintptr_t fn, CUdeviceptr *p, const void *bytes, unsigned int flags) {
	CUipcMemHandle h;
	memcpy(&h, bytes, sizeof h);
	return ((CUresult (*)(CUdeviceptr *, CUipcMemHandle, unsigned int))fn)(p, h, flags);
}
static inline CUresult p2pc_cuIpcCloseMemHandle(uintptr_t fn, CUdeviceptr p) {
	return ((CUresult (*)(CUdeviceptr))fn)(p);
}
static inline CUresult p2pc_cuIpcGetEventHandle(uintptr_t fn, CUipcEventHandle *h, uintptr_t ev) {
	return ((CUresult (*)(CUipcEventHandle *, CUevent))fn)(h, (CUevent)ev);
}
static inline CUresult p2pc_cuIpcOpenEventHandle(uintptr_t fn, uintptr_t *ev, const void *bytes) {
	CUipcEventHandle h;
	memcpy(&h, bytes, sizeof h);
	return ((CUresult (*)(CUevent *, CUipcEventHandle))fn)((CUevent *)ev, h);
}
*/
import "C"

import (
	"unsafe"

	"github.com/p2pconf/p2pconf/harness/cuenum"
)

// IPCMemHandle is an opaque CUipcMemHandle: 64 bytes to ship to another
// process over any channel.
type IPCMemHandle [64]byte

// IPCEventHandle is an opaque CUipcEventHandle.
type IPCEventHandle [64]byte

// IPCGetMemHandle exports the allocation whose base is p (from MemAlloc;
// VMM memory uses shareable handles instead); wraps cuIpcGetMemHandle.
// Needs a current context.
func (d *Driver) IPCGetMemHandle(p DevicePtr) (IPCMemHandle, error) {
	fn, err := d.proc(cuIpcGetMemHandle)
	if err != nil {
		return IPCMemHandle{}, err
	}
	var h C.CUipcMemHandle
	r := C.p2pc_cuIpcGetMemHandle(fn, &h, C.CUdeviceptr(p))
	return *(*IPCMemHandle)(unsafe.Pointer(&h)), cuIpcGetMemHandle.check(r)
}

// IPCOpenMemHandle maps another process's allocation into the current
// context; wraps cuIpcOpenMemHandle_v2. Opening in the exporting process
// fails (observed: 201 INVALID_CONTEXT). Needs a current context.
func (d *Driver) IPCOpenMemHandle(h IPCMemHandle, flags cuenum.IPCMemFlags) (DevicePtr, error) {
	fn, err := d.proc(cuIpcOpenMemHandle)
	if err != nil {
		return 0, err
	}
	var p C.CUdeviceptr
	r := C.p2pc_cuIpcOpenMemHandle(fn, &p, unsafe.Pointer(&h), C.uint(flags))
	return DevicePtr(p), cuIpcOpenMemHandle.check(r)
}

// IPCCloseMemHandle unmaps memory from IPCOpenMemHandle (one close per
// open); wraps cuIpcCloseMemHandle. Needs a current context.
func (d *Driver) IPCCloseMemHandle(p DevicePtr) error {
	fn, err := d.proc(cuIpcCloseMemHandle)
	if err != nil {
		return err
	}
	return cuIpcCloseMemHandle.check(C.p2pc_cuIpcCloseMemHandle(fn, C.CUdeviceptr(p)))
}

// IPCGetEventHandle exports an event created with cuenum.EventInterprocess |
// cuenum.EventDisableTiming; wraps cuIpcGetEventHandle. Needs a current context.
func (d *Driver) IPCGetEventHandle(ev Event) (IPCEventHandle, error) {
	fn, err := d.proc(cuIpcGetEventHandle)
	if err != nil {
		return IPCEventHandle{}, err
	}
	var h C.CUipcEventHandle
	r := C.p2pc_cuIpcGetEventHandle(fn, &h, ev.h)
	return *(*IPCEventHandle)(unsafe.Pointer(&h)), cuIpcGetEventHandle.check(r)
}

// IPCOpenEventHandle opens another process's event; wraps
// cuIpcOpenEventHandle. Destroy the result with DestroyEvent. Needs a
// current context.
func (d *Driver) IPCOpenEventHandle(h IPCEventHandle) (Event, error) {
	fn, err := d.proc(cuIpcOpenEventHandle)
	if err != nil {
		return Event{}, err
	}
	var ev Event
	r := C.p2pc_cuIpcOpenEventHandle(fn, &ev.h, unsafe.Pointer(&h))
	return ev, cuIpcOpenEventHandle.check(r)
}
