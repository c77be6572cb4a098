// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

// granularity is both the minimum and the recommended VMM granularity
// (2 MiB, as observed on the H200).
const granularity = 2 << 20

// Granularity is cuMemGetAllocationGranularity.
func (b *Backend) Granularity(d backend.Device, prop backend.AllocProp, recommended bool) (uint64, error) {
	const fn = "cuMemGetAllocationGranularity"
	if err := b.ctx(fn, d); err != nil {
		return 0, err
	}
	if !b.valid(prop.Device) {
		return 0, errf(fn, cuerr.InvalidDevice, "location device %d", int(prop.Device))
	}
	return granularity, nil
}

// MemCreate is cuMemCreate: pinned memory on prop.Device, size a multiple
// of the granularity; memory lives until every handle is released and every
// mapping unmapped, in every process.
func (b *Backend) MemCreate(d backend.Device, size uint64, prop backend.AllocProp) (backend.AllocHandle, error) {
	const fn = "cuMemCreate"
	if err := b.ctx(fn, d); err != nil {
		return 0, err
	}
	if !b.valid(prop.Device) {
		return 0, errf(fn, cuerr.InvalidDevice, "location device %d", int(prop.Device))
	}
	if prop.HandleTypes&^(backend.HandlePosix|backend.HandleFabric) != 0 {
		return 0, errf(fn, cuerr.InvalidValue, "handle types 0x%x", uint32(prop.HandleTypes))
	}
	if prop.HandleTypes&backend.HandleFabric != 0 {
		switch b.preset.fabric {
		case fabricUnsupported:
			return 0, errf(fn, cuerr.NotSupported, "FABRIC handles are not supported on %s", b.preset.name)
		case fabricNotPermitted:
			return 0, errf(fn, cuerr.NotPermitted, "FABRIC handles need an IMEX channel, and this process has none")
		}
	}
	if size == 0 || (size%granularity != 0 && !b.defects.has(dVMMGranularityLax)) {
		return 0, errf(fn, cuerr.InvalidValue, "size %d is not a positive multiple of the granularity %d", size, granularity)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	o, err := b.newObject(fn, int(prop.Device), 'v', roundUp(size, granularity))
	if err != nil {
		return 0, err
	}
	o.refs, o.handleTypes = 1, prop.HandleTypes
	return b.newHandle(o), nil
}

func (b *Backend) newHandle(o *memObject) backend.AllocHandle {
	h := b.nextAlloc
	b.nextAlloc++
	b.vmm[h] = o
	return h
}

func (b *Backend) handle(fn string, h backend.AllocHandle) (*memObject, error) {
	o, ok := b.vmm[h]
	if !ok {
		return nil, errf(fn, cuerr.InvalidValue, "0x%x is not an allocation handle of this process", uint64(h))
	}
	return o, nil
}

// MemRelease is cuMemRelease.
func (b *Backend) MemRelease(d backend.Device, h backend.AllocHandle) error {
	const fn = "cuMemRelease"
	if err := b.ctx(fn, d); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	o, err := b.handle(fn, h)
	if err != nil {
		return err
	}
	delete(b.vmm, h)
	if o.mappings > 0 && b.defects.has(dVMMReleaseFreesMapped) {
		o.freeNow()
	}
	b.unref(o)
	return nil
}

// AddressReserve is cuMemAddressReserve(size, align, 0, 0).
func (b *Backend) AddressReserve(d backend.Device, size, align uint64) (backend.DevicePtr, error) {
	const fn = "cuMemAddressReserve"
	if err := b.ctx(fn, d); err != nil {
		return 0, err
	}
	if size == 0 || size%pageSize != 0 || align&(align-1) != 0 {
		return 0, errf(fn, cuerr.InvalidValue, "size %d, alignment %d", size, align)
	}
	base, ok := b.as.reserve(size, max(align, granularity))
	if !ok {
		return 0, errf(fn, cuerr.OutOfMemory, "the fake address space is full")
	}
	b.mu.Lock()
	b.reserved[base] = size
	b.mu.Unlock()
	return backend.DevicePtr(base), nil
}

// AddressFree is cuMemAddressFree with the reserved size; nothing may be mapped.
func (b *Backend) AddressFree(d backend.Device, p backend.DevicePtr, size uint64) error {
	const fn = "cuMemAddressFree"
	if err := b.ctx(fn, d); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if sz, ok := b.reserved[uint64(p)]; !ok || sz != size {
		return errf(fn, cuerr.InvalidValue, "[0x%x, +%d) is not a reservation", uint64(p), size)
	}
	if len(b.as.within(uint64(p), size)) > 0 {
		return errf(fn, cuerr.InvalidValue, "the reservation at 0x%x is still mapped", uint64(p))
	}
	delete(b.reserved, uint64(p))
	for base := range b.unmapped {
		if base >= uint64(p) && base < uint64(p)+size {
			delete(b.unmapped, base)
		}
	}
	b.as.unreserve(uint64(p))
	return nil
}

func (b *Backend) inReservation(p, size uint64) bool {
	for base, sz := range b.reserved {
		if p >= base && p+size <= base+sz {
			return true
		}
	}
	return false
}

// MemMap is cuMemMap(p, size, 0, h, 0). A new mapping grants nobody access.
func (b *Backend) MemMap(d backend.Device, p backend.DevicePtr, size uint64, h backend.AllocHandle) error {
	const fn = "cuMemMap"
	if err := b.ctx(fn, d); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	o, err := b.handle(fn, h)
	if err != nil {
		return err
	}
	switch {
	case size == 0 || uint64(p)%granularity != 0 || size%granularity != 0 || size > o.size:
		return errf(fn, cuerr.InvalidValue, "[0x%x, +%d) for an allocation of %d bytes", uint64(p), size, o.size)
	case !b.inReservation(uint64(p), size):
		return errf(fn, cuerr.InvalidValue, "[0x%x, +%d) is not inside a reservation", uint64(p), size)
	case len(b.as.within(uint64(p), size)) > 0:
		return errf(fn, cuerr.InvalidValue, "[0x%x, +%d) is already mapped", uint64(p), size)
	}
	r := &region{base: uint64(p), size: size, mem: o.mem[:size], kind: kindVMM, phys: o.phys, ctx: int(d), obj: o,
		access: make([]atomic.Uint32, len(b.devs))}
	if b.defects.has(dVMMAccessBeforeSet) {
		for i := range r.access {
			r.access[i].Store(uint32(backend.ProtReadWrite))
		}
	}
	if old, ok := b.unmapped[r.base]; ok && b.defects.has(dVMMUnmapKeepsAccess) {
		for i := range r.access {
			r.access[i].Store(old[i])
		}
	}
	o.refs++
	o.mappings++
	b.as.insert(r)
	return nil
}

// mappings returns the VMM mappings covering exactly [p, p+size) without gaps.
func (b *Backend) mappings(p, size uint64, exact bool) ([]*region, bool) {
	regs := b.as.within(p, size)
	if len(regs) == 0 {
		return nil, false
	}
	next := regs[0].base
	if (exact && next != p) || next > p {
		return nil, false
	}
	for _, r := range regs {
		if r.kind != kindVMM || r.base != next {
			return nil, false
		}
		next = r.base + r.size
	}
	return regs, next == p+size || (!exact && next >= p+size)
}

// MemUnmap is cuMemUnmap: whole mappings only.
func (b *Backend) MemUnmap(d backend.Device, p backend.DevicePtr, size uint64) error {
	const fn = "cuMemUnmap"
	if err := b.ctx(fn, d); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	regs, ok := b.mappings(uint64(p), size, true)
	if !ok {
		return errf(fn, cuerr.InvalidValue, "[0x%x, +%d) is not a set of whole mappings", uint64(p), size)
	}
	for _, r := range regs {
		if b.defects.has(dVMMUnmapKeepsAccess) {
			old := make([]uint32, len(r.access))
			for i := range r.access {
				old[i] = r.access[i].Load()
			}
			b.unmapped[r.base] = old
		}
		b.as.remove(r)
		r.obj.mappings--
		b.unref(r.obj)
	}
	return nil
}

// MemSetAccess is cuMemSetAccess; the range must be mapped throughout.
func (b *Backend) MemSetAccess(d backend.Device, p backend.DevicePtr, size uint64, access []backend.Access) error {
	const fn = "cuMemSetAccess"
	if err := b.ctx(fn, d); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	regs, ok := b.mappings(uint64(p), size, false)
	if !ok || len(access) == 0 {
		return errf(fn, cuerr.InvalidValue, "[0x%x, +%d) is not mapped throughout (or no descriptors)", uint64(p), size)
	}
	for _, a := range access {
		switch {
		case !b.valid(a.Device):
			return errf(fn, cuerr.InvalidDevice, "device %d", int(a.Device))
		case a.Flags != backend.ProtNone && a.Flags != backend.ProtRead && a.Flags != backend.ProtReadWrite:
			return errf(fn, cuerr.InvalidValue, "flags %d", uint32(a.Flags))
		}
		for _, r := range regs {
			if int(a.Device) != r.phys && a.Flags != backend.ProtNone && !b.claimsP2P(int(a.Device), r.phys) {
				return errf(fn, cuerr.InvalidDevice, "GPU%d cannot access GPU%d's memory (cuDeviceCanAccessPeer = 0)", int(a.Device), r.phys)
			}
		}
	}
	for _, a := range access {
		for _, r := range regs {
			r.access[a.Device].Store(uint32(a.Flags))
		}
	}
	return nil
}

// MemGetAccess is cuMemGetAccess for a device location.
func (b *Backend) MemGetAccess(d backend.Device, location backend.Device, p backend.DevicePtr) (backend.AccessFlags, error) {
	const fn = "cuMemGetAccess"
	if err := b.ctx(fn, d); err != nil {
		return 0, err
	}
	if !b.valid(location) {
		return 0, errf(fn, cuerr.InvalidDevice, "location device %d", int(location))
	}
	r := b.as.find(uint64(p))
	if r == nil || r.kind != kindVMM {
		return 0, errf(fn, cuerr.InvalidValue, "0x%x is not a VMM mapping", uint64(p))
	}
	return backend.AccessFlags(r.access[location].Load()), nil
}

// ExportFD is cuMemExportToShareableHandle(POSIX_FILE_DESCRIPTOR): a new
// descriptor of the allocation's file. It keeps the memory alive while open
// (in whichever process it travels to), as the driver's descriptor does.
func (b *Backend) ExportFD(d backend.Device, h backend.AllocHandle) (int, error) {
	const fn = "cuMemExportToShareableHandle"
	if err := b.ctx(fn, d); err != nil {
		return -1, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	o, err := b.handle(fn, h)
	if err != nil {
		return -1, err
	}
	if o.handleTypes&backend.HandlePosix == 0 {
		return -1, errf(fn, cuerr.InvalidValue, "the allocation was created without the POSIX_FILE_DESCRIPTOR handle type")
	}
	fd, err := fcntlDupCloexec(o.fd, 0)
	if err != nil {
		return -1, errf(fn, cuerr.OperatingSystem, "dup: %v", err)
	}
	return fd, nil
}

// ImportFD is cuMemImportFromShareableHandle(POSIX_FILE_DESCRIPTOR). A number
// that is not an open descriptor here fails with UNKNOWN (observed: 999).
func (b *Backend) ImportFD(d backend.Device, fd int) (backend.AllocHandle, error) {
	const fn = "cuMemImportFromShareableHandle"
	if err := b.ctx(fn, d); err != nil {
		return 0, err
	}
	target, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd))
	if err != nil || fd < 0 {
		b.keepParentFD(fn, fd)
		return 0, errf(fn, cuerr.Unknown, "%d is not an open file descriptor in this process", fd)
	}
	path := filepath.Join(b.state.root, "mem", filepath.Base(target))
	var got, want syscall.Stat_t
	_, kind, _, ok := parseMemName(filepath.Base(target))
	if !ok || kind != 'v' || syscall.Fstat(fd, &got) != nil || syscall.Stat(path, &want) != nil || got.Ino != want.Ino || got.Dev != want.Dev {
		b.keepParentFD(fn, fd)
		return 0, errf(fn, cuerr.InvalidValue, "descriptor %d (%s) is not an exported allocation", fd, target)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	o, err := b.openObject(fn, path)
	if err != nil {
		return 0, err
	}
	o.refs++
	o.handleTypes |= backend.HandlePosix
	return b.newHandle(o), nil
}

// ExportFabric is cuMemExportToShareableHandle(FABRIC).
func (b *Backend) ExportFabric(d backend.Device, h backend.AllocHandle) (backend.FabricHandle, error) {
	const fn = "cuMemExportToShareableHandle"
	if err := b.ctx(fn, d); err != nil {
		return backend.FabricHandle{}, err
	}
	if b.preset.fabric == fabricUnsupported {
		return backend.FabricHandle{}, errf(fn, cuerr.NotSupported, "FABRIC handles are not supported on %s", b.preset.name)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	o, err := b.handle(fn, h)
	if err != nil {
		return backend.FabricHandle{}, err
	}
	if o.handleTypes&backend.HandleFabric == 0 {
		return backend.FabricHandle{}, errf(fn, cuerr.InvalidValue, "the allocation was created without the FABRIC handle type")
	}
	return encodeHandle(magicFabric, handleData{pid: uint32(pid), dev: o.phys, size: o.size, id: o.id, kind: 'v'}), nil
}

// ImportFabric is cuMemImportFromShareableHandle(FABRIC).
func (b *Backend) ImportFabric(d backend.Device, fh backend.FabricHandle) (backend.AllocHandle, error) {
	const fn = "cuMemImportFromShareableHandle"
	if err := b.ctx(fn, d); err != nil {
		return 0, err
	}
	if b.preset.fabric != fabricWorks {
		return 0, errf(fn, cuerr.NotSupported, "FABRIC handles are not supported on %s", b.preset.name)
	}
	h, err := decodeHandle(fn, magicFabric, fh)
	if err != nil {
		return 0, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	o, err := b.openObject(fn, filepath.Join(b.state.root, "mem", memName(h.dev, 'v', h.id)))
	if err != nil {
		return 0, err
	}
	o.refs++
	o.handleTypes |= backend.HandleFabric
	return b.newHandle(o), nil
}

// keepParentFD is fd-number-import-keeps-reference: a number that is no
// allocation's descriptor here is looked up among the parent process's
// descriptors, and an allocation found there gets a reference that nothing
// drops while this process lives.
func (b *Backend) keepParentFD(fn string, fd int) {
	if !b.defects.has(dFDNumberImportKeeps) || fd < 0 {
		return
	}
	target, err := parentFD(fd)
	if err != nil {
		return
	}
	if _, kind, _, ok := parseMemName(filepath.Base(target)); !ok || kind != 'v' {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if o, err := b.openObject(fn, filepath.Join(b.state.root, "mem", filepath.Base(target))); err == nil {
		b.keep(o)
	}
}

// parentFD names what descriptor fd of the parent process (the exporter
// that started this helper) refers to; a variable so the defect's probe can
// stand in for a parent.
var parentFD = func(fd int) (string, error) {
	return os.Readlink(fmt.Sprintf("/proc/%d/fd/%d", os.Getppid(), fd))
}
