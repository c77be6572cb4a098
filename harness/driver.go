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
	// AtomicOperation is backend.AtomicOperation.
	AtomicOperation = backend.AtomicOperation
	// Device is backend.Device.
	Device = backend.Device
	// DeviceAttr is backend.DeviceAttr.
	DeviceAttr = backend.DeviceAttr
	// DevicePtr is backend.DevicePtr.
	DevicePtr = backend.DevicePtr
	// Event is backend.Event.
	Event = backend.Event
	// FabricHandle is backend.FabricHandle.
	FabricHandle = backend.FabricHandle
	// HandleTypes is backend.HandleTypes.
	HandleTypes = backend.HandleTypes
	// HostBuffer is backend.HostBuffer.
	HostBuffer = backend.HostBuffer
	// IPCHandle is backend.IPCHandle.
	IPCHandle = backend.IPCHandle
	// LaunchConfig is backend.LaunchConfig.
	LaunchConfig = backend.LaunchConfig
	// P2PAttr is backend.P2PAttr.
	P2PAttr = backend.P2PAttr
	// Stream is backend.Stream.
	Stream = backend.Stream
)

// Constants of the backend that specs use, re-exported.
const (
	AtomicAnd                            = backend.AtomicAnd
	AtomicCAS                            = backend.AtomicCAS
	AtomicExchange                       = backend.AtomicExchange
	AtomicFloatAdd                       = backend.AtomicFloatAdd
	AtomicIntegerAdd                     = backend.AtomicIntegerAdd
	AtomicIntegerDecrement               = backend.AtomicIntegerDecrement
	AtomicIntegerIncrement               = backend.AtomicIntegerIncrement
	AtomicIntegerMax                     = backend.AtomicIntegerMax
	AtomicIntegerMin                     = backend.AtomicIntegerMin
	AtomicOr                             = backend.AtomicOr
	AtomicXor                            = backend.AtomicXor
	AttrCanMapHostMemory                 = backend.AttrCanMapHostMemory
	AttrConcurrentManagedAccess          = backend.AttrConcurrentManagedAccess
	AttrHandleTypeFabricSupported        = backend.AttrHandleTypeFabricSupported
	AttrHandleTypePosixFDSupported       = backend.AttrHandleTypePosixFDSupported
	AttrHostNativeAtomicSupported        = backend.AttrHostNativeAtomicSupported
	AttrIPCEventSupported                = backend.AttrIPCEventSupported
	AttrL2CacheSize                      = backend.AttrL2CacheSize
	AttrManagedMemory                    = backend.AttrManagedMemory
	AttrPageableMemoryAccess             = backend.AttrPageableMemoryAccess
	AttrUnifiedAddressing                = backend.AttrUnifiedAddressing
	AttrVirtualMemoryManagementSupported = backend.AttrVirtualMemoryManagementSupported
	EventDefault                         = backend.EventDefault
	EventDisableTiming                   = backend.EventDisableTiming
	EventInterprocess                    = backend.EventInterprocess
	HandleFabric                         = backend.HandleFabric
	HandleNone                           = backend.HandleNone
	HandlePosix                          = backend.HandlePosix
	HostAllocDeviceMap                   = backend.HostAllocDeviceMap
	HostAllocPortable                    = backend.HostAllocPortable
	MemoryTypeDevice                     = backend.MemoryTypeDevice
	MemoryTypeHost                       = backend.MemoryTypeHost
	P2PAccessSupported                   = backend.P2PAccessSupported
	P2PCudaArrayAccessSupported          = backend.P2PCudaArrayAccessSupported
	P2PNativeAtomicSupported             = backend.P2PNativeAtomicSupported
	P2POnlyPartialNativeAtomicSupported  = backend.P2POnlyPartialNativeAtomicSupported
	P2PPerformanceRank                   = backend.P2PPerformanceRank
	PointerContext                       = backend.PointerContext
	PointerDeviceOrdinal                 = backend.PointerDeviceOrdinal
	PointerIsLegacyCudaIPCCapable        = backend.PointerIsLegacyCudaIPCCapable
	PointerMapped                        = backend.PointerMapped
	PointerMemoryType                    = backend.PointerMemoryType
	PointerRangeSize                     = backend.PointerRangeSize
	PointerRangeStartAddr                = backend.PointerRangeStartAddr
	ProtNone                             = backend.ProtNone
	ProtRead                             = backend.ProtRead
	ProtReadWrite                        = backend.ProtReadWrite
)

// ErrMissingEntryPoint is returned (wrapped) when the driver lacks an entry
// point the call needs.
var ErrMissingEntryPoint = backend.ErrMissingEntryPoint

// AllAtomicOperations lists every CUDA atomic operation in enum order.
func AllAtomicOperations() []AtomicOperation { return backend.AllAtomicOperations() }
