/* ---- runtime: the same for every reproducer ------------------------------
 * Loads libcuda.so.1 with dlopen, resolves every entry point through
 * cuGetProcAddress_v2 at the version the suite pins (P2PC_ENTRIES above),
 * retains one primary context per device, and offers the few helpers the
 * check bodies below use. Exit codes: 0 the driver conformed, 1 it violated
 * the check, 2 this machine cannot run the check (the reason is printed). */

/* Each reproducer uses some of these helpers, not all. */
#pragma GCC diagnostic ignored "-Wunused-function"

enum { EXIT_CONFORMS = 0, EXIT_VIOLATION = 1, EXIT_CANNOT_RUN = 2 };

#define RT_ENUM(name, version) E_##name,
enum { P2PC_ENTRIES(RT_ENUM) E_COUNT };
#define RT_ROW(name, version) {#name, version},
static const struct { const char *name; int version; } rt_entries[] = {P2PC_ENTRIES(RT_ROW)};
static void *rt_fn[E_COUNT];
static int rt_driver_version;

static int rt_violations, rt_ran, rt_skipped;

/* cannot_run stops with exit 2 and the reason. After a violation it exits
 * 1 instead: a fault leaves a context unusable, and what fails after it is
 * a consequence of the violation already printed. */
__attribute__((format(printf, 1, 2), noreturn)) static void cannot_run(const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	fputs(rt_violations > 0 ? "STOPPED after the violation above: " : "CANNOT RUN: ", stdout);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	if (rt_violations > 0) printf("RESULT: violation (%d failed expectations): exit 1\n", rt_violations);
	fflush(stdout);
	exit(rt_violations > 0 ? EXIT_VIOLATION : EXIT_CANNOT_RUN);
}

/* rt_need returns entry e's function pointer, or stops with exit 2 naming
 * the function and both CUDA versions (the suite skips the same way). */
static void *rt_need(int e) {
	if (rt_fn[e] == NULL)
		cannot_run("this driver (CUDA %d.%d) does not provide %s at the CUDA %d.%d ABI", rt_driver_version / 1000,
			rt_driver_version % 1000 / 10, rt_entries[e].name, rt_entries[e].version / 1000,
			rt_entries[e].version % 1000 / 10);
	return rt_fn[e];
}

/* One typed wrapper per entry point the bodies call. */
#define RT_FN(name, params, args) \
	static CUresult name params { \
		typedef CUresult(*pfn_t) params; \
		return ((pfn_t)rt_need(E_##name))args; \
	}
RT_FN(cuInit, (unsigned int flags), (flags))
RT_FN(cuDriverGetVersion, (int *v), (v))
RT_FN(cuGetErrorName, (CUresult r, const char **s), (r, s))
RT_FN(cuDeviceGetCount, (int *n), (n))
RT_FN(cuDeviceGet, (CUdevice *d, int ordinal), (d, ordinal))
RT_FN(cuDeviceGetName, (char *name, int len, CUdevice d), (name, len, d))
RT_FN(cuDeviceGetAttribute, (int *v, int attr, CUdevice d), (v, attr, d))
RT_FN(cuDevicePrimaryCtxRetain, (CUcontext *c, CUdevice d), (c, d))
RT_FN(cuCtxSetCurrent, (CUcontext c), (c))
RT_FN(cuCtxSynchronize, (void), ())
RT_FN(cuMemGetInfo, (size_t *free_, size_t *total), (free_, total))
RT_FN(cuMemAlloc, (CUdeviceptr *p, size_t n), (p, n))
RT_FN(cuMemFree, (CUdeviceptr p), (p))
RT_FN(cuMemHostAlloc, (void **p, size_t n, unsigned int flags), (p, n, flags))
RT_FN(cuMemFreeHost, (void *p), (p))
RT_FN(cuMemHostGetDevicePointer, (CUdeviceptr *d, void *p, unsigned int flags), (d, p, flags))
RT_FN(cuMemsetD32, (CUdeviceptr d, unsigned int v, size_t n), (d, v, n))
RT_FN(cuMemcpyHtoD, (CUdeviceptr d, const void *h, size_t n), (d, h, n))
RT_FN(cuMemcpyDtoH, (void *h, CUdeviceptr d, size_t n), (h, d, n))
RT_FN(cuMemcpyAsync, (CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s), (dst, src, n, s))
RT_FN(cuMemcpyPeerAsync, (CUdeviceptr dst, CUcontext dc, CUdeviceptr src, CUcontext sc, size_t n, CUstream s),
	(dst, dc, src, sc, n, s))
RT_FN(cuPointerGetAttribute, (void *data, int attr, CUdeviceptr p), (data, attr, p))
RT_FN(cuStreamCreate, (CUstream *s, unsigned int flags), (s, flags))
RT_FN(cuStreamDestroy, (CUstream s), (s))
RT_FN(cuStreamQuery, (CUstream s), (s))
RT_FN(cuStreamWaitEvent, (CUstream s, CUevent e, unsigned int flags), (s, e, flags))
RT_FN(cuEventCreate, (CUevent *e, unsigned int flags), (e, flags))
RT_FN(cuEventRecord, (CUevent e, CUstream s), (e, s))
RT_FN(cuEventQuery, (CUevent e), (e))
RT_FN(cuEventDestroy, (CUevent e), (e))
RT_FN(cuEventElapsedTime, (float *ms, CUevent a, CUevent b), (ms, a, b))
RT_FN(cuModuleLoadDataEx, (CUmodule *m, const void *image, unsigned int n, int *opts, void **vals),
	(m, image, n, opts, vals))
RT_FN(cuModuleGetFunction, (CUfunction *f, CUmodule m, const char *name), (f, m, name))
RT_FN(cuLaunchKernel,
	(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by,
		unsigned int bz, unsigned int shmem, CUstream s, void **params, void **extra),
	(f, gx, gy, gz, bx, by, bz, shmem, s, params, extra))
RT_FN(cuDeviceCanAccessPeer, (int *v, CUdevice a, CUdevice b), (v, a, b))
RT_FN(cuCtxEnablePeerAccess, (CUcontext peer, unsigned int flags), (peer, flags))
RT_FN(cuCtxDisablePeerAccess, (CUcontext peer), (peer))
RT_FN(cuDeviceGetP2PAttribute, (int *v, int attr, CUdevice a, CUdevice b), (v, attr, a, b))
RT_FN(cuDeviceGetP2PAtomicCapabilities,
	(unsigned int *caps, const int *ops, unsigned int n, CUdevice a, CUdevice b), (caps, ops, n, a, b))

/* err_name is the driver's name for a result, e.g. CUDA_ERROR_INVALID_VALUE. */
static const char *err_name(CUresult r) {
	static char buf[32];
	const char *s = NULL;
	if (rt_fn[E_cuGetErrorName] != NULL && cuGetErrorName(r, &s) == 0 && s != NULL) return s;
	snprintf(buf, sizeof buf, "CUresult %d", r);
	return buf;
}

/* setup stops with exit 2 when a call the check only needs to get going
 * fails (no memory, no device): the machine cannot run the check. */
static void setup(CUresult r, const char *what) {
	if (r != 0) cannot_run("%s: %s (%d)", what, err_name(r), r);
}

/* violation prints one failed expectation in the suite's words. */
__attribute__((format(printf, 1, 2))) static void violation(const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	fputs("VIOLATION: ", stdout);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
	rt_violations++;
}

/* must records a violation when a call under test fails; it returns 0 then,
 * so a body can stop the variant. */
static int must(CUresult r, const char *what) {
	if (r == 0) return 1;
	violation("%s: %s (%d)", what, err_name(r), r);
	return 0;
}

__attribute__((format(printf, 1, 2))) static void step(const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	fputs("STEP: ", stdout);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

static int rt_ndev;
static CUcontext rt_ctx[64];

/* use makes dev's primary context current (retaining it the first time). */
static void use(int dev) {
	if (dev < 0 || dev >= rt_ndev) cannot_run("GPU%d is needed but CUDA sees %d GPUs", dev, rt_ndev);
	if (rt_ctx[dev] == NULL) {
		CUdevice d;
		setup(cuDeviceGet(&d, dev), "cuDeviceGet");
		setup(cuDevicePrimaryCtxRetain(&rt_ctx[dev], d), "cuDevicePrimaryCtxRetain");
	}
	setup(cuCtxSetCurrent(rt_ctx[dev]), "cuCtxSetCurrent");
}

static CUcontext ctx_of(int dev) {
	use(dev);
	return rt_ctx[dev];
}

/* rt_start loads the driver, resolves the table and initialises CUDA. */
static int rt_quiet;
static void rt_start(const char *check, const char *target) {
	if (!rt_quiet) printf("p2pconf reproducer for %s on %s\n", check, target);
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (lib == NULL) cannot_run("dlopen libcuda.so.1: %s", dlerror());
	typedef CUresult (*gpa_t)(const char *, void **, int, unsigned long long, int *);
	gpa_t gpa = (gpa_t)dlsym(lib, "cuGetProcAddress_v2");
	if (gpa == NULL) cannot_run("libcuda.so.1 has no cuGetProcAddress_v2: a driver for CUDA 12.0 (r525) or newer is needed");
	for (int e = 0; e < E_COUNT; e++) {
		int status = 0;
		void *p = NULL;
		/* flags 0: CU_GET_PROC_ADDRESS_DEFAULT, legacy default stream, as the suite */
		if (gpa(rt_entries[e].name, &p, rt_entries[e].version, 0, &status) == 0) rt_fn[e] = p;
	}
	setup(cuDriverGetVersion(&rt_driver_version), "cuDriverGetVersion");
	setup(cuInit(0), "cuInit");
	setup(cuDeviceGetCount(&rt_ndev), "cuDeviceGetCount");
	if (rt_ndev > 64) rt_ndev = 64;
	if (!rt_quiet) printf("driver: CUDA %d.%d, %d GPUs\n", rt_driver_version / 1000, rt_driver_version % 1000 / 10, rt_ndev);
}

/* begin starts one variant (one spec of the suite). */
static void begin(const char *spec) {
	printf("\n== %s\n", spec);
	fflush(stdout);
	rt_ran++;
}

/* skipped ends a variant the suite would skip here, with the reason. */
__attribute__((format(printf, 1, 2))) static void skipped(const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	fputs("SKIP: ", stdout);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	rt_ran--;
	rt_skipped++;
}

/* rt_finish prints the verdict and returns the exit code. */
static int rt_finish(void) {
	if (rt_violations > 0) {
		printf("RESULT: violation (%d failed expectations): exit 1\n", rt_violations);
		return EXIT_VIOLATION;
	}
	if (rt_ran == 0) {
		printf("RESULT: cannot run: every variant was skipped on this machine (%d): exit 2\n", rt_skipped);
		return EXIT_CANNOT_RUN;
	}
	printf("RESULT: conforms: exit 0\n");
	return EXIT_CONFORMS;
}

/* ---- memory ---- */

static const uint32_t POISON = 0xDEADBEEFu; /* harness.Poison */

static CUdeviceptr dev_alloc(int dev, size_t bytes) {
	use(dev);
	CUdeviceptr p = 0;
	char what[96];
	snprintf(what, sizeof what, "cuMemAlloc of %zu bytes on GPU%d", bytes, dev);
	setup(cuMemAlloc(&p, bytes), what);
	return p;
}

static void *host_words(size_t n) {
	void *p = malloc(n * 4 > 0 ? n * 4 : 4);
	if (p == NULL) cannot_run("malloc of %zu bytes failed", n * 4);
	return p;
}

/* upload copies words to dev's memory and waits for it to land, as
 * harness.Upload does (a one-word read back on the legacy stream). */
static void upload(int dev, CUdeviceptr p, const uint32_t *w, size_t n) {
	use(dev);
	uint32_t one;
	setup(cuMemcpyHtoD(p, w, n * 4), "cuMemcpyHtoD");
	setup(cuMemcpyDtoH(&one, p, 4), "cuMemcpyDtoH (settle)");
}

/* fill sets n words to v (cuMemsetD32) and waits as harness.Fill does. */
static void fill(int dev, CUdeviceptr p, uint32_t v, size_t n) {
	use(dev);
	uint32_t one;
	setup(cuMemsetD32(p, v, n), "cuMemsetD32");
	setup(cuMemcpyDtoH(&one, p, 4), "cuMemcpyDtoH (settle)");
}

static void download(int dev, CUdeviceptr p, uint32_t *w, size_t n) {
	use(dev);
	setup(cuMemcpyDtoH(w, p, n * 4), "cuMemcpyDtoH");
}

/* ---- seeded data, identical to the harness ---- */

/* rt_pcg is Go's math/rand/v2 PCG (128-bit LCG, DXSM output). */
typedef struct { uint64_t hi, lo; } rt_pcg;
static uint64_t rt_pcg_next(rt_pcg *p) {
	const unsigned __int128 mul = ((unsigned __int128)2549297995355413924ull << 64) | 4865540595714422341ull;
	const unsigned __int128 inc = ((unsigned __int128)6364136223846793005ull << 64) | 1442695040888963407ull;
	unsigned __int128 s = ((unsigned __int128)p->hi << 64) | p->lo;
	s = s * mul + inc;
	p->hi = (uint64_t)(s >> 64);
	p->lo = (uint64_t)s;
	uint64_t hi = p->hi, lo = p->lo;
	hi ^= hi >> 32;
	hi *= 0xda942042e4dd58b5ull;
	hi ^= hi >> 48;
	hi *= lo | 1;
	return hi;
}

/* random_words is harness.RandomWords: never 0, never the poison. */
static void random_words(uint64_t seed, uint32_t *w, size_t n) {
	rt_pcg p = {seed, seed ^ 0x9e3779b97f4a7c15ull};
	for (size_t i = 0; i < n; i++) {
		w[i] = 0;
		while (w[i] == 0 || w[i] == POISON) w[i] = (uint32_t)(rt_pcg_next(&p) >> 32);
	}
}

/* pattern_word is kernels.PatternWord, the pattern the fill kernel writes. */
static uint32_t pattern_word(uint32_t seed, uint64_t i) {
	uint32_t x = (uint32_t)i * 0x9E3779B9u ^ (uint32_t)(i >> 32) * 0x85EBCA6Bu ^ seed;
	x ^= x >> 16;
	x *= 0x7FEB352Du;
	x ^= x >> 15;
	x *= 0x846CA68Bu;
	x ^= x >> 16;
	if (x == 0 || x == POISON) x ^= 1;
	return x;
}

/* compare_words prints the suite's mismatch text and returns 1 when every
 * word matches (harness.Compare and Mismatch.String). */
static int compare_words(const uint32_t *want, const uint32_t *got, size_t n, const char *what) {
	size_t count = 0, first = 0;
	for (size_t i = 0; i < n; i++)
		if (want[i] != got[i]) {
			if (count == 0) first = i;
			count++;
		}
	if (count == 0) {
		printf("  ok: %s: all %zu words match\n", what, n);
		return 1;
	}
	violation("%s: %zu of %zu words differ; first at word %zu (byte offset 0x%zx): want 0x%08x, got 0x%08x", what,
		count, n, first, 4 * first, want[first], got[first]);
	return 0;
}

/* expect_words reads n words plus the guard at p through dev and checks
 * both, as the access suite's expectWords does. */
static int expect_words(int dev, CUdeviceptr p, const uint32_t *want, size_t n, size_t guard, const char *what) {
	uint32_t *got = host_words(n + guard), *poison = host_words(guard);
	download(dev, p, got, n + guard);
	char buf[512];
	snprintf(buf, sizeof buf, "%s (read through GPU%d)", what, dev);
	int ok = compare_words(want, got, n, buf);
	for (size_t i = 0; i < guard; i++) poison[i] = POISON;
	snprintf(buf, sizeof buf, "%s: the %zu guard words after the %zu-word buffer on GPU%d (want the poison)", what, guard,
		n, dev);
	ok &= compare_words(poison, got + n, guard, buf);
	free(got);
	free(poison);
	return ok;
}

/* ---- streams, waits, kernels ---- */

static CUstream new_stream(int dev) {
	use(dev);
	CUstream s;
	setup(cuStreamCreate(&s, 1 /* CU_STREAM_NON_BLOCKING, as the suite */), "cuStreamCreate");
	return s;
}

static double rt_now(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* wait_stream polls cuStreamQuery until the stream is idle, bounded by
 * TIMEOUT_S seconds (the spec's timeout). A fault or a timeout is a
 * violation; it returns 1 when the work completed. */
static int wait_stream(int dev, CUstream s, const char *what) {
	use(dev);
	double end = rt_now() + TIMEOUT_S;
	for (;;) {
		CUresult r = cuStreamQuery(s);
		if (r == 0) return 1;
		if (r != 600 /* CUDA_ERROR_NOT_READY */) {
			violation("%s: cuStreamQuery on GPU%d: %s (%d)", what, dev, err_name(r), r);
			return 0;
		}
		if (rt_now() > end) {
			violation("%s: not complete after %g s (GPU%d's stream still busy)", what, (double)TIMEOUT_S, dev);
			return 0;
		}
		usleep(50);
	}
}

/* wait_event polls cuEventQuery the same way. */
static int wait_event(int dev, CUevent e, const char *what) {
	use(dev);
	double end = rt_now() + TIMEOUT_S;
	for (;;) {
		CUresult r = cuEventQuery(e);
		if (r == 0) return 1;
		if (r != 600) {
			violation("%s: cuEventQuery on GPU%d: %s (%d)", what, dev, err_name(r), r);
			return 0;
		}
		if (rt_now() > end) {
			violation("%s: event not complete after %g s", what, (double)TIMEOUT_S);
			return 0;
		}
		usleep(50);
	}
}

/* load_kernel JIT-compiles the embedded PTX in dev's context with the
 * suite's options (error log, info log, verbose) and returns entry. */
static CUfunction load_kernel(int dev, const char *ptx, const char *entry) {
	use(dev);
	static char errlog[16384], infolog[16384];
	int opts[5] = {5, 6, 3, 4, 12};
	void *vals[5] = {errlog, (void *)(uintptr_t)sizeof errlog, infolog, (void *)(uintptr_t)sizeof infolog,
		(void *)(uintptr_t)1};
	CUmodule m;
	CUresult r = cuModuleLoadDataEx(&m, ptx, 5, opts, vals);
	errlog[sizeof errlog - 1] = 0;
	if (r != 0) cannot_run("cuModuleLoadDataEx on GPU%d: %s (%d)\n%s", dev, err_name(r), r, errlog);
	CUfunction f;
	char what[128];
	snprintf(what, sizeof what, "cuModuleGetFunction(%s) on GPU%d", entry, dev);
	setup(cuModuleGetFunction(&f, m, entry), what);
	return f;
}

/* launch_n launches f over n items with the harness's shape (256 threads a
 * block, at most 1024 blocks, grid-stride loops cover the rest). */
static int launch_n(int dev, CUfunction f, CUstream s, uint64_t n, void **params, const char *what) {
	use(dev);
	uint64_t grid = (n + 255) / 256;
	if (grid < 1) grid = 1;
	if (grid > 1024) grid = 1024;
	return must(cuLaunchKernel(f, (unsigned)grid, 1, 1, 256, 1, 1, 0, s, params, NULL), what);
}

static int can_access_peer(int a, int b) {
	int v = 0;
	use(a);
	setup(cuDeviceCanAccessPeer(&v, a, b), "cuDeviceCanAccessPeer");
	return v;
}

/* need_peer_access stops with exit 2 where the suite skips: the pair has no
 * peer access. */
static void need_peer_access(int a, int b) {
	if (!can_access_peer(a, b)) cannot_run("cuDeviceCanAccessPeer(%d, %d)=0: the check needs peer access GPU%d→GPU%d", a, b, a, b);
}

/* require_peer_access is the suite's RequirePeerAccess: where the pair has
 * no peer access a→b the spec is skipped (it returns 0 then). */
static int require_peer_access(int a, int b) {
	if (can_access_peer(a, b)) return 1;
	skipped("cuDeviceCanAccessPeer(%d, %d)=0: needs peer access GPU%d→GPU%d", a, b, a, b);
	return 0;
}

/* enable_peer enables peer access a→b in a's context (harness.EnablePeerAccess). */
static int enable_peer(int a, int b) {
	CUcontext peer = ctx_of(b);
	use(a);
	CUresult r = cuCtxEnablePeerAccess(peer, 0);
	char what[96];
	snprintf(what, sizeof what, "cuCtxEnablePeerAccess GPU%d→GPU%d", a, b);
	return must(r, what);
}


static void dev_free(int dev, CUdeviceptr p) {
	use(dev);
	setup(cuMemFree(p), "cuMemFree");
}

static void stream_free(int dev, CUstream s) {
	use(dev);
	setup(cuStreamDestroy(s), "cuStreamDestroy");
}

/* disable_peer undoes enable_peer after a spec, as the suite's cleanup
 * does; a failure is reported and the run goes on. */
static void disable_peer(int a, int b) {
	CUcontext peer = ctx_of(b);
	use(a);
	CUresult r = cuCtxDisablePeerAccess(peer);
	if (r != 0) printf("  note: cleanup: cuCtxDisablePeerAccess GPU%d→GPU%d: %s (%d)\n", a, b, err_name(r), r);
}

static int attribute(int dev, int attr) {
	int v = 0;
	use(dev);
	setup(cuDeviceGetAttribute(&v, attr, dev), "cuDeviceGetAttribute");
	return v;
}

static size_t free_memory(int dev) {
	size_t f = 0, t = 0;
	use(dev);
	setup(cuMemGetInfo(&f, &t), "cuMemGetInfo");
	return f;
}

/* free_back_to is the suite's WaitFreeMemory (ExpectFreeMemoryBackTo): dev's
 * free memory must be exactly the baseline again within 10 s, after the
 * memory a check held is freed. It returns 1 when it is, else 0 after
 * recording the violation, naming what happened before (after). */
static int free_back_to(int dev, size_t baseline, const char *after) {
	double end = rt_now() + 10;
	size_t last = free_memory(dev);
	while (last != baseline && rt_now() < end) {
		usleep(10000);
		last = free_memory(dev);
	}
	if (last == baseline) return 1;
	violation("free device memory on GPU%d after %s: want the baseline %zu bytes, last read %zu (%+lld)", dev, after, baseline, last,
		(long long)last - (long long)baseline);
	return 0;
}

/* has_free_memory is the suite's RequireFreeMemory: bytes plus a margin of
 * max(512 MiB, bytes/8) must be free. */
static int has_free_memory(int dev, uint64_t bytes, const char *what) {
	uint64_t margin = bytes / 8 > (512ull << 20) ? bytes / 8 : 512ull << 20;
	size_t f = free_memory(dev);
	if (f < bytes + margin) {
		skipped("needs %llu bytes free on GPU%d for %s, plus a margin of %llu (found cuMemGetInfo free=%zu)",
			(unsigned long long)bytes, dev, what, (unsigned long long)margin, f);
		return 0;
	}
	return 1;
}

RT_FN(cuMemsetD32Async, (CUdeviceptr d, unsigned int v, size_t n, CUstream s), (d, v, n, s))

/* ---- the suite's basic kernels (kernels/basic.ptx) ---- */

/* gpu_work is harness.GPUWork: a stream and an 8-byte verify result on one
 * GPU, with the fill and verify kernels loaded. */
struct gpu_work {
	int dev;
	CUstream s;
	CUdeviceptr result;
};
static CUfunction rt_fill_fn[64], rt_verify_fn[64], rt_transform_fn[64];
static const char *rt_basic_ptx;

static struct gpu_work gpu_work(int dev) {
	struct gpu_work w = {dev, new_stream(dev), dev_alloc(dev, 8)};
	return w;
}

static void gpu_work_free(struct gpu_work *w) {
	stream_free(w->dev, w->s);
	dev_free(w->dev, w->result);
}

static CUfunction basic_kernel(int dev, const char *entry, CUfunction *cache) {
	if (cache[dev] == NULL) cache[dev] = load_kernel(dev, rt_basic_ptx, entry);
	return cache[dev];
}

/* run_fill has a kernel on w's GPU write PatternWord(seed, i) into n words
 * at p (any memory that GPU can reach) and waits. */
static int run_fill(struct gpu_work *w, CUdeviceptr p, uint64_t n, uint32_t seed, const char *what) {
	CUfunction f = basic_kernel(w->dev, "fill", rt_fill_fn);
	void *params[] = {&p, &n, &seed};
	return launch_n(w->dev, f, w->s, n, params, what) && wait_stream(w->dev, w->s, what);
}

/* run_transform has a kernel on w's GPU set dst[i] = src[i] + add. */
static int run_transform(struct gpu_work *w, CUdeviceptr dst, CUdeviceptr src, uint64_t n, uint32_t add, const char *what) {
	CUfunction f = basic_kernel(w->dev, "transform", rt_transform_fn);
	void *params[] = {&dst, &src, &n, &add};
	return launch_n(w->dev, f, w->s, n, params, what) && wait_stream(w->dev, w->s, what);
}

/* verdict is what the verify kernel reports. */
struct verdict {
	uint32_t mismatches, first;
	CUresult code; /* nonzero: the kernel did not complete (a fault) */
};

/* run_verify has a kernel on w's GPU count the words at p that differ from
 * the pattern (harness GPUWork.Verify). A fault is returned in code, not
 * reported: some checks expect one. */
static struct verdict run_verify(struct gpu_work *w, CUdeviceptr p, uint64_t n, uint32_t seed) {
	struct verdict v = {0, 0xFFFFFFFFu, 0};
	CUfunction f = basic_kernel(w->dev, "verify", rt_verify_fn);
	use(w->dev);
	if ((v.code = cuMemsetD32Async(w->result, 0, 1, w->s)) != 0) return v;
	if ((v.code = cuMemsetD32Async(w->result + 4, 0xFFFFFFFFu, 1, w->s)) != 0) return v;
	CUdeviceptr res = w->result;
	void *params[] = {&p, &n, &seed, &res};
	uint64_t grid = (n + 255) / 256;
	grid = grid < 1 ? 1 : grid > 1024 ? 1024 : grid;
	if ((v.code = cuLaunchKernel(f, (unsigned)grid, 1, 1, 256, 1, 1, 0, w->s, params, NULL)) != 0) return v;
	double end = rt_now() + TIMEOUT_S;
	while ((v.code = cuStreamQuery(w->s)) == 600 && rt_now() < end) usleep(50);
	if (v.code != 0) return v;
	uint32_t r[2];
	if ((v.code = cuMemcpyDtoH(r, w->result, 8)) != 0) return v;
	v.mismatches = r[0];
	v.first = r[1];
	return v;
}

/* verdict_text is harness.Verdict's String. */
static const char *verdict_text(struct verdict v) {
	static char buf[160];
	if (v.code != 0)
		snprintf(buf, sizeof buf, "the kernel failed: %s (%d)", err_name(v.code), v.code);
	else if (v.mismatches == 0)
		snprintf(buf, sizeof buf, "every word matches");
	else
		snprintf(buf, sizeof buf, "%u words differ, the first at word %u (byte offset 0x%llx)", v.mismatches, v.first,
			4ull * v.first);
	return buf;
}
