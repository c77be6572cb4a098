// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package backend

import (
	"errors"

	"github.com/p2pconf/p2pconf/harness/cuenum"
)

// ErrMissingEntryPoint is matched (errors.Is) by every error a backend
// returns for a driver entry point this driver does not have. The harness
// turns it into a skip naming the function and the driver version.
var ErrMissingEntryPoint = errors.New("driver entry point missing")

// The driver's enum types, from harness/cuenum, where each value is written
// once and pinned to cuda.h. They are aliases, so a value passes unchanged
// between the suites, a backend and the cgo binding.
type (
	// DeviceAttr is cuenum.DeviceAttr.
	DeviceAttr = cuenum.DeviceAttr
	// P2PAttr is cuenum.P2PAttr.
	P2PAttr = cuenum.P2PAttr
	// AtomicOperation is cuenum.AtomicOperation.
	AtomicOperation = cuenum.AtomicOperation
	// AtomicCaps is cuenum.AtomicCaps.
	AtomicCaps = cuenum.AtomicCaps
	// PointerAttr is cuenum.PointerAttr.
	PointerAttr = cuenum.PointerAttr
	// HostAllocFlags is cuenum.HostAllocFlags.
	HostAllocFlags = cuenum.HostAllocFlags
	// EventFlags is cuenum.EventFlags.
	EventFlags = cuenum.EventFlags
	// HandleTypes is cuenum.HandleTypes.
	HandleTypes = cuenum.HandleTypes
	// AccessFlags is cuenum.AccessFlags.
	AccessFlags = cuenum.AccessFlags
)

// Device attributes used by the suites.
const (
	AttrMultiprocessorCount                  = cuenum.AttrMultiprocessorCount
	AttrCanMapHostMemory                     = cuenum.AttrCanMapHostMemory
	AttrComputeMode                          = cuenum.AttrComputeMode
	AttrPCIBusID                             = cuenum.AttrPCIBusID
	AttrPCIDeviceID                          = cuenum.AttrPCIDeviceID
	AttrL2CacheSize                          = cuenum.AttrL2CacheSize
	AttrUnifiedAddressing                    = cuenum.AttrUnifiedAddressing
	AttrPCIDomainID                          = cuenum.AttrPCIDomainID
	AttrComputeCapabilityMajor               = cuenum.AttrComputeCapabilityMajor
	AttrComputeCapabilityMinor               = cuenum.AttrComputeCapabilityMinor
	AttrManagedMemory                        = cuenum.AttrManagedMemory
	AttrHostNativeAtomicSupported            = cuenum.AttrHostNativeAtomicSupported
	AttrPageableMemoryAccess                 = cuenum.AttrPageableMemoryAccess
	AttrConcurrentManagedAccess              = cuenum.AttrConcurrentManagedAccess
	AttrCooperativeLaunch                    = cuenum.AttrCooperativeLaunch
	AttrVirtualMemoryManagementSupported     = cuenum.AttrVirtualMemoryManagementSupported
	AttrHandleTypePosixFDSupported           = cuenum.AttrHandleTypePosixFDSupported
	AttrMemoryPoolsSupported                 = cuenum.AttrMemoryPoolsSupported
	AttrIPCEventSupported                    = cuenum.AttrIPCEventSupported
	AttrHandleTypeFabricSupported            = cuenum.AttrHandleTypeFabricSupported
	AttrOnlyPartialHostNativeAtomicSupported = cuenum.AttrOnlyPartialHostNativeAtomicSupported
)

// P2P attributes (OnlyPartialNativeAtomicSupported needs CUDA 13.0).
const (
	P2PPerformanceRank                  = cuenum.P2PPerformanceRank
	P2PAccessSupported                  = cuenum.P2PAccessSupported
	P2PNativeAtomicSupported            = cuenum.P2PNativeAtomicSupported
	P2PCudaArrayAccessSupported         = cuenum.P2PCudaArrayAccessSupported
	P2POnlyPartialNativeAtomicSupported = cuenum.P2POnlyPartialNativeAtomicSupported
)

// Atomic operations (CUDA 13.0).
const (
	AtomicIntegerAdd       = cuenum.AtomicIntegerAdd
	AtomicIntegerMin       = cuenum.AtomicIntegerMin
	AtomicIntegerMax       = cuenum.AtomicIntegerMax
	AtomicIntegerIncrement = cuenum.AtomicIntegerIncrement
	AtomicIntegerDecrement = cuenum.AtomicIntegerDecrement
	AtomicAnd              = cuenum.AtomicAnd
	AtomicOr               = cuenum.AtomicOr
	AtomicXor              = cuenum.AtomicXor
	AtomicExchange         = cuenum.AtomicExchange
	AtomicCAS              = cuenum.AtomicCAS
	AtomicFloatAdd         = cuenum.AtomicFloatAdd
	AtomicFloatMin         = cuenum.AtomicFloatMin
	AtomicFloatMax         = cuenum.AtomicFloatMax
	// AtomicOperationCount is CU_ATOMIC_OPERATION_MAX.
	AtomicOperationCount = cuenum.AtomicOperationCount
)

// AllAtomicOperations lists every CUatomicOperation in enum order.
func AllAtomicOperations() []AtomicOperation { return cuenum.AllAtomicOperations() }

// Atomic capability bits.
const (
	CapSigned     = cuenum.CapSigned
	CapUnsigned   = cuenum.CapUnsigned
	CapReduction  = cuenum.CapReduction
	CapScalar32   = cuenum.CapScalar32
	CapScalar64   = cuenum.CapScalar64
	CapScalar128  = cuenum.CapScalar128
	CapVector32x4 = cuenum.CapVector32x4
)

// Pointer attributes used by the suites.
const (
	PointerContext                = cuenum.PointerContext
	PointerMemoryType             = cuenum.PointerMemoryType
	PointerDeviceOrdinal          = cuenum.PointerDeviceOrdinal
	PointerIsLegacyCudaIPCCapable = cuenum.PointerIsLegacyCudaIPCCapable
	PointerRangeStartAddr         = cuenum.PointerRangeStartAddr
	PointerRangeSize              = cuenum.PointerRangeSize
	PointerMapped                 = cuenum.PointerMapped
)

// CUmemorytype values, typed as Backend.PointerAttribute returns them for
// PointerMemoryType.
const (
	MemoryTypeHost    = int64(cuenum.MemoryTypeHost)
	MemoryTypeDevice  = int64(cuenum.MemoryTypeDevice)
	MemoryTypeArray   = int64(cuenum.MemoryTypeArray)
	MemoryTypeUnified = int64(cuenum.MemoryTypeUnified)
)

// cuMemHostAlloc flags.
const (
	HostAllocPortable      = cuenum.HostAllocPortable
	HostAllocDeviceMap     = cuenum.HostAllocDeviceMap
	HostAllocWriteCombined = cuenum.HostAllocWriteCombined
)

// cuEventCreate flags.
const (
	EventDefault       = cuenum.EventDefault
	EventBlockingSync  = cuenum.EventBlockingSync
	EventDisableTiming = cuenum.EventDisableTiming
	EventInterprocess  = cuenum.EventInterprocess
)

// Shareable handle types.
const (
	HandleNone   = cuenum.HandleNone
	HandlePosix  = cuenum.HandlePosix
	HandleFabric = cuenum.HandleFabric
)

// CUmemAccess_flags values.
const (
	ProtNone      = cuenum.ProtNone
	ProtRead      = cuenum.ProtRead
	ProtReadWrite = cuenum.ProtReadWrite
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

// AllocProp is the part of CUmemAllocationProp the suites set: pinned
// device memory on Device, exportable as HandleTypes.
type AllocProp struct {
	Device      Device
	HandleTypes HandleTypes
}

// Access grants one device access to a mapped range (CUmemAccessDesc).
type Access struct {
	Device Device
	Flags  AccessFlags
}
