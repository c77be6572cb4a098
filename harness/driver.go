// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import "github.com/p2pconf/p2pconf/harness/backend"

// The fixture is the one way from a spec to the GPU: spec files import
// harness, never harness/backend or what implements it. The backend's
// vocabulary that specs need (pointers, streams, flags, attribute and
// operation enums) is re-exported here under the same names, so a value
// from the fixture can be passed back to it and compared with these
// constants without a second import.

// Driver is the backend interface, for the narrow negative-check call
// (Harness.Raw) and for the processes that serve helper roles.
type Driver = backend.Backend

// Types of the backend that specs use, re-exported.
type (
	// Access is backend.Access.
	Access = backend.Access
	// AccessFlags is backend.AccessFlags.
	AccessFlags = backend.AccessFlags
	// AllocHandle is backend.AllocHandle.
	AllocHandle = backend.AllocHandle
	// AllocProp is backend.AllocProp.
	AllocProp = backend.AllocProp
	// AtomicCaps is backend.AtomicCaps.
	AtomicCaps = backend.AtomicCaps
	// AtomicOperation is backend.AtomicOperation.
	AtomicOperation = backend.AtomicOperation
	// Device is backend.Device.
	Device = backend.Device
	// DeviceAttr is backend.DeviceAttr.
	DeviceAttr = backend.DeviceAttr
	// DeviceInfo is backend.DeviceInfo.
	DeviceInfo = backend.DeviceInfo
	// DevicePtr is backend.DevicePtr.
	DevicePtr = backend.DevicePtr
	// Event is backend.Event.
	Event = backend.Event
	// EventFlags is backend.EventFlags.
	EventFlags = backend.EventFlags
	// FabricHandle is backend.FabricHandle.
	FabricHandle = backend.FabricHandle
	// HandleTypes is backend.HandleTypes.
	HandleTypes = backend.HandleTypes
	// HostAllocFlags is backend.HostAllocFlags.
	HostAllocFlags = backend.HostAllocFlags
	// HostBuffer is backend.HostBuffer.
	HostBuffer = backend.HostBuffer
	// IPCHandle is backend.IPCHandle.
	IPCHandle = backend.IPCHandle
	// LaunchConfig is backend.LaunchConfig.
	LaunchConfig = backend.LaunchConfig
	// P2PAttr is backend.P2PAttr.
	P2PAttr = backend.P2PAttr
	// PointerAttr is backend.PointerAttr.
	PointerAttr = backend.PointerAttr
	// Stream is backend.Stream.
	Stream = backend.Stream
)

// Constants of the backend that specs use, re-exported.
const (
	AtomicAnd                                = backend.AtomicAnd
	AtomicCAS                                = backend.AtomicCAS
	AtomicExchange                           = backend.AtomicExchange
	AtomicFloatAdd                           = backend.AtomicFloatAdd
	AtomicFloatMax                           = backend.AtomicFloatMax
	AtomicFloatMin                           = backend.AtomicFloatMin
	AtomicIntegerAdd                         = backend.AtomicIntegerAdd
	AtomicIntegerDecrement                   = backend.AtomicIntegerDecrement
	AtomicIntegerIncrement                   = backend.AtomicIntegerIncrement
	AtomicIntegerMax                         = backend.AtomicIntegerMax
	AtomicIntegerMin                         = backend.AtomicIntegerMin
	AtomicOperationCount                     = backend.AtomicOperationCount
	AtomicOr                                 = backend.AtomicOr
	AtomicXor                                = backend.AtomicXor
	AttrCanMapHostMemory                     = backend.AttrCanMapHostMemory
	AttrComputeCapabilityMajor               = backend.AttrComputeCapabilityMajor
	AttrComputeCapabilityMinor               = backend.AttrComputeCapabilityMinor
	AttrComputeMode                          = backend.AttrComputeMode
	AttrConcurrentManagedAccess              = backend.AttrConcurrentManagedAccess
	AttrCooperativeLaunch                    = backend.AttrCooperativeLaunch
	AttrHandleTypeFabricSupported            = backend.AttrHandleTypeFabricSupported
	AttrHandleTypePosixFDSupported           = backend.AttrHandleTypePosixFDSupported
	AttrHostNativeAtomicSupported            = backend.AttrHostNativeAtomicSupported
	AttrIPCEventSupported                    = backend.AttrIPCEventSupported
	AttrL2CacheSize                          = backend.AttrL2CacheSize
	AttrManagedMemory                        = backend.AttrManagedMemory
	AttrMemoryPoolsSupported                 = backend.AttrMemoryPoolsSupported
	AttrMultiprocessorCount                  = backend.AttrMultiprocessorCount
	AttrOnlyPartialHostNativeAtomicSupported = backend.AttrOnlyPartialHostNativeAtomicSupported
	AttrPCIBusID                             = backend.AttrPCIBusID
	AttrPCIDeviceID                          = backend.AttrPCIDeviceID
	AttrPCIDomainID                          = backend.AttrPCIDomainID
	AttrPageableMemoryAccess                 = backend.AttrPageableMemoryAccess
	AttrUnifiedAddressing                    = backend.AttrUnifiedAddressing
	AttrVirtualMemoryManagementSupported     = backend.AttrVirtualMemoryManagementSupported
	CapReduction                             = backend.CapReduction
	CapScalar128                             = backend.CapScalar128
	CapScalar32                              = backend.CapScalar32
	CapScalar64                              = backend.CapScalar64
	CapSigned                                = backend.CapSigned
	CapUnsigned                              = backend.CapUnsigned
	CapVector32x4                            = backend.CapVector32x4
	EventBlockingSync                        = backend.EventBlockingSync
	EventDefault                             = backend.EventDefault
	EventDisableTiming                       = backend.EventDisableTiming
	EventInterprocess                        = backend.EventInterprocess
	HandleFabric                             = backend.HandleFabric
	HandleNone                               = backend.HandleNone
	HandlePosix                              = backend.HandlePosix
	HostAllocDeviceMap                       = backend.HostAllocDeviceMap
	HostAllocPortable                        = backend.HostAllocPortable
	HostAllocWriteCombined                   = backend.HostAllocWriteCombined
	MemoryTypeArray                          = backend.MemoryTypeArray
	MemoryTypeDevice                         = backend.MemoryTypeDevice
	MemoryTypeHost                           = backend.MemoryTypeHost
	MemoryTypeUnified                        = backend.MemoryTypeUnified
	P2PAccessSupported                       = backend.P2PAccessSupported
	P2PCudaArrayAccessSupported              = backend.P2PCudaArrayAccessSupported
	P2PNativeAtomicSupported                 = backend.P2PNativeAtomicSupported
	P2POnlyPartialNativeAtomicSupported      = backend.P2POnlyPartialNativeAtomicSupported
	P2PPerformanceRank                       = backend.P2PPerformanceRank
	PointerContext                           = backend.PointerContext
	PointerDeviceOrdinal                     = backend.PointerDeviceOrdinal
	PointerIsLegacyCudaIPCCapable            = backend.PointerIsLegacyCudaIPCCapable
	PointerMapped                            = backend.PointerMapped
	PointerMemoryType                        = backend.PointerMemoryType
	PointerRangeSize                         = backend.PointerRangeSize
	PointerRangeStartAddr                    = backend.PointerRangeStartAddr
	ProtNone                                 = backend.ProtNone
	ProtRead                                 = backend.ProtRead
	ProtReadWrite                            = backend.ProtReadWrite
)

// ErrMissingEntryPoint is returned (wrapped) when the driver lacks an entry
// point the call needs.
var ErrMissingEntryPoint = backend.ErrMissingEntryPoint

// AllAtomicOperations lists every CUDA atomic operation in enum order.
func AllAtomicOperations() []AtomicOperation { return backend.AllAtomicOperations() }
