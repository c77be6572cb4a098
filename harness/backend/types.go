// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package backend

import (
	"errors"
	"fmt"
	"strings"
)

// ErrMissingEntryPoint is matched (errors.Is) by every error a backend
// returns for a driver entry point this driver does not have. The harness
// turns it into a skip naming the function and the driver version.
var ErrMissingEntryPoint = errors.New("driver entry point missing")

// DeviceAttr is a CUdevice_attribute value.
type DeviceAttr int

// Device attributes used by the suites (values from cuda.h).
const (
	AttrMultiprocessorCount                  DeviceAttr = 16
	AttrCanMapHostMemory                     DeviceAttr = 19
	AttrComputeMode                          DeviceAttr = 20
	AttrPCIBusID                             DeviceAttr = 33
	AttrPCIDeviceID                          DeviceAttr = 34
	AttrL2CacheSize                          DeviceAttr = 38
	AttrUnifiedAddressing                    DeviceAttr = 41
	AttrPCIDomainID                          DeviceAttr = 50
	AttrComputeCapabilityMajor               DeviceAttr = 75
	AttrComputeCapabilityMinor               DeviceAttr = 76
	AttrManagedMemory                        DeviceAttr = 83
	AttrHostNativeAtomicSupported            DeviceAttr = 86
	AttrPageableMemoryAccess                 DeviceAttr = 88
	AttrConcurrentManagedAccess              DeviceAttr = 89
	AttrCooperativeLaunch                    DeviceAttr = 95
	AttrVirtualMemoryManagementSupported     DeviceAttr = 102
	AttrHandleTypePosixFDSupported           DeviceAttr = 103
	AttrMemoryPoolsSupported                 DeviceAttr = 115
	AttrIPCEventSupported                    DeviceAttr = 125
	AttrHandleTypeFabricSupported            DeviceAttr = 128
	AttrOnlyPartialHostNativeAtomicSupported DeviceAttr = 147
)

var deviceAttrNames = map[DeviceAttr]string{
	AttrMultiprocessorCount:                  "MULTIPROCESSOR_COUNT",
	AttrCanMapHostMemory:                     "CAN_MAP_HOST_MEMORY",
	AttrComputeMode:                          "COMPUTE_MODE",
	AttrPCIBusID:                             "PCI_BUS_ID",
	AttrPCIDeviceID:                          "PCI_DEVICE_ID",
	AttrL2CacheSize:                          "L2_CACHE_SIZE",
	AttrUnifiedAddressing:                    "UNIFIED_ADDRESSING",
	AttrPCIDomainID:                          "PCI_DOMAIN_ID",
	AttrComputeCapabilityMajor:               "COMPUTE_CAPABILITY_MAJOR",
	AttrComputeCapabilityMinor:               "COMPUTE_CAPABILITY_MINOR",
	AttrManagedMemory:                        "MANAGED_MEMORY",
	AttrHostNativeAtomicSupported:            "HOST_NATIVE_ATOMIC_SUPPORTED",
	AttrPageableMemoryAccess:                 "PAGEABLE_MEMORY_ACCESS",
	AttrConcurrentManagedAccess:              "CONCURRENT_MANAGED_ACCESS",
	AttrCooperativeLaunch:                    "COOPERATIVE_LAUNCH",
	AttrVirtualMemoryManagementSupported:     "VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED",
	AttrHandleTypePosixFDSupported:           "HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED",
	AttrMemoryPoolsSupported:                 "MEMORY_POOLS_SUPPORTED",
	AttrIPCEventSupported:                    "IPC_EVENT_SUPPORTED",
	AttrHandleTypeFabricSupported:            "HANDLE_TYPE_FABRIC_SUPPORTED",
	AttrOnlyPartialHostNativeAtomicSupported: "ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED",
}

// String gives the cuda.h name, e.g. "CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED".
func (a DeviceAttr) String() string {
	if n, ok := deviceAttrNames[a]; ok {
		return "CU_DEVICE_ATTRIBUTE_" + n
	}
	return fmt.Sprintf("CU_DEVICE_ATTRIBUTE_%d", int(a))
}

// P2PAttr is a CUdevice_P2PAttribute value.
type P2PAttr int

// P2P attributes (cuda.h; OnlyPartialNativeAtomicSupported needs CUDA 13.0).
const (
	P2PPerformanceRank                  P2PAttr = 1
	P2PAccessSupported                  P2PAttr = 2
	P2PNativeAtomicSupported            P2PAttr = 3
	P2PCudaArrayAccessSupported         P2PAttr = 4
	P2POnlyPartialNativeAtomicSupported P2PAttr = 5
)

var p2pAttrNames = map[P2PAttr]string{
	P2PPerformanceRank:                  "PERFORMANCE_RANK",
	P2PAccessSupported:                  "ACCESS_SUPPORTED",
	P2PNativeAtomicSupported:            "NATIVE_ATOMIC_SUPPORTED",
	P2PCudaArrayAccessSupported:         "CUDA_ARRAY_ACCESS_SUPPORTED",
	P2POnlyPartialNativeAtomicSupported: "ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED",
}

func (a P2PAttr) String() string {
	if n, ok := p2pAttrNames[a]; ok {
		return "CU_DEVICE_P2P_ATTRIBUTE_" + n
	}
	return fmt.Sprintf("CU_DEVICE_P2P_ATTRIBUTE_%d", int(a))
}

// AtomicOperation is a CUatomicOperation value (CUDA 13.0).
type AtomicOperation int

// CUatomicOperation values.
const (
	AtomicIntegerAdd AtomicOperation = iota
	AtomicIntegerMin
	AtomicIntegerMax
	AtomicIntegerIncrement
	AtomicIntegerDecrement
	AtomicAnd
	AtomicOr
	AtomicXor
	AtomicExchange
	AtomicCAS
	AtomicFloatAdd
	AtomicFloatMin
	AtomicFloatMax
	// AtomicOperationCount is CU_ATOMIC_OPERATION_MAX.
	AtomicOperationCount
)

var atomicOpNames = [...]string{"INTEGER_ADD", "INTEGER_MIN", "INTEGER_MAX", "INTEGER_INCREMENT",
	"INTEGER_DECREMENT", "AND", "OR", "XOR", "EXCHANGE", "CAS", "FLOAT_ADD", "FLOAT_MIN", "FLOAT_MAX"}

func (o AtomicOperation) String() string {
	if o >= 0 && int(o) < len(atomicOpNames) {
		return "CU_ATOMIC_OPERATION_" + atomicOpNames[o]
	}
	return fmt.Sprintf("CU_ATOMIC_OPERATION_%d", int(o))
}

// AllAtomicOperations lists every CUatomicOperation.
func AllAtomicOperations() []AtomicOperation {
	ops := make([]AtomicOperation, AtomicOperationCount)
	for i := range ops {
		ops[i] = AtomicOperation(i)
	}
	return ops
}

// AtomicCaps is a CUatomicOperationCapability bit mask.
type AtomicCaps uint32

// CUatomicOperationCapability bits.
const (
	CapSigned     AtomicCaps = 1 << 0
	CapUnsigned   AtomicCaps = 1 << 1
	CapReduction  AtomicCaps = 1 << 2
	CapScalar32   AtomicCaps = 1 << 3
	CapScalar64   AtomicCaps = 1 << 4
	CapScalar128  AtomicCaps = 1 << 5
	CapVector32x4 AtomicCaps = 1 << 6
)

var capNames = [...]string{"SIGNED", "UNSIGNED", "REDUCTION", "SCALAR_32", "SCALAR_64", "SCALAR_128", "VECTOR_32x4"}

// String lists the set bits, e.g. "SIGNED|UNSIGNED|SCALAR_32", or "0".
func (c AtomicCaps) String() string {
	var parts []string
	for i, n := range capNames {
		if c&(1<<i) != 0 {
			parts = append(parts, n)
		}
	}
	if rest := c &^ (1<<len(capNames) - 1); rest != 0 {
		parts = append(parts, fmt.Sprintf("0x%x", uint32(rest)))
	}
	if len(parts) == 0 {
		return "0"
	}
	return strings.Join(parts, "|")
}

// PointerAttr is a CUpointer_attribute value.
type PointerAttr int

// Pointer attributes used by the suites.
const (
	PointerContext                PointerAttr = 1
	PointerMemoryType             PointerAttr = 2
	PointerDeviceOrdinal          PointerAttr = 9
	PointerIsLegacyCudaIPCCapable PointerAttr = 10
	PointerRangeStartAddr         PointerAttr = 11
	PointerRangeSize              PointerAttr = 12
	PointerMapped                 PointerAttr = 13
)

// CUmemorytype values returned for PointerMemoryType.
const (
	MemoryTypeHost    = 1
	MemoryTypeDevice  = 2
	MemoryTypeArray   = 3
	MemoryTypeUnified = 4
)

// HostAllocFlags are cuMemHostAlloc flags.
type HostAllocFlags uint32

// cuMemHostAlloc flags.
const (
	HostAllocPortable      HostAllocFlags = 0x1
	HostAllocDeviceMap     HostAllocFlags = 0x2
	HostAllocWriteCombined HostAllocFlags = 0x4
)

// HostBuffer is pinned host memory.
type HostBuffer struct {
	// Ptr is the host address. Under UVA a kernel can use it as is.
	Ptr DevicePtr
	// Mem is the same memory seen from Go. Host threads that share it with a
	// running kernel must use sync/atomic on aligned words.
	Mem []byte
	// Handle is backend-private state.
	Handle any
}

// EventFlags are cuEventCreate flags.
type EventFlags uint32

// cuEventCreate flags.
const (
	EventDefault       EventFlags = 0x0
	EventBlockingSync  EventFlags = 0x1
	EventDisableTiming EventFlags = 0x2
	EventInterprocess  EventFlags = 0x4
)

// HandleTypes is a CUmemAllocationHandleType bit mask.
type HandleTypes uint32

// Shareable handle types.
const (
	HandleNone   HandleTypes = 0
	HandlePosix  HandleTypes = 1
	HandleFabric HandleTypes = 8
)

// AllocProp is the part of CUmemAllocationProp the suites set: pinned
// device memory on Device, exportable as HandleTypes.
type AllocProp struct {
	Device      Device
	HandleTypes HandleTypes
}

// AccessFlags is a CUmemAccess_flags value.
type AccessFlags uint32

// CUmemAccess_flags values.
const (
	ProtNone      AccessFlags = 0
	ProtRead      AccessFlags = 1
	ProtReadWrite AccessFlags = 3
)

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

// Access grants one device access to a mapped range (CUmemAccessDesc).
type Access struct {
	Device Device
	Flags  AccessFlags
}
