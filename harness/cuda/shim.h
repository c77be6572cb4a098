// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// shim.h declares the few CUDA driver types the binding passes to libcuda.so.1.
// p2pconf ships no CUDA headers (a test machine has only the driver), so the
// types are written here from cuda.h 12.6 / 13.0, whose layouts agree
// (docs/observations.md, struct layouts). The static asserts below stop
// the build if a compiler lays them out differently.
//
// Every Go file of the package includes this header and adds, in its own
// preamble, one static inline trampoline per entry point: it receives the
// function pointer resolved by cuGetProcAddress_v2 as a uintptr_t and calls it
// with the right C prototype. Handles are carried as uintptr_t on the Go side
// (never as Go pointers, since the driver uses small integers such as
// CU_STREAM_LEGACY = 0x1 as handles).

#ifndef P2PCONF_CUDA_SHIM_H
#define P2PCONF_CUDA_SHIM_H

#include <stddef.h>
#include <stdint.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef unsigned long long CUmemGenericAllocationHandle;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;

typedef struct { char bytes[16]; } CUuuid;
typedef struct { char reserved[64]; } CUipcMemHandle;
typedef struct { char reserved[64]; } CUipcEventHandle;
typedef struct { unsigned char data[64]; } CUmemFabricHandle;

typedef struct {
	int type; // CUmemLocationType
	int id;
} CUmemLocation;

typedef struct {
	unsigned char compressionType;
	unsigned char gpuDirectRDMACapable;
	unsigned short usage;
	unsigned char reserved[4];
} CUmemAllocationPropAllocFlags;

typedef struct {
	int type;                 // CUmemAllocationType
	int requestedHandleTypes; // CUmemAllocationHandleType bits
	CUmemLocation location;
	void *win32HandleMetaData; // must be NULL on Linux
	CUmemAllocationPropAllocFlags allocFlags;
} CUmemAllocationProp;

typedef struct {
	CUmemLocation location;
	int flags; // CUmemAccess_flags
} CUmemAccessDesc;

_Static_assert(sizeof(CUuuid) == 16, "CUuuid");
_Static_assert(sizeof(CUipcMemHandle) == 64, "CUipcMemHandle");
_Static_assert(sizeof(CUipcEventHandle) == 64, "CUipcEventHandle");
_Static_assert(sizeof(CUmemFabricHandle) == 64, "CUmemFabricHandle");
_Static_assert(sizeof(CUmemLocation) == 8, "CUmemLocation");
_Static_assert(sizeof(CUmemAllocationProp) == 32, "CUmemAllocationProp");
_Static_assert(offsetof(CUmemAllocationProp, location) == 8, "CUmemAllocationProp.location");
_Static_assert(offsetof(CUmemAllocationProp, win32HandleMetaData) == 16, "CUmemAllocationProp.win32HandleMetaData");
_Static_assert(offsetof(CUmemAllocationProp, allocFlags) == 24, "CUmemAllocationProp.allocFlags");
_Static_assert(sizeof(CUmemAccessDesc) == 12, "CUmemAccessDesc");
_Static_assert(offsetof(CUmemAccessDesc, flags) == 8, "CUmemAccessDesc.flags");

#endif
