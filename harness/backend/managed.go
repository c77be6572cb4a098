// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package backend

import (
	"fmt"

	"github.com/p2pconf/p2pconf/harness/cuenum"
)

// Unified Memory enums, from harness/cuenum.
type (
	// MemAdvice is a CUmem_advise value.
	MemAdvice = cuenum.MemAdvice
	// MemRangeAttr is a CUmem_range_attribute value.
	MemRangeAttr = cuenum.MemRangeAttr
)

// Advice and range attributes.
const (
	AdviseSetReadMostly          = cuenum.AdviseSetReadMostly
	AdviseUnsetReadMostly        = cuenum.AdviseUnsetReadMostly
	AdviseSetPreferredLocation   = cuenum.AdviseSetPreferredLocation
	AdviseUnsetPreferredLocation = cuenum.AdviseUnsetPreferredLocation
	AdviseSetAccessedBy          = cuenum.AdviseSetAccessedBy
	AdviseUnsetAccessedBy        = cuenum.AdviseUnsetAccessedBy

	RangeReadMostly           = cuenum.RangeReadMostly
	RangePreferredLocation    = cuenum.RangePreferredLocation
	RangeAccessedBy           = cuenum.RangeAccessedBy
	RangeLastPrefetchLocation = cuenum.RangeLastPrefetchLocation

	// RangeCPU and RangeInvalid are the range attributes' answers "the
	// host" (CU_DEVICE_CPU) and "none, or not the same for every page"
	// (CU_DEVICE_INVALID).
	RangeCPU     = cuenum.DeviceCPU
	RangeInvalid = cuenum.DeviceInvalid

	// PointerIsManaged is CU_POINTER_ATTRIBUTE_IS_MANAGED (a bool).
	PointerIsManaged = cuenum.PointerIsManaged
)

// Location is where managed memory is prefetched to or advised about: a
// device, or the host (CU_MEM_LOCATION_TYPE_HOST).
type Location struct {
	Host   bool
	Device Device // when !Host
}

// HostLocation is the host.
var HostLocation = Location{Host: true}

// DeviceLocation is device d.
func DeviceLocation(d Device) Location { return Location{Device: d} }

// RangeValue is the value the range attributes report for l: the device
// ordinal, or RangeCPU for the host.
func (l Location) RangeValue() int32 {
	if l.Host {
		return RangeCPU
	}
	return int32(l.Device)
}

// String reads "host" or "GPU1".
func (l Location) String() string {
	if l.Host {
		return "host"
	}
	return fmt.Sprintf("GPU%d", int(l.Device))
}

// Managed covers Unified Memory. Each call runs in d's context (a prefetch
// in its stream's).
type Managed interface {
	// AllocManaged wraps cuMemAllocManaged(CU_MEM_ATTACH_GLOBAL); the
	// memory is released with Free.
	AllocManaged(d Device, size uint64) (DevicePtr, error)
	// PrefetchAsync wraps cuMemPrefetchAsync_v2(p, n, to, 0, s). It fails
	// with an error matching ErrMissingEntryPoint on drivers older than
	// CUDA 12.2 (the first with the CUmemLocation form).
	PrefetchAsync(s Stream, p DevicePtr, n uint64, to Location) error
	// Advise wraps cuMemAdvise_v2 (CUDA 12.2 and newer, like PrefetchAsync).
	Advise(d Device, p DevicePtr, n uint64, advice MemAdvice, about Location) error
	// RangeAttribute wraps cuMemRangeGetAttribute for a 4-byte attribute
	// (READ_MOSTLY, PREFERRED_LOCATION, LAST_PREFETCH_LOCATION).
	RangeAttribute(d Device, attr MemRangeAttr, p DevicePtr, n uint64) (int32, error)
	// RangeAccessedBy wraps cuMemRangeGetAttribute(ACCESSED_BY) with room
	// slots; the unused ones read RangeInvalid.
	RangeAccessedBy(d Device, p DevicePtr, n uint64, room int) ([]int32, error)
	// RangeAttributes wraps cuMemRangeGetAttributes: the values in the order
	// asked, ACCESSED_BY taking room slots.
	RangeAttributes(d Device, attrs []MemRangeAttr, room int, p DevicePtr, n uint64) ([]int32, error)
}
