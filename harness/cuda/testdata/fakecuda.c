// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// fakecuda.c is a stand-in libcuda.so.1 for the binding's tests on machines
// without a GPU. The tests build it with gcc into a temporary directory.
//
// It exports cuGetProcAddress_v2 only (everything else is reached through
// it, as with the real driver) and answers with the ABI variant introduced at
// or before the requested version, so a wrongly pinned version reaches a
// "legacy" variant that fails loudly. Every resolution is appended to the
// file named by FAKECUDA_LOG as "getproc <name> <version> <flags>".
//
// Configuration, read at each call:
//   FAKECUDA_DRIVER_VERSION  cuDriverGetVersion (default 13000); entry points
//                            introduced later than it resolve to NULL
//   FAKECUDA_DEVICES         device count (default 2, at most 8)
//   FAKECUDA_INIT_RESULT     what cuInit returns (default 0)
//   FAKECUDA_NO_P2P          if set, cuDeviceCanAccessPeer reports 0
//   FAKECUDA_PENDING_POLLS   after enqueuing work, stream and event queries
//                            report NOT_READY this many times (default 0;
//                            -1: never complete)
//   FAKECUDA_FREE_MIB        free memory cuMemGetInfo reports (default 70 GiB)
//   FAKECUDA_REALISTIC       if set, the P2P attributes and atomic masks are
//                            plausible values instead of echoes (below), and
//                            HOST_NATIVE_ATOMIC_SUPPORTED is 1
//   FAKECUDA_DEFECT          a comma list of misbehaviours for the standalone
//                            reproducers' tests: peer-copy-corrupts (a peer
//                            copy flips one byte in its middle),
//                            atomic-masks-zero (NATIVE_ATOMIC_SUPPORTED=1
//                            while every per-operation mask is 0),
//                            copy-corrupts (so does cuMemcpyAsync),
//                            peer-access-ignored (an enable succeeds but
//                            grants nothing), enable-is-bidirectional,
//                            disable-keeps-access, host-devptr-offset
//                            (cuMemHostGetDevicePointer is 4 bytes off),
//                            self-peer (cuDeviceCanAccessPeer(d, d) = 1),
//                            uva-owner-wrong (DEVICE_ORDINAL is always 0),
//                            elapsed-time-across-devices (cuEventElapsedTime
//                            of two devices' events succeeds),
//                            peer-copy-deferred (a peer copy reads its source
//                            only when its stream is next queried: after the
//                            event recorded behind it has completed),
//                            event-complete-early (cuEventQuery succeeds
//                            while the work before the event still waits),
//                            vmm-create-any-size (cuMemCreate accepts a size
//                            that is no multiple of the granularity),
//                            fd-number-imports (importing a number that is no
//                            open descriptor makes a new allocation),
//                            ipc-event-flags-ignored (cuEventCreate and
//                            cuIpcGetEventHandle accept any flags),
//                            ipc-same-process-opens (with FAKECUDA_REALISTIC,
//                            the exporting process may open its own handle),
//                            vmm-access-before-set (cuMemMap grants the owner
//                            read-write), vmm-grant-ignored (cuMemSetAccess
//                            ignores every device but the owner),
//                            vmm-read-only-writable (PROT_READ lets kernels
//                            store), vmm-access-per-allocation (cuMemSetAccess
//                            grants every mapping of the allocation),
//                            vmm-import-private (an imported POSIX fd maps a
//                            private copy: the importer's writes are lost),
//                            vmm-release-frees (cuMemRelease of a mapped
//                            allocation frees it under its mappings),
//                            vmm-release-frees-imported (the creator's last
//                            cuMemRelease frees the memory, and with
//                            FAKECUDA_SHARED_DIR its free-memory count, while
//                            another process still maps its import),
//                            handoff-stale (hd_to_host sets its flag before the
//                            data; hd_from_host reads the data before the flag),
//                            ipc-import-private (with FAKECUDA_REALISTIC, an
//                            opened IPC handle maps a private copy),
//                            ipc-handle-unchecked (only the first 8 bytes of
//                            an IPC handle are checked: a truncated one opens),
//                            ipc-close-clobbers (an importer's close zeroes
//                            the exporter's memory), ipc-exported-unfreeable
//                            (cuMemFree of memory once exported fails),
//                            mp-stale (mp_write leaves the last data word of
//                            instance 0 unwritten under its flag),
//                            atomic-lost-update (atom_contend_sys loses the
//                            update of the first op of a launch),
//                            counter-before-data (caf_produce publishes its
//                            counter with the last data word unwritten),
//                            litmus-weak (a litmus kernel counts one instance
//                            of each launch in FAKECUDA_LITMUS_WEAK_BIN)
//   FAKECUDA_LITMUS_BIN      the histogram bin a harness/litmus kernel (entry
//                            litmus_*) counts every instance in (default 0)
//   FAKECUDA_LITMUS_WEAK_BIN the bin of litmus-weak (default 1)
//   FAKECUDA_LITMUS_BIN_O0   the bin instead of FAKECUDA_LITMUS_BIN for a
//                            kernel whose module was loaded with
//                            CU_JIT_OPTIMIZATION_LEVEL 0 (a compiler's
//                            merge that the lowered level does not make)
//   FAKECUDA_SHARED_DIR      with FAKECUDA_REALISTIC, an existing directory
//                            through which the processes of one test count
//                            VMM memory device-wide (below)
//
// With FAKECUDA_REALISTIC, device memory is a memfd mapping and an IPC memory
// handle names the exporter's process, device and descriptor, so another
// process opens it (through /proc/<pid>/fd) and shares the memory.
//
// With FAKECUDA_REALISTIC, cuMemGetInfo's free memory also drops by the VMM
// allocations and the shareable device memory this process holds. With
// FAKECUDA_SHARED_DIR too, the VMM part is device-wide, as a real driver's
// is: each process writes the VMM memory it holds (device, memfd inode,
// size) to held.<pid> there at every change, and cuMemGetInfo counts each
// inode of its device once over the files of live processes, so memory
// another process still maps after its creator released it stays counted.
//
// The kernels of kernels/basic.ptx (fill, verify, transform, delay, empty)
// and wait_released of kernels/ordering.ptx (its stream, and events recorded
// behind it, stay NOT_READY until the host sets the flag) run on the host
// when launched; hd_to_host and hd_from_host run in a thread of their own,
// their stream busy until it ends, with the PTX's semantics; a kernel that
// touches memory its context cannot reach (another device's without peer
// access, or no allocation) leaves CUDA_ERROR_ILLEGAL_ADDRESS (700) on its
// stream, as a fault would.
//
// Argument checks built in: cuDeviceGetP2PAttribute echoes its arguments,
// cuIpcOpenMemHandle_v2 decodes and checks the by-value handle bytes, the
// JIT checks its option arrays, and a kernel whose .entry is p2pc_fake_echo
// writes its parameters and launch shape into its first argument.
//
// Device memory is host memory, so copies are memcpy; VMM handles are memfd
// files mapped into PROT_NONE reservations, so exported fds are real.

#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <time.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <sys/file.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef unsigned long long CUmemGenericAllocationHandle;
typedef struct { char reserved[64]; } CUipcMemHandle;
typedef struct { char reserved[64]; } CUipcEventHandle;
typedef struct { int type; int id; } CUmemLocation;
typedef struct {
	int type;
	int requestedHandleTypes;
	CUmemLocation location;
	void *win32HandleMetaData;
	unsigned char compressionType, gpuDirectRDMACapable;
	unsigned short usage;
	unsigned char reserved[4];
} CUmemAllocationProp;
typedef struct { CUmemLocation location; int flags; } CUmemAccessDesc;

enum {
	OK = 0, INVALID_VALUE = 1, NOT_INITIALIZED = 3, INVALID_DEVICE = 101,
	INVALID_IMAGE = 200, INVALID_CONTEXT = 201, PEER_ACCESS_UNSUPPORTED = 217,
	INVALID_PTX = 218, INVALID_HANDLE = 400, NOT_FOUND = 500, NOT_READY = 600,
	LAUNCH_TIMEOUT = 702, PEER_ACCESS_ALREADY_ENABLED = 704,
	PEER_ACCESS_NOT_ENABLED = 705, UNKNOWN = 999,
	LEGACY_ABI_CALLED = 9999, // returned by the old variants: a pinning bug
};

#define MAXDEV 8
#define MAXOBJ 256
#define GRAN (2u << 20)

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int initialized;

static int env_int(const char *name, int def) {
	const char *v = getenv(name);
	return v && *v ? atoi(v) : def;
}
static int driver_version(void) { return env_int("FAKECUDA_DRIVER_VERSION", 13000); }
static int defect(const char *name) {
	const char *v = getenv("FAKECUDA_DEFECT");
	if (!v) return 0;
	size_t n = strlen(name);
	for (const char *p = v; (p = strstr(p, name)) != NULL; p += n)
		if ((p == v || p[-1] == ',') && (p[n] == 0 || p[n] == ',')) return 1;
	return 0;
}
static int ndev(void) {
	int n = env_int("FAKECUDA_DEVICES", 2);
	return n > MAXDEV ? MAXDEV : n;
}
__attribute__((format(printf, 1, 2))) static void logf_(const char *fmt, ...) {
	const char *path = getenv("FAKECUDA_LOG");
	if (!path || !*path) return;
	FILE *f = fopen(path, "a");
	if (!f) return;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

// ---- contexts -------------------------------------------------------------

struct ctx { int dev, retained, peer[MAXDEV]; };
static struct ctx ctxs[MAXDEV];
static __thread struct ctx *current;

#define NEED_INIT() do { if (!initialized) return NOT_INITIALIZED; } while (0)
#define NEED_CTX() do { NEED_INIT(); if (!current || !current->retained) return INVALID_CONTEXT; } while (0)
static int bad_dev(CUdevice d) { return d < 0 || d >= ndev(); }

static CUresult f_cuInit(unsigned int flags) {
	if (flags != 0) return INVALID_VALUE;
	CUresult r = env_int("FAKECUDA_INIT_RESULT", 0);
	if (r == OK) initialized = 1;
	return r;
}
static CUresult f_cuDriverGetVersion(int *v) {
	if (!v) return INVALID_VALUE;
	*v = driver_version();
	return OK;
}
static const char *err_name(CUresult r) {
	switch (r) {
	case OK: return "CUDA_SUCCESS";
	case INVALID_VALUE: return "CUDA_ERROR_INVALID_VALUE";
	case PEER_ACCESS_UNSUPPORTED: return "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED";
	case NOT_READY: return "CUDA_ERROR_NOT_READY";
	case INVALID_DEVICE: return "CUDA_ERROR_INVALID_DEVICE";
	case INVALID_HANDLE: return "CUDA_ERROR_INVALID_HANDLE";
	case PEER_ACCESS_ALREADY_ENABLED: return "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED";
	case PEER_ACCESS_NOT_ENABLED: return "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED";
	case 700: return "CUDA_ERROR_ILLEGAL_ADDRESS";
	}
	return NULL;
}
static CUresult f_cuGetErrorName(CUresult r, const char **s) {
	*s = err_name(r);
	return *s ? OK : INVALID_VALUE;
}
static CUresult f_cuGetErrorString(CUresult r, const char **s) {
	*s = r == PEER_ACCESS_UNSUPPORTED ? "peer access is not supported between these two devices" : err_name(r);
	return *s ? OK : INVALID_VALUE;
}

// ---- devices --------------------------------------------------------------

static CUresult f_cuDeviceGetCount(int *n) { NEED_INIT(); *n = ndev(); return OK; }
static CUresult f_cuDeviceGet(CUdevice *d, int ordinal) {
	NEED_INIT();
	if (bad_dev(ordinal)) return INVALID_DEVICE;
	*d = ordinal;
	return OK;
}
static CUresult f_cuDeviceGetName(char *name, int len, CUdevice d) {
	NEED_INIT();
	if (bad_dev(d)) return INVALID_DEVICE;
	snprintf(name, len, "Fake GPU %d", d);
	return OK;
}
static CUresult f_cuDeviceGetAttribute(int *v, int attr, CUdevice d) {
	NEED_INIT();
	if (bad_dev(d)) return INVALID_DEVICE;
	switch (attr) {
	case 16: *v = 132; break;
	case 33: *v = 0x18 + 0x10 * d; break;
	case 19: case 41: case 95: case 102: case 103: case 125: *v = 1; break;
	case 75: *v = 9; break;
	case 86: *v = getenv("FAKECUDA_REALISTIC") ? 1 : 0; break; // HOST_NATIVE_ATOMIC_SUPPORTED: a host link with native atomics
	case 76: case 128: *v = 0; break;
	case 147: if (driver_version() < 13000) return INVALID_VALUE; *v = 0; break;
	default: *v = attr * 100 + d; // echo, so tests see the arguments arrive
	}
	return OK;
}
static CUresult f_cuDeviceGetPCIBusId(char *id, int len, CUdevice d) {
	NEED_INIT();
	if (bad_dev(d)) return INVALID_DEVICE;
	snprintf(id, len, "0000:%02x:00.0", 0x18 + 0x10 * d);
	return OK;
}
static CUresult f_cuDeviceGetUuid_v2(unsigned char *u, CUdevice d) {
	NEED_INIT();
	if (bad_dev(d)) return INVALID_DEVICE;
	for (int i = 0; i < 16; i++) u[i] = (unsigned char)(d * 16 + i);
	return OK;
}
static CUresult f_cuDeviceTotalMem_v2(size_t *n, CUdevice d) {
	NEED_INIT();
	if (bad_dev(d)) return INVALID_DEVICE;
	*n = (size_t)(80 + d) << 30;
	return OK;
}

static CUresult f_cuDevicePrimaryCtxRetain(struct ctx **c, CUdevice d) {
	NEED_INIT();
	if (bad_dev(d)) return INVALID_DEVICE;
	ctxs[d].dev = d;
	if (ctxs[d].retained++ == 0) memset(ctxs[d].peer, 0, sizeof ctxs[d].peer);
	*c = &ctxs[d];
	return OK;
}
static CUresult f_cuDevicePrimaryCtxRelease_v2(CUdevice d) {
	NEED_INIT();
	if (bad_dev(d)) return INVALID_DEVICE;
	if (ctxs[d].retained == 0) return INVALID_CONTEXT;
	ctxs[d].retained--;
	return OK;
}
static CUresult f_cuCtxGetCurrent(struct ctx **c) { NEED_INIT(); *c = current; return OK; }
static CUresult f_cuCtxSetCurrent(struct ctx *c) {
	NEED_INIT();
	if (c && (c < ctxs || c >= ctxs + MAXDEV || !c->retained)) return INVALID_CONTEXT;
	current = c;
	return OK;
}

// ---- streams and events ---------------------------------------------------

struct stream {
	int magic, pending;
	struct ctx *ctx;
	int fault;
	CUdeviceptr def_dst, def_src; // a deferred peer copy (peer-copy-deferred)
	size_t def_n;
	volatile uint32_t *wait_flag; // a wait_released kernel holds the stream
	uint32_t *wait_status, polls;
	int busy;                     // a handoff thread runs (atomic)
};
struct event { int magic, pending, flags, recorded; struct ctx *ctx; volatile uint32_t *wait_flag; };
#define STREAM_MAGIC 0x5757
#define EVENT_MAGIC 0x4545
static struct stream null_stream = {STREAM_MAGIC, 0, NULL, 0, 0, 0, 0, NULL, NULL, 0, 0};

// held says whether a wait_released kernel still holds s, ending it (with
// status 1 "released") once the host has set the flag.
static int held(struct stream *s) {
	if (!s->wait_flag) return 0;
	s->polls++;
	if (*s->wait_flag == 0) return 1;
	s->wait_status[0] = 1;
	s->wait_status[1] = s->polls;
	s->wait_flag = NULL;
	return 0;
}

static struct stream *stream_of(struct stream *s) { return s ? s : &null_stream; }
static void enqueue(struct stream *s) { stream_of(s)->pending = env_int("FAKECUDA_PENDING_POLLS", 0); }
static CUresult poll_pending(int *pending) {
	if (*pending == 0) return OK;
	if (*pending > 0) (*pending)--;
	return NOT_READY;
}
static CUresult f_cuCtxSynchronize(void) {
	NEED_CTX();
	return null_stream.pending < 0 ? LAUNCH_TIMEOUT : OK;
}
static CUresult f_cuStreamCreate(struct stream **s, unsigned int flags) {
	NEED_CTX();
	if (flags > 1) return INVALID_VALUE;
	*s = calloc(1, sizeof **s);
	(*s)->magic = STREAM_MAGIC;
	(*s)->ctx = current;
	return OK;
}
static CUresult f_cuStreamDestroy_v2(struct stream *s) {
	NEED_CTX();
	if (!s || s->magic != STREAM_MAGIC) return INVALID_HANDLE;
	s->magic = 0;
	free(s);
	return OK;
}
static void run_deferred(struct stream *s) {
	if (s->def_n) memmove((void *)s->def_dst, (const void *)s->def_src, s->def_n);
	s->def_n = 0;
}
static CUresult f_cuStreamQuery(struct stream *s) {
	NEED_CTX();
	if (stream_of(s)->magic != STREAM_MAGIC) return INVALID_HANDLE;
	run_deferred(stream_of(s));
	if (stream_of(s)->fault) return stream_of(s)->fault;
	if (held(stream_of(s)) || __atomic_load_n(&stream_of(s)->busy, __ATOMIC_SEQ_CST)) return NOT_READY;
	return poll_pending(&stream_of(s)->pending);
}
static CUresult f_cuStreamSynchronize(struct stream *s) {
	NEED_CTX();
	if (stream_of(s)->pending < 0) return LAUNCH_TIMEOUT; // would hang on a GPU
	run_deferred(stream_of(s));
	if (stream_of(s)->fault) return stream_of(s)->fault;
	stream_of(s)->pending = 0;
	return OK;
}
static CUresult f_cuStreamWaitEvent(struct stream *s, struct event *e, unsigned int flags) {
	NEED_CTX();
	if (stream_of(s)->magic != STREAM_MAGIC) return INVALID_HANDLE;
	if (!e || e->magic != EVENT_MAGIC || flags != 0) return INVALID_HANDLE;
	return OK;
}
static CUresult f_cuEventCreate(struct event **e, unsigned int flags) {
	NEED_CTX();
	if ((flags & 4) && !(flags & 2) && !defect("ipc-event-flags-ignored")) return INVALID_VALUE; // INTERPROCESS needs DISABLE_TIMING
	*e = calloc(1, sizeof **e);
	(*e)->magic = EVENT_MAGIC;
	(*e)->flags = (int)flags;
	(*e)->ctx = current;
	return OK;
}
static CUresult f_cuEventRecord(struct event *e, struct stream *s) {
	NEED_CTX();
	if (!e || e->magic != EVENT_MAGIC) return INVALID_HANDLE;
	e->recorded = 1;
	e->pending = stream_of(s)->pending;
	e->wait_flag = stream_of(s)->wait_flag;
	return OK;
}
static CUresult f_cuEventQuery(struct event *e) {
	NEED_CTX();
	if (!e || e->magic != EVENT_MAGIC) return INVALID_HANDLE;
	if (e->wait_flag && *e->wait_flag == 0 && !defect("event-complete-early")) return NOT_READY;
	return poll_pending(&e->pending);
}
static CUresult f_cuEventSynchronize(struct event *e) {
	NEED_CTX();
	if (!e || e->magic != EVENT_MAGIC) return INVALID_HANDLE;
	if (e->pending < 0) return LAUNCH_TIMEOUT;
	e->pending = 0;
	return OK;
}
static CUresult f_cuEventElapsedTime(float *ms, struct event *a, struct event *b) {
	NEED_CTX();
	if (!a || !b || a->magic != EVENT_MAGIC || b->magic != EVENT_MAGIC) return INVALID_HANDLE;
	if (!a->recorded || !b->recorded || (a->flags & 2) || (b->flags & 2)) return INVALID_HANDLE;
	if (a->ctx != b->ctx && !defect("elapsed-time-across-devices")) return INVALID_HANDLE;
	if (a->pending || b->pending) return NOT_READY;
	*ms = 1.5f;
	return OK;
}
static CUresult f_cuEventElapsedTime_v2(float *ms, struct event *a, struct event *b) {
	(void)ms; (void)a; (void)b;
	return LEGACY_ABI_CALLED; // the binding pins the v1 form
}
static CUresult f_cuEventDestroy_v2(struct event *e) {
	NEED_CTX();
	if (!e || e->magic != EVENT_MAGIC) return INVALID_HANDLE;
	e->magic = 0;
	free(e);
	return OK;
}

// ---- memory ---------------------------------------------------------------

enum { KIND_DEVICE = 1, KIND_HOST = 2 };
enum { FLAG_MANAGED = 0x200 }; // alloc.flags of a cuMemAllocManaged allocation
struct alloc { char *base; size_t size; int kind, dev, flags, ipc_open, fd, imported; };
static struct alloc allocs[MAXOBJ];

static struct alloc *find_alloc(CUdeviceptr p) {
	for (int i = 0; i < MAXOBJ; i++)
		if (allocs[i].base && (char *)p >= allocs[i].base && (char *)p < allocs[i].base + allocs[i].size)
			return &allocs[i];
	return NULL;
}
static struct alloc *new_alloc(size_t n, int kind, int flags) {
	pthread_mutex_lock(&mu);
	struct alloc *a = NULL;
	for (int i = 0; i < MAXOBJ && !a; i++)
		if (!allocs[i].base) a = &allocs[i];
	if (a) {
		a->fd = -1;
		a->imported = 0;
		if (kind == KIND_DEVICE && getenv("FAKECUDA_REALISTIC")) { // shareable, for IPC
			a->fd = memfd_create("fakecuda-dev", 0);
			void *m = a->fd >= 0 && ftruncate(a->fd, (off_t)(n ? n : 1)) == 0
				? mmap(NULL, n ? n : 1, PROT_READ | PROT_WRITE, MAP_SHARED, a->fd, 0) : MAP_FAILED;
			a->base = m == MAP_FAILED ? NULL : m;
		} else {
			a->base = calloc(1, n ? n : 1);
		}
		a->size = n;
		a->kind = kind;
		a->dev = current->dev;
		a->flags = flags;
		a->ipc_open = 0;
	}
	pthread_mutex_unlock(&mu);
	return a;
}
static CUresult free_alloc(void *p, int kind) {
	pthread_mutex_lock(&mu);
	struct alloc *a = find_alloc((CUdeviceptr)p);
	CUresult r = INVALID_VALUE;
	if (a && a->base == p && a->kind == kind && (a->flags & 0x100) && defect("ipc-exported-unfreeable")) a = NULL;
	if (a && a->base == p && a->kind == kind) {
		if (a->fd >= 0) {
			munmap(a->base, a->size ? a->size : 1);
			close(a->fd);
		} else {
			free(a->base);
		}
		a->base = NULL;
		r = OK;
	}
	pthread_mutex_unlock(&mu);
	return r;
}

static size_t vmm_held(void);
static size_t shared_held(int dev);
static CUresult f_cuMemGetInfo_v2(size_t *free_, size_t *total) {
	NEED_CTX();
	*free_ = (size_t)env_int("FAKECUDA_FREE_MIB", 70 << 10) << 20;
	if (getenv("FAKECUDA_REALISTIC")) *free_ -= vmm_held() + shared_held(current->dev);
	*total = (size_t)(80 + current->dev) << 30;
	return OK;
}
static CUresult f_cuMemAlloc_v2(CUdeviceptr *p, size_t n) {
	NEED_CTX();
	if (n == 0) return INVALID_VALUE;
	struct alloc *a = new_alloc(n, KIND_DEVICE, 0);
	if (!a) return 2;
	*p = (CUdeviceptr)a->base;
	return OK;
}
static CUresult f_cuMemAlloc_v1(unsigned int *p, unsigned int n) {
	(void)p; (void)n;
	return LEGACY_ABI_CALLED; // 32-bit ABI: the binding must never get here
}
static CUresult f_cuMemFree_v2(CUdeviceptr p) { NEED_CTX(); return free_alloc((void *)p, KIND_DEVICE); }
static CUresult f_cuMemHostAlloc(void **p, size_t n, unsigned int flags) {
	NEED_CTX();
	if (flags > 7) return INVALID_VALUE;
	struct alloc *a = new_alloc(n, KIND_HOST, (int)flags);
	if (!a) return 2;
	*p = a->base;
	return OK;
}
static CUresult f_cuMemFreeHost(void *p) { NEED_CTX(); return free_alloc(p, KIND_HOST); }
static CUresult f_cuMemHostGetDevicePointer_v2(CUdeviceptr *d, void *p, unsigned int flags) {
	NEED_CTX();
	struct alloc *a = find_alloc((CUdeviceptr)p);
	if (flags != 0 || !a || a->kind != KIND_HOST || !(a->flags & 2)) return INVALID_VALUE;
	*d = (CUdeviceptr)p + (defect("host-devptr-offset") ? 4 : 0);
	return OK;
}
static CUresult f_cuMemsetD8_v2(CUdeviceptr d, unsigned char v, size_t n) {
	NEED_CTX();
	memset((void *)d, v, n);
	return OK;
}
static CUresult f_cuMemsetD32_v2(CUdeviceptr d, unsigned int v, size_t n) {
	NEED_CTX();
	if (d % 4) return INVALID_VALUE;
	for (size_t i = 0; i < n; i++) ((unsigned int *)d)[i] = v;
	return OK;
}
static CUresult f_cuMemsetD32Async(CUdeviceptr d, unsigned int v, size_t n, struct stream *s) {
	CUresult r = f_cuMemsetD32_v2(d, v, n);
	if (r == OK) enqueue(s);
	return r;
}
static CUresult f_cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t n) {
	NEED_CTX();
	memmove((void *)dst, (const void *)src, n);
	return OK;
}
static CUresult f_cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, struct stream *s) {
	CUresult r = f_cuMemcpy(dst, src, n);
	if (r == OK && n > 0 && defect("copy-corrupts")) ((unsigned char *)dst)[n / 2] ^= 0x01;
	if (r == OK) enqueue(s);
	return r;
}
static CUresult f_cuMemcpyHtoD_v2(CUdeviceptr d, const void *h, size_t n) { return f_cuMemcpy(d, (CUdeviceptr)h, n); }
static CUresult f_cuMemcpyDtoH_v2(void *h, CUdeviceptr d, size_t n) { return f_cuMemcpy((CUdeviceptr)h, d, n); }
static CUresult f_cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *h, size_t n, struct stream *s) {
	return f_cuMemcpyAsync(d, (CUdeviceptr)h, n, s);
}
static CUresult f_cuMemcpyDtoHAsync_v2(void *h, CUdeviceptr d, size_t n, struct stream *s) {
	return f_cuMemcpyAsync((CUdeviceptr)h, d, n, s);
}
static void corrupt_peer_copy(CUdeviceptr dst, size_t n) {
	if (n > 0 && defect("peer-copy-corrupts")) ((unsigned char *)dst)[n / 2] ^= 0x01;
}
static CUresult f_cuMemcpyPeer(CUdeviceptr dst, struct ctx *dc, CUdeviceptr src, struct ctx *sc, size_t n) {
	if (!dc || !sc) return INVALID_CONTEXT;
	CUresult r = f_cuMemcpy(dst, src, n);
	if (r == OK) corrupt_peer_copy(dst, n);
	return r;
}
static CUresult f_cuMemcpyPeerAsync(CUdeviceptr dst, struct ctx *dc, CUdeviceptr src, struct ctx *sc, size_t n,
		struct stream *s) {
	if (!dc || !sc) return INVALID_CONTEXT;
	if (defect("peer-copy-deferred")) {
		NEED_CTX();
		stream_of(s)->def_dst = dst, stream_of(s)->def_src = src, stream_of(s)->def_n = n;
		return OK;
	}
	CUresult r = f_cuMemcpyAsync(dst, src, n, s);
	if (r == OK) corrupt_peer_copy(dst, n);
	return r;
}

static CUresult f_cuPointerGetAttribute(void *data, int attr, CUdeviceptr p) {
	NEED_CTX();
	struct alloc *a = find_alloc(p);
	if (!a) return INVALID_VALUE;
	switch (attr) {
	case 1: *(struct ctx **)data = &ctxs[a->dev]; break;
	case 2: *(unsigned int *)data = a->kind == KIND_DEVICE ? 2 : 1; break;
	case 9: *(int *)data = defect("uva-owner-wrong") ? 0 : a->dev; break;
	case 8: *(unsigned char *)data = (a->flags & FLAG_MANAGED) != 0; break; // C bool
	case 10: *(unsigned char *)data = a->kind == KIND_DEVICE && !(a->flags & FLAG_MANAGED); break; // C bool: one byte
	case 11: *(void **)data = a->base; break;
	case 12: *(size_t *)data = a->size; break;
	case 13: *(unsigned char *)data = 1; break;
	default: return INVALID_VALUE;
	}
	return OK;
}

// ---- peers ----------------------------------------------------------------

static int can_access(CUdevice a, CUdevice b) { return a != b && !getenv("FAKECUDA_NO_P2P"); }
static CUresult f_cuDeviceCanAccessPeer(int *v, CUdevice a, CUdevice b) {
	NEED_INIT();
	if (bad_dev(a) || bad_dev(b)) return INVALID_DEVICE;
	*v = can_access(a, b) || (a == b && defect("self-peer"));
	return OK;
}
static CUresult f_cuCtxEnablePeerAccess(struct ctx *peer, unsigned int flags) {
	NEED_CTX();
	if (flags != 0) return INVALID_VALUE;
	if (!peer || peer < ctxs || peer >= ctxs + MAXDEV || !peer->retained) return INVALID_CONTEXT;
	if (!can_access(current->dev, peer->dev)) return PEER_ACCESS_UNSUPPORTED; // also for peer == current (observed)
	if (current->peer[peer->dev]) return PEER_ACCESS_ALREADY_ENABLED;
	if (!defect("peer-access-ignored")) current->peer[peer->dev] = 1;
	if (defect("enable-is-bidirectional")) peer->peer[current->dev] = 1;
	return OK;
}
static CUresult f_cuCtxDisablePeerAccess(struct ctx *peer) {
	NEED_CTX();
	if (!peer || peer < ctxs || peer >= ctxs + MAXDEV) return INVALID_CONTEXT;
	if (!current->peer[peer->dev]) return PEER_ACCESS_NOT_ENABLED;
	if (!defect("disable-keeps-access")) current->peer[peer->dev] = 0;
	return OK;
}
static CUresult f_cuDeviceGetP2PAttribute(int *v, int attr, CUdevice src, CUdevice dst) {
	NEED_INIT();
	if (bad_dev(src) || bad_dev(dst) || src == dst) return INVALID_DEVICE;
	if (!v || attr < 1 || attr > (driver_version() >= 13000 ? 5 : 4)) return INVALID_VALUE;
	if (getenv("FAKECUDA_REALISTIC")) {
		int can = can_access(src, dst);
		// PERFORMANCE_RANK, ACCESS_SUPPORTED, NATIVE_ATOMIC, CUDA_ARRAY, ONLY_PARTIAL
		int vals[6] = {0, 0, can, can, can, 0};
		*v = vals[attr];
		return OK;
	}
	*v = attr * 10000 + src * 100 + dst;
	return OK;
}
static CUresult f_cuDeviceGetP2PAtomicCapabilities(unsigned int *caps, const int *ops, unsigned int n,
		CUdevice src, CUdevice dst) {
	NEED_INIT();
	if (bad_dev(src) || bad_dev(dst) || src == dst) return INVALID_DEVICE;
	if (!caps || !ops || n == 0) return INVALID_VALUE;
	for (unsigned int i = 0; i < n; i++) {
		if (ops[i] < 0 || ops[i] >= 13) return INVALID_VALUE;
		caps[i] = (unsigned int)(ops[i] + 1) | (unsigned int)src << 8 | (unsigned int)dst << 12;
		if (getenv("FAKECUDA_REALISTIC")) // every type of every operation: signed, unsigned, scalar 32 and 64
			caps[i] = can_access(src, dst) && !defect("atomic-masks-zero") ? 0x1 | 0x2 | 0x8 | 0x10 : 0;
	}
	return OK;
}
static CUresult f_cuDeviceGetHostAtomicCapabilities(unsigned int *caps, const int *ops, unsigned int n, CUdevice d) {
	NEED_INIT();
	if (bad_dev(d)) return INVALID_DEVICE;
	if (!caps || !ops || n == 0) return INVALID_VALUE;
	for (unsigned int i = 0; i < n; i++) {
		if (ops[i] < 0 || ops[i] >= 13) return INVALID_VALUE;
		caps[i] = (unsigned int)(ops[i] + 1) | (unsigned int)d << 8;
	}
	return OK;
}

// ---- legacy IPC -------------------------------------------------------------

// Handles encode a pointer in all 64 bytes, so a truncated or reordered copy
// of the by-value argument is detected.
static void encode(char *h, uint64_t v) {
	for (int i = 0; i < 64; i++) h[i] = (char)(((v >> (i % 8 * 8)) & 0xff) ^ (unsigned)(i * 7 + 3));
}
static int decode(const char *h, uint64_t *v) {
	*v = 0;
	for (int i = 0; i < 8; i++) *v |= (uint64_t)((unsigned char)h[i] ^ (unsigned)(i * 7 + 3)) << (i * 8);
	char check[64];
	encode(check, *v);
	return memcmp(check, h, defect("ipc-handle-unchecked") ? 8 : 64) == 0;
}
static CUresult f_cuIpcGetMemHandle(CUipcMemHandle *h, CUdeviceptr p) {
	NEED_CTX();
	struct alloc *a = find_alloc(p);
	if (!a || a->kind != KIND_DEVICE || (CUdeviceptr)a->base != p || a->imported) return INVALID_VALUE;
	if (a->fd >= 0) { // realistic: process, device and descriptor
		a->flags |= 0x100; // exported
		encode(h->reserved, 0xc0de000000000000ull | (uint64_t)getpid() << 24 | (uint64_t)a->dev << 16 | (uint64_t)a->fd);
		return OK;
	}
	encode(h->reserved, p);
	return OK;
}
static CUresult f_cuIpcOpenMemHandle_v2(CUdeviceptr *p, CUipcMemHandle h, unsigned int flags) {
	NEED_CTX();
	uint64_t v;
	if (!decode(h.reserved, &v)) return INVALID_HANDLE;
	if (flags != 1) return INVALID_VALUE;
	if ((v >> 48) == 0xc0de) { // a realistic handle: open the exporter's memory
		pid_t pid = (pid_t)((v >> 24) & 0xffffff);
		int dev = (int)((v >> 16) & 0xff), fd = (int)(v & 0xffff);
		if (pid == getpid() && !defect("ipc-same-process-opens")) return INVALID_CONTEXT;
		char path[64];
		snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)pid, fd);
		int f = open(path, O_RDWR);
		struct stat st;
		if (f < 0 || fstat(f, &st) != 0) return INVALID_HANDLE;
		if (defect("ipc-import-private")) { // a copy, not the memory
			int c = memfd_create("fakecuda-ipc-copy", 0);
			void *src = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, f, 0);
			if (c < 0 || src == MAP_FAILED || ftruncate(c, st.st_size) != 0 || write(c, src, (size_t)st.st_size) != st.st_size) return 2;
			munmap(src, (size_t)st.st_size);
			close(f);
			f = c;
		}
		pthread_mutex_lock(&mu);
		struct alloc *a = NULL;
		for (int i = 0; i < MAXOBJ && !a; i++)
			if (!allocs[i].base) a = &allocs[i];
		void *m = a ? mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, f, 0) : MAP_FAILED;
		if (m != MAP_FAILED) *a = (struct alloc){m, (size_t)st.st_size, KIND_DEVICE, dev, 0, 1, f, 1};
		pthread_mutex_unlock(&mu);
		if (m == MAP_FAILED) return 2;
		current->peer[dev] = 1; // CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS
		*p = (CUdeviceptr)m;
		return OK;
	}
	struct alloc *a = find_alloc(v);
	if (!a) return INVALID_HANDLE;
	// A real driver refuses the exporting process (observed: 201); the
	// binding's tests open their own handles, so only the realistic mode does.
	if (getenv("FAKECUDA_REALISTIC") && !defect("ipc-same-process-opens")) return INVALID_CONTEXT;
	a->ipc_open++;
	*p = v;
	return OK;
}
static CUresult f_cuIpcOpenMemHandle_v1(CUdeviceptr *p, CUipcMemHandle h, unsigned int flags) {
	(void)p; (void)h; (void)flags;
	return LEGACY_ABI_CALLED;
}
static CUresult f_cuIpcCloseMemHandle(CUdeviceptr p) {
	NEED_CTX();
	struct alloc *a = find_alloc(p);
	if (!a || a->ipc_open == 0) return INVALID_VALUE;
	if (a->imported) { // unmap: the exporter's memory stays
		if (defect("ipc-close-clobbers")) memset(a->base, 0, a->size);
		munmap(a->base, a->size);
		close(a->fd);
		a->base = NULL;
		return OK;
	}
	a->ipc_open--;
	return OK;
}
static CUresult f_cuIpcGetEventHandle(CUipcEventHandle *h, struct event *e) {
	NEED_CTX();
	if (!e || e->magic != EVENT_MAGIC) return INVALID_HANDLE;
	if (!(e->flags & 4) && !defect("ipc-event-flags-ignored")) return INVALID_VALUE;
	if (getenv("FAKECUDA_REALISTIC")) { // names the process: another one opens an event of its own
		encode(h->reserved, 0xe7e0000000000000ull | (uint64_t)getpid());
		return OK;
	}
	encode(h->reserved, (uint64_t)(uintptr_t)e);
	return OK;
}
static CUresult f_cuIpcOpenEventHandle(struct event **e, CUipcEventHandle h) {
	NEED_CTX();
	uint64_t v;
	if (!decode(h.reserved, &v)) return INVALID_HANDLE;
	if ((v >> 48) == 0xe7e0) { // work completes when queued here, so a local event will do
		if ((pid_t)(v & 0xffffff) == getpid()) return INVALID_CONTEXT;
		*e = calloc(1, sizeof **e);
		(*e)->magic = EVENT_MAGIC;
		(*e)->flags = 4 | 2;
		(*e)->recorded = 1;
		(*e)->ctx = current;
		return OK;
	}
	*e = (struct event *)(uintptr_t)v;
	return OK;
}

// ---- VMM ------------------------------------------------------------------

// owner is the device the memory is on, imported whether this process got
// it from a descriptor: both for the device-wide count only.
struct handle { int fd, refs, dev, types; size_t size; int owner, imported; };
struct mapping { char *base; size_t size; int handle; unsigned char access[MAXDEV]; };
static struct handle handles[MAXOBJ];     // index+1 is the CUmemGenericAllocationHandle

// vmm_held is the memory of the VMM allocations this process still holds.
static size_t vmm_held(void) {
	size_t n = 0;
	int shared = getenv("FAKECUDA_SHARED_DIR") != NULL;
	for (int i = 0; i < MAXOBJ; i++) {
		if (handles[i].refs > 0 && !shared) n += handles[i].size;
		if (allocs[i].base && allocs[i].fd >= 0 && !allocs[i].imported) n += allocs[i].size;
	}
	return n;
}

// shared_path names a file of FAKECUDA_SHARED_DIR (NULL when it is unset).
static const char *shared_path(char *buf, size_t n, const char *fmt, long v) {
	const char *dir = getenv("FAKECUDA_SHARED_DIR");
	if (!dir || !getenv("FAKECUDA_REALISTIC")) return NULL;
	char name[64];
	snprintf(name, sizeof name, fmt, v);
	snprintf(buf, n, "%s/%s", dir, name);
	return buf;
}

// shared_lock takes the lock of FAKECUDA_SHARED_DIR (flock on its file
// "lock"); shared_unlock gives it back.
static int shared_lock(void) {
	char p[4096];
	if (!shared_path(p, sizeof p, "lock", 0)) return -1;
	int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0) flock(fd, LOCK_EX);
	return fd;
}
static void shared_unlock(int fd) {
	if (fd >= 0) close(fd); // releases the flock
}

// publish_vmm rewrites this process's held.<pid>: one "device inode size"
// line for each VMM allocation it holds.
static void publish_vmm(void) {
	char p[4096];
	if (!shared_path(p, sizeof p, "held.%ld", (long)getpid())) return;
	int lock = shared_lock();
	FILE *f = fopen(p, "w");
	if (f) {
		for (int i = 0; i < MAXOBJ; i++) {
			struct stat st;
			if (handles[i].refs > 0 && fstat(handles[i].fd, &st) == 0)
				fprintf(f, "%d %llu %zu\n", handles[i].owner, (unsigned long long)st.st_ino, handles[i].size);
		}
		fclose(f);
	}
	shared_unlock(lock);
}

// shared_held is the VMM memory of dev that live processes hold, each inode
// counted once; an inode marked freed.<inode> is gone (defect).
static size_t shared_held(int dev) {
	char p[4096];
	if (!shared_path(p, sizeof p, ".", 0)) return 0;
	unsigned long long seen[4 * MAXOBJ];
	int nseen = 0;
	size_t n = 0;
	int lock = shared_lock();
	DIR *d = opendir(getenv("FAKECUDA_SHARED_DIR"));
	struct dirent *e;
	while (d && (e = readdir(d)) != NULL) {
		long pid;
		if (sscanf(e->d_name, "held.%ld", &pid) != 1 || (kill((pid_t)pid, 0) != 0 && errno == ESRCH)) continue;
		char q[4096];
		FILE *f = fopen(shared_path(q, sizeof q, "held.%ld", pid), "r");
		int owner;
		unsigned long long ino;
		size_t size;
		while (f && fscanf(f, "%d %llu %zu", &owner, &ino, &size) == 3) {
			char m[4096];
			int dup = 0;
			for (int i = 0; i < nseen; i++) dup |= seen[i] == ino;
			if (owner != dev || dup || access(shared_path(m, sizeof m, "freed.%ld", (long)ino), F_OK) == 0) continue;
			if (nseen < 4 * MAXOBJ) seen[nseen++] = ino;
			n += size;
		}
		if (f) fclose(f);
	}
	if (d) closedir(d);
	shared_unlock(lock);
	return n;
}
static struct mapping mappings[MAXOBJ];

static int bad_prop(const CUmemAllocationProp *p) {
	static const unsigned char zero[4];
	return !p || p->type != 1 || p->location.type != 1 || bad_dev(p->location.id) || p->win32HandleMetaData ||
		(p->requestedHandleTypes & ~9) || memcmp(p->reserved, zero, 4) != 0;
}
static struct handle *handle_of(CUmemGenericAllocationHandle h) {
	if (h == 0 || h > MAXOBJ || handles[h - 1].refs == 0) return NULL;
	return &handles[h - 1];
}
static CUmemGenericAllocationHandle new_handle(int fd, size_t size, int dev, int types) {
	for (int i = 0; i < MAXOBJ; i++)
		if (handles[i].refs == 0) {
			handles[i] = (struct handle){fd, 1, dev, types, size};
			return (CUmemGenericAllocationHandle)i + 1;
		}
	return 0;
}
static CUresult f_cuMemGetAllocationGranularity(size_t *g, const CUmemAllocationProp *p, int opt) {
	NEED_INIT();
	if (bad_prop(p) || opt < 0 || opt > 1) return INVALID_VALUE;
	*g = opt == 0 ? GRAN : 2 * GRAN; // distinct, so the option is seen to arrive
	return OK;
}
static CUresult f_cuMemCreate(CUmemGenericAllocationHandle *h, size_t n, const CUmemAllocationProp *p,
		unsigned long long flags) {
	NEED_CTX();
	if (bad_prop(p) || flags != 0 || n == 0 || (n % GRAN && !defect("vmm-create-any-size"))) return INVALID_VALUE;
	char name[32]; // names the device, for an importer's count (owner_of)
	snprintf(name, sizeof name, "fakecuda-vmm-dev%d", p->location.id);
	int fd = memfd_create(name, MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)n) != 0) return 2;
	*h = new_handle(fd, n, p->location.id, p->requestedHandleTypes);
	if (!*h) return 2;
	handles[*h - 1].owner = p->location.id;
	publish_vmm();
	return OK;
}
static CUresult f_cuMemRelease(CUmemGenericAllocationHandle h) {
	NEED_CTX();
	struct handle *hd = handle_of(h);
	if (!hd) return INVALID_VALUE;
	if (defect("vmm-release-frees"))
		for (int i = 0; i < MAXOBJ; i++)
			if (mappings[i].base && mappings[i].handle == (int)h) { // the pages go; the range stays mapped
				mmap(mappings[i].base, mappings[i].size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
				hd->refs--;
			}
	if (hd->refs == 1 && !hd->imported && defect("vmm-release-frees-imported")) { // gone for every importer too
		struct stat st;
		char m[4096];
		if (fstat(hd->fd, &st) == 0 && shared_path(m, sizeof m, "freed.%ld", (long)st.st_ino)) close(open(m, O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
		if (ftruncate(hd->fd, 0) != 0 || ftruncate(hd->fd, (off_t)hd->size) != 0) return 2;
	}
	if (--hd->refs == 0) close(hd->fd);
	publish_vmm();
	return OK;
}
static CUresult f_cuMemAddressReserve(CUdeviceptr *p, size_t n, size_t align, CUdeviceptr addr,
		unsigned long long flags) {
	NEED_CTX();
	if (n == 0 || n % GRAN || flags != 0 || (align & (align - 1))) return INVALID_VALUE;
	void *v = mmap((void *)addr, n, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (v == MAP_FAILED) return 2;
	*p = (CUdeviceptr)v;
	return OK;
}
static CUresult f_cuMemAddressFree(CUdeviceptr p, size_t n) {
	NEED_CTX();
	return munmap((void *)p, n) == 0 ? OK : INVALID_VALUE;
}
static struct mapping *find_mapping(CUdeviceptr p) {
	for (int i = 0; i < MAXOBJ; i++)
		if (mappings[i].base && (char *)p >= mappings[i].base && (char *)p < mappings[i].base + mappings[i].size)
			return &mappings[i];
	return NULL;
}
static CUresult f_cuMemMap(CUdeviceptr p, size_t n, size_t off, CUmemGenericAllocationHandle h,
		unsigned long long flags) {
	NEED_CTX();
	struct handle *hd = handle_of(h);
	if (!hd || off != 0 || flags != 0 || n > hd->size || n % GRAN || find_mapping(p)) return INVALID_VALUE;
	for (int i = 0; i < MAXOBJ; i++)
		if (!mappings[i].base) {
			if (mmap((void *)p, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, hd->fd, 0) == MAP_FAILED) return 205;
			mappings[i] = (struct mapping){(char *)p, n, (int)h, {0}};
			if (defect("vmm-access-before-set")) mappings[i].access[hd->dev] = 3;
			if (defect("vmm-access-per-allocation"))
				for (int j = 0; j < MAXOBJ; j++)
					if (j != i && mappings[j].base && mappings[j].handle == (int)h)
						memcpy(mappings[i].access, mappings[j].access, sizeof mappings[i].access);
			hd->refs++; // a mapping keeps the memory alive
			return OK;
		}
	return 2;
}
static CUresult f_cuMemUnmap(CUdeviceptr p, size_t n) {
	NEED_CTX();
	struct mapping *m = find_mapping(p);
	if (!m || (CUdeviceptr)m->base != p || m->size != n) return INVALID_VALUE;
	mmap((void *)p, n, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
	struct handle *hd = handle_of((CUmemGenericAllocationHandle)m->handle);
	if (hd && --hd->refs == 0) close(hd->fd);
	m->base = NULL;
	publish_vmm();
	return OK;
}
static CUresult f_cuMemSetAccess(CUdeviceptr p, size_t n, const CUmemAccessDesc *d, size_t count) {
	NEED_CTX();
	struct mapping *m = find_mapping(p);
	if (!m || !d || count == 0 || (char *)p + n > m->base + m->size) return INVALID_VALUE;
	for (size_t i = 0; i < count; i++) {
		if (d[i].location.type != 1 || bad_dev(d[i].location.id)) return INVALID_DEVICE;
		if (d[i].flags != 0 && d[i].flags != 1 && d[i].flags != 3) return INVALID_VALUE;
	}
	for (size_t i = 0; i < count; i++) {
		struct handle *hd = handle_of((CUmemGenericAllocationHandle)m->handle);
		if (defect("vmm-grant-ignored") && hd && d[i].location.id != hd->dev) continue;
		m->access[d[i].location.id] = (unsigned char)d[i].flags;
		if (defect("vmm-access-per-allocation"))
			for (int j = 0; j < MAXOBJ; j++)
				if (mappings[j].base && mappings[j].handle == m->handle) mappings[j].access[d[i].location.id] = (unsigned char)d[i].flags;
	}
	return OK;
}
static CUresult f_cuMemGetAccess(unsigned long long *flags, const CUmemLocation *loc, CUdeviceptr p) {
	NEED_CTX();
	struct mapping *m = find_mapping(p);
	if (!m || !loc || loc->type != 1 || bad_dev(loc->id)) return INVALID_VALUE;
	*flags = m->access[loc->id];
	return OK;
}
static CUresult f_cuMemExportToShareableHandle(void *out, CUmemGenericAllocationHandle h, int type,
		unsigned long long flags) {
	NEED_CTX();
	struct handle *hd = handle_of(h);
	if (!hd || flags != 0 || !(hd->types & type)) return INVALID_VALUE;
	if (type == 1) {
		*(int *)out = dup(hd->fd);
		return OK;
	}
	if (type == 8) {
		encode(out, 0xfab0000000000000ull | h);
		return OK;
	}
	return INVALID_VALUE;
}
// owner_of reads the device of an imported memfd from its name
// (fakecuda-vmm-dev<N>, cuMemCreate's); 0 when it has none.
static int owner_of(int fd) {
	char p[64], target[256];
	snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(p, target, sizeof target - 1);
	if (n <= 0) return 0;
	target[n] = 0;
	const char *at = strstr(target, "fakecuda-vmm-dev");
	return at ? atoi(at + strlen("fakecuda-vmm-dev")) : 0;
}
static CUresult f_cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *h, void *os, int type) {
	NEED_CTX();
	if (type == 1) {
		int fd = (int)(uintptr_t)os;
		struct stat st;
		if (fstat(fd, &st) != 0 && defect("fd-number-imports")) {
			int f = memfd_create("fakecuda-vmm", MFD_CLOEXEC);
			if (f < 0 || ftruncate(f, GRAN) != 0) return 2;
			*h = new_handle(f, GRAN, 0, 1);
			return *h ? OK : 2;
		}
		if (fstat(fd, &st) != 0) return UNKNOWN; // observed for a number that is no open fd
		int mine = dup(fd);
		if (defect("vmm-import-private")) { // a copy of the contents, not the memory
			int f = memfd_create("fakecuda-vmm-copy", MFD_CLOEXEC);
			void *src = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
			if (f < 0 || src == MAP_FAILED || ftruncate(f, st.st_size) != 0 || write(f, src, (size_t)st.st_size) != st.st_size) return 2;
			munmap(src, (size_t)st.st_size);
			close(mine);
			mine = f;
		}
		*h = new_handle(mine, (size_t)st.st_size, 0, 1);
		if (!*h) return 2;
		handles[*h - 1].owner = owner_of(mine);
		handles[*h - 1].imported = 1;
		publish_vmm();
		return OK;
	}
	if (type == 8) {
		uint64_t v;
		if (!decode(os, &v) || (v >> 48) != 0xfab0) return INVALID_VALUE;
		struct handle *hd = handle_of(v & 0xffff);
		if (!hd) return INVALID_VALUE;
		hd->refs++;
		*h = v & 0xffff;
		return OK;
	}
	return INVALID_VALUE;
}
static CUresult f_cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *h, void *addr) {
	NEED_CTX();
	struct mapping *m = find_mapping((CUdeviceptr)addr);
	if (!m) return INVALID_VALUE;
	handles[m->handle - 1].refs++;
	*h = (CUmemGenericAllocationHandle)m->handle;
	return OK;
}

// ---- modules and launch -----------------------------------------------------

struct module { int magic; char *image; int level; };
struct function { int magic; char name[128]; int nlocs; int level; };
#define MODULE_MAGIC 0x4d4d
#define FUNCTION_MAGIC 0x4646

// The JIT requires exactly the binding's log options, in its order.
static CUresult f_cuModuleLoadDataEx(struct module **m, const void *image, unsigned int n, int *opts, void **vals) {
	NEED_CTX();
	static const int want[5] = {5, 6, 3, 4, 12};
	if ((n != 5 && n != 6) || memcmp(opts, want, sizeof want) != 0) return INVALID_VALUE;
	if (n == 6 && (opts[5] != 7 /* CU_JIT_OPTIMIZATION_LEVEL */ || (uintptr_t)vals[5] > 4)) return INVALID_VALUE;
	char *errlog = vals[0], *infolog = vals[2];
	size_t errsize = (size_t)(uintptr_t)vals[1], infosize = (size_t)(uintptr_t)vals[3];
	if (!errlog || !infolog || errsize < 64 || infosize < 64 || (uintptr_t)vals[4] != 1) return INVALID_VALUE;
	const char *text = image;
	if (strstr(text, "FAKE_INVALID_PTX")) {
		int w = snprintf(errlog, errsize, "ptxas application ptx input, line 3; fatal   : fake syntax error");
		vals[1] = (void *)(uintptr_t)(w + 1);
		return INVALID_PTX;
	}
	if (!strstr(text, ".entry")) return INVALID_IMAGE;
	logf_("module_load %zu device %d level %d", strlen(text), current->dev, n == 6 ? (int)(uintptr_t)vals[5] : -1);
	int w = snprintf(infolog, infosize, "ptxas info    : fake JIT compiled %zu bytes", strlen(text));
	vals[3] = (void *)(uintptr_t)(w + 1);
	*m = calloc(1, sizeof **m);
	(*m)->magic = MODULE_MAGIC;
	(*m)->image = strdup(text);
	(*m)->level = n == 6 ? (int)(uintptr_t)vals[5] : -1;
	return OK;
}
static CUresult f_cuModuleGetFunction(struct function **f, struct module *m, const char *name) {
	NEED_CTX();
	if (!m || m->magic != MODULE_MAGIC) return INVALID_HANDLE;
	char pat[160];
	snprintf(pat, sizeof pat, ".entry %s(", name);
	if (!strstr(m->image, pat)) {
		snprintf(pat, sizeof pat, ".entry %s ", name);
		if (!strstr(m->image, pat)) return NOT_FOUND;
	}
	*f = calloc(1, sizeof **f);
	(*f)->magic = FUNCTION_MAGIC;
	snprintf((*f)->name, sizeof (*f)->name, "%s", name);
	(*f)->level = m->level;
	if (strncmp(name, "litmus_", 7) == 0) // a harness/litmus kernel: its location parameters come first
		for (const char *p = m->image; (p = strstr(p, ".param .u64 lt_loc")) != NULL; p++) (*f)->nlocs++;
	return OK;
}
static CUresult f_cuModuleUnload(struct module *m) {
	NEED_CTX();
	if (!m || m->magic != MODULE_MAGIC) return INVALID_HANDLE;
	m->magic = 0;
	free(m->image);
	free(m);
	return OK;
}

// A link state compiles PTX into a "cubin": here the text "FAKECUBIN sm_90",
// a newline and the PTX, so a test can see what was compiled. The link keeps
// the binding's log buffers, as the driver does, until cuLinkDestroy. A
// sixth option, CU_JIT_OPTIMIZATION_LEVEL (7), shows in the cubin's first
// line as " O<level>".
struct link { int magic; char *errlog, *infolog; size_t errsize, infosize; char *ptx, *cubin; int level; };
#define LINK_MAGIC 0x4c4c
static CUresult f_cuLinkCreate_v2(unsigned int n, int *opts, void **vals, struct link **state) {
	NEED_CTX();
	static const int want[5] = {5, 6, 3, 4, 12};
	if ((n != 5 && n != 6) || memcmp(opts, want, sizeof want) != 0 || !state) return INVALID_VALUE;
	if (n == 6 && (opts[5] != 7 || (uintptr_t)vals[5] > 4)) return INVALID_VALUE;
	struct link *l = calloc(1, sizeof *l);
	l->magic = LINK_MAGIC;
	l->level = n == 6 ? (int)(uintptr_t)vals[5] : -1;
	l->errlog = vals[0], l->errsize = (size_t)(uintptr_t)vals[1];
	l->infolog = vals[2], l->infosize = (size_t)(uintptr_t)vals[3];
	if (!l->errlog || !l->infolog || l->errsize < 64 || l->infosize < 64 || (uintptr_t)vals[4] != 1) {
		free(l);
		return INVALID_VALUE;
	}
	*state = l;
	return OK;
}
static CUresult f_cuLinkAddData_v2(struct link *l, int type, void *data, size_t size, const char *name,
		unsigned int n, int *opts, void **vals) {
	NEED_CTX();
	(void)opts, (void)vals;
	if (!l || l->magic != LINK_MAGIC) return INVALID_HANDLE;
	if (type != 1 || !data || size == 0 || ((char *)data)[size - 1] != 0 || !name || n != 0) return INVALID_VALUE;
	if (strstr(data, "FAKE_INVALID_PTX")) {
		snprintf(l->errlog, l->errsize, "ptxas application ptx input, line 3; fatal   : fake syntax error in %s", name);
		return INVALID_PTX;
	}
	free(l->ptx);
	l->ptx = strdup(data);
	return OK;
}
static CUresult f_cuLinkComplete(struct link *l, void **cubin, size_t *size) {
	NEED_CTX();
	if (!l || l->magic != LINK_MAGIC) return INVALID_HANDLE;
	if (!l->ptx || !cubin || !size) return INVALID_VALUE;
	free(l->cubin);
	size_t n = strlen(l->ptx) + 32;
	l->cubin = malloc(n);
	if (l->level >= 0)
		*size = (size_t)snprintf(l->cubin, n, "FAKECUBIN sm_90 O%d\n%s", l->level, l->ptx);
	else
		*size = (size_t)snprintf(l->cubin, n, "FAKECUBIN sm_90\n%s", l->ptx);
	*cubin = l->cubin;
	snprintf(l->infolog, l->infosize, "ptxas info    : fake JIT linked %zu bytes", strlen(l->ptx));
	logf_("link_complete %zu device %d", strlen(l->ptx), current->dev);
	return OK;
}
static CUresult f_cuLinkDestroy(struct link *l) {
	NEED_CTX();
	if (!l || l->magic != LINK_MAGIC) return INVALID_HANDLE;
	l->magic = 0;
	free(l->ptx);
	free(l->cubin);
	free(l);
	return OK;
}

// reachable says whether a kernel of the current context may touch n bytes
// at p: its own device memory, a peer's with peer access enabled, pinned
// host memory.
static int reachable_for(uint64_t p, uint64_t n, int write) {
	struct mapping *m = find_mapping((CUdeviceptr)p);
	if (m) // VMM: what cuMemSetAccess granted this device
		return (char *)(uintptr_t)p + n <= m->base + m->size &&
			(m->access[current->dev] & (write && !defect("vmm-read-only-writable") ? 2 : 1));
	struct alloc *a = find_alloc((CUdeviceptr)p);
	if (!a || (char *)(uintptr_t)p + n > a->base + a->size) return 0;
	return a->kind == KIND_HOST || a->dev == current->dev || current->peer[a->dev];
}
static int reachable(uint64_t p, uint64_t n) { return reachable_for(p, n, 1); }
static int readable(uint64_t p, uint64_t n) { return reachable_for(p, n, 0); }
static uint32_t pattern_word(uint32_t seed, uint64_t i) {
	uint32_t x = (uint32_t)i * 0x9E3779B9u ^ (uint32_t)(i >> 32) * 0x85EBCA6Bu ^ seed;
	x ^= x >> 16;
	x *= 0x7FEB352Du;
	x ^= x >> 15;
	x *= 0x846CA68Bu;
	x ^= x >> 16;
	if (x == 0 || x == 0xDEADBEEFu) x ^= 1;
	return x;
}
#define ARG(i, T) (*(T *)params[i])

// A host-handoff kernel (hd_to_host, hd_from_host) as a thread.
struct handoff { int to_host; uint32_t *data, *flag, *ack, words, rounds, *status; uint64_t timeout_ns; struct stream *s; };
static uint32_t flag_word(uint32_t seed, uint32_t i) { return i * 0x9E3779B1u ^ seed * 0x85EBCA6Bu; }
static int wait_at_least(uint32_t *w, uint32_t r, uint64_t timeout_ns) {
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (__atomic_load_n(w, __ATOMIC_ACQUIRE) < r) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((uint64_t)(t.tv_sec - t0.tv_sec) * 1000000000ull + (uint64_t)(t.tv_nsec - t0.tv_nsec) > timeout_ns) return 0;
		sched_yield();
	}
	return 1;
}
static void *run_handoff(void *arg) {
	struct handoff *h = arg;
	uint32_t stale = 0, first = 0, r;
	int stale_defect = defect("handoff-stale");
	for (r = 1; r <= h->rounds; r++) {
		if (h->to_host) {
			if (stale_defect) __atomic_store_n(h->flag, r, __ATOMIC_RELEASE), usleep(50);
			for (uint32_t j = 0; j < h->words; j++) __atomic_store_n(&h->data[j], flag_word(r, j), __ATOMIC_RELAXED);
			if (!stale_defect) __atomic_store_n(h->flag, r, __ATOMIC_RELEASE);
			if (!wait_at_least(h->ack, r, h->timeout_ns)) break;
		} else {
			uint32_t seen[256];
			if (stale_defect)
				for (uint32_t j = 0; j < h->words && j < 256; j++) seen[j] = __atomic_load_n(&h->data[j], __ATOMIC_RELAXED);
			if (!wait_at_least(h->flag, r, h->timeout_ns)) break;
			for (uint32_t j = 0; j < h->words && j < 256; j++) {
				if (!stale_defect) seen[j] = __atomic_load_n(&h->data[j], __ATOMIC_RELAXED);
				if (seen[j] != flag_word(r, j)) {
					stale++;
					if (!first) first = r;
				}
			}
			__atomic_store_n(h->ack, r, __ATOMIC_RELEASE);
		}
	}
	h->status[0] = r > h->rounds ? 1 : 2; // HandoffDone, HandoffTimedOut
	h->status[1] = r > h->rounds ? h->rounds : r;
	if (!h->to_host) h->status[2] = stale, h->status[3] = first;
	__atomic_store_n(&h->s->busy, 0, __ATOMIC_SEQ_CST);
	free(h);
	return NULL;
}
// The counter-as-flag consumer (caf_consume) as a thread: it waits for the
// counter to reach its target (bounded), then counts the stale data words.
struct consume { uint32_t *data, n, seed, *counter, target, *result, threads; uint64_t timeout_ns; struct stream *s; };
static void *run_consume(void *arg) {
	struct consume *c = arg;
	if (!wait_at_least(c->counter, c->target, c->timeout_ns)) c->result[2] = c->threads;
	else
		for (uint32_t i = 0; i < c->n; i++)
			if (__atomic_load_n(&c->data[i], __ATOMIC_ACQUIRE) != flag_word(c->seed, i)) {
				c->result[0]++;
				if (i < c->result[1]) c->result[1] = i;
			}
	__atomic_store_n(&c->s->busy, 0, __ATOMIC_SEQ_CST);
	free(c);
	return NULL;
}
// run_basic_kernel runs a kernel of kernels/basic.ptx on the host; a fault
// is left on the stream. It returns 0 for any other kernel.
static int run_basic_kernel(const char *name, void **params, struct stream *s) {
	if (strcmp(name, "empty") == 0) return 1;
	if (!params) return 0;
	if (strcmp(name, "fill") == 0) {
		uint64_t dst = ARG(0, uint64_t), n = ARG(1, uint64_t);
		uint32_t seed = ARG(2, uint32_t);
		if (!reachable(dst, 4 * n)) { s->fault = 700; return 1; }
		for (uint64_t i = 0; i < n; i++) ((uint32_t *)(uintptr_t)dst)[i] = pattern_word(seed, i);
		return 1;
	}
	if (strcmp(name, "verify") == 0) {
		uint64_t src = ARG(0, uint64_t), n = ARG(1, uint64_t), res = ARG(3, uint64_t);
		uint32_t seed = ARG(2, uint32_t), *r = (uint32_t *)(uintptr_t)res;
		if (!readable(src, 4 * n) || !reachable(res, 8)) { s->fault = 700; return 1; }
		for (uint64_t i = 0; i < n; i++)
			if (((uint32_t *)(uintptr_t)src)[i] != pattern_word(seed, i)) {
				r[0]++;
				if (i < r[1]) r[1] = i < 0xFFFFFFFFu ? (uint32_t)i : 0xFFFFFFFEu;
			}
		return 1;
	}
	if (strcmp(name, "transform") == 0) {
		uint64_t dst = ARG(0, uint64_t), src = ARG(1, uint64_t), n = ARG(2, uint64_t);
		uint32_t add = ARG(3, uint32_t);
		if (!reachable(dst, 4 * n) || !readable(src, 4 * n)) { s->fault = 700; return 1; }
		for (uint64_t i = 0; i < n; i++) ((uint32_t *)(uintptr_t)dst)[i] = ((uint32_t *)(uintptr_t)src)[i] + add;
		return 1;
	}
	if (strcmp(name, "hd_to_host") == 0 || strcmp(name, "hd_from_host") == 0) {
		struct handoff *h = calloc(1, sizeof *h);
		h->to_host = name[3] == 't';
		h->data = (uint32_t *)(uintptr_t)ARG(0, uint64_t);
		h->flag = (uint32_t *)(uintptr_t)ARG(1, uint64_t);
		h->ack = (uint32_t *)(uintptr_t)ARG(2, uint64_t);
		h->words = ARG(3, uint32_t);
		h->rounds = ARG(4, uint32_t);
		h->status = (uint32_t *)(uintptr_t)ARG(5, uint64_t);
		h->timeout_ns = ARG(6, uint64_t);
		h->s = s;
		if (!reachable((uint64_t)(uintptr_t)h->data, 4 * h->words) || !reachable(ARG(5, uint64_t), 16)) { free(h); s->fault = 700; return 1; }
		pthread_t t;
		__atomic_store_n(&s->busy, 1, __ATOMIC_SEQ_CST);
		pthread_create(&t, NULL, run_handoff, h);
		pthread_detach(t);
		return 1;
	}
	if (strcmp(name, "mp_write") == 0) { // every instance at launch: the data, then the flag (mp-stale: the last word of instance 0 is left)
		uint64_t data = ARG(0, uint64_t), flags = ARG(1, uint64_t);
		uint32_t n = ARG(2, uint32_t), words = ARG(3, uint32_t), gen = ARG(4, uint32_t);
		if (!reachable(data, 128ull * n) || !reachable(flags, 128ull * n) || words > 32) { s->fault = 700; return 1; }
		for (uint32_t i = 0; i < n; i++) {
			for (uint32_t j = 0; j < words; j++)
				if (!(i == 0 && j == words - 1 && defect("mp-stale")))
					__atomic_store_n((uint32_t *)(uintptr_t)(data + 128ull * i + 4 * j), flag_word(gen, 32 * i + j), __ATOMIC_RELAXED);
			__atomic_store_n((uint32_t *)(uintptr_t)(flags + 128ull * i), gen, __ATOMIC_RELEASE);
		}
		return 1;
	}
	if (strcmp(name, "mp_read") == 0) { // every instance at launch, after the writer: counts as kernels.MPCounts
		uint64_t data = ARG(0, uint64_t), flags = ARG(1, uint64_t), counts = ARG(7, uint64_t);
		uint32_t n = ARG(2, uint32_t), words = ARG(3, uint32_t), gen = ARG(4, uint32_t), mult = ARG(5, uint32_t);
		if (n == 0 || !readable(data, 128ull * n) || !readable(flags, 128ull * n) || !reachable(counts, 16) || words > 32) { s->fault = 700; return 1; }
		uint32_t *c = (uint32_t *)(uintptr_t)counts;
		for (uint64_t tl = 0; tl < n; tl++) {
			uint32_t i = (uint32_t)(tl * mult % n), stale = 0;
			if (__atomic_load_n((uint32_t *)(uintptr_t)(flags + 128ull * i), __ATOMIC_ACQUIRE) != gen) { c[3]++; continue; }
			for (uint32_t j = 0; j < words; j++)
				if (__atomic_load_n((uint32_t *)(uintptr_t)(data + 128ull * i + 4 * j), __ATOMIC_RELAXED) != flag_word(gen, 32 * i + j)) stale++;
			c[0]++;
			if (stale) c[1]++, c[2] += stale;
		}
		return 1;
	}
	if (strcmp(name, "caf_consume") == 0) {
		struct consume *c = calloc(1, sizeof *c);
		c->data = (uint32_t *)(uintptr_t)ARG(0, uint64_t);
		c->n = ARG(1, uint32_t);
		c->seed = ARG(2, uint32_t);
		c->counter = (uint32_t *)(uintptr_t)ARG(3, uint64_t);
		c->target = ARG(4, uint32_t);
		c->result = (uint32_t *)(uintptr_t)ARG(5, uint64_t);
		c->timeout_ns = ARG(6, uint64_t);
		c->threads = 1;
		c->s = s;
		if (!readable((uint64_t)(uintptr_t)c->data, 4ull * c->n) || !reachable((uint64_t)(uintptr_t)c->counter, 4) ||
			!reachable((uint64_t)(uintptr_t)c->result, 12)) { free(c); s->fault = 700; return 1; }
		pthread_t t;
		__atomic_store_n(&s->busy, 1, __ATOMIC_SEQ_CST);
		pthread_create(&t, NULL, run_consume, c);
		pthread_detach(t);
		return 1;
	}
	if (strcmp(name, "caf_produce") == 0) { // the data, then the counter (with counter-before-data, the last word is left unwritten)
		uint64_t data = ARG(0, uint64_t), counter = ARG(3, uint64_t);
		uint32_t n = ARG(1, uint32_t), seed = ARG(2, uint32_t);
		if (!reachable(data, 4ull * n) || !reachable(counter, 4)) { s->fault = 700; return 1; }
		uint32_t written = n > 0 && defect("counter-before-data") ? n - 1 : n;
		for (uint32_t i = 0; i < written; i++) __atomic_store_n(&((uint32_t *)(uintptr_t)data)[i], flag_word(seed, i), __ATOMIC_RELAXED);
		__atomic_fetch_add((uint32_t *)(uintptr_t)counter, n / 16, __ATOMIC_RELEASE); // one per thread: 16 words each
		return 1;
	}
	if (strcmp(name, "wait_released") == 0) {
		uint64_t flag = ARG(0, uint64_t), status = ARG(2, uint64_t);
		if (!reachable(flag, 4) || !reachable(status, 8)) { s->fault = 700; return 1; }
		s->wait_flag = (volatile uint32_t *)(uintptr_t)flag;
		s->wait_status = (uint32_t *)(uintptr_t)status;
		s->polls = 0;
		return 1;
	}
	if (strcmp(name, "delay") == 0) {
		uint64_t status = ARG(1, uint64_t);
		if (!reachable(status, 4)) { s->fault = 700; return 1; }
		*(uint32_t *)(uintptr_t)status = 1;
		return 1;
	}
	return 0;
}

// run_litmus_kernel stands in for a harness/litmus kernel coarsely: the
// party marks every iteration done in its control record (so host threads
// pass their barriers) and the collecting party adds every instance of the
// launch (n × iters) to bin FAKECUDA_LITMUS_BIN (default 0) of the
// histogram; with the litmus-weak
// defect one of them lands in FAKECUDA_LITMUS_WEAK_BIN (default 1)
// instead. The stub does not run PTX, so which outcome a bin is, is up to
// the test that sets them.
static void run_litmus_kernel(struct function *f, void **params, struct stream *s) {
	int k = f->nlocs;
	uint64_t hist = ARG(k + 1, uint64_t), ctl = ARG(k + 2, uint64_t);
	uint32_t n = ARG(k + 5, uint32_t), iters = ARG(k + 6, uint32_t), party = ARG(k + 8, uint32_t), collect = ARG(k + 12, uint32_t);
	uint64_t epoch = ctl + 128ull * (1 + party); // this party's control record: every iteration done
	if (!reachable(epoch, 4)) { s->fault = 700; return; }
	__atomic_store_n((uint32_t *)(uintptr_t)epoch, iters, __ATOMIC_SEQ_CST);
	if (!collect) return;
	int bin = env_int("FAKECUDA_LITMUS_BIN", 0), weak = env_int("FAKECUDA_LITMUS_WEAK_BIN", 1);
	if (f->level == 0) bin = env_int("FAKECUDA_LITMUS_BIN_O0", bin);
	int top = bin > weak ? bin : weak;
	if (bin < 0 || weak < 0 || !reachable(hist, 8ull * (uint64_t)(top + 1))) { s->fault = 700; return; }
	uint64_t *h = (uint64_t *)(uintptr_t)hist, count = (uint64_t)n * iters;
	if (count > 0 && defect("litmus-weak")) h[weak]++, count--;
	h[bin] += count;
}

// run_contend stands in for atom_contend_sys (kernels/atomics.ptx): every
// thread applies its ops one after another, so the words come out exact;
// with the atomic-lost-update defect the first op of a launch returns the
// old value but its update is lost.
static void run_contend(void **params, uint64_t nl, struct stream *s) {
	uint64_t words = ARG(0, uint64_t), nwords = ARG(1, uint32_t), a = ARG(3, uint64_t), b = ARG(4, uint64_t), old = ARG(6, uint64_t);
	uint32_t sel = ARG(2, uint32_t), mode = ARG(5, uint32_t), tbase = ARG(7, uint32_t), tcount = ARG(8, uint32_t), iters = ARG(9, uint32_t);
	uint64_t status = ARG(11, uint64_t);
	if (nwords == 0 || !reachable(words, 8 * nwords) || !reachable(old, 8 * nl * iters) || !reachable(status, 12)) { s->fault = 700; return; }
	if (sel > 23) { ((uint32_t *)(uintptr_t)status)[2] += (uint32_t)nl; return; }
	static const char kind[] = "aaaaxxccnnnnmmmm&&||^^id";
	static const unsigned char is64[24] = {0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 1, 0, 1, 0, 1, 0, 0};
	int bits = is64[sel] ? 64 : 32;
	int is_signed = sel == 8 || sel == 10 || sel == 12 || sel == 14;
	int lost = defect("atomic-lost-update");
	for (uint32_t i = 0; i < iters; i++)
		for (uint64_t tl = 0; tl < nl; tl++) {
			uint64_t k = (uint64_t)i * tcount + tbase + tl, sh = k / nwords, bit = sh < 64 ? 1ull << sh : 0;
			uint64_t x = mode == 1 ? bit : mode == 2 ? ~bit : a + b * k;
			char *w = (char *)(uintptr_t)(words + 8 * (k % nwords));
			uint64_t v = bits == 32 ? *(uint32_t *)w : *(uint64_t *)w, r = v, mask = bits == 32 ? 0xFFFFFFFFull : ~0ull;
			x &= mask;
			switch (kind[sel]) {
			case 'a':
				if (sel == 2) { float f, g; uint32_t u = (uint32_t)v, y = (uint32_t)x; memcpy(&f, &u, 4); memcpy(&g, &y, 4); f += g; memcpy(&u, &f, 4); r = u; }
				else if (sel == 3) { double f, g; memcpy(&f, &v, 8); memcpy(&g, &x, 8); f += g; memcpy(&r, &f, 8); }
				else r = v + x;
				break;
			case 'c': r = v + x; break; // the CAS loop's first attempt always wins here
			case 'x': r = x; break;
			case 'n': r = (is_signed ? (bits == 32 ? (int32_t)x < (int32_t)v : (int64_t)x < (int64_t)v) : x < v) ? x : v; break;
			case 'm': r = (is_signed ? (bits == 32 ? (int32_t)x > (int32_t)v : (int64_t)x > (int64_t)v) : x > v) ? x : v; break;
			case '&': r = v & x; break;
			case '|': r = v | x; break;
			case '^': r = v ^ x; break;
			case 'i': r = v >= x ? 0 : v + 1; break;
			case 'd': r = v == 0 || v > x ? x : v - 1; break;
			}
			if (!(lost && i == 0 && tl == 0)) {
				if (bits == 32) *(uint32_t *)w = (uint32_t)r;
				else *(uint64_t *)w = r;
			}
			((uint64_t *)(uintptr_t)old)[(uint64_t)i * nl + tl] = v;
		}
}

// p2pc_fake_echo(u64 out, u32 a, u64 b, f32 c, u16 d) writes, at out:
// a @0, b @8, c @16, d @20, grid @24/28/32, block @36/40/44, shmem @48,
// stream @56, kind @64 (1 normal, 2 cooperative).
static CUresult launch(int kind, struct function *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
		unsigned by, unsigned bz, unsigned shmem, struct stream *s, void **params, void **extra) {
	NEED_CTX();
	if (!f || f->magic != FUNCTION_MAGIC || extra) return INVALID_VALUE;
	if (gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0 || bx * by * bz > 1024) return INVALID_VALUE;
	logf_("launch %s %u %u %u %u %u %u %u", f->name, gx, gy, gz, bx, by, bz, shmem);
	if (run_basic_kernel(f->name, params, stream_of(s))) {
		// ran on the host (kernels/basic.ptx)
	} else if (strcmp(f->name, "atom_contend_sys") == 0) {
		if (!params) return INVALID_VALUE;
		run_contend(params, (uint64_t)gx * gy * gz * bx * by * bz, stream_of(s));
	} else if (strncmp(f->name, "litmus_", 7) == 0) {
		if (!params) return INVALID_VALUE;
		run_litmus_kernel(f, params, stream_of(s));
	} else if (strcmp(f->name, "p2pc_fake_echo") == 0) {
		if (!params) return INVALID_VALUE;
		char *out = (char *)(uintptr_t)*(uint64_t *)params[0];
		if (!find_alloc((CUdeviceptr)out)) return 700; // ILLEGAL_ADDRESS, as a real kernel would
		memcpy(out + 0, params[1], 4);
		memcpy(out + 8, params[2], 8);
		memcpy(out + 16, params[3], 4);
		memcpy(out + 20, params[4], 2);
		unsigned v[7] = {gx, gy, gz, bx, by, bz, shmem};
		memcpy(out + 24, v, sizeof v);
		uint64_t sv = (uint64_t)(uintptr_t)s, k = (uint64_t)kind;
		memcpy(out + 56, &sv, 8);
		memcpy(out + 64, &k, 8);
	}
	enqueue(s);
	return OK;
}
static CUresult f_cuLaunchKernel(struct function *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
		unsigned by, unsigned bz, unsigned shmem, struct stream *s, void **params, void **extra) {
	return launch(1, f, gx, gy, gz, bx, by, bz, shmem, s, params, extra);
}
static CUresult f_cuLaunchCooperativeKernel(struct function *f, unsigned gx, unsigned gy, unsigned gz,
		unsigned bx, unsigned by, unsigned bz, unsigned shmem, struct stream *s, void **params) {
	return launch(2, f, gx, gy, gz, bx, by, bz, shmem, s, params, NULL);
}

static CUresult f_cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, struct function *f, int block, size_t shmem) {
	NEED_CTX();
	if (!f || f->magic != FUNCTION_MAGIC || block <= 0 || block > 1024) return INVALID_VALUE;
	*n = 2048 / block / (shmem > 0 ? 2 : 1);
	return OK;
}

// ---- managed memory ---------------------------------------------------------
// Managed allocations are device allocations flagged 0x200; their advice and
// last prefetch location live in managed[], indexed like allocs[].

struct managed_state { int read_mostly, preferred, last_prefetch; unsigned accessed_by; };
static struct managed_state managed[MAXOBJ];

static struct managed_state *managed_of(CUdeviceptr p, size_t n) {
	struct alloc *a = find_alloc(p);
	if (!a || !(a->flags & FLAG_MANAGED) || n == 0 || (char *)p + n > a->base + a->size) return NULL;
	return &managed[a - allocs];
}
// location_id turns a CUmemLocation into a range-attribute value: a device
// ordinal, -1 (CU_DEVICE_CPU) for the host, -3 for anything invalid.
static int location_id(CUmemLocation loc) {
	if (loc.type == 1) return bad_dev(loc.id) ? -3 : loc.id;
	if (loc.type == 2) return -1;
	return -3;
}
static CUresult f_cuMemAllocManaged(CUdeviceptr *p, size_t n, unsigned int flags) {
	NEED_CTX();
	if (n == 0 || (flags != 1 && flags != 2)) return INVALID_VALUE;
	struct alloc *a = new_alloc(n, KIND_DEVICE, FLAG_MANAGED);
	if (!a) return 2;
	managed[a - allocs] = (struct managed_state){0, -2, -2, 0};
	*p = (CUdeviceptr)a->base;
	return OK;
}
static CUresult f_cuMemPrefetchAsync_v2(CUdeviceptr p, size_t n, CUmemLocation loc, unsigned int flags, struct stream *s) {
	NEED_CTX();
	struct managed_state *m = managed_of(p, n);
	int id = location_id(loc);
	if (!m || flags != 0 || id == -3) return INVALID_VALUE;
	m->last_prefetch = id;
	enqueue(s);
	return OK;
}
static CUresult f_cuMemPrefetchAsync_v1(CUdeviceptr p, size_t n, CUdevice dev, struct stream *s) {
	(void)p; (void)n; (void)dev; (void)s;
	return LEGACY_ABI_CALLED; // the binding pins the CUmemLocation form
}
static CUresult f_cuMemAdvise_v2(CUdeviceptr p, size_t n, int advice, CUmemLocation loc) {
	NEED_CTX();
	struct managed_state *m = managed_of(p, n);
	int id = location_id(loc);
	if (!m || ((advice >= 3 && advice <= 6) && id == -3)) return INVALID_VALUE;
	unsigned bit = id == -1 ? 1u << 31 : 1u << (id < 0 ? 0 : id);
	switch (advice) {
	case 1: m->read_mostly = 1; break;
	case 2: m->read_mostly = 0; break;
	case 3: m->preferred = id; break;
	case 4: m->preferred = -2; break;
	case 5: m->accessed_by |= bit; break;
	case 6: m->accessed_by &= ~bit; break;
	default: return INVALID_VALUE;
	}
	return OK;
}
static CUresult f_cuMemAdvise_v1(CUdeviceptr p, size_t n, int advice, CUdevice dev) {
	(void)p; (void)n; (void)advice; (void)dev;
	return LEGACY_ABI_CALLED;
}
static CUresult f_cuMemRangeGetAttribute(void *data, size_t size, int attr, CUdeviceptr p, size_t n) {
	NEED_CTX();
	struct managed_state *m = managed_of(p, n);
	if (!m || !data) return INVALID_VALUE;
	int32_t *out = data;
	switch (attr) {
	case 1: if (size != 4) return INVALID_VALUE; *out = m->read_mostly; return OK;
	case 2: if (size != 4) return INVALID_VALUE; *out = m->preferred; return OK;
	case 4: if (size != 4) return INVALID_VALUE; *out = m->last_prefetch; return OK;
	case 3: {
		if (size == 0 || size % 4 != 0) return INVALID_VALUE;
		size_t k = 0, slots = size / 4;
		for (size_t i = 0; i < slots; i++) out[i] = -2;
		if (m->accessed_by & (1u << 31)) out[k++] = -1;
		for (int d = 0; d < MAXDEV && k < slots; d++)
			if (m->accessed_by & (1u << d)) out[k++] = d;
		return OK;
	}
	}
	return INVALID_VALUE;
}
static CUresult f_cuMemRangeGetAttributes(void **data, size_t *sizes, int *attrs, size_t count, CUdeviceptr p, size_t n) {
	NEED_CTX();
	if (!data || !sizes || !attrs || count == 0) return INVALID_VALUE;
	for (size_t i = 0; i < count; i++) {
		CUresult r = f_cuMemRangeGetAttribute(data[i], sizes[i], attrs[i], p, n);
		if (r != OK) return r;
	}
	return OK;
}

// ---- cuGetProcAddress_v2 -----------------------------------------------------

struct variant { const char *name; int since; void *fn; };
#define V(name, since, fn) {name, since, (void *)fn}
__attribute__((unused)) static const struct variant variants[] = {
	V("cuInit", 2000, f_cuInit),
	V("cuDriverGetVersion", 2020, f_cuDriverGetVersion),
	V("cuGetErrorName", 6000, f_cuGetErrorName),
	V("cuGetErrorString", 6000, f_cuGetErrorString),
	V("cuDeviceGetCount", 2000, f_cuDeviceGetCount),
	V("cuDeviceGet", 2000, f_cuDeviceGet),
	V("cuDeviceGetName", 2000, f_cuDeviceGetName),
	V("cuDeviceGetAttribute", 2000, f_cuDeviceGetAttribute),
	V("cuDeviceGetPCIBusId", 4010, f_cuDeviceGetPCIBusId),
	V("cuDeviceGetUuid", 11040, f_cuDeviceGetUuid_v2),
	V("cuDeviceTotalMem", 3020, f_cuDeviceTotalMem_v2),
	V("cuDevicePrimaryCtxRetain", 7000, f_cuDevicePrimaryCtxRetain),
	V("cuDevicePrimaryCtxRelease", 11000, f_cuDevicePrimaryCtxRelease_v2),
	V("cuCtxGetCurrent", 4000, f_cuCtxGetCurrent),
	V("cuCtxSetCurrent", 4000, f_cuCtxSetCurrent),
	V("cuCtxSynchronize", 2000, f_cuCtxSynchronize),
	V("cuMemGetInfo", 3020, f_cuMemGetInfo_v2),
	V("cuMemAlloc", 2000, f_cuMemAlloc_v1),
	V("cuMemAlloc", 3020, f_cuMemAlloc_v2),
	V("cuMemFree", 3020, f_cuMemFree_v2),
	V("cuMemHostAlloc", 2020, f_cuMemHostAlloc),
	V("cuMemFreeHost", 2000, f_cuMemFreeHost),
	V("cuMemHostGetDevicePointer", 3020, f_cuMemHostGetDevicePointer_v2),
	V("cuMemsetD8", 3020, f_cuMemsetD8_v2),
	V("cuMemsetD32", 3020, f_cuMemsetD32_v2),
	V("cuMemsetD32Async", 3020, f_cuMemsetD32Async),
	V("cuMemcpyHtoD", 3020, f_cuMemcpyHtoD_v2),
	V("cuMemcpyDtoH", 3020, f_cuMemcpyDtoH_v2),
	V("cuMemcpyDtoD", 3020, f_cuMemcpy),
	V("cuMemcpyAsync", 4000, f_cuMemcpyAsync),
	V("cuMemcpyHtoDAsync", 3020, f_cuMemcpyHtoDAsync_v2),
	V("cuMemcpyDtoHAsync", 3020, f_cuMemcpyDtoHAsync_v2),
	V("cuMemcpyPeer", 4000, f_cuMemcpyPeer),
	V("cuMemcpyPeerAsync", 4000, f_cuMemcpyPeerAsync),
	V("cuPointerGetAttribute", 4000, f_cuPointerGetAttribute),
	V("cuStreamCreate", 2000, f_cuStreamCreate),
	V("cuStreamDestroy", 4000, f_cuStreamDestroy_v2),
	V("cuStreamQuery", 2000, f_cuStreamQuery),
	V("cuStreamSynchronize", 2000, f_cuStreamSynchronize),
	V("cuStreamWaitEvent", 3020, f_cuStreamWaitEvent),
	V("cuEventCreate", 2000, f_cuEventCreate),
	V("cuEventRecord", 2000, f_cuEventRecord),
	V("cuEventQuery", 2000, f_cuEventQuery),
	V("cuEventSynchronize", 2000, f_cuEventSynchronize),
	V("cuEventElapsedTime", 2000, f_cuEventElapsedTime),
	V("cuEventElapsedTime", 12080, f_cuEventElapsedTime_v2),
	V("cuEventDestroy", 4000, f_cuEventDestroy_v2),
	V("cuModuleLoadDataEx", 2010, f_cuModuleLoadDataEx),
	V("cuModuleGetFunction", 2000, f_cuModuleGetFunction),
	V("cuModuleUnload", 2000, f_cuModuleUnload),
	V("cuLinkCreate", 6050, f_cuLinkCreate_v2),
	V("cuLinkAddData", 6050, f_cuLinkAddData_v2),
	V("cuLinkComplete", 5050, f_cuLinkComplete),
	V("cuLinkDestroy", 5050, f_cuLinkDestroy),
	V("cuLaunchKernel", 4000, f_cuLaunchKernel),
	V("cuLaunchCooperativeKernel", 9000, f_cuLaunchCooperativeKernel),
	V("cuOccupancyMaxActiveBlocksPerMultiprocessor", 6050, f_cuOccupancyMaxActiveBlocksPerMultiprocessor),
	V("cuDeviceCanAccessPeer", 4000, f_cuDeviceCanAccessPeer),
	V("cuCtxEnablePeerAccess", 4000, f_cuCtxEnablePeerAccess),
	V("cuCtxDisablePeerAccess", 4000, f_cuCtxDisablePeerAccess),
	V("cuDeviceGetP2PAttribute", 8000, f_cuDeviceGetP2PAttribute),
	V("cuDeviceGetP2PAtomicCapabilities", 13000, f_cuDeviceGetP2PAtomicCapabilities),
	V("cuDeviceGetHostAtomicCapabilities", 13000, f_cuDeviceGetHostAtomicCapabilities),
	V("cuIpcGetMemHandle", 4010, f_cuIpcGetMemHandle),
	V("cuIpcOpenMemHandle", 4010, f_cuIpcOpenMemHandle_v1),
	V("cuIpcOpenMemHandle", 11000, f_cuIpcOpenMemHandle_v2),
	V("cuIpcCloseMemHandle", 4010, f_cuIpcCloseMemHandle),
	V("cuIpcGetEventHandle", 4010, f_cuIpcGetEventHandle),
	V("cuIpcOpenEventHandle", 4010, f_cuIpcOpenEventHandle),
	V("cuMemGetAllocationGranularity", 10020, f_cuMemGetAllocationGranularity),
	V("cuMemCreate", 10020, f_cuMemCreate),
	V("cuMemRelease", 10020, f_cuMemRelease),
	V("cuMemAddressReserve", 10020, f_cuMemAddressReserve),
	V("cuMemAddressFree", 10020, f_cuMemAddressFree),
	V("cuMemMap", 10020, f_cuMemMap),
	V("cuMemUnmap", 10020, f_cuMemUnmap),
	V("cuMemSetAccess", 10020, f_cuMemSetAccess),
	V("cuMemGetAccess", 10020, f_cuMemGetAccess),
	V("cuMemExportToShareableHandle", 10020, f_cuMemExportToShareableHandle),
	V("cuMemImportFromShareableHandle", 10020, f_cuMemImportFromShareableHandle),
	V("cuMemRetainAllocationHandle", 11000, f_cuMemRetainAllocationHandle),
	V("cuMemAllocManaged", 6000, f_cuMemAllocManaged),
	V("cuMemPrefetchAsync", 8000, f_cuMemPrefetchAsync_v1),
	V("cuMemPrefetchAsync", 12020, f_cuMemPrefetchAsync_v2),
	V("cuMemAdvise", 8000, f_cuMemAdvise_v1),
	V("cuMemAdvise", 12020, f_cuMemAdvise_v2),
	V("cuMemRangeGetAttribute", 8000, f_cuMemRangeGetAttribute),
	V("cuMemRangeGetAttributes", 8000, f_cuMemRangeGetAttributes),
};

enum { SYMBOL_FOUND = 0, SYMBOL_NOT_FOUND = 1, VERSION_NOT_SUFFICIENT = 2 };

#ifndef FAKECUDA_NO_GETPROCADDRESS
__attribute__((visibility("default")))
CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, unsigned long long flags, int *status) {
	logf_("getproc %s %d %llu", symbol, version, flags);
	if (!symbol || !pfn) return INVALID_VALUE;
	*pfn = NULL;
	int st = SYMBOL_NOT_FOUND;
	const struct variant *best = NULL;
	for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
		const struct variant *v = &variants[i];
		if (strcmp(v->name, symbol) != 0 || v->since > driver_version()) continue;
		if (v->since > version) {
			if (st == SYMBOL_NOT_FOUND) st = VERSION_NOT_SUFFICIENT;
			continue;
		}
		if (!best || v->since > best->since) best = v;
	}
	if (best) {
		*pfn = best->fn;
		st = SYMBOL_FOUND;
	}
	if (status) *status = st;
	return OK;
}
#else
// A library that is no usable libcuda: it lacks cuGetProcAddress_v2.
__attribute__((visibility("default"))) CUresult cuInit(unsigned int flags) { return f_cuInit(flags); }
#endif
