/* SPDX-License-Identifier: Apache-2.0
 * SPDX-FileCopyrightText: 2026 The p2pconf Authors
 *
 * p2pconf-shim.c builds a libcuda that makes the real driver misbehave in
 * one known way, so `p2pconf preflight` can be shown to FAIL on a healthy
 * machine, naming the check, the target and the cause. The suites load it
 * through P2PCONF_LIBCUDA; it finds the real driver through
 * P2PCONF_REAL_LIBCUDA and swaps entry points where the suites resolve them
 * (cuGetProcAddress_v2). SHIM_DEFECT picks the defect:
 *
 *   half-copy   every cuMemcpyPeerAsync, and every cuMemcpyAsync or
 *               cuMemcpyDtoDAsync between device memory, of 1 MiB or more
 *               moves only the first half of its bytes (and reports success)
 *   enable-217  cuCtxEnablePeerAccess returns 217
 *               (CUDA_ERROR_PEER_ACCESS_UNSUPPORTED) without enabling anything
 *
 *   cc -O2 -shared -fPIC -o libcuda-shim.so tests/shim/p2pconf-shim.c -ldl
 *   SHIM_DEFECT=half-copy P2PCONF_LIBCUDA=$PWD/libcuda-shim.so \
 *     P2PCONF_REAL_LIBCUDA=/usr/lib/x86_64-linux-gnu/libcuda.so.1 ./bin/p2pconf preflight
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
typedef CUresult (*gpa_t)(const char *, void **, int, unsigned long long, int *);
typedef CUresult (*peer_copy_t)(CUdeviceptr, void *, CUdeviceptr, void *, size_t, void *);
typedef CUresult (*copy_t)(CUdeviceptr, CUdeviceptr, size_t, void *);
typedef CUresult (*pointer_attr_t)(void *, int, CUdeviceptr);
typedef CUresult (*enable_t)(void *, unsigned int);

#define SHIM_MIN_BYTES ((size_t)1 << 20)

static gpa_t real_gpa;
static peer_copy_t real_peer_copy;
static copy_t real_copy, real_dtod_copy;
static pointer_attr_t real_pointer_attr;

static int load_real(void) {
	if (real_gpa != NULL) return 1;
	const char *path = getenv("P2PCONF_REAL_LIBCUDA");
	if (path == NULL || path[0] != '/') {
		fprintf(stderr, "p2pconf-shim: set P2PCONF_REAL_LIBCUDA to the real libcuda.so.1 (an absolute path)\n");
		return 0;
	}
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		fprintf(stderr, "p2pconf-shim: dlopen %s: %s\n", path, dlerror());
		return 0;
	}
	real_gpa = (gpa_t)dlsym(h, "cuGetProcAddress_v2");
	return real_gpa != NULL;
}

static const char *mode(void) {
	const char *m = getenv("SHIM_DEFECT");
	return m != NULL ? m : "";
}

static size_t shrunk(size_t n) { return n >= SHIM_MIN_BYTES ? n / 2 : n; }

static CUresult peer_copy_half(CUdeviceptr dst, void *dctx, CUdeviceptr src, void *sctx, size_t n, void *s) {
	return real_peer_copy(dst, dctx, src, sctx, shrunk(n), s);
}

/* on_device says whether p is device memory: CU_POINTER_ATTRIBUTE_MEMORY_TYPE
 * (2) is CU_MEMORYTYPE_DEVICE (2). */
static int on_device(CUdeviceptr p) {
	unsigned int type = 0;
	if (real_pointer_attr == NULL) {
		int status = 0;
		void *fn = NULL;
		if (real_gpa("cuPointerGetAttribute", &fn, 4000, 0, &status) != 0 || fn == NULL) return 0;
		real_pointer_attr = (pointer_attr_t)fn;
	}
	return real_pointer_attr(&type, 2, p) == 0 && type == 2;
}

static CUresult copy_half(CUdeviceptr dst, CUdeviceptr src, size_t n, void *s) {
	return real_copy(dst, src, n >= SHIM_MIN_BYTES && on_device(dst) && on_device(src) ? n / 2 : n, s);
}

static CUresult dtod_copy_half(CUdeviceptr dst, CUdeviceptr src, size_t n, void *s) {
	return real_dtod_copy(dst, src, shrunk(n), s);
}

static CUresult enable_refused(void *ctx, unsigned int flags) {
	(void)ctx;
	(void)flags;
	return 217; /* CUDA_ERROR_PEER_ACCESS_UNSUPPORTED */
}

__attribute__((visibility("default"))) CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version,
	unsigned long long flags, int *status) {
	if (!load_real()) return 999; /* CUDA_ERROR_UNKNOWN */
	CUresult r = real_gpa(symbol, pfn, version, flags, status);
	if (r != 0 || pfn == NULL || *pfn == NULL) return r;
	if (strcmp(mode(), "half-copy") == 0) {
		if (strcmp(symbol, "cuMemcpyPeerAsync") == 0) {
			real_peer_copy = (peer_copy_t)*pfn;
			*pfn = (void *)peer_copy_half;
		} else if (strcmp(symbol, "cuMemcpyAsync") == 0) {
			real_copy = (copy_t)*pfn;
			*pfn = (void *)copy_half;
		} else if (strcmp(symbol, "cuMemcpyDtoDAsync") == 0) {
			real_dtod_copy = (copy_t)*pfn;
			*pfn = (void *)dtod_copy_half;
		}
	} else if (strcmp(mode(), "enable-217") == 0 && strcmp(symbol, "cuCtxEnablePeerAccess") == 0) {
		*pfn = (void *)enable_refused;
	} else if (mode()[0] != '\0' && strcmp(mode(), "half-copy") != 0 && strcmp(mode(), "enable-217") != 0) {
		fprintf(stderr, "p2pconf-shim: SHIM_DEFECT=%s: want half-copy or enable-217\n", mode());
		return 1; /* CUDA_ERROR_INVALID_VALUE */
	}
	return r;
}
