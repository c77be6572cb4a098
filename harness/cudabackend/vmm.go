// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cudabackend

import (
	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuda"
	"github.com/p2pconf/p2pconf/harness/cuenum"
)

// allocProp is pinned device memory on prop.Device with the requested
// shareable handle types.
func allocProp(prop backend.AllocProp) cuda.AllocationProp {
	return cuda.DeviceAllocationProp(cuda.Device(prop.Device), prop.HandleTypes)
}

// Granularity wraps cuMemGetAllocationGranularity in d's context.
func (b *Backend) Granularity(d backend.Device, prop backend.AllocProp, recommended bool) (g uint64, err error) {
	opt := cuenum.GranularityMinimum
	if recommended {
		opt = cuenum.GranularityRecommended
	}
	err = b.in(d, "cuMemGetAllocationGranularity", func(drv *cuda.Driver) (err error) {
		g, err = drv.AllocationGranularity(allocProp(prop), opt)
		return err
	})
	return g, err
}

// MemCreate wraps cuMemCreate in d's context.
func (b *Backend) MemCreate(d backend.Device, size uint64, prop backend.AllocProp) (h backend.AllocHandle, err error) {
	err = b.in(d, "cuMemCreate", func(drv *cuda.Driver) error {
		ch, err := drv.MemCreate(size, allocProp(prop))
		h = backend.AllocHandle(ch)
		return err
	})
	return h, err
}

// MemRelease wraps cuMemRelease in d's context.
func (b *Backend) MemRelease(d backend.Device, h backend.AllocHandle) error {
	return b.in(d, "cuMemRelease", func(drv *cuda.Driver) error { return drv.MemRelease(cuda.AllocationHandle(h)) })
}

// AddressReserve wraps cuMemAddressReserve(size, align, 0, 0) in d's context.
func (b *Backend) AddressReserve(d backend.Device, size, align uint64) (p backend.DevicePtr, err error) {
	err = b.in(d, "cuMemAddressReserve", func(drv *cuda.Driver) error {
		dp, err := drv.MemAddressReserve(size, align, 0)
		p = backend.DevicePtr(dp)
		return err
	})
	return p, err
}

// AddressFree wraps cuMemAddressFree in d's context.
func (b *Backend) AddressFree(d backend.Device, p backend.DevicePtr, size uint64) error {
	return b.in(d, "cuMemAddressFree", func(drv *cuda.Driver) error { return drv.MemAddressFree(cuda.DevicePtr(p), size) })
}

// MemMap wraps cuMemMap(p, size, 0, h, 0) in d's context.
func (b *Backend) MemMap(d backend.Device, p backend.DevicePtr, size uint64, h backend.AllocHandle) error {
	return b.in(d, "cuMemMap", func(drv *cuda.Driver) error {
		return drv.MemMap(cuda.DevicePtr(p), size, 0, cuda.AllocationHandle(h))
	})
}

// MemUnmap wraps cuMemUnmap in d's context.
func (b *Backend) MemUnmap(d backend.Device, p backend.DevicePtr, size uint64) error {
	return b.in(d, "cuMemUnmap", func(drv *cuda.Driver) error { return drv.MemUnmap(cuda.DevicePtr(p), size) })
}

// MemSetAccess wraps cuMemSetAccess in d's context, one descriptor per
// entry of access (all device locations).
func (b *Backend) MemSetAccess(d backend.Device, p backend.DevicePtr, size uint64, access []backend.Access) error {
	descs := make([]cuda.AccessDesc, len(access))
	for i, a := range access {
		descs[i] = cuda.AccessDesc{Location: cuda.DeviceLocation(cuda.Device(a.Device)), Flags: a.Flags}
	}
	return b.in(d, "cuMemSetAccess", func(drv *cuda.Driver) error { return drv.MemSetAccess(cuda.DevicePtr(p), size, descs...) })
}

// MemGetAccess wraps cuMemGetAccess for location's device, in d's context.
func (b *Backend) MemGetAccess(d backend.Device, location backend.Device, p backend.DevicePtr) (f backend.AccessFlags, err error) {
	err = b.in(d, "cuMemGetAccess", func(drv *cuda.Driver) error {
		f, err = drv.MemGetAccess(cuda.DeviceLocation(cuda.Device(location)), cuda.DevicePtr(p))
		return err
	})
	return f, err
}

// ExportFD wraps cuMemExportToShareableHandle(POSIX_FILE_DESCRIPTOR) in d's
// context; the caller owns the descriptor.
func (b *Backend) ExportFD(d backend.Device, h backend.AllocHandle) (fd int, err error) {
	fd = -1
	err = b.in(d, "cuMemExportToShareableHandle", func(drv *cuda.Driver) (err error) {
		fd, err = drv.ExportToFD(cuda.AllocationHandle(h))
		return err
	})
	return fd, err
}

// ImportFD wraps cuMemImportFromShareableHandle(POSIX_FILE_DESCRIPTOR) in
// d's context; fd stays open and the caller's.
func (b *Backend) ImportFD(d backend.Device, fd int) (h backend.AllocHandle, err error) {
	err = b.in(d, "cuMemImportFromShareableHandle", func(drv *cuda.Driver) error {
		ch, err := drv.ImportFromFD(fd)
		h = backend.AllocHandle(ch)
		return err
	})
	return h, err
}

// ExportFabric wraps cuMemExportToShareableHandle(FABRIC) in d's context.
func (b *Backend) ExportFabric(d backend.Device, h backend.AllocHandle) (fh backend.FabricHandle, err error) {
	err = b.in(d, "cuMemExportToShareableHandle", func(drv *cuda.Driver) error {
		cf, err := drv.ExportToFabric(cuda.AllocationHandle(h))
		fh = backend.FabricHandle(cf)
		return err
	})
	return fh, err
}

// ImportFabric wraps cuMemImportFromShareableHandle(FABRIC) in d's context.
func (b *Backend) ImportFabric(d backend.Device, fh backend.FabricHandle) (h backend.AllocHandle, err error) {
	err = b.in(d, "cuMemImportFromShareableHandle", func(drv *cuda.Driver) error {
		ch, err := drv.ImportFromFabric(cuda.FabricHandle(fh))
		h = backend.AllocHandle(ch)
		return err
	})
	return h, err
}
