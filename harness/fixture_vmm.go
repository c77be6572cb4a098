// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"errors"
	"fmt"
	"os"
	"strings"

	. "github.com/onsi/ginkgo/v2"
)

// Virtual memory management of the fixture: physical memory (cuMemCreate),
// reserved address ranges (cuMemAddressReserve) with one mapping each, and
// shareable handles. The VMM specs release on purpose and then check what
// the driver did (memory still held while mapped, free memory back to its
// baseline), so every release is also a method the spec can call; the
// cleanup registered at creation releases only what the spec did not, which
// keeps a failed spec from leaking and never releases twice (releasing a
// dead handle is undefined).

// Granularity is cuMemGetAllocationGranularity for pinned memory on g with
// the given handle types: the minimum, or the recommended one.
func (h *Harness) Granularity(g GPU, types HandleTypes, recommended bool) uint64 {
	GinkgoHelper()
	gran, err := h.b.Granularity(g.Ordinal, AllocProp{Device: g.Ordinal, HandleTypes: types}, recommended)
	which := "MINIMUM"
	if recommended {
		which = "RECOMMENDED"
	}
	ExpectNoError(err, "cuMemGetAllocationGranularity(%s, handle types %d) on %s", which, uint32(types), g)
	return gran
}

// Physical is memory made with cuMemCreate, or imported from a shareable
// handle, on one GPU.
type Physical struct {
	h        *Harness
	GPU      GPU // whose context made it, where the memory lives
	Size     uint64
	Handle   AllocHandle
	what     string // how it was made, for messages
	released bool
}

// MemCreate creates size bytes of pinned memory on g that can be exported
// as types (HandleNone for none); it is released after the spec unless the
// spec released it.
func (h *Harness) MemCreate(g GPU, size uint64, types HandleTypes) *Physical {
	GinkgoHelper()
	m, err := h.TryMemCreate(g, size, types)
	ExpectNoError(err, "create physical memory on %s", g)
	return m
}

// TryMemCreate is MemCreate returning the driver's answer instead of
// asserting, for the specs whose observation is a refusal (a size off the
// granularity, a handle type that needs more setup). What it creates is
// released after the spec like MemCreate's.
func (h *Harness) TryMemCreate(g GPU, size uint64, types HandleTypes) (*Physical, error) {
	hnd, err := h.b.MemCreate(g.Ordinal, size, AllocProp{Device: g.Ordinal, HandleTypes: types})
	if err != nil {
		return nil, fmt.Errorf("cuMemCreate(%d bytes on %s, handle types %d): %w", size, g, uint32(types), err)
	}
	return h.physical(g, size, hnd, fmt.Sprintf("cuMemCreate(%d bytes on %s)", size, g)), nil
}

func (h *Harness) physical(g GPU, size uint64, hnd AllocHandle, what string) *Physical {
	m := &Physical{h: h, GPU: g, Size: size, Handle: hnd, what: what}
	DeferCleanup(m.release)
	return m
}

// Release releases the handle (cuMemRelease) now. Mappings keep the memory
// alive until they are unmapped.
func (m *Physical) Release() {
	GinkgoHelper()
	ExpectNoError(m.release(), "release physical memory")
}

func (m *Physical) release() error {
	if m.released {
		return nil
	}
	m.released = true
	return wrapf(m.h.b.MemRelease(m.GPU.Ordinal, m.Handle), "cuMemRelease of %s", m.what)
}

// ExportFD exports m as a POSIX file descriptor
// (cuMemExportToShareableHandle); the descriptor is closed after the spec
// on every path (closing it earlier too is harmless).
func (h *Harness) ExportFD(m *Physical) *os.File {
	GinkgoHelper()
	fd, err := h.b.ExportFD(m.GPU.Ordinal, m.Handle)
	ExpectNoError(err, "cuMemExportToShareableHandle(POSIX_FILE_DESCRIPTOR) of %s", m.what)
	f := os.NewFile(uintptr(fd), "vmm-export")
	DeferCleanup(func() { _ = f.Close() })
	return f
}

// ImportFD imports size bytes from a POSIX descriptor of this process into
// g's context (cuMemImportFromShareableHandle); the caller still owns fd.
// The import is released after the spec unless the spec released it.
func (h *Harness) ImportFD(g GPU, fd int, size uint64) *Physical {
	GinkgoHelper()
	hnd, err := h.b.ImportFD(g.Ordinal, fd)
	ExpectNoError(err, "cuMemImportFromShareableHandle(POSIX_FILE_DESCRIPTOR %d) on %s", fd, g)
	return h.physical(g, size, hnd, fmt.Sprintf("%d bytes imported from fd %d on %s", size, fd, g))
}

// ExportFabric exports m as a FABRIC handle (cuMemExportToShareableHandle).
func (h *Harness) ExportFabric(m *Physical) FabricHandle {
	GinkgoHelper()
	fh, err := h.b.ExportFabric(m.GPU.Ordinal, m.Handle)
	ExpectNoError(err, "cuMemExportToShareableHandle(FABRIC) of %s", m.what)
	return fh
}

// ImportFabric imports size bytes from a FABRIC handle into g's context;
// the import is released after the spec unless the spec released it.
func (h *Harness) ImportFabric(g GPU, fh FabricHandle, size uint64) *Physical {
	GinkgoHelper()
	hnd, err := h.b.ImportFabric(g.Ordinal, fh)
	ExpectNoError(err, "cuMemImportFromShareableHandle(FABRIC) on %s", g)
	return h.physical(g, size, hnd, fmt.Sprintf("%d bytes imported from a FABRIC handle on %s", size, g))
}

// AddressRange is address space reserved in one GPU's context, with at most
// one mapping at a time.
type AddressRange struct {
	h      *Harness
	GPU    GPU // whose context the calls run in
	Ptr    DevicePtr
	Size   uint64
	mapped bool
	freed  bool
}

// AddressReserve reserves size bytes of address space with g
// (cuMemAddressReserve); after the spec, what is still mapped is unmapped
// and the reservation freed, unless the spec did it.
func (h *Harness) AddressReserve(g GPU, size uint64) *AddressRange {
	GinkgoHelper()
	p, err := h.b.AddressReserve(g.Ordinal, size, 0)
	ExpectNoError(err, "cuMemAddressReserve(%d bytes) with %s", size, g)
	r := &AddressRange{h: h, GPU: g, Ptr: p, Size: size}
	DeferCleanup(r.free)
	return r
}

// MapNew reserves a range in g's context the size of m and maps m there
// (AddressReserve, then Map).
func (h *Harness) MapNew(g GPU, m *Physical) *AddressRange {
	GinkgoHelper()
	r := h.AddressReserve(g, m.Size)
	r.Map(m)
	return r
}

// Map maps all of m at the range (cuMemMap); the range and m must be the
// same size.
func (r *AddressRange) Map(m *Physical) {
	GinkgoHelper()
	ExpectNoError(r.h.b.MemMap(r.GPU.Ordinal, r.Ptr, r.Size, m.Handle),
		"cuMemMap(0x%x, %d bytes) of %s with %s", uint64(r.Ptr), r.Size, m.what, r.GPU)
	r.mapped = true
}

// SetAccess sets the access of the given GPUs to the mapping
// (cuMemSetAccess).
func (r *AddressRange) SetAccess(access ...Access) {
	GinkgoHelper()
	ExpectNoError(r.h.b.MemSetAccess(r.GPU.Ordinal, r.Ptr, r.Size, access),
		"cuMemSetAccess(0x%x, %d bytes, %s) with %s", uint64(r.Ptr), r.Size, DescribeAccess(access), r.GPU)
}

// Access is the access location has to the mapping (cuMemGetAccess).
func (r *AddressRange) Access(location GPU) AccessFlags {
	GinkgoHelper()
	f, err := r.h.b.MemGetAccess(r.GPU.Ordinal, location.Ordinal, r.Ptr)
	ExpectNoError(err, "cuMemGetAccess(%s, 0x%x) with %s", location, uint64(r.Ptr), r.GPU)
	return f
}

// Unmap unmaps the range now (cuMemUnmap); the reservation stays.
func (r *AddressRange) Unmap() {
	GinkgoHelper()
	ExpectNoError(r.unmap(), "unmap")
}

func (r *AddressRange) unmap() error {
	if !r.mapped {
		return nil
	}
	r.mapped = false
	return wrapf(r.h.b.MemUnmap(r.GPU.Ordinal, r.Ptr, r.Size), "cuMemUnmap(0x%x, %d bytes) with %s", uint64(r.Ptr), r.Size, r.GPU)
}

func (r *AddressRange) free() error {
	if r.freed {
		return nil
	}
	err := r.unmap()
	r.freed = true
	return errors.Join(err, wrapf(r.h.b.AddressFree(r.GPU.Ordinal, r.Ptr, r.Size), "cuMemAddressFree(0x%x, %d bytes) with %s", uint64(r.Ptr), r.Size, r.GPU))
}

// DescribeAccess writes an access list as "[GPU0 READWRITE, GPU1 READ]".
func DescribeAccess(access []Access) string {
	parts := make([]string, len(access))
	for i, a := range access {
		parts[i] = fmt.Sprintf("GPU%d %s", int(a.Device), a.Flags)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
