// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package repro

import (
	"fmt"

	"github.com/p2pconf/p2pconf/kernels"
)

// The ordering suite's event specs (suites/ordering/event_handoff_test.go
// and events_test.go) that run on one pair with the basic kernels.

const orderingHelpers = `
enum { HANDOFF_WORDS = 1 << 18 };                 /* handoffWords: 1 MiB per handoff */
#define PRODUCER_LAG_NS 20000000ull /* producerLag: 20 ms */

static CUevent new_event(int dev, unsigned flags) {
	use(dev);
	CUevent e;
	setup(cuEventCreate(&e, flags), "cuEventCreate");
	return e;
}

/* record is RecordEvent, in the stream's context. */
static int record(int dev, CUevent e, CUstream s, const char *what) {
	use(dev);
	return must(cuEventRecord(e, s), what);
}

/* launch_shape launches f with grid × 256 threads (or 1 × 1). */
static int launch_shape(int dev, CUfunction f, CUstream s, unsigned grid, unsigned block, void **params, const char *what) {
	use(dev);
	return must(cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, s, params, NULL), what);
}

static CUfunction rt_delay_fn[64];

/* launch_delay queues the delay kernel (one thread spinning ns) on s. */
static int launch_delay(int dev, CUstream s, uint64_t ns, CUdeviceptr status) {
	CUfunction f = basic_kernel(dev, "delay", rt_delay_fn);
	void *params[] = {&ns, &status};
	return launch_shape(dev, f, s, 1, 1, params, "launch the delay kernel");
}

static unsigned sm_count(int dev) {
	int n = attribute(dev, 16 /* MULTIPROCESSOR_COUNT */);
	return n > 0 ? (unsigned)n : 1;
}
`

func init() {
	register("ordering.cross-device-event-handoff", recipe{basic: true, helpers: orderingHelpers, timeout: specTimeout / 2,
		specs: func(t Target) []spec {
			// The read-before-and-after-wait variant: the consumer stream
			// reads the destination (verify into pre) before it waits.
			const preRead = `
CUdeviceptr pre = dev_alloc(B, 8);
upload(B, pre, preset, 2);
{
	uint64_t pn = HANDOFF_WORDS;
	void *pre_params[] = {&dst, &pn, &seed, &pre};
	if (!launch_shape(B, basic_kernel(B, "verify", rt_verify_fn), cons, grid_b, 256, pre_params, "launch the read before the wait (verify) on GPU B")) return;
}`
			const preCheck = `
else if (download(B, pre, res, 1), res[0] == 0)
	skipped("inconclusive: GPU%d's read before the wait found every word already produced, so nothing old could leak past the wait", B);`
			return []spec{{
				name: fmt.Sprintf("hands a slow producer's data from GPU%d through a waiting copy stream to a waiting consumer on GPU%d", t.A, t.B),
				key:  "read-after-wait",
				code: fmt.Sprintf(eventHandoffCode, seed32("ordering.cross-device-event-handoff", t.ID()), "", ""),
			}, {
				name: fmt.Sprintf("hands a slow producer's data from GPU%d to a consumer on GPU%d that read the destination before it waited", t.A, t.B),
				key:  "read-before-and-after-wait",
				code: fmt.Sprintf(eventHandoffCode, seed32("ordering.cross-device-event-handoff", t.ID(), "pre-read"), preRead, preCheck),
			}}
		}})

	register("ordering.elapsed-time-across-devices", recipe{basic: true, helpers: orderingHelpers, timeout: specTimeout / 4,
		specs: func(t Target) []spec {
			return []spec{{
				name: fmt.Sprintf("refuses cuEventElapsedTime between an event of GPU%d and one of GPU%d", t.A, t.B),
				code: `CUstream sa = new_stream(A), sb = new_stream(B);
CUevent start_a = new_event(A, 0), end_a = new_event(A, 0), end_b = new_event(B, 0);
step("recording two events on GPU%d and one on GPU%d", A, B);
if (!record(A, start_a, sa, "cuEventRecord(start of A)") || !record(A, end_a, sa, "cuEventRecord(end of A)") || !record(B, end_b, sb, "cuEventRecord(end of B)")) return;
if (!wait_event(A, end_a, "events of GPU A") || !wait_event(B, end_b, "event of GPU B")) return;
float ms = -1;
use(A);
if (!must(cuEventElapsedTime(&ms, start_a, end_a), "cuEventElapsedTime of two events of one GPU")) return;
printf("  ok: cuEventElapsedTime of two events of GPU%d: %g ms\n", A, ms);
ms = -1;
CUresult r = cuEventElapsedTime(&ms, start_a, end_b);
printf("  finding: cuEventElapsedTime across devices = %s (%d)\n", r == 0 ? "CUDA_SUCCESS" : err_name(r), r);
if (r == 0)
	violation("cuEventElapsedTime(event of GPU%d, event of GPU%d) returned %g ms: want a CUDA error", A, B, ms);
`,
			}}
		}})

	register("ordering.source-reuse-after-completion", recipe{basic: true, helpers: orderingHelpers + accessHelpers, timeout: specTimeout / 4,
		specs: func(t Target) []spec {
			return []spec{{
				name: fmt.Sprintf("keeps the copied data on GPU%d when the source on GPU%d is overwritten after the copy's event completed", t.B, t.A),
				code: fmt.Sprintf(`uint32_t *old = host_words(HANDOFF_WORDS);
random_words(%dull, old, HANDOFF_WORDS);
CUdeviceptr src = dev_alloc(A, 4 * HANDOFF_WORDS), dst = dev_alloc(B, 4 * HANDOFF_WORDS);
upload(A, src, old, HANDOFF_WORDS);
fill(B, dst, POISON, HANDOFF_WORDS);
CUdeviceptr status = dev_alloc(A, 4);
CUstream s = new_stream(A);
CUevent done = new_event(A, 2 /* DISABLE_TIMING */);
step("copying GPU%%d→GPU%%d behind a 20ms kernel and waiting for the event after the copy", A, B);
CUcontext ca = ctx_of(A), cb = ctx_of(B);
if (!launch_delay(A, s, PRODUCER_LAG_NS, status)) return;
use(A);
if (!must(cuMemcpyPeerAsync(dst, cb, src, ca, 4 * HANDOFF_WORDS, s), "cuMemcpyPeerAsync A→B")) return;
if (!record(A, done, s, "cuEventRecord after the copy") || !wait_event(A, done, "the completion event of the copy " TARGET)) return;
step("overwriting the source on GPU%%d", A);
fill(A, src, POISON, HANDOFF_WORDS);
if (!wait_stream(A, s, "the copy's stream")) return;
uint32_t *got = host_words(HANDOFF_WORDS);
download(B, dst, got, HANDOFF_WORDS);
compare_words(old, got, HANDOFF_WORDS, "GPU%d's copy of GPU%d's data after the source was overwritten once the copy's event had completed");
`, seed("ordering.source-reuse-after-completion", t.ID()), t.B, t.A),
			}}
		}})
}

// gpuName prints as the suites' GPU values do ("GPU0"), so that seeds built
// from several of them in a row get the same spaces as harness.Seed's.
type gpuName int

func (g gpuName) String() string { return fmt.Sprintf("GPU%d", int(g)) }

// submissionHelpers is the submissionIsNotCompletion body of events_test.go
// for a copy src→dst (cuMemcpyAsync within one GPU, else cuMemcpyPeerAsync).
const submissionHelpers = `

static void submission_is_not_completion(int src, int dst, uint64_t seed) {
	char what[256];
	uint32_t *words = host_words(HANDOFF_WORDS);
	random_words(seed, words, HANDOFF_WORDS);
	CUdeviceptr from = dev_alloc(src, 4 * HANDOFF_WORDS), to = dev_alloc(dst, 4 * HANDOFF_WORDS);
	upload(src, from, words, HANDOFF_WORDS);
	fill(dst, to, POISON, HANDOFF_WORDS);
	CUdeviceptr status = dev_alloc(src, 8);
	fill(src, status, 0, 2);
	void *hb = NULL;
	use(src);
	setup(cuMemHostAlloc(&hb, 64, 0x1 | 0x2 /* PORTABLE | DEVICEMAP */), "cuMemHostAlloc(PORTABLE|DEVICEMAP)");
	uint32_t *flag = hb;
	__atomic_store_n(flag, 0, __ATOMIC_SEQ_CST);
	CUstream s = new_stream(src);
	CUevent done = new_event(src, 2 /* DISABLE_TIMING */);
	step("queueing a kernel that waits for the host's release, a copy GPU%d→GPU%d and an event on one stream of GPU%d", src, dst, src);
	CUdeviceptr dflag = 0;
	use(src);
	setup(cuMemHostGetDevicePointer(&dflag, hb, 0), "cuMemHostGetDevicePointer");
	CUfunction f = load_kernel(src, PTX, "wait_released");
	uint64_t timeout_ns = 10000000000ull; /* releaseWait: 10 s */
	void *params[] = {&dflag, &timeout_ns, &status};
	CUcontext cs = ctx_of(src), cd = ctx_of(dst);
	int ok = launch_shape(src, f, s, 1, 1, params, "launch wait_released");
	use(src);
	snprintf(what, sizeof what, "%s GPU%d→GPU%d", src == dst ? "cuMemcpyAsync" : "cuMemcpyPeerAsync", src, dst);
	ok = ok && must(src == dst ? cuMemcpyAsync(to, from, 4 * HANDOFF_WORDS, s) : cuMemcpyPeerAsync(to, cd, from, cs, 4 * HANDOFF_WORDS, s), what);
	ok = ok && record(src, done, s, "cuEventRecord after the copy");
	use(src);
	CUresult early = ok ? cuEventQuery(done) : 0;
	step("releasing the kernel, waiting for the event, then querying it again");
	__atomic_store_n(flag, 1, __ATOMIC_SEQ_CST); /* always: the kernel must not hold the GPU */
	if (!ok) return;
	snprintf(what, sizeof what, "the event after the copy GPU%d→GPU%d", src, dst);
	if (!wait_event(src, done, what)) return;
	snprintf(what, sizeof what, "the stream of GPU%d holding the kernel and the copy GPU%d→GPU%d", src, src, dst);
	if (!wait_stream(src, s, what)) return;
	uint32_t st[2];
	download(src, status, st, 2);
	if (early != 600)
		violation("cuEventQuery of the event after a copy GPU%d→GPU%d queued behind a kernel waiting for the host, queried before the host released it (the kernel then ended with status %u after %u polls): want CUDA_ERROR_NOT_READY (600), got %s (%d)",
			src, dst, st[0], st[1], early == 0 ? "CUDA_SUCCESS" : err_name(early), early);
	else
		printf("  ok: cuEventQuery before the release: CUDA_ERROR_NOT_READY (600)\n");
	if (st[0] != 1)
		violation("the kernel holding GPU%d's stream ended with status %u after %u polls (1 released, 2 waited 10s without seeing the host's release, 3 poll cap hit)", src, st[0], st[1]);
	use(src);
	CUresult late = cuEventQuery(done);
	if (late != 0) violation("cuEventQuery after the event completed (GPU%d→GPU%d): %s (%d)", src, dst, err_name(late), late);
	uint32_t *got = host_words(HANDOFF_WORDS);
	download(dst, to, got, HANDOFF_WORDS);
	snprintf(what, sizeof what, "data copied GPU%d→GPU%d", src, dst);
	compare_words(words, got, HANDOFF_WORDS, what);
}
`

func init() {
	register("ordering.submission-is-not-completion", recipe{basic: true, ptx: kernels.WaitReleased.PTX,
		helpers: orderingHelpers + submissionHelpers, timeout: specTimeout / 2,
		specs: func(t Target) []spec {
			if !t.Pair {
				return []spec{{
					name: fmt.Sprintf("reports an event after a copy within GPU%d queued behind a kernel waiting for the host NOT_READY until the copy is done", t.A),
					code: fmt.Sprintf("submission_is_not_completion(A, A, %dull);\n", seed("ordering.submission-is-not-completion", gpuName(t.A), gpuName(t.A))),
				}}
			}
			return []spec{{
				name: fmt.Sprintf("reports an event after a peer copy %s queued behind a kernel waiting for the host NOT_READY until the copy is done", t),
				code: fmt.Sprintf("submission_is_not_completion(A, B, %dull);\n", seed("ordering.submission-is-not-completion", gpuName(t.A), gpuName(t.B))),
			}}
		}})
}

// hostHandoffHelpers is host_handoff_test.go: a mapped pinned buffer (data,
// flag, acknowledgement), one kernel thread on the GPU side and this thread
// on the host side, 4096 rounds of 64 words each way.
const hostHandoffHelpers = `
enum { HD_ROUNDS = 4096, HD_WORDS = 64, HD_FLAG_OFF = 4 * HD_WORDS, HD_ACK_OFF = HD_FLAG_OFF + 128 };
#define HD_WAIT_NS 2000000000ull /* hdWait: 2 s */

/* flag_word is kernels.FlagWord. */
static uint32_t flag_word(uint32_t seed, uint32_t i) { return i * 0x9E3779B1u ^ seed * 0x85EBCA6Bu; }

struct host_handoff {
	uint32_t *mem; /* the mapped pinned buffer, 4096 bytes */
	CUdeviceptr status;
	CUstream s;
};

static struct host_handoff new_host_handoff(int dev) {
	struct host_handoff hd;
	void *p = NULL;
	use(dev);
	setup(cuMemHostAlloc(&p, 4096, 0x1 | 0x2 /* PORTABLE | DEVICEMAP */), "cuMemHostAlloc(PORTABLE|DEVICEMAP)");
	hd.mem = p;
	for (int i = 0; i < 1024; i++) __atomic_store_n(&hd.mem[i], 0, __ATOMIC_SEQ_CST);
	hd.status = dev_alloc(dev, 16);
	fill(dev, hd.status, 0, 4);
	hd.s = new_stream(dev);
	return hd;
}

static uint32_t *hd_word(struct host_handoff *hd, int off) { return &hd->mem[off / 4]; }

/* spin_until waits until *w >= r, for at most hdWait; 0 on a timeout. */
static int spin_until(uint32_t *w, uint32_t r) {
	double end = rt_now() + HD_WAIT_NS / 1e9;
	for (unsigned i = 0; __atomic_load_n(w, __ATOMIC_SEQ_CST) < r; i++)
		if (i % 256 == 0 && rt_now() > end) return 0;
	return 1;
}

static void launch_handoff(int dev, struct host_handoff *hd, const char *entry) {
	CUfunction f = load_kernel(dev, PTX, entry);
	uint64_t data = (uint64_t)(uintptr_t)hd->mem, flag = data + HD_FLAG_OFF, ack = data + HD_ACK_OFF, timeout = HD_WAIT_NS;
	uint32_t words = HD_WORDS, rounds = HD_ROUNDS;
	void *params[] = {&data, &flag, &ack, &words, &rounds, &hd->status, &timeout};
	if (!launch_shape(dev, f, hd->s, 1, 1, params, entry)) cannot_run("cannot launch %s", entry);
}
`

func init() {
	register("ordering.host-device-handoff", recipe{basic: true, ptx: kernels.HandoffToHost.PTX,
		helpers: orderingHelpers + hostHandoffHelpers, timeout: specTimeout / 2,
		specs: func(t Target) []spec {
			return []spec{{
				name: fmt.Sprintf("hands data from a kernel on GPU%d to a host goroutine when the kernel sets it with st.release.sys", t.A),
				key:  "gpu-to-host",
				code: `struct host_handoff hd = new_host_handoff(A);
step("running %d GPU → host handoffs of %d words", HD_ROUNDS, HD_WORDS);
launch_handoff(A, &hd, "hd_to_host");
uint32_t stale = 0, first_round = 0, failed_round = 0;
double start = rt_now();
for (uint32_t r = 1; r <= HD_ROUNDS; r++) {
	if (!spin_until(hd_word(&hd, HD_FLAG_OFF), r)) {
		failed_round = r;
		break;
	}
	for (uint32_t j = 0; j < HD_WORDS; j++)
		if (__atomic_load_n(&hd.mem[j], __ATOMIC_SEQ_CST) != flag_word(r, j)) {
			stale++;
			if (first_round == 0) first_round = r;
		}
	__atomic_store_n(hd_word(&hd, HD_ACK_OFF), r, __ATOMIC_SEQ_CST);
}
double elapsed = rt_now() - start;
if (!wait_stream(A, hd.s, "the GPU → host handoff kernel on " TARGET)) return;
uint32_t st[2];
download(A, hd.status, st, 2);
if (failed_round)
	violation("host side of the GPU → host handoff on GPU%d (GPU status %u, round %u): host: waiting for GPU%d's flag of round %u (flag holds %u): timed out after 2s",
		A, st[0], st[1], A, failed_round, __atomic_load_n(hd_word(&hd, HD_FLAG_OFF), __ATOMIC_SEQ_CST));
if (st[0] != 1) violation("GPU side: GPU%d's kernel waited 2s for the host's acknowledgement of round %u", A, st[1]);
printf("  metric: handoffs/s GPU→host = %.0f\n", HD_ROUNDS / elapsed);
if (stale != 0) violation("the host read %u stale words after seeing GPU%d's release flag; first in round %u", stale, A, first_round);
else if (!failed_round) printf("  ok: the host read every word new in all %d rounds\n", HD_ROUNDS);
`,
			}, {
				name: fmt.Sprintf("hands data from a host goroutine to a kernel on GPU%d when the goroutine sets it with an atomic store", t.A),
				key:  "host-to-gpu",
				code: `struct host_handoff hd = new_host_handoff(A);
step("running %d host → GPU handoffs of %d words", HD_ROUNDS, HD_WORDS);
launch_handoff(A, &hd, "hd_from_host");
uint32_t failed_round = 0;
double start = rt_now();
for (uint32_t r = 1; r <= HD_ROUNDS; r++) {
	for (uint32_t j = 0; j < HD_WORDS; j++) hd.mem[j] = flag_word(r, j); /* plain stores, as the suite */
	__atomic_store_n(hd_word(&hd, HD_FLAG_OFF), r, __ATOMIC_SEQ_CST);
	if (!spin_until(hd_word(&hd, HD_ACK_OFF), r)) {
		failed_round = r;
		break;
	}
}
double elapsed = rt_now() - start;
if (!wait_stream(A, hd.s, "the host → GPU handoff kernel on " TARGET)) return;
uint32_t st[4];
download(A, hd.status, st, 4);
if (failed_round)
	violation("host side of the host → GPU handoff on GPU%d (GPU status %u, round %u): host: waiting for GPU%d's acknowledgement of round %u (ack holds %u): timed out after 2s",
		A, st[0], st[1], A, failed_round, __atomic_load_n(hd_word(&hd, HD_ACK_OFF), __ATOMIC_SEQ_CST));
if (st[0] != 1) violation("GPU side: GPU%d's kernel waited 2s for the host's flag of round %u", A, st[1]);
printf("  metric: handoffs/s host→GPU = %.0f\n", HD_ROUNDS / elapsed);
if (st[2] != 0) violation("GPU%d's kernel read %u stale words after acquiring the host's flag; first in round %u", A, st[2], st[3]);
else if (!failed_round && st[0] == 1) printf("  ok: the kernel read every word new in all %d rounds\n", HD_ROUNDS);
`,
			}}
		}})
}

// eventHandoffCode is event_handoff_test.go's trial: %[1]d the seed, %[2]s
// the read before the wait (or nothing), %[3]s its evidence check.
const eventHandoffCode = `uint32_t seed = %[1]du;
/* newEventHandoff */
CUdeviceptr src = dev_alloc(A, 4 * HANDOFF_WORDS), dst = dev_alloc(B, 4 * HANDOFF_WORDS), result = dev_alloc(B, 8), status = dev_alloc(A, 4);
CUstream prod = new_stream(A), copier = new_stream(A), cons = new_stream(B);
CUevent ready = new_event(A, 2 /* DISABLE_TIMING */), copied = new_event(A, 2);
unsigned grid_a = sm_count(A), grid_b = sm_count(B);
/* trial */
step("producing on GPU%%d behind a 20ms delay, copying to GPU%%d and verifying there, each step waiting on the last one's event", A, B);
fill(A, src, POISON, HANDOFF_WORDS);
fill(B, dst, POISON, HANDOFF_WORDS);
fill(A, status, 0, 1);
uint32_t preset[2] = {0, 0xFFFFFFFFu};
upload(B, result, preset, 2);%[2]s
uint64_t n = HANDOFF_WORDS;
CUcontext ca = ctx_of(A), cb = ctx_of(B);
void *fill_params[] = {&src, &n, &seed};
void *verify_params[] = {&dst, &n, &seed, &result};
if (!launch_delay(A, prod, PRODUCER_LAG_NS, status) ||
	!launch_shape(A, basic_kernel(A, "fill", rt_fill_fn), prod, grid_a, 256, fill_params, "launch the producer (fill) on GPU A") ||
	!record(A, ready, prod, "cuEventRecord(ready) on the producer stream"))
	return;
use(A);
if (!must(cuStreamWaitEvent(copier, ready, 0), "cuStreamWaitEvent(copy stream, ready)")) return;
if (!must(cuMemcpyPeerAsync(dst, cb, src, ca, 4 * HANDOFF_WORDS, copier), "cuMemcpyPeerAsync A→B on the copy stream")) return;
if (!record(A, copied, copier, "cuEventRecord(copied) on the copy stream")) return;
use(B);
if (!must(cuStreamWaitEvent(cons, copied, 0), "cuStreamWaitEvent(consumer stream of B, copied event of A)")) return;
if (!launch_shape(B, basic_kernel(B, "verify", rt_verify_fn), cons, grid_b, 256, verify_params, "launch the consumer (verify) on GPU B")) return;
if (!wait_stream(B, cons, "event handoff " TARGET) || !wait_stream(A, copier, "event handoff " TARGET) || !wait_stream(A, prod, "event handoff " TARGET)) return;
uint32_t res[2];
download(B, result, res, 2);
if (res[0] != 0)
	violation("GPU%%d's consumer found %%u of %%d words stale after waiting on the copy's event; first at word %%u", B, res[0], HANDOFF_WORDS, res[1]);%[3]s
else
	printf("  ok: GPU%%d's consumer found all %%d words produced on GPU%%d\n", B, HANDOFF_WORDS, A);
`
