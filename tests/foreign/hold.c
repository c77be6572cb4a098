// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors
//
// hold: another program on a GPU. It allocates MIB MiB of device memory on
// CUDA device ORDINAL (in PCI bus order, as p2pconf numbers GPUs), says so
// on stdout, sleeps SECONDS and exits (the driver frees what it held).
// It loads libcuda with dlopen, so it builds without the CUDA toolkit:
//
//   cc -O2 -Wall -o hold tests/foreign/hold.c -ldl
//   ./hold 0 512 600      # GPU0, 512 MiB, 10 minutes
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

typedef int (*init_fn)(unsigned);
typedef int (*device_get_fn)(int *, int);
typedef int (*retain_fn)(void **, int);
typedef int (*set_current_fn)(void *);
typedef int (*alloc_fn)(unsigned long long *, size_t);

static void *need(void *lib, const char *name) {
	void *f = dlsym(lib, name);
	if (!f) {
		fprintf(stderr, "hold: %s not in libcuda.so.1\n", name);
		exit(2);
	}
	return f;
}

static void check(int rc, const char *call) {
	if (rc != 0) {
		fprintf(stderr, "hold: %s failed with CUresult %d\n", call, rc);
		exit(1);
	}
}

int main(int argc, char **argv) {
	if (argc != 4) {
		fprintf(stderr, "usage: hold ORDINAL MIB SECONDS\n");
		return 2;
	}
	int ordinal = atoi(argv[1]);
	size_t bytes = (size_t)strtoull(argv[2], NULL, 10) << 20;
	unsigned seconds = (unsigned)atoi(argv[3]);
	setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 0);
	void *lib = dlopen("libcuda.so.1", RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "hold: dlopen libcuda.so.1: %s\n", dlerror());
		return 2;
	}
	int dev;
	void *ctx;
	unsigned long long ptr;
	check(((init_fn)need(lib, "cuInit"))(0), "cuInit");
	check(((device_get_fn)need(lib, "cuDeviceGet"))(&dev, ordinal), "cuDeviceGet");
	check(((retain_fn)need(lib, "cuDevicePrimaryCtxRetain"))(&ctx, dev), "cuDevicePrimaryCtxRetain");
	check(((set_current_fn)need(lib, "cuCtxSetCurrent"))(ctx), "cuCtxSetCurrent");
	check(((alloc_fn)need(lib, "cuMemAlloc_v2"))(&ptr, bytes), "cuMemAlloc");
	printf("hold: pid %d holds %zu MiB on GPU%d for %u s\n", (int)getpid(), bytes >> 20, ordinal, seconds);
	fflush(stdout);
	sleep(seconds);
	return 0;
}
