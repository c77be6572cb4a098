/* SPDX-License-Identifier: Apache-2.0
 * SPDX-FileCopyrightText: 2026 The p2pconf Authors
 *
 * interpose.c builds a libcuda.so.1 that makes the real driver misbehave in
 * one known way, so a p2pconf reproducer can be shown to catch a real
 * violation on a healthy machine: every cuMemcpyPeerAsync, and every
 * cuMemcpyAsync or cuMemcpyDtoDAsync from device memory to device memory of
 * the same GPU, copies one byte less than asked (a dropped tail, a classic
 * copy bug). A machine with one GPU thus shows the access.local-copy
 * reproducers catching it too. Everything else is the real driver's, reached
 * through its cuGetProcAddress_v2; the entry points are swapped where a
 * program resolves them, as the reproducers do.
 *
 *   cc -O2 -shared -fPIC -o interpose/libcuda.so.1 interpose.c -ldl
 *   P2PCONF_REAL_LIBCUDA=/usr/lib/x86_64-linux-gnu/libcuda.so.1 \
 *     LD_LIBRARY_PATH=$PWD/interpose ./access.peer-copy_0-1     # exits 1
 *   (the same for ./access.local-copy_0)                        # exits 1
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

static gpa_t real_gpa;
static peer_copy_t real_peer_copy;
static copy_t real_copy, real_dtod_copy;
static pointer_attr_t real_pointer_attr;

static int load_real(void) {
	if (real_gpa != NULL) return 1;
	const char *path = getenv("P2PCONF_REAL_LIBCUDA");
	if (path == NULL || path[0] != '/') {
		fprintf(stderr, "interpose: set P2PCONF_REAL_LIBCUDA to the real libcuda.so.1 (an absolute path)\n");
		return 0;
	}
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		fprintf(stderr, "interpose: dlopen %s: %s\n", path, dlerror());
		return 0;
	}
	real_gpa = (gpa_t)dlsym(h, "cuGetProcAddress_v2");
	return real_gpa != NULL;
}

/* peer_copy_drops_last_byte is cuMemcpyPeerAsync minus its last byte. */
static CUresult peer_copy_drops_last_byte(CUdeviceptr dst, void *dctx, CUdeviceptr src, void *sctx, size_t n, void *s) {
	return real_peer_copy(dst, dctx, src, sctx, n > 1 ? n - 1 : n, s);
}

/* on_device returns the ordinal of the GPU whose device memory p is, or -1
 * (host memory, or the driver cannot tell): CU_POINTER_ATTRIBUTE_MEMORY_TYPE
 * (2) must be CU_MEMORYTYPE_DEVICE (2), then DEVICE_ORDINAL (9). */
static int on_device(CUdeviceptr p) {
	unsigned int type = 0;
	int ordinal = -1;
	if (real_pointer_attr == NULL) {
		int status = 0;
		void *fn = NULL;
		if (real_gpa("cuPointerGetAttribute", &fn, 4000, 0, &status) != 0 || fn == NULL) return -1;
		real_pointer_attr = (pointer_attr_t)fn;
	}
	if (real_pointer_attr(&type, 2, p) != 0 || type != 2) return -1;
	if (real_pointer_attr(&ordinal, 9, p) != 0) return -1;
	return ordinal;
}

/* within_one_gpu says whether a copy from src to dst stays in the device
 * memory of one GPU: the copies the local-copy reproducers make. */
static int within_one_gpu(CUdeviceptr dst, CUdeviceptr src) {
	int d = on_device(dst);
	return d >= 0 && d == on_device(src);
}

/* copy_drops_last_byte is cuMemcpyAsync minus its last byte when the copy
 * stays within one GPU; a copy to or from the host is left whole. */
static CUresult copy_drops_last_byte(CUdeviceptr dst, CUdeviceptr src, size_t n, void *s) {
	return real_copy(dst, src, n > 1 && within_one_gpu(dst, src) ? n - 1 : n, s);
}

/* dtod_copy_drops_last_byte is cuMemcpyDtoDAsync minus its last byte when
 * both ends are on one GPU. */
static CUresult dtod_copy_drops_last_byte(CUdeviceptr dst, CUdeviceptr src, size_t n, void *s) {
	return real_dtod_copy(dst, src, n > 1 && within_one_gpu(dst, src) ? n - 1 : n, s);
}

__attribute__((visibility("default"))) CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version,
	unsigned long long flags, int *status) {
	if (!load_real()) return 999; /* CUDA_ERROR_UNKNOWN */
	CUresult r = real_gpa(symbol, pfn, version, flags, status);
	if (r != 0 || pfn == NULL || *pfn == NULL) return r;
	if (strcmp(symbol, "cuMemcpyPeerAsync") == 0) {
		real_peer_copy = (peer_copy_t)*pfn;
		*pfn = (void *)peer_copy_drops_last_byte;
	} else if (strcmp(symbol, "cuMemcpyAsync") == 0) {
		real_copy = (copy_t)*pfn;
		*pfn = (void *)copy_drops_last_byte;
	} else if (strcmp(symbol, "cuMemcpyDtoDAsync") == 0) {
		real_dtod_copy = (copy_t)*pfn;
		*pfn = (void *)dtod_copy_drops_last_byte;
	}
	return r;
}
