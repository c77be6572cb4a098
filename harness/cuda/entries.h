// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// entries.h is the one table of driver entry points and their pinned ABI
// versions. The binding (entrypoints.go) resolves exactly these, and the
// standalone C reproducers (harness/repro) embed this file, so a reproducer
// calls the same ABI variant of every function the suite called.

#ifndef P2PCONF_CUDA_ENTRIES_H
#define P2PCONF_CUDA_ENTRIES_H

// P2PC_ENTRIES is the table of every driver entry point the binding uses:
// the base name cuGetProcAddress_v2 expects (never a _v2 suffix) and the CUDA
// version whose ABI the wrapper was written for. cuGetProcAddress_v2 returns
// the newest variant introduced at or before that version, so the pin decides
// the signature: cuMemAlloc at 3020 is cuMemAlloc_v2 (64-bit size),
// cuIpcOpenMemHandle at 11000 is cuIpcOpenMemHandle_v2, cuEventElapsedTime at
// 2000 is the v1 form that still reports errors of pending work. Versions come
// from the PFN_<name>_v<NNNNN> typedefs of cudaTypedefs.h
// (docs/observations.md, driver and symbols). Change a version only together
// with the trampoline that calls it. cuMemPrefetchAsync and cuMemAdvise at
// 12020 are the _v2 forms that take a CUmemLocation (the names the CUDA 13.0
// header maps them to); the 8000 forms take a CUdevice. A driver older than
// an entry's pin would hand out its older form, so such entries are left
// unresolved (the binding drops them after reading the driver version).
#define P2PC_ENTRIES(X) \
	X(cuInit, 2000) \
	X(cuDriverGetVersion, 2020) \
	X(cuGetErrorName, 6000) \
	X(cuGetErrorString, 6000) \
	X(cuDeviceGetCount, 2000) \
	X(cuDeviceGet, 2000) \
	X(cuDeviceGetName, 2000) \
	X(cuDeviceGetAttribute, 2000) \
	X(cuDeviceGetPCIBusId, 4010) \
	X(cuDeviceGetUuid, 11040) \
	X(cuDeviceTotalMem, 3020) \
	X(cuDevicePrimaryCtxRetain, 7000) \
	X(cuDevicePrimaryCtxRelease, 11000) \
	X(cuCtxGetCurrent, 4000) \
	X(cuCtxSetCurrent, 4000) \
	X(cuCtxSynchronize, 2000) \
	X(cuMemGetInfo, 3020) \
	X(cuMemAlloc, 3020) \
	X(cuMemFree, 3020) \
	X(cuMemHostAlloc, 2020) \
	X(cuMemFreeHost, 2000) \
	X(cuMemHostGetDevicePointer, 3020) \
	X(cuMemsetD8, 3020) \
	X(cuMemsetD32, 3020) \
	X(cuMemsetD32Async, 3020) \
	X(cuMemcpyHtoD, 3020) \
	X(cuMemcpyDtoH, 3020) \
	X(cuMemcpyDtoD, 3020) \
	X(cuMemcpyAsync, 4000) \
	X(cuMemcpyHtoDAsync, 3020) \
	X(cuMemcpyDtoHAsync, 3020) \
	X(cuMemcpyPeer, 4000) \
	X(cuMemcpyPeerAsync, 4000) \
	X(cuPointerGetAttribute, 4000) \
	X(cuStreamCreate, 2000) \
	X(cuStreamDestroy, 4000) \
	X(cuStreamQuery, 2000) \
	X(cuStreamSynchronize, 2000) \
	X(cuStreamWaitEvent, 3020) \
	X(cuEventCreate, 2000) \
	X(cuEventRecord, 2000) \
	X(cuEventQuery, 2000) \
	X(cuEventSynchronize, 2000) \
	X(cuEventElapsedTime, 2000) \
	X(cuEventDestroy, 4000) \
	X(cuModuleLoadDataEx, 2010) \
	X(cuModuleGetFunction, 2000) \
	X(cuModuleUnload, 2000) \
	X(cuLinkCreate, 6050) \
	X(cuLinkAddData, 6050) \
	X(cuLinkComplete, 5050) \
	X(cuLinkDestroy, 5050) \
	X(cuLaunchKernel, 4000) \
	X(cuLaunchCooperativeKernel, 9000) \
	X(cuOccupancyMaxActiveBlocksPerMultiprocessor, 6050) \
	X(cuDeviceCanAccessPeer, 4000) \
	X(cuCtxEnablePeerAccess, 4000) \
	X(cuCtxDisablePeerAccess, 4000) \
	X(cuDeviceGetP2PAttribute, 8000) \
	X(cuDeviceGetP2PAtomicCapabilities, 13000) \
	X(cuDeviceGetHostAtomicCapabilities, 13000) \
	X(cuIpcGetMemHandle, 4010) \
	X(cuIpcOpenMemHandle, 11000) \
	X(cuIpcCloseMemHandle, 4010) \
	X(cuIpcGetEventHandle, 4010) \
	X(cuIpcOpenEventHandle, 4010) \
	X(cuMemGetAllocationGranularity, 10020) \
	X(cuMemCreate, 10020) \
	X(cuMemRelease, 10020) \
	X(cuMemAddressReserve, 10020) \
	X(cuMemAddressFree, 10020) \
	X(cuMemMap, 10020) \
	X(cuMemUnmap, 10020) \
	X(cuMemSetAccess, 10020) \
	X(cuMemGetAccess, 10020) \
	X(cuMemExportToShareableHandle, 10020) \
	X(cuMemImportFromShareableHandle, 10020) \
	X(cuMemRetainAllocationHandle, 11000) \
	X(cuMemAllocManaged, 6000) \
	X(cuMemPrefetchAsync, 12020) \
	X(cuMemAdvise, 12020) \
	X(cuMemRangeGetAttribute, 8000) \
	X(cuMemRangeGetAttributes, 8000)

#endif
