// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cuenum

import "fmt"

// PointerAttr is a CUpointer_attribute value (cuPointerGetAttribute).
type PointerAttr int32

// Pointer attributes. The comment gives the C type the driver writes, which
// the binding needs to read the answer back at the right width.
const (
	PointerContext                PointerAttr = 1  // CUcontext
	PointerMemoryType             PointerAttr = 2  // unsigned int, a MemoryType
	PointerDevicePointer          PointerAttr = 3  // CUdeviceptr
	PointerHostPointer            PointerAttr = 4  // void *
	PointerIsManaged              PointerAttr = 8  // bool
	PointerDeviceOrdinal          PointerAttr = 9  // int
	PointerIsLegacyCudaIPCCapable PointerAttr = 10 // bool
	PointerRangeStartAddr         PointerAttr = 11 // void *
	PointerRangeSize              PointerAttr = 12 // size_t
	PointerMapped                 PointerAttr = 13 // bool
	PointerAllowedHandleTypes     PointerAttr = 14 // unsigned long long, a HandleTypes mask
	PointerAccessFlags            PointerAttr = 16 // unsigned long long
	PointerMappingSize            PointerAttr = 18 // size_t
	PointerMappingBaseAddr        PointerAttr = 19 // void *
	PointerMemoryBlockID          PointerAttr = 20 // unsigned long long
)

// MemoryType is a CUmemorytype value, the answer to PointerMemoryType.
type MemoryType uint32

// Memory types.
const (
	MemoryTypeHost    MemoryType = 1
	MemoryTypeDevice  MemoryType = 2
	MemoryTypeArray   MemoryType = 3
	MemoryTypeUnified MemoryType = 4
)

// HostAllocFlags are cuMemHostAlloc flags (CU_MEMHOSTALLOC_*).
type HostAllocFlags uint32

// Host allocation flags.
const (
	HostAllocPortable      HostAllocFlags = 0x1 // pinned for every context, not just the current one
	HostAllocDeviceMap     HostAllocFlags = 0x2 // mapped into the device address space
	HostAllocWriteCombined HostAllocFlags = 0x4 // fast for the GPU, very slow for CPU reads
)

// IPCMemFlags are cuIpcOpenMemHandle flags (CUipcMem_flags).
type IPCMemFlags uint32

// IPCMemLazyEnablePeerAccess (CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) lets the
// importer open memory of another device, enabling peer access on demand.
// The driver documents it as the value to pass.
const IPCMemLazyEnablePeerAccess IPCMemFlags = 0x1

// HandleTypes is a CUmemAllocationHandleType bit mask: how a VMM allocation
// may be exported.
type HandleTypes uint32

// Shareable handle types p2pconf uses (Linux).
const (
	HandleNone   HandleTypes = 0x0
	HandlePosix  HandleTypes = 0x1 // an int file descriptor, sent with SCM_RIGHTS
	HandleFabric HandleTypes = 0x8 // a 64-byte fabric handle; needs IMEX channel access
)

// AccessFlags is a CUmemAccess_flags value: what a location may do with a
// mapped VMM range.
type AccessFlags uint32

// Access flags.
const (
	ProtNone      AccessFlags = 0x0
	ProtRead      AccessFlags = 0x1
	ProtReadWrite AccessFlags = 0x3
)

// String gives the cuda.h suffix, e.g. "PROT_READWRITE".
func (f AccessFlags) String() string {
	switch f {
	case ProtNone:
		return "PROT_NONE"
	case ProtRead:
		return "PROT_READ"
	case ProtReadWrite:
		return "PROT_READWRITE"
	}
	return fmt.Sprintf("PROT_%d", uint32(f))
}

// LocationType is a CUmemLocationType value.
type LocationType int32

// Location types. 12.x cuMemCreate accepts only LocationDevice.
const (
	LocationDevice          LocationType = 0x1
	LocationHost            LocationType = 0x2
	LocationHostNUMA        LocationType = 0x3
	LocationHostNUMACurrent LocationType = 0x4
)

// AllocationType is a CUmemAllocationType value.
type AllocationType int32

// AllocationPinned (CU_MEM_ALLOCATION_TYPE_PINNED) is the only type 12.x knows.
const AllocationPinned AllocationType = 0x1

// GranularityOption is a CUmemAllocationGranularity_flags value.
type GranularityOption int32

// Granularity options.
const (
	GranularityMinimum     GranularityOption = 0x0
	GranularityRecommended GranularityOption = 0x1
)
