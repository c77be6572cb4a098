// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cudabackend

import (
	"unsafe"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuda"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

// MemInfo wraps cuMemGetInfo in d's context.
func (b *Backend) MemInfo(d backend.Device) (free, total uint64, err error) {
	err = b.in(d, "cuMemGetInfo", func(drv *cuda.Driver) (err error) {
		free, total, err = drv.MemGetInfo()
		return err
	})
	return free, total, err
}

// Alloc wraps cuMemAlloc in d's context.
func (b *Backend) Alloc(d backend.Device, size uint64) (p backend.DevicePtr, err error) {
	err = b.in(d, "cuMemAlloc", func(drv *cuda.Driver) error {
		dp, err := drv.MemAlloc(size)
		p = backend.DevicePtr(dp)
		return err
	})
	return p, err
}

// Free wraps cuMemFree in d's context.
func (b *Backend) Free(d backend.Device, p backend.DevicePtr) error {
	return b.in(d, "cuMemFree", func(drv *cuda.Driver) error { return drv.MemFree(cuda.DevicePtr(p)) })
}

// hostMem is HostBuffer.Handle: the pointer as C returned it, so freeing
// never converts an integer back into a pointer.
type hostMem struct{ p unsafe.Pointer }

// HostAlloc wraps cuMemHostAlloc in d's context. Mem views the C memory
// directly; it is valid until HostFree.
func (b *Backend) HostAlloc(d backend.Device, size uint64, flags backend.HostAllocFlags) (*backend.HostBuffer, error) {
	var h *backend.HostBuffer
	err := b.in(d, "cuMemHostAlloc", func(drv *cuda.Driver) error {
		p, err := drv.MemHostAlloc(size, flags)
		if err == nil {
			h = &backend.HostBuffer{Ptr: backend.DevicePtr(uintptr(p)), Mem: unsafe.Slice((*byte)(p), size), Handle: hostMem{p}}
		}
		return err
	})
	return h, err
}

// HostFree wraps cuMemFreeHost in d's context.
func (b *Backend) HostFree(d backend.Device, h *backend.HostBuffer) error {
	hm, err := hostOf(h, "cuMemFreeHost")
	if err != nil {
		return err
	}
	return b.in(d, "cuMemFreeHost", func(drv *cuda.Driver) error { return drv.MemFreeHost(hm.p) })
}

// HostDevicePointer wraps cuMemHostGetDevicePointer in d's context.
func (b *Backend) HostDevicePointer(d backend.Device, h *backend.HostBuffer) (p backend.DevicePtr, err error) {
	hm, err := hostOf(h, "cuMemHostGetDevicePointer")
	if err != nil {
		return 0, err
	}
	err = b.in(d, "cuMemHostGetDevicePointer", func(drv *cuda.Driver) error {
		dp, err := drv.HostDevicePointer(hm.p)
		p = backend.DevicePtr(dp)
		return err
	})
	return p, err
}

func hostOf(h *backend.HostBuffer, fn string) (hostMem, error) {
	if h != nil {
		if hm, ok := h.Handle.(hostMem); ok {
			return hm, nil
		}
	}
	return hostMem{}, cuerr.New(fn, cuerr.InvalidValue, "not a host buffer of the cuda backend")
}

// PointerAttribute wraps cuPointerGetAttribute in d's context. The device
// ordinal is signed; every other attribute is returned as the unsigned value
// the driver wrote.
func (b *Backend) PointerAttribute(d backend.Device, attr backend.PointerAttr, p backend.DevicePtr) (v int64, err error) {
	err = b.in(d, "cuPointerGetAttribute", func(drv *cuda.Driver) error {
		if attr == backend.PointerDeviceOrdinal {
			o, err := drv.PointerDeviceOrdinal(cuda.DevicePtr(p))
			v = int64(o)
			return err
		}
		u, err := drv.PointerAttribute(attr, cuda.DevicePtr(p))
		v = int64(u)
		return err
	})
	return v, err
}

// Memset32 wraps cuMemsetD32 in d's context.
func (b *Backend) Memset32(d backend.Device, p backend.DevicePtr, value uint32, words uint64) error {
	return b.in(d, "cuMemsetD32", func(drv *cuda.Driver) error { return drv.MemsetD32(cuda.DevicePtr(p), value, words) })
}

// CopyToDevice wraps cuMemcpyHtoD in d's context.
func (b *Backend) CopyToDevice(d backend.Device, dst backend.DevicePtr, src []byte) error {
	return b.in(d, "cuMemcpyHtoD", func(drv *cuda.Driver) error { return drv.MemcpyHtoD(cuda.DevicePtr(dst), src) })
}

// CopyFromDevice wraps cuMemcpyDtoH in d's context.
func (b *Backend) CopyFromDevice(d backend.Device, dst []byte, src backend.DevicePtr) error {
	return b.in(d, "cuMemcpyDtoH", func(drv *cuda.Driver) error { return drv.MemcpyDtoH(dst, cuda.DevicePtr(src)) })
}
