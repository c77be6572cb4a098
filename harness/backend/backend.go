// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package backend is the narrow interface between the harness and whatever
// runs the GPU work: the CUDA driver (harness/cudabackend) or GPUs kept in
// memory (harness/fake). It is pure Go and imports no cgo package except the
// NVML interface type.
//
// The operations mirror the CUDA driver calls the catalogue checks, because
// the checks are about those calls (their results and error codes). Contexts
// are hidden: every device is used through its primary context, and each
// method names the device whose context the call runs in. Errors are
// *cuerr.Error values naming the driver entry point, so a spec can match a
// code with errors.Is(err, cuerr.PeerAccessAlreadyEnabled).
//
// Methods never block without bound: waiting is done by the harness by
// polling StreamQuery and EventQuery against the spec's deadline.
package backend

import (
	"github.com/p2pconf/p2pconf/kernels"
)

// Device is a CUDA device ordinal as the backend numbers it.
type Device int

// DevicePtr is an address in the unified virtual address space.
type DevicePtr uint64

// DeviceInfo identifies one GPU.
type DeviceInfo struct {
	Ordinal  Device
	Name     string
	UUID     string // "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as NVML prints it
	PCIBusID string // "00000000:1B:00.0": as NVML writes it (8-digit domain, upper-case hex)
	// ComputeCapability is major*10+minor (90 for an H200).
	ComputeCapability int
	SMCount           int
	TotalMemory       uint64
}

// Backend is everything the harness needs from a GPU machine.
type Backend interface {
	System
	Peer
	Memory
	Streams
	Launcher
	IPC
	VMM
	Managed
}

// System describes the machine and the driver.
type System interface {
	// Name says what produced the results: "cuda", or "fake:<preset>"
	// (with "+<defect>" for each injected defect). Reports carry it.
	Name() string
	// DriverVersion is cuDriverGetVersion: 1000*major + 10*minor (13000).
	DriverVersion() int
	// Devices lists the GPUs by ordinal.
	Devices() []DeviceInfo
	// A backend with an NVML view of the same machine (the cuda backend's
	// libnvidia-ml, the fake's mock) has a method NVML() nvml.Interface:
	// machine.NVMLOf reads it. It is not part of this interface, so that
	// the packages built on these types (claims, report) link no cgo.
	// DeviceAttribute wraps cuDeviceGetAttribute.
	DeviceAttribute(d Device, a DeviceAttr) (int, error)
	// Close releases everything the backend holds.
	Close() error
}

// Peer covers peer queries and peer access.
type Peer interface {
	// CanAccessPeer wraps cuDeviceCanAccessPeer(accessor, owner).
	CanAccessPeer(accessor, owner Device) (bool, error)
	// P2PAttribute wraps cuDeviceGetP2PAttribute(attr, src, dst).
	P2PAttribute(attr P2PAttr, src, dst Device) (int, error)
	// P2PAtomicCapabilities wraps cuDeviceGetP2PAtomicCapabilities: one
	// capability mask per operation. It fails with an error matching
	// ErrMissingEntryPoint on drivers older than CUDA 13.0.
	P2PAtomicCapabilities(ops []AtomicOperation, src, dst Device) ([]AtomicCaps, error)
	// HostAtomicCapabilities wraps cuDeviceGetHostAtomicCapabilities.
	HostAtomicCapabilities(ops []AtomicOperation, d Device) ([]AtomicCaps, error)
	// EnablePeerAccess wraps cuCtxEnablePeerAccess with accessor's context
	// current and owner's context as the peer: afterwards kernels on accessor
	// may touch owner's memory. One direction only.
	EnablePeerAccess(accessor, owner Device) error
	// DisablePeerAccess wraps cuCtxDisablePeerAccess the same way.
	DisablePeerAccess(accessor, owner Device) error
}

// Memory covers allocations, pointer queries and synchronous copies.
type Memory interface {
	// MemInfo wraps cuMemGetInfo in d's context.
	MemInfo(d Device) (free, total uint64, err error)
	// Alloc wraps cuMemAlloc in d's context.
	Alloc(d Device, size uint64) (DevicePtr, error)
	// Free wraps cuMemFree in d's context.
	Free(d Device, p DevicePtr) error
	// HostAlloc wraps cuMemHostAlloc (made in d's context).
	HostAlloc(d Device, size uint64, flags HostAllocFlags) (*HostBuffer, error)
	// HostFree wraps cuMemFreeHost.
	HostFree(d Device, h *HostBuffer) error
	// HostDevicePointer wraps cuMemHostGetDevicePointer in d's context.
	HostDevicePointer(d Device, h *HostBuffer) (DevicePtr, error)
	// PointerAttribute wraps cuPointerGetAttribute for integer attributes,
	// made in d's context.
	PointerAttribute(d Device, attr PointerAttr, p DevicePtr) (int64, error)
	// Memset32 wraps cuMemsetD32 (synchronous) in d's context.
	Memset32(d Device, p DevicePtr, value uint32, words uint64) error
	// CopyToDevice wraps cuMemcpyHtoD (synchronous) in d's context.
	CopyToDevice(d Device, dst DevicePtr, src []byte) error
	// CopyFromDevice wraps cuMemcpyDtoH (synchronous) in d's context.
	CopyFromDevice(d Device, dst []byte, src DevicePtr) error
}

// Opaque handles owned by one device's context.
type (
	// Stream is a stream of one device's context.
	Stream interface{ Device() Device }
	// Event is an event of one device's context.
	Event interface{ Device() Device }
)

// Streams covers streams, events and asynchronous copies.
type Streams interface {
	// NewStream wraps cuStreamCreate with CU_STREAM_NON_BLOCKING, so tests
	// never synchronise implicitly with the legacy default stream.
	NewStream(d Device) (Stream, error)
	DestroyStream(s Stream) error
	// StreamQuery wraps cuStreamQuery: nil when all work is done, an error
	// matching cuerr.NotReady while work is pending, any other error (a
	// sticky fault such as ILLEGAL_ADDRESS) otherwise.
	StreamQuery(s Stream) error
	// NewEvent wraps cuEventCreate in the device's context.
	NewEvent(d Device, flags EventFlags) (Event, error)
	DestroyEvent(e Event) error
	// RecordEvent wraps cuEventRecord(e, s).
	RecordEvent(e Event, s Stream) error
	// EventQuery wraps cuEventQuery (nil, NotReady, or an error).
	EventQuery(e Event) error
	// StreamWaitEvent wraps cuStreamWaitEvent(s, e, 0); e may belong to
	// another device.
	StreamWaitEvent(s Stream, e Event) error
	// ElapsedTime wraps cuEventElapsedTime, in milliseconds.
	ElapsedTime(start, end Event) (float32, error)
	// CopyAsync wraps cuMemcpyAsync (direction inferred under UVA).
	CopyAsync(s Stream, dst, src DevicePtr, n uint64) error
	// CopyPeerAsync wraps cuMemcpyPeerAsync with both devices' contexts.
	CopyPeerAsync(s Stream, dst DevicePtr, dstDev Device, src DevicePtr, srcDev Device, n uint64) error
	// Memset32Async wraps cuMemsetD32Async.
	Memset32Async(s Stream, p DevicePtr, value uint32, words uint64) error
}

// LaunchConfig is the shape of a launch.
type LaunchConfig struct {
	Grid, Block kernels.Dim3
	SharedMem   uint32
	// Cooperative uses cuLaunchCooperativeKernel, which guarantees every CTA
	// is resident at once (needed by kernels whose CTAs wait for each other).
	Cooperative bool
}

// Launcher runs kernels.
type Launcher interface {
	// Launch enqueues k on s (k's module is loaded in s's device on first use;
	// a JIT failure carries the JIT log in the error). args are bit patterns,
	// one per parameter (see kernels.ParamKind).
	Launch(s Stream, k *kernels.Kernel, cfg LaunchConfig, args ...uint64) error
	// MaxActiveBlocks wraps cuOccupancyMaxActiveBlocksPerMultiprocessor: how
	// many CTAs of k with block threads fit on one SM at once.
	MaxActiveBlocks(d Device, k *kernels.Kernel, block int) (int, error)
}

// IPCHandle is the 64-byte opaque handle of legacy CUDA IPC.
type IPCHandle [64]byte

// IPC covers legacy CUDA IPC of memory and events.
type IPC interface {
	// IPCGetMemHandle wraps cuIpcGetMemHandle in d's context.
	IPCGetMemHandle(d Device, p DevicePtr) (IPCHandle, error)
	// IPCOpenMemHandle wraps cuIpcOpenMemHandle_v2 in d's context with
	// CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS.
	IPCOpenMemHandle(d Device, h IPCHandle) (DevicePtr, error)
	// IPCCloseMemHandle wraps cuIpcCloseMemHandle in d's context.
	IPCCloseMemHandle(d Device, p DevicePtr) error
	// IPCGetEventHandle wraps cuIpcGetEventHandle.
	IPCGetEventHandle(e Event) (IPCHandle, error)
	// IPCOpenEventHandle wraps cuIpcOpenEventHandle in d's context.
	IPCOpenEventHandle(d Device, h IPCHandle) (Event, error)
}

// AllocHandle is a CUmemGenericAllocationHandle.
type AllocHandle uint64

// FabricHandle is a CUmemFabricHandle.
type FabricHandle [64]byte

// VMM covers the virtual memory management calls. Each runs in d's context.
type VMM interface {
	// Granularity wraps cuMemGetAllocationGranularity.
	Granularity(d Device, prop AllocProp, recommended bool) (uint64, error)
	// MemCreate wraps cuMemCreate (pinned device memory on prop.Device).
	MemCreate(d Device, size uint64, prop AllocProp) (AllocHandle, error)
	// MemRelease wraps cuMemRelease.
	MemRelease(d Device, h AllocHandle) error
	// AddressReserve wraps cuMemAddressReserve(size, align, 0, 0).
	AddressReserve(d Device, size, align uint64) (DevicePtr, error)
	// AddressFree wraps cuMemAddressFree.
	AddressFree(d Device, p DevicePtr, size uint64) error
	// MemMap wraps cuMemMap(p, size, 0, h, 0).
	MemMap(d Device, p DevicePtr, size uint64, h AllocHandle) error
	// MemUnmap wraps cuMemUnmap.
	MemUnmap(d Device, p DevicePtr, size uint64) error
	// MemSetAccess wraps cuMemSetAccess.
	MemSetAccess(d Device, p DevicePtr, size uint64, access []Access) error
	// MemGetAccess wraps cuMemGetAccess for a device location.
	MemGetAccess(d Device, location Device, p DevicePtr) (AccessFlags, error)
	// ExportFD wraps cuMemExportToShareableHandle with the POSIX file
	// descriptor type; the caller owns (and closes) the descriptor.
	ExportFD(d Device, h AllocHandle) (int, error)
	// ImportFD wraps cuMemImportFromShareableHandle with a POSIX descriptor;
	// the caller still owns (and closes) fd.
	ImportFD(d Device, fd int) (AllocHandle, error)
	// ExportFabric and ImportFabric do the same with the FABRIC type.
	ExportFabric(d Device, h AllocHandle) (FabricHandle, error)
	ImportFabric(d Device, fh FabricHandle) (AllocHandle, error)
}
