// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package vmm_test

import (
	"errors"
	"fmt"

	. "github.com/onsi/ginkgo/v2"

	"github.com/p2pconf/p2pconf/harness"
)

// The helper processes' roles (fault_role_test.go, import_role_test.go) have
// no fixture: they make and release VMM objects with the driver they are
// given, through physical and vaRange. Specs use the fixture's
// harness.Physical and harness.AddressRange instead.

// physical is memory made with cuMemCreate. release is idempotent, so a role
// that releases on purpose and the unwinding that releases on every other
// path never release twice (cuMemRelease of a dead handle is undefined).
type physical struct {
	b        harness.Driver
	owner    harness.Device
	size     uint64
	handle   harness.AllocHandle
	released bool
}

func createPhysical(b harness.Driver, owner harness.Device, size uint64, types harness.HandleTypes) (*physical, error) {
	h, err := b.MemCreate(owner, size, harness.AllocProp{Device: owner, HandleTypes: types})
	if err != nil {
		return nil, fmt.Errorf("cuMemCreate(%d bytes on GPU%d, handle types %d): %w", size, int(owner), types, err)
	}
	return &physical{b: b, owner: owner, size: size, handle: h}, nil
}

func (p *physical) release() error {
	if p.released {
		return nil
	}
	p.released = true
	if err := p.b.MemRelease(p.owner, p.handle); err != nil {
		return fmt.Errorf("cuMemRelease of %d bytes on GPU%d: %w", p.size, int(p.owner), err)
	}
	return nil
}

// vaRange is reserved address space with at most one mapping. free unmaps
// what is still mapped and returns the reservation.
type vaRange struct {
	b      harness.Driver
	dev    harness.Device // whose context the calls run in
	ptr    harness.DevicePtr
	size   uint64
	mapped bool
	freed  bool
}

func reserve(b harness.Driver, dev harness.Device, size uint64) (*vaRange, error) {
	p, err := b.AddressReserve(dev, size, 0)
	if err != nil {
		return nil, fmt.Errorf("cuMemAddressReserve(%d bytes) with GPU%d: %w", size, int(dev), err)
	}
	return &vaRange{b: b, dev: dev, ptr: p, size: size}, nil
}

func (r *vaRange) mapTo(h harness.AllocHandle) error {
	if err := r.b.MemMap(r.dev, r.ptr, r.size, h); err != nil {
		return fmt.Errorf("cuMemMap(0x%x, %d bytes) with GPU%d: %w", uint64(r.ptr), r.size, int(r.dev), err)
	}
	r.mapped = true
	return nil
}

func (r *vaRange) setAccess(access ...harness.Access) error {
	if err := r.b.MemSetAccess(r.dev, r.ptr, r.size, access); err != nil {
		return fmt.Errorf("cuMemSetAccess(0x%x, %s) with GPU%d: %w", uint64(r.ptr), describeAccess(access), int(r.dev), err)
	}
	return nil
}

func (r *vaRange) access(location harness.Device) (harness.AccessFlags, error) {
	f, err := r.b.MemGetAccess(r.dev, location, r.ptr)
	if err != nil {
		return 0, fmt.Errorf("cuMemGetAccess(GPU%d, 0x%x): %w", int(location), uint64(r.ptr), err)
	}
	return f, nil
}

func (r *vaRange) unmap() error {
	if !r.mapped {
		return nil
	}
	r.mapped = false
	if err := r.b.MemUnmap(r.dev, r.ptr, r.size); err != nil {
		return fmt.Errorf("cuMemUnmap(0x%x, %d bytes) with GPU%d: %w", uint64(r.ptr), r.size, int(r.dev), err)
	}
	return nil
}

func (r *vaRange) free() error {
	if r.freed {
		return nil
	}
	err := r.unmap()
	r.freed = true
	if ferr := r.b.AddressFree(r.dev, r.ptr, r.size); ferr != nil {
		err = errors.Join(err, fmt.Errorf("cuMemAddressFree(0x%x, %d bytes) with GPU%d: %w", uint64(r.ptr), r.size, int(r.dev), ferr))
	}
	return err
}

func describeAccess(access []harness.Access) string { return harness.DescribeAccess(access) }

// granule is g's minimum allocation granularity for pinned memory on g with
// the given handle types; it skips where g has no VMM.
func granule(h *harness.Harness, g harness.GPU, types harness.HandleTypes) uint64 {
	GinkgoHelper()
	h.RequireAttribute(g, harness.AttrVirtualMemoryManagementSupported, 1)
	return h.Granularity(g, types, false)
}

// mustCreate creates size bytes on g, released after the spec unless the
// spec released them.
func mustCreate(h *harness.Harness, g harness.GPU, size uint64, types harness.HandleTypes) *harness.Physical {
	GinkgoHelper()
	return h.MemCreate(g, size, types)
}

// mustMap reserves a range in g's context and maps p there; it is unmapped
// and freed after the spec unless the spec did it.
func mustMap(h *harness.Harness, g harness.GPU, p *harness.Physical) *harness.AddressRange {
	GinkgoHelper()
	return h.MapNew(g, p)
}
