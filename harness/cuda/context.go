// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cuda

/*
#include "shim.h"

static inline CUresult p2pc_cuDevicePrimaryCtxRetain(uintptr_t fn, uintptr_t *ctx, CUdevice dev) {
	return ((CUresult (*)(CUcontext *, CUdevice))fn)((CUcontext *)ctx, dev);
}
static inline CUresult p2pc_cuDevicePrimaryCtxRelease(uintptr_t fn, CUdevice dev) {
	return ((CUresult (*)(CUdevice))fn)(dev);
}
static inline CUresult p2pc_cuCtxGetCurrent(uintptr_t fn, uintptr_t *ctx) {
	return ((CUresult (*)(CUcontext *))fn)((CUcontext *)ctx);
}
static inline CUresult p2pc_cuCtxSetCurrent(uintptr_t fn, uintptr_t ctx) {
	return ((CUresult (*)(CUcontext))fn)((CUcontext)ctx);
}
static inline CUresult p2pc_cuCtxSynchronize(uintptr_t fn) {
	return ((CUresult (*)(void))fn)();
}
*/
import "C"

import (
	"errors"
	"runtime"
)

// ErrReleased is returned by Do and Release on a context already released.
var ErrReleased = errors.New("cuda: primary context already released")

// Context is a device's primary context, the one the CUDA runtime uses too,
// so peer access enabled here is the state runtime-based code sees
// (CUDA Driver API, Primary Context Management). Get it from RetainPrimaryContext.
type Context struct {
	drv *Driver
	h   C.uintptr_t // CUcontext; 0 once released
	dev Device
}

// RetainPrimaryContext retains dev's primary context (activating it on first
// use); wraps cuDevicePrimaryCtxRetain. The context is not made current: use
// Do. Every retain needs one Release. No context needed.
func (d *Driver) RetainPrimaryContext(dev Device) (*Context, error) {
	fn, err := d.proc(cuDevicePrimaryCtxRetain)
	if err != nil {
		return nil, err
	}
	var h C.uintptr_t
	if err := cuDevicePrimaryCtxRetain.check(C.p2pc_cuDevicePrimaryCtxRetain(fn, &h, C.CUdevice(dev))); err != nil {
		return nil, err
	}
	return &Context{drv: d, h: h, dev: dev}, nil
}

// Release drops this retain of the primary context; wraps
// cuDevicePrimaryCtxRelease_v2. The driver destroys the context when the last
// retain is released, freeing everything allocated in it. Releasing twice is
// an error here rather than a second release of someone else's retain.
func (c *Context) Release() error {
	if c == nil || c.h == 0 {
		return ErrReleased
	}
	fn, err := c.drv.proc(cuDevicePrimaryCtxRelease)
	if err != nil {
		return err
	}
	c.h = 0
	return cuDevicePrimaryCtxRelease.check(C.p2pc_cuDevicePrimaryCtxRelease(fn, C.CUdevice(c.dev)))
}

// Device is the device the context belongs to.
func (c *Context) Device() Device { return c.dev }

// Driver is the driver the context was retained from.
func (c *Context) Driver() *Driver { return c.drv }

// Do runs f on a locked OS thread with c current, then restores the thread's
// previous context and unlocks it. The current context is per OS thread and
// a goroutine may change threads between any two statements, so every call
// documented as "needs a current context" must run inside f. Do nests: an
// inner Do for another context restores the outer one when it returns.
// Restoring also means a driver call made outside any Do fails with
// CUDA_ERROR_INVALID_CONTEXT instead of silently using a leftover context.
func (c *Context) Do(f func() error) (err error) {
	if c == nil || c.h == 0 {
		return ErrReleased
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	prev, err := c.drv.current()
	if err != nil {
		return err
	}
	if err := c.drv.setCurrent(c.h); err != nil {
		return err
	}
	defer func() {
		if rerr := c.drv.setCurrent(prev); err == nil {
			err = rerr
		}
	}()
	return f()
}

// current wraps cuCtxGetCurrent.
func (d *Driver) current() (C.uintptr_t, error) {
	fn, err := d.proc(cuCtxGetCurrent)
	if err != nil {
		return 0, err
	}
	var h C.uintptr_t
	r := C.p2pc_cuCtxGetCurrent(fn, &h)
	return h, cuCtxGetCurrent.check(r)
}

// setCurrent wraps cuCtxSetCurrent.
func (d *Driver) setCurrent(h C.uintptr_t) error {
	fn, err := d.proc(cuCtxSetCurrent)
	if err != nil {
		return err
	}
	return cuCtxSetCurrent.check(C.p2pc_cuCtxSetCurrent(fn, h))
}

// Synchronize blocks until all work of the current context is done; wraps
// cuCtxSynchronize. Needs a current context. It cannot be interrupted, so
// specs wait by polling QueryEvent or QueryStream against a deadline instead;
// use this only where a bounded wait has already succeeded (for example, to
// collect a sticky error).
func (d *Driver) Synchronize() error {
	fn, err := d.proc(cuCtxSynchronize)
	if err != nil {
		return err
	}
	return cuCtxSynchronize.check(C.p2pc_cuCtxSynchronize(fn))
}
