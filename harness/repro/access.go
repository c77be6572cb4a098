// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package repro

import (
	"fmt"
	"strings"
)

// The access suite's recipes (suites/access). Sizes, seeds and the order of
// the driver calls follow the specs; the comments name the spec helper each
// C function mirrors.

// accessHelpers is the C the access recipes share.
const accessHelpers = `
enum { GUARD = 16 }; /* guardWords: poisoned words after every destination */

/* upload_random is uploadRandom: n seeded random words on dev. */
static CUdeviceptr upload_random(int dev, size_t n, uint64_t seed, uint32_t *want) {
	random_words(seed, want, n);
	CUdeviceptr p = dev_alloc(dev, 4 * n);
	upload(dev, p, want, n);
	return p;
}

/* poisoned is poisoned: n words plus the guard on dev, all the poison. */
static CUdeviceptr poisoned(int dev, size_t n) {
	CUdeviceptr p = dev_alloc(dev, 4 * (n + GUARD));
	fill(dev, p, POISON, n + GUARD);
	return p;
}

/* peer_copy is peerCopy: n seeded random words from src's memory to dst's
 * with cuMemcpyPeerAsync on a stream of src, every word checked at dst. */
static void peer_copy(int src, int dst, size_t n, uint64_t seed, const char *mode) {
	char what[256];
	step("copying %zu bytes from GPU%d to GPU%d", 4 * n, src, dst);
	uint32_t *want = host_words(n);
	CUdeviceptr from = upload_random(src, n, seed, want);
	CUdeviceptr to = poisoned(dst, n);
	CUstream s = new_stream(src);
	CUcontext sc = ctx_of(src), dc = ctx_of(dst);
	use(src);
	snprintf(what, sizeof what, "cuMemcpyPeerAsync of %zu bytes GPU%d→GPU%d %s", 4 * n, src, dst, mode);
	if (must(cuMemcpyPeerAsync(to, dc, from, sc, 4 * n, s), what) && wait_stream(src, s, what)) {
		snprintf(what, sizeof what, "GPU%d's buffer after cuMemcpyPeerAsync of %zu bytes from GPU%d %s", dst, 4 * n, src, mode);
		expect_words(dst, to, want, n, GUARD, what);
	}
	stream_free(src, s);
	dev_free(src, from);
	dev_free(dst, to);
	free(want);
}

/* A boundary copy (copy_boundary_test.go): the source holds seed2's pattern
 * up to word k and seed's pattern from there, so destination words w0.. hold
 * seed's pattern from index 0 and the verify kernel checks them in place. */
struct layout {
	uint64_t bytes, src_off, dst_off, src_words, dst_words, k, w0, w_end;
};

static struct layout layout_of(uint64_t bytes, uint64_t src_off, uint64_t dst_off) {
	struct layout l = {bytes, src_off, dst_off, 0, 0, 0, 0, 0};
	l.src_words = (src_off + bytes + 3) / 4 + 1;
	l.dst_words = (dst_off + bytes + 3) / 4 + GUARD;
	l.w0 = (dst_off + 3) / 4;
	l.w_end = (dst_off + bytes) / 4;
	l.k = (src_off + 4 * l.w0 - dst_off) / 4;
	return l;
}

static uint64_t layout_need(struct layout l) { return 4 * (l.src_words > l.dst_words ? l.src_words : l.dst_words); }

static unsigned char src_byte(struct layout l, uint64_t y, uint32_t seed, uint32_t seed2) {
	uint64_t j = y / 4;
	uint32_t w = j >= l.k ? pattern_word(seed, j - l.k) : pattern_word(seed2, j);
	return (unsigned char)(w >> (8 * (y % 4)));
}

static unsigned char dst_byte(struct layout l, uint64_t x, uint32_t seed, uint32_t seed2) {
	if (x < l.dst_off || x >= l.dst_off + l.bytes) return (unsigned char)(POISON >> (8 * (x % 4)));
	return src_byte(l, l.src_off + (x - l.dst_off), seed, seed2);
}

/* check_bytes checks destination words [first, first+n) byte by byte. */
static int check_bytes(struct layout l, const uint32_t *words, uint64_t first, uint64_t n, uint32_t sa, uint32_t sb,
	const char *what, const char *part) {
	const unsigned char *b = (const unsigned char *)words;
	for (uint64_t i = 0; i < 4 * n; i++) {
		uint64_t x = 4 * first + i;
		unsigned char want = dst_byte(l, x, sa, sb);
		if (b[i] != want) {
			violation("%s: %s: destination byte %llu (byte %lld of the copy) is 0x%02x, want 0x%02x (%s)", what, part,
				(unsigned long long)x, (long long)x - (long long)l.dst_off, b[i], want,
				x < l.dst_off || x >= l.dst_off + l.bytes ? "outside the copy: must keep the poison" : "copied from the source");
			return 0;
		}
	}
	return 1;
}

/* boundary_copy is boundaryCopyRun: peer (1: cuMemcpyPeerAsync, 0:
 * cuMemcpyAsync) copies l.bytes from src's memory to dst's on a stream of
 * src; dst, the owner, checks every whole word with the verify kernel and
 * the host the bytes at either end. */
static void boundary_copy(int src, int dst, struct layout l, uint64_t seed, int peer, const char *how) {
	char what[256];
	uint32_t sa = (uint32_t)seed, sb = (uint32_t)(seed >> 32) | 1;
	if (sb == sa) sb++;
	CUdeviceptr from = dev_alloc(src, 4 * l.src_words);
	CUdeviceptr to = dev_alloc(dst, 4 * l.dst_words);
	struct gpu_work ws = gpu_work(src), wd = gpu_work(dst);
	int ok = 1;
	if (l.k > 0) ok = run_fill(&ws, from, l.k, sb, "fill the words of the source before the pattern");
	ok = ok && run_fill(&ws, from + 4 * l.k, l.src_words - l.k, sa, "fill the source with the pattern");
	fill(dst, to, POISON, l.dst_words);
	snprintf(what, sizeof what, "%s of %llu bytes from GPU%d (byte %llu) to GPU%d (byte %llu)", how,
		(unsigned long long)l.bytes, src, (unsigned long long)l.src_off, dst, (unsigned long long)l.dst_off);
	CUstream s = new_stream(src);
	CUcontext sc = ctx_of(src), dc = ctx_of(dst);
	use(src);
	if (ok) {
		CUresult r = peer ? cuMemcpyPeerAsync(to + l.dst_off, dc, from + l.src_off, sc, l.bytes, s)
		                  : cuMemcpyAsync(to + l.dst_off, from + l.src_off, l.bytes, s);
		ok = must(r, what) && wait_stream(src, s, what);
	}
	if (ok) {
		struct verdict v = run_verify(&wd, to + 4 * l.w0, l.w_end - l.w0, sa);
		if (v.code != 0)
			violation("verify the destination on GPU%d after %s: %s", dst, what, verdict_text(v));
		else if (v.mismatches != 0)
			violation("%s: %u of the %llu whole words at the destination differ (checked on GPU%d), the first the word at byte %llu of the copy (destination byte %llu)",
				what, v.mismatches, (unsigned long long)(l.w_end - l.w0), dst,
				(unsigned long long)(4 * (l.w0 + v.first) - l.dst_off), (unsigned long long)(4 * (l.w0 + v.first)));
		else
			printf("  ok: %s: all %llu whole words match (checked on GPU%d)\n", what, (unsigned long long)(l.w_end - l.w0), dst);
		uint32_t head[4], *tail = host_words(l.dst_words - l.w_end);
		if (l.w0 > 0) download(dst, to, head, l.w0);
		download(dst, to + 4 * l.w_end, tail, l.dst_words - l.w_end);
		if (check_bytes(l, head, 0, l.w0, sa, sb, what, "the bytes before the first whole word") &&
			check_bytes(l, tail, l.w_end, l.dst_words - l.w_end, sa, sb, what, "the bytes after the last whole word and the 16 guard words"))
			printf("  ok: %s: the bytes at either end and the guard\n", what);
		free(tail);
	}
	stream_free(src, s);
	gpu_work_free(&ws);
	gpu_work_free(&wd);
	dev_free(src, from);
	dev_free(dst, to);
}

/* remote_round_trip is remoteRoundTrip: a kernel on a reads n words of
 * b's memory at buf into a's memory, then writes n other words into buf;
 * both checked word by word. Peer access a→b must be enabled. */
static void remote_round_trip(int a, int b, CUdeviceptr buf, size_t n, uint32_t seed, const char *what) {
	char msg[256];
	struct gpu_work wb = gpu_work(b), wa = gpu_work(a);
	uint32_t *want = host_words(n), *got = host_words(n);
	for (size_t i = 0; i < n; i++) want[i] = pattern_word(seed, i);
	snprintf(msg, sizeof msg, "fill %s on GPU%d", what, b);
	if (run_fill(&wb, buf, n, seed, msg)) {
		CUdeviceptr local = poisoned(a, n);
		snprintf(msg, sizeof msg, "kernel on GPU%d reading %s", a, what);
		if (run_transform(&wa, local, buf, n, 0, msg)) {
			snprintf(msg, sizeof msg, "words a kernel on GPU%d read from %s", a, what);
			expect_words(a, local, want, n, GUARD, msg);
		}
		dev_free(a, local);
		for (size_t i = 0; i < n; i++) want[i] = pattern_word(seed + 1, i);
		snprintf(msg, sizeof msg, "kernel on GPU%d writing %s", a, what);
		if (run_fill(&wa, buf, n, seed + 1, msg)) {
			download(b, buf, got, n);
			snprintf(msg, sizeof msg, "words a kernel on GPU%d wrote into %s, read on GPU%d", a, what, b);
			compare_words(want, got, n, msg);
		}
	}
	gpu_work_free(&wa);
	gpu_work_free(&wb);
	free(want);
	free(got);
}

/* expect_healthy is the suite's ExpectHealthy: an empty kernel runs and
 * completes on each GPU of the pair. */
static void expect_healthy(int a, int b) {
	int devs[2] = {a, b};
	for (int i = 0; i < 2; i++) {
		CUfunction f = load_kernel(devs[i], rt_basic_ptx, "empty");
		CUstream s = new_stream(devs[i]);
		char what[96];
		snprintf(what, sizeof what, "an empty kernel on GPU%d (is this process's context healthy?)", devs[i]);
		if (must(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL), what) && wait_stream(devs[i], s, what))
			printf("  ok: GPU%d's context is healthy\n", devs[i]);
		stream_free(devs[i], s);
	}
}
`

// probeHelpers is the helper role access.peer-probe (fault_role_test.go):
// fill the owner's buffer, enable what the request says, optionally read it
// from the accessor before disabling, then read it once more: the read that
// must fault.
const probeHelpers = `
enum { ROLE_PEER_PROBE = 1 };

static void helper_role(const struct helper_req *q, struct helper_rep *p, int fd) {
	(void)fd;
	int acc = q->a, own = q->b;
	step("helper: fill GPU%d's buffer", own);
	CUdeviceptr buf = dev_alloc(own, 4 * q->words);
	struct gpu_work wo = gpu_work(own);
	if (!run_fill(&wo, buf, q->words, q->seed, "helper: fill")) exit(EXIT_CANNOT_RUN);
	struct gpu_work wa = gpu_work(acc);
	if (q->enable) {
		step("helper: enable peer access GPU%d→GPU%d", q->enable >> 8, q->enable & 0xff);
		if (!enable_peer(q->enable >> 8, q->enable & 0xff)) exit(EXIT_CANNOT_RUN);
	}
	if (q->before) {
		step("helper: kernel on GPU%d reads GPU%d's memory before the disable", acc, own);
		p->before = run_verify(&wa, buf, q->words, q->seed);
		p->has_before = 1;
	}
	if (q->disable) {
		step("helper: disable peer access GPU%d→GPU%d", q->disable >> 8, q->disable & 0xff);
		CUcontext peer = ctx_of(q->disable & 0xff);
		use(q->disable >> 8);
		CUresult r = cuCtxDisablePeerAccess(peer);
		if (r != 0) {
			p->code = -1;
			snprintf(p->error, sizeof p->error, "disable peer access: %s (%d)", err_name(r), r);
			return;
		}
	}
	step("helper: probe: kernel on GPU%d reads GPU%d's memory", acc, own);
	p->data = run_verify(&wa, buf, q->words, q->seed);
	p->code = p->data.code;
	if (p->code != 0) snprintf(p->error, sizeof p->error, "%s (%d)", err_name(p->code), p->code);
}

/* probe runs the role in a fresh helper; enable and disable name one
 * direction each as accessor<<8 | owner, or 0. */
static int probe(int acc, int own, int enable, int before, int disable, uint64_t words, uint32_t seed, struct helper_rep *rep) {
	struct helper_req q;
	memset(&q, 0, sizeof q);
	q.role = ROLE_PEER_PROBE;
	q.a = acc;
	q.b = own;
	q.enable = enable;
	q.before = before;
	q.disable = disable;
	q.words = words;
	q.seed = seed;
	return helper_call(&q, rep, -1);
}

/* expect_no_access is expectNoAccess: the probe must have failed. */
static void expect_no_access(const struct helper_rep *rep, const char *what) {
	if (rep->code == 0)
		violation("%s: want a failure (e.g. CUDA_ERROR_ILLEGAL_ADDRESS), but the kernel completed and read: %s", what, verdict_text(rep->data));
	else
		printf("  ok: %s failed as it must: %s\n", what, rep->error);
}
`

func init() {
	// The names and variant keys are the suite's (suites/access).
	copySizes := []struct {
		name, key string
		words     int
	}{{"4 B", "4b", 1}, {"4 KiB + 12 B", "4kib-12b", 1024 + 3}}
	type boundaryCopy struct {
		name, key      string
		bytes          uint64
		srcOff, dstOff uint64
	}
	boundary := []boundaryCopy{
		{"64 MiB + 4 KiB + 7 B at byte offsets 3→7", "64mib-4kib-7b-at-3-7", 64<<20 + 4<<10 + 7, 3, 7},
		{"4 GiB + 12 B", "4gib-12b", 4<<30 + 12, 0, 0},
	}
	// The peer copies the suite checks on the owner GPU: 64 MiB and the
	// boundary copies (ownerCheckedPeerCopies).
	ownerChecked := append([]boundaryCopy{{"64 MiB", "64mib", 64 << 20, 0, 0}}, boundary...)
	copyMode := func(peer bool) string {
		if peer {
			return "peer"
		}
		return "no-peer"
	}

	register("access.peer-copy", recipe{basic: true, helpers: accessHelpers, timeout: specTimeout,
		specs: func(t Target) []spec {
			var out []spec
			for _, size := range copySizes {
				for _, peer := range []bool{false, true} {
					mode := modeText(t, peer)
					s := seed("access.peer-copy", t.ID(), size.name, mode)
					out = append(out, spec{
						name: fmt.Sprintf("cuMemcpyPeerAsync moves %s GPU%d→GPU%d and GPU%d→GPU%d exactly, %s", size.name, t.A, t.B, t.B, t.A, mode),
						key:  size.key + "-" + copyMode(peer),
						code: peerPrologue(peer) + fmt.Sprintf("peer_copy(A, B, %d, %dull, %s);\npeer_copy(B, A, %d, %dull, %s);\n",
							size.words, s, cString(mode), size.words, s+1, cString(mode)) + peerEpilogue(peer),
					})
				}
			}
			for _, c := range ownerChecked {
				for _, peer := range []bool{false, true} {
					mode := modeText(t, peer)
					s := seed("access.peer-copy", t.ID(), c.name, mode)
					out = append(out, spec{
						name: fmt.Sprintf("cuMemcpyPeerAsync moves %s GPU%d→GPU%d and GPU%d→GPU%d exactly, %s", c.name, t.A, t.B, t.B, t.A, mode),
						key:  c.key + "-" + copyMode(peer),
						code: fmt.Sprintf("struct layout l = layout_of(%dull, %d, %d);\n", c.bytes, c.srcOff, c.dstOff) +
							fmt.Sprintf("if (!has_free_memory(A, 2 * layout_need(l), %s) || !has_free_memory(B, 2 * layout_need(l), %s)) return;\n",
								cString("a copy of "+c.name+" each way"), cString("a copy of "+c.name+" each way")) +
							peerPrologue(peer) +
							fmt.Sprintf("step(\"copying %s from GPU%d to GPU%d\");\nboundary_copy(A, B, l, %dull, 1, %s);\n", c.name, t.A, t.B, s, cString("cuMemcpyPeerAsync "+mode)) +
							fmt.Sprintf("step(\"copying %s from GPU%d to GPU%d\");\nboundary_copy(B, A, l, %dull, 1, %s);\n", c.name, t.B, t.A, s+1, cString("cuMemcpyPeerAsync "+mode)) +
							peerEpilogue(peer),
					})
				}
			}
			return out
		}})

	register("access.local-copy", recipe{basic: true, helpers: accessHelpers, timeout: specTimeout,
		specs: func(t Target) []spec {
			var out []spec
			for _, c := range boundary {
				out = append(out, spec{
					name: fmt.Sprintf("cuMemcpyAsync moves %s within GPU%d exactly", c.name, t.A),
					key:  c.key,
					code: fmt.Sprintf("struct layout l = layout_of(%dull, %d, %d);\n", c.bytes, c.srcOff, c.dstOff) +
						fmt.Sprintf("if (!has_free_memory(A, 2 * layout_need(l), %s)) return;\n", cString("a copy of "+c.name+" within it")) +
						fmt.Sprintf("step(\"copying %s within GPU%d\");\nboundary_copy(A, A, l, %dull, 0, \"cuMemcpyAsync\");\n",
							c.name, t.A, seed("access.local-copy", t.String(), c.name)),
				})
			}
			return out
		}})

	register("access.staged-copy", recipe{basic: true, helpers: accessHelpers, timeout: specTimeout,
		specs: func(t Target) []spec {
			return []spec{{
				name: fmt.Sprintf("a copy GPU%d→pinned host memory→GPU%d moves the data exactly", t.A, t.B),
				code: fmt.Sprintf(`enum { N = (1 << 20) + 3 };
uint32_t *want = host_words(N);
CUdeviceptr src = upload_random(A, N, %dull, want);
void *hb = NULL;
use(A);
setup(cuMemHostAlloc(&hb, 4 * (N + GUARD), 0x1 /* CU_MEMHOSTALLOC_PORTABLE */), "cuMemHostAlloc(PORTABLE)");
uint32_t *hw = hb;
for (size_t i = 0; i < N + GUARD; i++) hw[i] = POISON;
CUdeviceptr dst = poisoned(B, N);
step("copying GPU%%d's buffer to pinned host memory on a stream of GPU%%d", A, A);
CUstream sa = new_stream(A);
use(A);
if (must(cuMemcpyAsync((CUdeviceptr)(uintptr_t)hb, src, 4 * N, sa), "cuMemcpyAsync GPU→host") && wait_stream(A, sa, "cuMemcpyAsync GPU→host")) {
	uint32_t *expect = host_words(N + GUARD);
	memcpy(expect, want, 4 * N);
	for (size_t i = N; i < N + GUARD; i++) expect[i] = POISON;
	char what[160];
	snprintf(what, sizeof what, "pinned host memory after cuMemcpyAsync from GPU%%d (then %%d guard words)", A, GUARD);
	compare_words(expect, hw, N + GUARD, what);
	free(expect);
	step("copying the pinned host memory to GPU%%d on a stream of GPU%%d", B, B);
	CUstream sb = new_stream(B);
	use(B);
	if (must(cuMemcpyAsync(dst, (CUdeviceptr)(uintptr_t)hb, 4 * N, sb), "cuMemcpyAsync host→GPU") && wait_stream(B, sb, "cuMemcpyAsync host→GPU")) {
		snprintf(what, sizeof what, "GPU%%d's buffer after the staged copy from GPU%%d", B, A);
		expect_words(B, dst, want, N, GUARD, what);
	}
	stream_free(B, sb);
}
stream_free(A, sa);
`, seed("access.staged-copy", t.ID())),
			}}
		}})

	const kernelWords = 1<<20 + 3
	register("access.kernel-remote-read", recipe{basic: true, helpers: accessHelpers, timeout: specTimeout,
		specs: func(t Target) []spec {
			add := seed32("access.kernel-remote-read add", t.ID()) | 1
			return []spec{{
				name: fmt.Sprintf("a kernel on GPU%d reads GPU%d's array and writes a function of it into GPU%d's memory, with peer access %s enabled", t.A, t.B, t.A, t),
				code: peerPrologue(true) + fmt.Sprintf(`enum { N = %d };
uint32_t *in = host_words(N);
CUdeviceptr src = upload_random(B, N, %dull, in);
CUdeviceptr dst = poisoned(A, N);
uint32_t add = %du;
step("a kernel on GPU%%d sets its word i to GPU%%d's word i + %%u", A, B, add);
struct gpu_work w = gpu_work(A);
if (run_transform(&w, dst, src, N, add, "kernel on GPU%d reading GPU%d's memory")) {
	for (size_t i = 0; i < N; i++) in[i] += add;
	expect_words(A, dst, in, N, GUARD, "GPU%d's array computed by its kernel from GPU%d's array");
}
gpu_work_free(&w);
`, kernelWords, seed("access.kernel-remote-read", t.ID()), add, t.A, t.B, t.A, t.B) + peerEpilogue(true),
			}}
		}})

	register("access.kernel-remote-write", recipe{basic: true, helpers: accessHelpers, timeout: specTimeout,
		specs: func(t Target) []spec {
			// The suite's three sizes, smallest first; the largest keeps the
			// seed the check had at one size.
			var code strings.Builder
			for i, n := range []int{1, 1024 + 3, kernelWords} {
				s := seed32("access.kernel-remote-write", t.ID())
				if n != kernelWords {
					s = seed32("access.kernel-remote-write", t.ID(), i)
				}
				fmt.Fprintf(&code, `{
enum { N = %d };
CUdeviceptr dst = poisoned(B, N);
uint32_t seed = %du;
step("a kernel on GPU%%d fills %%d words of GPU%%d's buffer with a seeded pattern", A, (int)N, B);
struct gpu_work w = gpu_work(A);
if (run_fill(&w, dst, N, seed, "kernel on GPU%d storing %d words to GPU%d's memory")) {
	uint32_t *want = host_words(N);
	for (size_t i = 0; i < N; i++) want[i] = pattern_word(seed, i);
	step("reading GPU%%d's buffer through GPU%%d after GPU%%d's stream completed", B, B, A);
	expect_words(B, dst, want, N, GUARD, "GPU%d's %d-word buffer stored by a kernel on GPU%d");
}
gpu_work_free(&w);
}
`, n, s, t.A, n, t.B, t.B, n, t.A)
			}
			return []spec{{
				name: fmt.Sprintf("enabling peer access from GPU%d to GPU%d lets a kernel on GPU%d store to GPU%d's memory", t.A, t.B, t.A, t.B),
				code: peerPrologue(true) + code.String() + peerEpilogue(true),
			}}
		}})

	const probeWords = 4096 + 3
	register("access.enable-covers-allocations", recipe{basic: true, helpers: accessHelpers, timeout: specTimeout,
		specs: func(t Target) []spec {
			s := seed32("access.enable-covers-allocations", t.ID())
			return []spec{{
				name: fmt.Sprintf("after enabling peer access %s, GPU%d's kernels reach GPU%d's allocations made before and after the enable", t, t.A, t.B),
				code: fmt.Sprintf(`if (!can_access_peer(A, B)) { skipped("cuDeviceCanAccessPeer(%%d, %%d)=0", A, B); return; }
step("allocating on GPU%%d, then enabling %s, then allocating again", B);
CUdeviceptr before = dev_alloc(B, 4 * %d);
if (!enable_peer(A, B)) return;
CUdeviceptr after = dev_alloc(B, 4 * %d);
step("a kernel on GPU%%d reads and writes the allocation made before the enable", A);
remote_round_trip(A, B, before, %d, %du, %s);
step("a kernel on GPU%%d reads and writes the allocation made after the enable", A);
remote_round_trip(A, B, after, %d, %du, %s);
disable_peer(A, B);
`, t, probeWords, probeWords, probeWords, s, cString(fmt.Sprintf("GPU%d's allocation made before enabling %s", t.B, t)),
					probeWords, s+2, cString(fmt.Sprintf("GPU%d's allocation made after enabling %s", t.B, t))),
			}}
		}})

	register("access.enable-is-directional", recipe{basic: true, helpers: accessHelpers + probeHelpers, timeout: specTimeout, helperProcess: true,
		specs: func(t Target) []spec {
			s := seed32("access.enable-is-directional", t.ID())
			return []spec{{
				name: fmt.Sprintf("enabling peer access %s gives GPU%d's kernels access to GPU%d's memory and GPU%d's kernels none to GPU%d's", t, t.A, t.B, t.B, t.A),
				code: fmt.Sprintf(`if (!can_access_peer(A, B)) { skipped("cuDeviceCanAccessPeer(%%d, %%d)=0", A, B); return; }
step("enabling peer access %s only");
if (!enable_peer(A, B)) return;
CUdeviceptr buf = dev_alloc(B, 4 * %d);
remote_round_trip(A, B, buf, %d, %du, %s);
step("in a helper: enabling %s only, then a kernel on GPU%%d reads GPU%%d's memory", B, A);
struct helper_rep rep;
if (probe(B, A, A << 8 | B, 0, 0, %d, %du, &rep))
	expect_no_access(&rep, %s);
expect_healthy(A, B);
disable_peer(A, B);
`, t, probeWords, probeWords, s, cString(fmt.Sprintf("GPU%d's memory", t.B)), t, probeWords, s,
					cString(fmt.Sprintf("kernel on GPU%d reading GPU%d's memory with only %s enabled", t.B, t.A, t))),
			}}
		}})

	register("access.enable-errors", recipe{basic: true, helpers: accessHelpers + probeHelpers, timeout: specTimeout, helperProcess: true,
		specs: func(t Target) []spec {
			return []spec{{
				name: fmt.Sprintf("peer access %s cannot be enabled twice or disabled when not enabled, and disabling it takes access away", t),
				code: fmt.Sprintf(`if (!can_access_peer(A, B)) { skipped("cuDeviceCanAccessPeer(%%d, %%d)=0", A, B); return; }
CUcontext peer = ctx_of(B);
CUresult r;
step("disabling peer access %[1]s before it was enabled");
use(A);
if ((r = cuCtxDisablePeerAccess(peer)) != 705)
	violation("cuCtxDisablePeerAccess %[1]s while not enabled: want CUDA_ERROR_PEER_ACCESS_NOT_ENABLED (705), got %%s (%%d)", err_name(r), r);
step("enabling peer access %[1]s twice");
if (!enable_peer(A, B)) return;
use(A);
if ((r = cuCtxEnablePeerAccess(peer, 0)) != 704)
	violation("cuCtxEnablePeerAccess %[1]s a second time: want CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED (704), got %%s (%%d)", err_name(r), r);
step("disabling peer access %[1]s twice");
disable_peer(A, B);
use(A);
if ((r = cuCtxDisablePeerAccess(peer)) != 705)
	violation("cuCtxDisablePeerAccess %[1]s a second time: want CUDA_ERROR_PEER_ACCESS_NOT_ENABLED (705), got %%s (%%d)", err_name(r), r);
step("in a helper: enabling %[1]s, reading GPU%%d's memory from GPU%%d, disabling, reading again", B, A);
struct helper_rep rep;
if (probe(A, B, A << 8 | B, 1, A << 8 | B, %[2]d, %[3]du, &rep)) {
	if (!rep.has_before || rep.before.code != 0 || rep.before.mismatches != 0)
		violation("in the helper, a kernel on GPU%%d reading GPU%%d's memory while %[1]s was enabled: %%s", A, B, verdict_text(rep.before));
	else if (rep.code == -1)
		violation("in the helper: %%s", rep.error);
	else
		expect_no_access(&rep, %[4]s);
}
expect_healthy(A, B);
`, t, probeWords, seed32("access.enable-errors", t.ID()), cString(fmt.Sprintf("kernel on GPU%d reading GPU%d's memory after disabling %s", t.A, t.B, t))),
			}}
		}})

	register("access.host-mapped", recipe{basic: true, helpers: accessHelpers, timeout: specTimeout,
		specs: func(t Target) []spec {
			return []spec{{
				name: fmt.Sprintf("a kernel on GPU%d reads and writes mapped pinned host memory that the host then sees", t.A),
				code: fmt.Sprintf(`if (attribute(A, 19 /* CAN_MAP_HOST_MEMORY */) != 1) { skipped("needs CAN_MAP_HOST_MEMORY=1 on GPU%%d", A); return; }
enum { N = (1 << 16) + 3 };
void *hb = NULL;
use(A);
setup(cuMemHostAlloc(&hb, 4 * 3 * N, 0x2 | 0x1 /* DEVICEMAP | PORTABLE */), "cuMemHostAlloc(DEVICEMAP|PORTABLE)");
CUdeviceptr dp = 0;
setup(cuMemHostGetDevicePointer(&dp, hb, 0), "cuMemHostGetDevicePointer");
printf("  finding: device pointer equals host pointer: %%s (cuMemHostGetDevicePointer 0x%%llx, host pointer 0x%%llx)\n",
	dp == (CUdeviceptr)(uintptr_t)hb ? "true" : "false", (unsigned long long)dp, (unsigned long long)(uintptr_t)hb);
uint32_t *hw = hb, *in = host_words(N), *want = host_words(N);
random_words(%dull, in, N);
memcpy(hw, in, 4 * N);
for (size_t i = N; i < 3 * N; i++) hw[i] = POISON;
uint32_t add = %du;
step("a kernel on GPU%%d adds %%u to each word through the device pointer", A, add);
struct gpu_work w = gpu_work(A);
char what[160];
if (run_transform(&w, dp + 4 * N, dp, N, add, "kernel through the mapped device pointer")) {
	for (size_t i = 0; i < N; i++) want[i] = in[i] + add;
	snprintf(what, sizeof what, "host view of what a kernel on GPU%%d wrote through device pointer 0x%%llx", A, (unsigned long long)dp);
	compare_words(want, hw + N, N, what);
}
if (attribute(A, 41 /* UNIFIED_ADDRESSING */) == 1) {
	step("under UVA, a kernel on GPU%%d does the same through the host pointer itself", A);
	CUdeviceptr hp = (CUdeviceptr)(uintptr_t)hb;
	if (run_transform(&w, hp + 4 * 2 * N, hp, N, add + 1, "kernel through the host pointer")) {
		for (size_t i = 0; i < N; i++) want[i] = in[i] + add + 1;
		snprintf(what, sizeof what, "host view of what a kernel on GPU%%d wrote through host pointer 0x%%llx", A, (unsigned long long)hp);
		compare_words(want, hw + 2 * N, N, what);
	}
}
gpu_work_free(&w);
use(A);
setup(cuMemFreeHost(hb), "cuMemFreeHost");
`, seed("access.host-mapped", t.String()), seed32("access.host-mapped add", t.String())|1),
			}}
		}})
}

// modeText is the access suite's mode phrase.
func modeText(t Target, peer bool) string {
	if peer {
		return fmt.Sprintf("with peer access %s enabled", t)
	}
	return "without peer access"
}

// peerPrologue is RequirePeerAccess and MustEnablePeerAccess.
func peerPrologue(peer bool) string {
	if !peer {
		return ""
	}
	return `if (!require_peer_access(A, B) || !enable_peer(A, B)) return;
`
}

// peerEpilogue is the suite's cleanup of an enable.
func peerEpilogue(peer bool) string {
	if !peer {
		return ""
	}
	return "disable_peer(A, B);\n"
}
