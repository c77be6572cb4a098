// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cudabackend

import (
	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuda"
	"github.com/p2pconf/p2pconf/harness/cuenum"
)

func location(l backend.Location) cuda.MemLocation {
	if l.Host {
		return cuda.HostLocation()
	}
	return cuda.DeviceLocation(cuda.Device(l.Device))
}

// AllocManaged wraps cuMemAllocManaged(CU_MEM_ATTACH_GLOBAL) in d's context.
func (b *Backend) AllocManaged(d backend.Device, size uint64) (p backend.DevicePtr, err error) {
	err = b.in(d, "cuMemAllocManaged", func(drv *cuda.Driver) error {
		dp, err := drv.MemAllocManaged(size, cuenum.MemAttachGlobal)
		p = backend.DevicePtr(dp)
		return err
	})
	return p, err
}

// PrefetchAsync wraps cuMemPrefetchAsync_v2 in s's context.
func (b *Backend) PrefetchAsync(s backend.Stream, p backend.DevicePtr, n uint64, to backend.Location) error {
	return b.onStream(s, "cuMemPrefetchAsync", func(drv *cuda.Driver, st *stream) error {
		return drv.MemPrefetchAsync(cuda.DevicePtr(p), n, location(to), st.s)
	})
}

// Advise wraps cuMemAdvise_v2 in d's context.
func (b *Backend) Advise(d backend.Device, p backend.DevicePtr, n uint64, advice backend.MemAdvice, about backend.Location) error {
	return b.in(d, "cuMemAdvise", func(drv *cuda.Driver) error {
		return drv.MemAdvise(cuda.DevicePtr(p), n, advice, location(about))
	})
}

// RangeAttribute wraps cuMemRangeGetAttribute in d's context.
func (b *Backend) RangeAttribute(d backend.Device, attr backend.MemRangeAttr, p backend.DevicePtr, n uint64) (v int32, err error) {
	err = b.in(d, "cuMemRangeGetAttribute", func(drv *cuda.Driver) (err error) {
		v, err = drv.MemRangeAttribute(attr, cuda.DevicePtr(p), n)
		return err
	})
	return v, err
}

// RangeAccessedBy wraps cuMemRangeGetAttribute(ACCESSED_BY) in d's context.
func (b *Backend) RangeAccessedBy(d backend.Device, p backend.DevicePtr, n uint64, room int) (v []int32, err error) {
	err = b.in(d, "cuMemRangeGetAttribute", func(drv *cuda.Driver) (err error) {
		v, err = drv.MemRangeAccessedBy(cuda.DevicePtr(p), n, room)
		return err
	})
	return v, err
}

// RangeAttributes wraps cuMemRangeGetAttributes in d's context.
func (b *Backend) RangeAttributes(d backend.Device, attrs []backend.MemRangeAttr, room int, p backend.DevicePtr, n uint64) (v []int32, err error) {
	err = b.in(d, "cuMemRangeGetAttributes", func(drv *cuda.Driver) (err error) {
		v, err = drv.MemRangeAttributes(attrs, room, cuda.DevicePtr(p), n)
		return err
	})
	return v, err
}
