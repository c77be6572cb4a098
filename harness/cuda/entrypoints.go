// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cuda

/*
#include "shim.h"
#include "entries.h"

#define P2PC_ENUM(name, version) P2PC_##name,
enum { P2PC_ENTRIES(P2PC_ENUM) P2PC_NUM_ENTRIES };

#define P2PC_ROW(name, version) { #name, version },
static const struct { const char *name; int version; } p2pc_entries[] = { P2PC_ENTRIES(P2PC_ROW) };

static const char *p2pc_entry_name(int e) { return p2pc_entries[e].name; }
static int p2pc_entry_version(int e) { return p2pc_entries[e].version; }

typedef CUresult (*p2pc_getproc_fn)(const char *symbol, void **pfn, int cudaVersion,
	unsigned long long flags, int *symbolStatus);

// p2pc_getproc resolves entry e. Flags 0 is CU_GET_PROC_ADDRESS_DEFAULT,
// which from C code built without per-thread-stream macros (and so from Go)
// means legacy default-stream semantics.
static CUresult p2pc_getproc(uintptr_t gpa, int e, uintptr_t *pfn, int *status) {
	void *p = NULL;
	*status = 0;
	CUresult r = ((p2pc_getproc_fn)gpa)(p2pc_entries[e].name, &p, p2pc_entries[e].version, 0, status);
	*pfn = r == 0 ? (uintptr_t)p : 0;
	return r;
}
*/
import "C"

import (
	"errors"
	"fmt"

	"github.com/p2pconf/p2pconf/harness/cuerr"
)

// entry indexes P2PC_ENTRIES. Constants keep the C names so each wrapper
// reads as the call it makes.
type entry int

const (
	cuInit                                      entry = C.P2PC_cuInit
	cuDriverGetVersion                          entry = C.P2PC_cuDriverGetVersion
	cuGetErrorName                              entry = C.P2PC_cuGetErrorName
	cuGetErrorString                            entry = C.P2PC_cuGetErrorString
	cuDeviceGetCount                            entry = C.P2PC_cuDeviceGetCount
	cuDeviceGet                                 entry = C.P2PC_cuDeviceGet
	cuDeviceGetName                             entry = C.P2PC_cuDeviceGetName
	cuDeviceGetAttribute                        entry = C.P2PC_cuDeviceGetAttribute
	cuDeviceGetPCIBusId                         entry = C.P2PC_cuDeviceGetPCIBusId
	cuDeviceGetUuid                             entry = C.P2PC_cuDeviceGetUuid
	cuDeviceTotalMem                            entry = C.P2PC_cuDeviceTotalMem
	cuDevicePrimaryCtxRetain                    entry = C.P2PC_cuDevicePrimaryCtxRetain
	cuDevicePrimaryCtxRelease                   entry = C.P2PC_cuDevicePrimaryCtxRelease
	cuCtxGetCurrent                             entry = C.P2PC_cuCtxGetCurrent
	cuCtxSetCurrent                             entry = C.P2PC_cuCtxSetCurrent
	cuCtxSynchronize                            entry = C.P2PC_cuCtxSynchronize
	cuMemGetInfo                                entry = C.P2PC_cuMemGetInfo
	cuMemAlloc                                  entry = C.P2PC_cuMemAlloc
	cuMemFree                                   entry = C.P2PC_cuMemFree
	cuMemHostAlloc                              entry = C.P2PC_cuMemHostAlloc
	cuMemFreeHost                               entry = C.P2PC_cuMemFreeHost
	cuMemHostGetDevicePointer                   entry = C.P2PC_cuMemHostGetDevicePointer
	cuMemsetD8                                  entry = C.P2PC_cuMemsetD8
	cuMemsetD32                                 entry = C.P2PC_cuMemsetD32
	cuMemsetD32Async                            entry = C.P2PC_cuMemsetD32Async
	cuMemcpyHtoD                                entry = C.P2PC_cuMemcpyHtoD
	cuMemcpyDtoH                                entry = C.P2PC_cuMemcpyDtoH
	cuMemcpyDtoD                                entry = C.P2PC_cuMemcpyDtoD
	cuMemcpyAsync                               entry = C.P2PC_cuMemcpyAsync
	cuMemcpyHtoDAsync                           entry = C.P2PC_cuMemcpyHtoDAsync
	cuMemcpyDtoHAsync                           entry = C.P2PC_cuMemcpyDtoHAsync
	cuMemcpyPeer                                entry = C.P2PC_cuMemcpyPeer
	cuMemcpyPeerAsync                           entry = C.P2PC_cuMemcpyPeerAsync
	cuPointerGetAttribute                       entry = C.P2PC_cuPointerGetAttribute
	cuStreamCreate                              entry = C.P2PC_cuStreamCreate
	cuStreamDestroy                             entry = C.P2PC_cuStreamDestroy
	cuStreamQuery                               entry = C.P2PC_cuStreamQuery
	cuStreamSynchronize                         entry = C.P2PC_cuStreamSynchronize
	cuStreamWaitEvent                           entry = C.P2PC_cuStreamWaitEvent
	cuEventCreate                               entry = C.P2PC_cuEventCreate
	cuEventRecord                               entry = C.P2PC_cuEventRecord
	cuEventQuery                                entry = C.P2PC_cuEventQuery
	cuEventSynchronize                          entry = C.P2PC_cuEventSynchronize
	cuEventElapsedTime                          entry = C.P2PC_cuEventElapsedTime
	cuEventDestroy                              entry = C.P2PC_cuEventDestroy
	cuModuleLoadDataEx                          entry = C.P2PC_cuModuleLoadDataEx
	cuModuleGetFunction                         entry = C.P2PC_cuModuleGetFunction
	cuModuleUnload                              entry = C.P2PC_cuModuleUnload
	cuLinkCreate                                entry = C.P2PC_cuLinkCreate
	cuLinkAddData                               entry = C.P2PC_cuLinkAddData
	cuLinkComplete                              entry = C.P2PC_cuLinkComplete
	cuLinkDestroy                               entry = C.P2PC_cuLinkDestroy
	cuLaunchKernel                              entry = C.P2PC_cuLaunchKernel
	cuLaunchCooperativeKernel                   entry = C.P2PC_cuLaunchCooperativeKernel
	cuOccupancyMaxActiveBlocksPerMultiprocessor entry = C.P2PC_cuOccupancyMaxActiveBlocksPerMultiprocessor
	cuDeviceCanAccessPeer                       entry = C.P2PC_cuDeviceCanAccessPeer
	cuCtxEnablePeerAccess                       entry = C.P2PC_cuCtxEnablePeerAccess
	cuCtxDisablePeerAccess                      entry = C.P2PC_cuCtxDisablePeerAccess
	cuDeviceGetP2PAttribute                     entry = C.P2PC_cuDeviceGetP2PAttribute
	cuDeviceGetP2PAtomicCapabilities            entry = C.P2PC_cuDeviceGetP2PAtomicCapabilities
	cuDeviceGetHostAtomicCapabilities           entry = C.P2PC_cuDeviceGetHostAtomicCapabilities
	cuIpcGetMemHandle                           entry = C.P2PC_cuIpcGetMemHandle
	cuIpcOpenMemHandle                          entry = C.P2PC_cuIpcOpenMemHandle
	cuIpcCloseMemHandle                         entry = C.P2PC_cuIpcCloseMemHandle
	cuIpcGetEventHandle                         entry = C.P2PC_cuIpcGetEventHandle
	cuIpcOpenEventHandle                        entry = C.P2PC_cuIpcOpenEventHandle
	cuMemGetAllocationGranularity               entry = C.P2PC_cuMemGetAllocationGranularity
	cuMemCreate                                 entry = C.P2PC_cuMemCreate
	cuMemRelease                                entry = C.P2PC_cuMemRelease
	cuMemAddressReserve                         entry = C.P2PC_cuMemAddressReserve
	cuMemAddressFree                            entry = C.P2PC_cuMemAddressFree
	cuMemMap                                    entry = C.P2PC_cuMemMap
	cuMemUnmap                                  entry = C.P2PC_cuMemUnmap
	cuMemSetAccess                              entry = C.P2PC_cuMemSetAccess
	cuMemGetAccess                              entry = C.P2PC_cuMemGetAccess
	cuMemExportToShareableHandle                entry = C.P2PC_cuMemExportToShareableHandle
	cuMemImportFromShareableHandle              entry = C.P2PC_cuMemImportFromShareableHandle
	cuMemRetainAllocationHandle                 entry = C.P2PC_cuMemRetainAllocationHandle
	cuMemAllocManaged                           entry = C.P2PC_cuMemAllocManaged
	cuMemPrefetchAsync                          entry = C.P2PC_cuMemPrefetchAsync
	cuMemAdvise                                 entry = C.P2PC_cuMemAdvise
	cuMemRangeGetAttribute                      entry = C.P2PC_cuMemRangeGetAttribute
	cuMemRangeGetAttributes                     entry = C.P2PC_cuMemRangeGetAttributes

	numEntries = C.P2PC_NUM_ENTRIES
)

// String is the entry point's base name, e.g. "cuMemAlloc". Errors use it,
// so a failed cuMemAlloc_v2 reads "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (2)"
// as in the driver API documentation.
func (e entry) String() string { return C.GoString(C.p2pc_entry_name(C.int(e))) }

// version is the CUDA version the entry point is pinned to.
func (e entry) version() int { return int(C.p2pc_entry_version(C.int(e))) }

// check turns a driver result into nil or a *cuerr.Error naming e.
func (e entry) check(r C.CUresult) error {
	if r == 0 {
		return nil
	}
	return cuerr.Check(e.String(), cuerr.Result(r))
}

// ErrMissingEntryPoint matches every *SymbolError with errors.Is, so a caller
// can turn "this driver lacks the function" into a skip without string tests.
var ErrMissingEntryPoint = errors.New("cuda: entry point not provided by the driver")

// SymbolError reports a call to an entry point that cuGetProcAddress_v2 did
// not resolve at the pinned version on this driver.
type SymbolError struct {
	Name          string // base name, e.g. "cuDeviceGetP2PAtomicCapabilities"
	CUDAVersion   int    // the pinned ABI version, e.g. 13000
	DriverVersion int    // cuDriverGetVersion of the loaded driver (0 if unknown)
}

// Error reads "cuDeviceGetP2PAtomicCapabilities needs a driver for CUDA 13.0
// (found 12.4)" when the driver is older than the ABI, and names both
// versions otherwise (a function absent on this platform or build).
func (e *SymbolError) Error() string {
	found := "driver version unknown"
	if e.DriverVersion > 0 {
		found = VersionString(e.DriverVersion)
	}
	if e.DriverVersion < e.CUDAVersion {
		return fmt.Sprintf("%s needs a driver for CUDA %s (found %s)", e.Name, VersionString(e.CUDAVersion), found)
	}
	return fmt.Sprintf("%s (CUDA %s ABI) is not provided by this driver (CUDA %s)", e.Name, VersionString(e.CUDAVersion), found)
}

// Is makes errors.Is(err, ErrMissingEntryPoint) hold.
func (e *SymbolError) Is(target error) bool { return target == ErrMissingEntryPoint }

// resolve asks cuGetProcAddress_v2 for every entry of the table. A NULL
// pointer (or a failed query) leaves the entry missing; only calling it fails.
// The one exception is cuDriverGetVersion, which every driver has: if even
// that query fails, the library is not a usable driver and the load reports
// the query's own result instead of a misleading "missing entry point".
func (d *Driver) resolve(gpa C.uintptr_t) error {
	for e := range entry(numEntries) {
		var status C.int
		r := C.p2pc_getproc(gpa, C.int(e), &d.fns[e], &status)
		if r != 0 && e == cuDriverGetVersion {
			return fmt.Errorf("cuGetProcAddress_v2(%q, %d): %w", e.String(), e.version(), cuerr.Result(r))
		}
	}
	return nil
}

// dropNewerThan leaves unresolved every entry pinned to a CUDA version newer
// than the driver's: asked for an ABI it does not know, a driver answers with
// the newest form it has, an older signature (cuMemPrefetchAsync at 12020 on
// a 12.0 driver would be the CUdevice form). Calling such an entry then
// reports a *SymbolError naming both versions instead of a corrupted call.
func (d *Driver) dropNewerThan(driverVersion int) {
	for e := range entry(numEntries) {
		if e.version() > driverVersion {
			d.fns[e] = 0
		}
	}
}

// proc returns e's function pointer, or why it cannot be called.
func (d *Driver) proc(e entry) (C.uintptr_t, error) {
	if d == nil || d.handle == nil {
		return 0, ErrNotLoaded
	}
	if fn := d.fns[e]; fn != 0 {
		return fn, nil
	}
	return 0, &SymbolError{Name: e.String(), CUDAVersion: e.version(), DriverVersion: d.version}
}

// EntryPoint describes one entry point of the binding's table on this driver.
type EntryPoint struct {
	Name        string // base name given to cuGetProcAddress_v2
	CUDAVersion int    // pinned ABI version
	Resolved    bool   // false: calls return a *SymbolError
}

// EntryPoints lists the table with what this driver resolved, for reports
// that record which ABI each call used.
func (d *Driver) EntryPoints() []EntryPoint {
	out := make([]EntryPoint, 0, numEntries)
	for e := range entry(numEntries) {
		out = append(out, EntryPoint{Name: e.String(), CUDAVersion: e.version(), Resolved: d != nil && d.fns[e] != 0})
	}
	return out
}
