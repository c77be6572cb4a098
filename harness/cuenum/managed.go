// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cuenum

import "fmt"

// MemAttachFlags are cuMemAllocManaged flags (CUmemAttach_flags).
type MemAttachFlags uint32

// Attach flags. MemAttachGlobal makes the allocation accessible from any
// stream on any device, the one the managed checks use.
const (
	MemAttachGlobal MemAttachFlags = 0x1
	MemAttachHost   MemAttachFlags = 0x2
	MemAttachSingle MemAttachFlags = 0x4
)

// MemAdvice is a CUmem_advise value (cuMemAdvise).
type MemAdvice int32

// Advice values.
const (
	AdviseSetReadMostly          MemAdvice = 1
	AdviseUnsetReadMostly        MemAdvice = 2
	AdviseSetPreferredLocation   MemAdvice = 3
	AdviseUnsetPreferredLocation MemAdvice = 4
	AdviseSetAccessedBy          MemAdvice = 5
	AdviseUnsetAccessedBy        MemAdvice = 6
)

var adviceNames = map[MemAdvice]string{
	AdviseSetReadMostly:          "SET_READ_MOSTLY",
	AdviseUnsetReadMostly:        "UNSET_READ_MOSTLY",
	AdviseSetPreferredLocation:   "SET_PREFERRED_LOCATION",
	AdviseUnsetPreferredLocation: "UNSET_PREFERRED_LOCATION",
	AdviseSetAccessedBy:          "SET_ACCESSED_BY",
	AdviseUnsetAccessedBy:        "UNSET_ACCESSED_BY",
}

// String gives the cuda.h name, e.g. "CU_MEM_ADVISE_SET_READ_MOSTLY".
func (a MemAdvice) String() string {
	if n, ok := adviceNames[a]; ok {
		return "CU_MEM_ADVISE_" + n
	}
	return fmt.Sprintf("CU_MEM_ADVISE_%d", int32(a))
}

// MemRangeAttr is a CUmem_range_attribute value (cuMemRangeGetAttribute).
// Every one p2pconf reads is answered as 32-bit integers: READ_MOSTLY as 0
// or 1, PREFERRED_LOCATION and LAST_PREFETCH_LOCATION as a device ordinal,
// DeviceCPU or DeviceInvalid, ACCESSED_BY as an array of those.
type MemRangeAttr int32

// Range attributes.
const (
	RangeReadMostly           MemRangeAttr = 1
	RangePreferredLocation    MemRangeAttr = 2
	RangeAccessedBy           MemRangeAttr = 3
	RangeLastPrefetchLocation MemRangeAttr = 4
)

var rangeAttrNames = map[MemRangeAttr]string{
	RangeReadMostly:           "READ_MOSTLY",
	RangePreferredLocation:    "PREFERRED_LOCATION",
	RangeAccessedBy:           "ACCESSED_BY",
	RangeLastPrefetchLocation: "LAST_PREFETCH_LOCATION",
}

// String gives the cuda.h name, e.g. "CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY".
func (a MemRangeAttr) String() string {
	if n, ok := rangeAttrNames[a]; ok {
		return "CU_MEM_RANGE_ATTRIBUTE_" + n
	}
	return fmt.Sprintf("CU_MEM_RANGE_ATTRIBUTE_%d", int32(a))
}

// Device ordinals with a meaning of their own in range attributes: the host
// (CU_DEVICE_CPU) and "none, or not the same for every page"
// (CU_DEVICE_INVALID).
const (
	DeviceCPU     int32 = -1
	DeviceInvalid int32 = -2
)
