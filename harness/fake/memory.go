// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"encoding/binary"
	"errors"
	"path/filepath"
	"syscall"
	"unsafe"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

// memObject is one physical allocation (a file in the state directory) as
// mapped in this process.
type memObject struct {
	id, path    string
	phys        int
	kind        byte // 'm' cuMemAlloc, 'v' cuMemCreate
	size        uint64
	fd          int
	mem         []byte
	refs        int  // references in this process (guarded by Backend.mu)
	local       bool // made by cuMemAlloc in this process (IPC export side)
	handleTypes backend.HandleTypes
	mappings    int // cuMemMap mappings in this process
}

func (o *memObject) unmap() {
	_ = syscall.Munmap(o.mem)
	_ = syscall.Close(o.fd)
	reap(o.path)
}

// freeNow is what the "frees" defects do: poison the bytes every process
// sees and drop the file from the accounting at once.
func (o *memObject) freeNow() {
	fill32(o.mem, 0xdeadbeef)
	_ = syscall.Unlink(o.path)
}

// newObject creates a physical allocation of size bytes on GPU phys.
func (b *Backend) newObject(fn string, phys int, kind byte, size uint64) (*memObject, error) {
	b.foreign.allocated(phys)
	used, err := b.state.usedBytes(phys)
	if err != nil {
		return nil, errf(fn, cuerr.OperatingSystem, "reading the fake state: %v", err)
	}
	size = roundUp(size, pageSize)
	if total := b.preset.memMiB << 20; used+size > total || size > addrSlotSize/4 {
		return nil, errf(fn, cuerr.OutOfMemory, "GPU%d: %d bytes asked, %d of %d free", phys, size, total-min(used, total), total)
	}
	id := randomID()
	name := memName(phys, kind, id)
	fd, err := b.state.createMemFile(name, size)
	if errors.Is(err, syscall.ENOSPC) {
		return nil, errf(fn, cuerr.OutOfMemory, "the fake's state directory is full")
	}
	if err != nil {
		return nil, errf(fn, cuerr.OperatingSystem, "creating the backing file: %v", err)
	}
	return b.mapObject(fn, fd, filepath.Join(b.state.root, "mem", name), phys, kind, id, size)
}

func (b *Backend) mapObject(fn string, fd int, path string, phys int, kind byte, id string, size uint64) (*memObject, error) {
	mem, err := syscall.Mmap(fd, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		_ = syscall.Close(fd)
		return nil, errf(fn, cuerr.MapFailed, "mmap of %s: %v", path, err)
	}
	o := &memObject{id: id, path: path, phys: phys, kind: kind, size: size, fd: fd, mem: mem}
	b.objects[id] = o
	return o, nil
}

// openObject maps an existing allocation of another process (by its file),
// or returns this process's mapping of it. b.mu must be held.
func (b *Backend) openObject(fn string, path string) (*memObject, error) {
	phys, kind, id, ok := parseMemName(filepath.Base(path))
	if !ok {
		return nil, errf(fn, cuerr.InvalidValue, "%s is not a fake allocation", path)
	}
	if o, ok := b.objects[id]; ok {
		return o, nil
	}
	if phys >= len(b.devs) {
		return nil, errf(fn, cuerr.InvalidValue, "allocation of GPU%d, which this preset does not have", phys)
	}
	fd, err := openMemFile(path)
	if err != nil {
		return nil, errf(fn, cuerr.InvalidHandle, "the allocation is gone (%v)", err)
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || st.Size <= 0 {
		_ = syscall.Close(fd)
		return nil, errf(fn, cuerr.InvalidHandle, "the allocation is gone")
	}
	return b.mapObject(fn, fd, path, phys, kind, id, uint64(st.Size))
}

// unref drops one reference; the last one unmaps (once no access is in flight).
func (b *Backend) unref(o *memObject) {
	o.refs--
	if o.refs > 0 {
		return
	}
	delete(b.objects, o.id)
	b.unmapLater(o.unmap)
}

// MemInfo reports the preset's total and what the live allocation files of
// d (in every process sharing the state directory) leave free.
func (b *Backend) MemInfo(d backend.Device) (free, total uint64, err error) {
	const fn = "cuMemGetInfo"
	if err := b.ctx(fn, d); err != nil {
		return 0, 0, err
	}
	used, err := b.state.usedBytes(int(d))
	if err != nil {
		return 0, 0, errf(fn, cuerr.OperatingSystem, "reading the fake state: %v", err)
	}
	used += b.foreign.memInfoUsed(int(d))
	total = b.preset.memMiB << 20
	return total - min(used, total), total, nil
}

// Alloc is cuMemAlloc: a new file-backed allocation on d.
func (b *Backend) Alloc(d backend.Device, size uint64) (backend.DevicePtr, error) {
	const fn = "cuMemAlloc"
	if err := b.ctx(fn, d); err != nil {
		return 0, err
	}
	if size == 0 {
		return 0, errf(fn, cuerr.InvalidValue, "size 0")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	o, err := b.newObject(fn, int(d), 'm', size)
	if err != nil {
		return 0, err
	}
	o.local, o.refs = true, 1
	base, ok := b.as.reserve(size, 512)
	if !ok {
		b.unref(o)
		return 0, errf(fn, cuerr.OutOfMemory, "the fake address space is full")
	}
	b.allocSeq++
	r := &region{base: base, size: size, mem: o.mem[:size], kind: kindAlloc, phys: int(d), ctx: int(d), obj: o, born: b.allocSeq}
	b.as.insert(r)
	b.allocs[base] = r
	return backend.DevicePtr(base), nil
}

// Free is cuMemFree.
func (b *Backend) Free(d backend.Device, p backend.DevicePtr) error {
	const fn = "cuMemFree"
	if err := b.ctx(fn, d); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	r, ok := b.allocs[uint64(p)]
	if !ok {
		return errf(fn, cuerr.InvalidValue, "0x%x is not the base of a cuMemAlloc allocation of this process", uint64(p))
	}
	delete(b.allocs, uint64(p))
	b.as.remove(r)
	b.as.unreserve(r.base)
	keep := r.kind == kindManaged && b.managedFreed(r)
	if !b.defects.has(dFreeLeaks) && !keep {
		b.unref(r.obj)
	}
	return nil
}

// HostAlloc is cuMemHostAlloc: anonymous shared memory, device-accessible at
// its host address (UVA), by every GPU.
func (b *Backend) HostAlloc(d backend.Device, size uint64, flags backend.HostAllocFlags) (*backend.HostBuffer, error) {
	const fn = "cuMemHostAlloc"
	if err := b.ctx(fn, d); err != nil {
		return nil, err
	}
	if size == 0 || flags&^(backend.HostAllocPortable|backend.HostAllocDeviceMap|backend.HostAllocWriteCombined) != 0 {
		return nil, errf(fn, cuerr.InvalidValue, "size %d, flags 0x%x", size, uint32(flags))
	}
	mem, err := syscall.Mmap(-1, 0, int(roundUp(size, pageSize)), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED|syscall.MAP_ANON)
	if err != nil {
		return nil, errf(fn, cuerr.OutOfMemory, "mmap: %v", err)
	}
	base := uint64(uintptr(unsafe.Pointer(&mem[0])))
	if base < addrBase+addrSlots*addrSlotSize && base+size > addrBase {
		_ = syscall.Munmap(mem)
		return nil, errf(fn, cuerr.OutOfMemory, "host memory landed in the fake device address range")
	}
	r := &region{base: base, size: size, mem: mem[:size], kind: kindHost, phys: -1, ctx: int(d)}
	hb := &backend.HostBuffer{Ptr: backend.DevicePtr(base), Mem: mem[:size], Handle: r}
	r.host = hb
	b.mu.Lock()
	b.hosts[base] = r
	b.mu.Unlock()
	b.as.insert(r)
	return hb, nil
}

// HostFree is cuMemFreeHost.
func (b *Backend) HostFree(d backend.Device, h *backend.HostBuffer) error {
	const fn = "cuMemFreeHost"
	if err := b.ctx(fn, d); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if h == nil || b.hosts[uint64(h.Ptr)] == nil || b.hosts[uint64(h.Ptr)].host != h {
		return errf(fn, cuerr.InvalidValue, "not pinned host memory of this backend")
	}
	r := b.hosts[uint64(h.Ptr)]
	delete(b.hosts, uint64(h.Ptr))
	b.as.remove(r)
	mem := r.mem[:cap(r.mem)]
	b.unmapLater(func() { _ = syscall.Munmap(mem) })
	return nil
}

// HostDevicePointer is cuMemHostGetDevicePointer: under UVA the host pointer.
func (b *Backend) HostDevicePointer(d backend.Device, h *backend.HostBuffer) (backend.DevicePtr, error) {
	const fn = "cuMemHostGetDevicePointer"
	if err := b.ctx(fn, d); err != nil {
		return 0, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if h == nil || b.hosts[uint64(h.Ptr)] == nil {
		return 0, errf(fn, cuerr.InvalidValue, "not pinned host memory of this backend")
	}
	return h.Ptr, nil
}

// PointerAttribute is cuPointerGetAttribute for the integer attributes.
func (b *Backend) PointerAttribute(d backend.Device, attr backend.PointerAttr, p backend.DevicePtr) (int64, error) {
	const fn = "cuPointerGetAttribute"
	if err := b.ctx(fn, d); err != nil {
		return 0, err
	}
	r := b.as.find(uint64(p))
	if r == nil {
		return 0, errf(fn, cuerr.InvalidValue, "0x%x is not a CUDA allocation of this process", uint64(p))
	}
	switch attr {
	case backend.PointerContext:
		return int64(r.ctx) + 1, nil
	case backend.PointerMemoryType:
		if r.kind == kindHost {
			return backend.MemoryTypeHost, nil
		}
		return backend.MemoryTypeDevice, nil
	case backend.PointerDeviceOrdinal:
		switch {
		case b.defects.has(dPointerOwnerWrong):
			return 0, nil
		case r.kind == kindVMM:
			return int64(r.phys), nil
		}
		return int64(r.ctx), nil
	case backend.PointerIsManaged:
		return int64(boolInt(r.kind == kindManaged && !b.defects.has(dManagedNotFlagged))), nil
	case backend.PointerIsLegacyCudaIPCCapable:
		return int64(boolInt(r.kind == kindAlloc)), nil
	case backend.PointerRangeStartAddr:
		return int64(r.base), nil
	case backend.PointerRangeSize:
		return int64(r.size), nil
	case backend.PointerMapped:
		return 1, nil
	}
	return 0, errf(fn, cuerr.InvalidValue, "the fake does not model pointer attribute %d", int(attr))
}

// span resolves [addr, addr+n) for a copy or memset made in d's context.
// Like the driver, a VMM range d may not access is INVALID_VALUE (not a
// fault). The caller must hold enter().
func (b *Backend) span(fn string, d int, addr, n uint64, write bool) (*region, []byte, error) {
	r := b.as.find(addr)
	if r == nil || !r.contains(addr, n) {
		return nil, nil, errf(fn, cuerr.InvalidValue, "[0x%x, +%d) is not inside one allocation of this process", addr, n)
	}
	if r.kind == kindVMM {
		need := backend.ProtRead
		if write {
			need = backend.ProtReadWrite
		}
		if f := backend.AccessFlags(r.access[d].Load()); f&need != need {
			return nil, nil, errf(fn, cuerr.InvalidValue, "GPU%d has %s on the VMM range at 0x%x", d, f, r.base)
		}
	}
	if r.kind == kindManaged {
		b.managedHostAccess(r, write)
	}
	off := addr - r.base
	return r, r.mem[off : off+n], nil
}

// Memset32 is cuMemsetD32.
func (b *Backend) Memset32(d backend.Device, p backend.DevicePtr, value uint32, words uint64) error {
	const fn = "cuMemsetD32"
	if err := b.ctx(fn, d); err != nil {
		return err
	}
	if uint64(p)%4 != 0 {
		return errf(fn, cuerr.InvalidValue, "0x%x is not 4-byte aligned", uint64(p))
	}
	b.enter()
	defer b.exit()
	_, mem, err := b.span(fn, int(d), uint64(p), words*4, true)
	if err != nil {
		return err
	}
	fill32(mem, value)
	return nil
}

// CopyToDevice is cuMemcpyHtoD.
func (b *Backend) CopyToDevice(d backend.Device, dst backend.DevicePtr, src []byte) error {
	const fn = "cuMemcpyHtoD"
	if err := b.ctx(fn, d); err != nil {
		return err
	}
	b.enter()
	defer b.exit()
	_, mem, err := b.span(fn, int(d), uint64(dst), uint64(len(src)), true)
	if err != nil {
		return err
	}
	copy(mem, src)
	return nil
}

// CopyFromDevice is cuMemcpyDtoH.
func (b *Backend) CopyFromDevice(d backend.Device, dst []byte, src backend.DevicePtr) error {
	const fn = "cuMemcpyDtoH"
	if err := b.ctx(fn, d); err != nil {
		return err
	}
	b.enter()
	defer b.exit()
	_, mem, err := b.span(fn, int(d), uint64(src), uint64(len(dst)), false)
	if err != nil {
		return err
	}
	copy(dst, mem)
	return nil
}

// fill32 writes v into every 4-byte word of mem.
func fill32(mem []byte, v uint32) {
	if len(mem) < 4 {
		return
	}
	binary.LittleEndian.PutUint32(mem, v)
	for n := 4; n < len(mem)/4*4; n *= 2 {
		copy(mem[n:len(mem)/4*4], mem[:n])
	}
}
