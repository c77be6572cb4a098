/* SPDX-License-Identifier: Apache-2.0
 * SPDX-FileCopyrightText: 2026 The p2pconf Authors
 *
 * interpose.c builds a libcuda.so.1 that makes the real driver misbehave in
 * one known way, so a p2pconf reproducer can be shown to catch a real
 * violation on a healthy machine: every cuMemcpyPeerAsync copies one byte
 * less than asked (a dropped tail, a classic copy bug). Everything else is
 * the real driver's, reached through its cuGetProcAddress_v2.
 *
 *   cc -O2 -shared -fPIC -o interpose/libcuda.so.1 interpose.c -ldl
 *   P2PCONF_REAL_LIBCUDA=/usr/lib/x86_64-linux-gnu/libcuda.so.1 \
 *     LD_LIBRARY_PATH=$PWD/interpose ./access.peer-copy_0-1     # exits 1
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

static gpa_t real_gpa;
static peer_copy_t real_peer_copy;

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

__attribute__((visibility("default"))) CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version,
	unsigned long long flags, int *status) {
	if (!load_real()) return 999; /* CUDA_ERROR_UNKNOWN */
	CUresult r = real_gpa(symbol, pfn, version, flags, status);
	if (r == 0 && pfn != NULL && *pfn != NULL && strcmp(symbol, "cuMemcpyPeerAsync") == 0) {
		real_peer_copy = (peer_copy_t)*pfn;
		*pfn = (void *)peer_copy_drops_last_byte;
	}
	return r;
}
