// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package repro

import (
	"fmt"
	"strings"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/claims"
	"github.com/p2pconf/p2pconf/kernels"
)

// hostOps are the operations the host applies natively (hostOps of
// suites/atomics).
var hostOps = []string{"add.u32", "add.u64", "exch.b32", "exch.b64", "cas.b32", "cas.b64", "and.b32", "and.b64", "or.b32", "or.b64"}

// cudaOp is the CUDA operation and type a contention operation exercises
// (cudaOp of suites/atomics), for the advertised-as-native skip.
func cudaOp(op kernels.ContendOp) (backend.AtomicOperation, claims.AtomicType) {
	t := claims.AtomicType{Bits: op.Bits(), Signed: op.Type == kernels.TS32 || op.Type == kernels.TS64,
		Float: op.Type == kernels.TF32 || op.Type == kernels.TF64}
	switch op.Op {
	case kernels.OpAdd:
		if t.Float {
			return backend.AtomicFloatAdd, t
		}
		return backend.AtomicIntegerAdd, t
	case kernels.OpMin:
		return backend.AtomicIntegerMin, t
	case kernels.OpMax:
		return backend.AtomicIntegerMax, t
	case kernels.OpInc:
		return backend.AtomicIntegerIncrement, t
	case kernels.OpDec:
		return backend.AtomicIntegerDecrement, t
	case kernels.OpAnd:
		return backend.AtomicAnd, t
	case kernels.OpOr:
		return backend.AtomicOr, t
	case kernels.OpXor:
		return backend.AtomicXor, t
	case kernels.OpExch:
		return backend.AtomicExchange, t
	}
	return backend.AtomicCAS, t
}

// needMask is the capability mask op must cover on t (claims.CapsCover).
func needMask(op backend.AtomicOperation, t claims.AtomicType) uint32 {
	const all = backend.AtomicCaps(0x7f)
	var m backend.AtomicCaps
	for bit := backend.AtomicCaps(1); bit < 0x80; bit <<= 1 {
		if !claims.CapsCover(op, all&^bit, t) {
			m |= bit
		}
	}
	return uint32(m)
}

// contentionHelpers is run_test.go, plan_test.go and oracle_test.go of the
// atomics suite: every side launches atom_contend_sys behind a start gate in
// mapped pinned memory (4 ops per thread), then the final words and every
// returned value are compared with what an atomic order allows.
const contentionHelpers = `
enum { CT_ITERS = 4 };
#define CT_GATE_TIMEOUT_NS 5000000000ull /* gateTimeout: 5 s */

struct ct_op {
	unsigned sel;
	const char *name; /* "add.u32" */
	int bits, is_signed, is_float;
	char kind; /* a add, x exch, c cas, n min, m max, &, |, ^, i inc, d dec */
};

/* ct_plan is plan of plan_test.go. */
struct ct_plan {
	const struct ct_op *op;
	uint32_t mode;
	uint64_t a, b, init, nwords, total;
};

static uint64_t ct_trunc(const struct ct_plan *p, uint64_t v) { return p->op->bits == 32 ? v & 0xFFFFFFFFull : v; }

static struct ct_plan ct_new_plan(const struct ct_op *op, uint64_t total) {
	struct ct_plan p = {op, 0, 0, 0, 0, op->kind == 'c' ? 16 : 4, total};
	uint64_t per = (total + p.nwords - 1) / p.nwords, half = total / 2, step64 = 1ull << 33;
	const char *n = op->name;
	float f1 = 1, f0 = 0;
	double d1 = 0.25, d2 = 1 << 20;
	if (!strcmp(n, "add.u32") || !strcmp(n, "cas.b32")) p.a = 1, p.init = 0xFFFFFFFFull + 1 - per / 2;
	else if (!strcmp(n, "add.u64") || !strcmp(n, "cas.b64")) p.a = 1, p.init = (1ull << 32) - per / 2;
	else if (!strcmp(n, "add.f32")) { uint32_t x, y; memcpy(&x, &f1, 4); memcpy(&y, &f0, 4); p.a = x, p.init = y; }
	else if (!strcmp(n, "add.f64")) { memcpy(&p.a, &d1, 8); memcpy(&p.init, &d2, 8); }
	else if (!strcmp(n, "exch.b32")) p.a = 1, p.b = 1;
	else if (!strcmp(n, "exch.b64")) p.a = 1ull << 32 | 1, p.b = 1ull << 32 | 1;
	else if (!strcmp(n, "min.s32")) p.a = half, p.b = -1ull, p.init = 0x7FFFFFFF;
	else if (!strcmp(n, "min.u32")) p.a = (1ull << 31) + half, p.b = -1ull, p.init = 0xFFFFFFFF;
	else if (!strcmp(n, "min.s64")) p.a = half * step64, p.b = -step64, p.init = 0x7FFFFFFFFFFFFFFFull;
	else if (!strcmp(n, "min.u64")) p.a = (1ull << 63) + half * step64, p.b = -step64, p.init = ~0ull;
	else if (!strcmp(n, "max.s32")) p.a = -half, p.b = 1, p.init = 1ull << 31;
	else if (!strcmp(n, "max.u32")) p.a = (1ull << 31) - half, p.b = 1;
	else if (!strcmp(n, "max.s64")) p.a = -(half * step64), p.b = step64, p.init = 1ull << 63;
	else if (!strcmp(n, "max.u64")) p.a = (1ull << 63) - half * step64, p.b = step64;
	else if (op->kind == '&') p.mode = 2, p.init = ~0ull, p.nwords = (total + (uint64_t)op->bits - 1) / (uint64_t)op->bits;
	else if (op->kind == '|') p.mode = 1, p.nwords = (total + (uint64_t)op->bits - 1) / (uint64_t)op->bits;
	else if (op->kind == '^') p.a = 0x9E3779B97F4A7C15ull, p.b = 0xBF58476D1CE4E5B9ull, p.init = 0x0123456789ABCDEFull;
	else if (op->kind == 'i') p.a = per / 3 > 1 ? per / 3 : 1;
	else if (op->kind == 'd') p.a = per / 3 > 1 ? per / 3 : 1, p.init = p.a / 2;
	p.init = ct_trunc(&p, p.init);
	return p;
}

/* ct_operand is ContendOperand, truncated to the operation's width. */
static uint64_t ct_operand(const struct ct_plan *p, uint64_t k) {
	uint64_t s = k / p->nwords, bit = s < 64 ? 1ull << s : 0;
	uint64_t x = p->mode == 1 ? bit : p->mode == 2 ? ~bit : p->a + p->b * k;
	return ct_trunc(p, x);
}

static uint64_t ct_next(const struct ct_plan *p, uint64_t v) {
	uint64_t x = p->a;
	if (p->op->is_float && p->op->bits == 32) {
		float fv, fx;
		uint32_t v32 = (uint32_t)v, x32 = (uint32_t)x;
		memcpy(&fv, &v32, 4);
		memcpy(&fx, &x32, 4);
		fv += fx;
		memcpy(&v32, &fv, 4);
		return v32;
	}
	if (p->op->is_float) {
		double dv, dx;
		memcpy(&dv, &v, 8);
		memcpy(&dx, &x, 8);
		dv += dx;
		memcpy(&v, &dv, 8);
		return v;
	}
	if (p->op->kind == 'i') return v >= x ? 0 : v + 1;
	if (p->op->kind == 'd') return v == 0 || v > x ? x : v - 1;
	return ct_trunc(p, v + ct_trunc(p, x));
}

static int ct_less(const struct ct_plan *p, uint64_t x, uint64_t y) {
	if (p->op->is_signed && p->op->bits == 32) return (int32_t)(uint32_t)x < (int32_t)(uint32_t)y;
	if (p->op->is_signed) return (int64_t)x < (int64_t)y;
	return x < y;
}

static int ct_cmp(const void *a, const void *b) {
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* ct_verdict is verdict of oracle_test.go: bad counts, the first 4 problems. */
struct ct_verdict {
	long bad;
	int nproblems;
	char text[2048];
};

__attribute__((format(printf, 3, 4))) static void ct_add(struct ct_verdict *v, long n, const char *fmt, ...) {
	v->bad += n;
	if (v->nproblems++ >= 4) return;
	size_t len = strlen(v->text);
	if (len > 0) snprintf(v->text + len, sizeof v->text - len, "; "), len += 2;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(v->text + len, sizeof v->text - len, fmt, ap);
	va_end(ap);
}

/* ct_same_values is sameValues: got and want as multisets (both sorted here). */
static void ct_same_values(struct ct_verdict *v, const struct ct_plan *p, uint64_t w, const char *what, uint64_t *got, uint64_t *want, size_t n) {
	qsort(got, n, 8, ct_cmp);
	qsort(want, n, 8, ct_cmp);
	size_t i = 0, j = 0, missing = 0, extra = 0;
	uint64_t first_missing = 0, first_extra = 0;
	while (i < n || j < n) {
		if (j >= n || (i < n && want[i] < got[j])) {
			if (missing++ == 0) first_missing = want[i];
			i++;
		} else if (i >= n || got[j] < want[i]) {
			if (extra++ == 0) first_extra = got[j];
			j++;
		} else
			i++, j++;
	}
	if (missing == 0 && extra == 0) return;
	ct_add(v, (long)(missing > extra ? missing : extra), "%s word %llu: %zu %s missing (first 0x%llx), %zu unexpected or repeated (first 0x%llx)",
		p->op->name, (unsigned long long)w, missing, what, (unsigned long long)first_missing, extra, (unsigned long long)first_extra);
}

/* ct_check is plan.check: every word's final value and returned values. */
static struct ct_verdict ct_check(const struct ct_plan *p, const uint64_t *finals, const uint64_t *olds) {
	struct ct_verdict v;
	memset(&v, 0, sizeof v);
	size_t most = (size_t)(p->total / p->nwords + 2);
	uint64_t *got = malloc(8 * most), *want = malloc(8 * most), *ops = malloc(8 * most);
	if (!got || !want || !ops) cannot_run("malloc for the oracle failed");
	char k_ = p->op->kind;
	for (uint64_t w = 0; w < p->nwords; w++) {
		size_t n = 0;
		for (uint64_t k = w; k < p->total; k += p->nwords, n++) got[n] = olds[k], ops[n] = ct_operand(p, k);
		uint64_t final = ct_trunc(p, finals[w]);
		if (k_ == 'a' || k_ == 'c' || k_ == 'i' || k_ == 'd') {
			uint64_t s = p->init;
			for (size_t i = 0; i < n; i++) want[i] = s, s = ct_next(p, s);
			if (final != s) ct_add(&v, 1, "%s word %llu after %zu ops: final 0x%llx, want 0x%llx", p->op->name, (unsigned long long)w, n, (unsigned long long)final, (unsigned long long)s);
			ct_same_values(&v, p, w, "returned values", got, want, n);
		} else if (k_ == 'x') {
			want[0] = p->init;
			for (size_t i = 0; i < n; i++) want[i + 1] = ops[i];
			got[n] = final;
			ct_same_values(&v, p, w, "returned values and the final value", got, want, n + 1);
		} else {
			uint64_t f = p->init;
			for (size_t i = 0; i < n; i++) {
				uint64_t x = ops[i];
				if (k_ == 'n') f = ct_less(p, x, f) ? x : f;
				else if (k_ == 'm') f = ct_less(p, f, x) ? x : f;
				else if (k_ == '&') f &= x;
				else if (k_ == '|') f |= x;
				else f ^= x;
			}
			if (final != f) ct_add(&v, 1, "%s word %llu after %zu ops: final 0x%llx, want 0x%llx", p->op->name, (unsigned long long)w, n, (unsigned long long)final, (unsigned long long)f);
			want[0] = p->init;
			for (size_t i = 0; i < n; i++) want[i + 1] = ops[i];
			qsort(want, n + 1, 8, ct_cmp);
			long bad = 0;
			uint64_t example = 0;
			for (size_t i = 0; i < n; i++) {
				uint64_t old = got[i];
				int stored = bsearch(&old, want, n + 1, 8, ct_cmp) != NULL, ok = 1;
				if (k_ == 'n') ok = stored && !ct_less(p, old, final);
				else if (k_ == 'm') ok = stored && !ct_less(p, final, old);
				else if (k_ == '&') ok = (old & ~ops[i]) != 0;
				else if (k_ == '|') ok = (old & ops[i]) == 0;
				if (!ok && bad++ == 0) example = old;
			}
			if (bad > 0) ct_add(&v, bad, "%s word %llu: %ld returned values impossible for an atomic %s (first 0x%llx)", p->op->name, (unsigned long long)w, bad, p->op->name, (unsigned long long)example);
		}
	}
	free(got);
	free(want);
	free(ops);
	return v;
}

/* ct_side is one GPU taking part: grid × block threads. */
struct ct_side { int dev; unsigned grid, block; };

/* ct_side_for is sideFor: one CTA of 128 threads per SM; CAS loops a quarter
 * of the SMs with 64 threads. */
static struct ct_side ct_side_for(int dev, const struct ct_op *op) {
	unsigned sms = sm_count(dev);
	struct ct_side s = {dev, sms, 128};
	if (op->kind == 'c') s.grid = (sms + 3) / 4, s.block = 64;
	return s;
}

/* ct_host_apply is hostApply: op with operand x on the word at w, with
 * the host's atomics (a CAS loop for cas); it returns the old value. */
static uint64_t ct_host_apply(const struct ct_op *op, void *w, uint64_t x) {
	uint32_t *p32 = w, x32 = (uint32_t)x;
	uint64_t *p64 = w;
	int b64 = op->bits == 64;
	switch (op->kind) {
	case 'a': return b64 ? __atomic_fetch_add(p64, x, __ATOMIC_SEQ_CST) : __atomic_fetch_add(p32, x32, __ATOMIC_SEQ_CST);
	case 'x': return b64 ? __atomic_exchange_n(p64, x, __ATOMIC_SEQ_CST) : __atomic_exchange_n(p32, x32, __ATOMIC_SEQ_CST);
	case '&': return b64 ? __atomic_fetch_and(p64, x, __ATOMIC_SEQ_CST) : __atomic_fetch_and(p32, x32, __ATOMIC_SEQ_CST);
	case '|': return b64 ? __atomic_fetch_or(p64, x, __ATOMIC_SEQ_CST) : __atomic_fetch_or(p32, x32, __ATOMIC_SEQ_CST);
	}
	for (;;) /* cas */
		if (b64) {
			uint64_t cur = __atomic_load_n(p64, __ATOMIC_SEQ_CST), e = cur;
			if (__atomic_compare_exchange_n(p64, &e, cur + x, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return cur;
		} else {
			uint32_t cur = __atomic_load_n(p32, __ATOMIC_SEQ_CST), e = cur;
			if (__atomic_compare_exchange_n(p32, &e, cur + x32, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return cur;
		}
}

/* ct_run is contention.run then the check, for the words in owner's memory
 * (or, with host_threads, in 64 KiB of mapped pinned memory, where this
 * thread plays host_threads virtual threads with the host's atomics). It
 * returns the wrong words or values and writes the verdict's text to out. */
static long ct_run(const struct ct_op *op, int owner, struct ct_side *sides, int nsides, uint32_t host_threads, const char *from, char *out, size_t outn) {
	uint32_t total = host_threads;
	for (int i = 0; i < nsides; i++) total += sides[i].grid * sides[i].block;
	struct ct_plan p = ct_new_plan(op, (uint64_t)total * CT_ITERS);
	step("running atom.%s.sys on %s at once (%u threads × %d ops on %llu words of %s%s memory)", op->name, from, total, CT_ITERS, (unsigned long long)p.nwords,
		host_threads ? "mapped pinned" : "the owner's", host_threads ? " host" : "");
	CUdeviceptr words = 0, gate = 0;
	uint64_t *hw = NULL;
	if (host_threads) {
		void *hp = NULL;
		use(owner);
		setup(cuMemHostAlloc(&hp, 64 << 10, 0x1 | 0x2 /* PORTABLE | DEVICEMAP */), "cuMemHostAlloc(PORTABLE|DEVICEMAP) of the words");
		setup(cuMemHostGetDevicePointer(&words, hp, 0), "cuMemHostGetDevicePointer of the words");
		hw = hp;
		if (8 * p.nwords > (64 << 10)) cannot_run("host buffer of 64 KiB for %llu words", (unsigned long long)p.nwords);
		for (uint64_t w = 0; w < p.nwords; w++) __atomic_store_n(&hw[w], p.init, __ATOMIC_SEQ_CST);
	} else {
		words = dev_alloc(owner, 8 * p.nwords);
		uint32_t *init = host_words(2 * p.nwords);
		for (uint64_t w = 0; w < p.nwords; w++) init[2 * w] = (uint32_t)p.init, init[2 * w + 1] = (uint32_t)(p.init >> 32);
		upload(owner, words, init, 2 * p.nwords);
	}
	void *gate_host = NULL;
	use(sides[0].dev);
	setup(cuMemHostAlloc(&gate_host, 4096, 0x1 | 0x2 /* PORTABLE | DEVICEMAP */), "cuMemHostAlloc(PORTABLE|DEVICEMAP) for the start gate");
	setup(cuMemHostGetDevicePointer(&gate, gate_host, 0), "cuMemHostGetDevicePointer of the start gate");
	uint32_t *gate_word = gate_host;
	__atomic_store_n(gate_word, 0, __ATOMIC_SEQ_CST);
	CUdeviceptr old[2], status[2];
	CUstream st[2];
	uint32_t tbase[2], tb = 0, iters = CT_ITERS, sel = op->sel, nwords = (uint32_t)p.nwords;
	uint64_t timeout = CT_GATE_TIMEOUT_NS;
	int ok = 1;
	for (int i = 0; i < nsides && ok; i++) {
		struct ct_side *s = &sides[i];
		uint32_t threads = s->grid * s->block;
		old[i] = dev_alloc(s->dev, 8ull * threads * CT_ITERS);
		status[i] = dev_alloc(s->dev, 16);
		st[i] = new_stream(s->dev);
		fill(s->dev, status[i], 0, 4);
		tbase[i] = tb;
		CUfunction f = load_kernel(s->dev, PTX, "atom_contend_sys");
		void *params[] = {&words, &nwords, &sel, &p.a, &p.b, &p.mode, &old[i], &tbase[i], &total, &iters, &gate, &status[i], &timeout};
		ok = launch_shape(s->dev, f, st[i], s->grid, s->block, params, "launch atom_contend_sys");
		tb += threads;
	}
	double start = rt_now();
	__atomic_store_n(gate_word, 1, __ATOMIC_SEQ_CST); /* always: no kernel may wait out the gate */
	if (!ok) return 0;
	uint64_t *olds = calloc(p.total, 8), finals_n = p.nwords, *finals = malloc(8 * finals_n);
	if (!olds || !finals) cannot_run("malloc for the returned values failed");
	for (uint64_t i = 0; i < CT_ITERS && host_threads; i++) /* runHost: the host side's ops with the host's atomics */
		for (uint32_t t = 0; t < host_threads; t++) {
			uint64_t k = i * total + tb + t;
			olds[k] = ct_host_apply(op, &hw[k % p.nwords], ct_operand(&p, k));
		}
	char what[128];
	for (int i = 0; i < nsides; i++) {
		snprintf(what, sizeof what, "atom.%s contention on GPU%d", op->name, sides[i].dev);
		if (!wait_stream(sides[i].dev, st[i], what)) return 0;
	}
	double elapsed = rt_now() - start;
	char gave_up[256] = "";
	for (int i = 0; i < nsides; i++) {
		struct ct_side *s = &sides[i];
		uint32_t threads = s->grid * s->block, stw[3];
		download(s->dev, status[i], stw, 3);
		if (stw[0] != 0) violation("GPU%d: %u CTAs gave up waiting 5s for the start gate", s->dev, stw[0]);
		if (stw[2] != 0) violation("GPU%d: the kernel did not know operation %u (%s)", s->dev, op->sel, op->name);
		if (stw[1] != 0) snprintf(gave_up + strlen(gave_up), sizeof gave_up - strlen(gave_up), "%u CAS loops on GPU%d gave up at the kernel's attempt cap (returned 0xffffffffffffffff); ", stw[1], s->dev);
		uint32_t *raw = host_words(2ull * threads * CT_ITERS);
		download(s->dev, old[i], raw, 2ull * threads * CT_ITERS);
		for (uint32_t it = 0; it < CT_ITERS; it++)
			for (uint32_t tl = 0; tl < threads; tl++) {
				size_t j = 2 * ((size_t)it * threads + tl);
				olds[(uint64_t)it * total + tbase[i] + tl] = (uint64_t)raw[j] | (uint64_t)raw[j + 1] << 32;
			}
		free(raw);
	}
	if (host_threads)
		for (uint64_t w = 0; w < p.nwords; w++) finals[w] = __atomic_load_n(&hw[w], __ATOMIC_SEQ_CST);
	else {
		uint32_t *fw = host_words(2 * p.nwords);
		download(owner, words, fw, 2 * p.nwords);
		for (uint64_t w = 0; w < p.nwords; w++) finals[w] = (uint64_t)fw[2 * w] | (uint64_t)fw[2 * w + 1] << 32;
	}
	step("comparing the words and every returned value with the oracle");
	struct ct_verdict v = ct_check(&p, finals, olds);
	if (v.bad != 0)
		snprintf(out, outn, "%s%ld wrong words or returned values: %s", gave_up, v.bad, v.text);
	else
		printf("  ok: %sexact: every word and all %llu returned values as an atomic order allows\n", gave_up, (unsigned long long)p.total);
	printf("  metric: ops/s %s = %.3g (%s)\n", op->name, (double)p.total / elapsed, from);
	free(olds);
	free(finals);
	return v.bad;
}

/* ct_enable_peer enables peer access a→b once for all the specs. */
static int ct_enable_peer(int a, int b) {
	static int enabled;
	if (!enabled && !enable_peer(a, b)) return 0;
	enabled = 1;
	return 1;
}
`

// advertisedHelpers is requireAdvertised of the atomics suite, the skip of
// the contention checks and of counter-as-flag: an atomic operation must be
// advertised as native for the pair before a check may count on it.
const advertisedHelpers = `
/* advertised is requireAdvertised(acc, own, op) for one CUDA operation:
 * NATIVE_ATOMIC_SUPPORTED=1, or (CUDA 13) ONLY_PARTIAL_NATIVE=1 with a
 * capability mask for cuda_op covering need. found gets what was read, for
 * the skip; op_name (or NULL) names the operation in it and in the message
 * of a failed capability query. */
static int advertised(int acc, int own, int cuda_op, unsigned need, const char *op_name, char *found, size_t n) {
	int native = -1, partial = -1;
	use(acc);
	setup(cuDeviceGetP2PAttribute(&native, 3 /* NATIVE_ATOMIC_SUPPORTED */, acc, own), "cuDeviceGetP2PAttribute(NATIVE_ATOMIC_SUPPORTED)");
	snprintf(found, n, "CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED=%d", native);
	if (native == 1) return 1;
	if (rt_driver_version < 13000) return 0;
	setup(cuDeviceGetP2PAttribute(&partial, 5 /* ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED */, acc, own), "cuDeviceGetP2PAttribute(ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED)");
	snprintf(found + strlen(found), n - strlen(found), ", CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED=%d", partial);
	if (partial != 1 || rt_fn[E_cuDeviceGetP2PAtomicCapabilities] == NULL) return 0;
	unsigned mask = 0;
	char what[96], label[64] = "";
	if (op_name != NULL) {
		snprintf(what, sizeof what, "cuDeviceGetP2PAtomicCapabilities(%s)", op_name);
		snprintf(label, sizeof label, "CU_ATOMIC_OPERATION_%s ", op_name);
	} else {
		snprintf(what, sizeof what, "cuDeviceGetP2PAtomicCapabilities");
	}
	setup(cuDeviceGetP2PAtomicCapabilities(&mask, &cuda_op, 1, acc, own), what);
	snprintf(found + strlen(found), n - strlen(found), ", %smask 0x%x", label, mask);
	return (mask & need) == need;
}
`

func contentionOp(op kernels.ContendOp) string {
	kind := map[kernels.AtomOp]string{kernels.OpAdd: "'a'", kernels.OpExch: "'x'", kernels.OpCAS: "'c'", kernels.OpMin: "'n'",
		kernels.OpMax: "'m'", kernels.OpAnd: "'&'", kernels.OpOr: "'|'", kernels.OpXor: "'^'", kernels.OpInc: "'i'", kernels.OpDec: "'d'"}[op.Op]
	return fmt.Sprintf("static const struct ct_op op = {%d, %s, %d, %d, %d, %s};\n", op.Sel, cString(op.Name), op.Bits(),
		b2i(op.Type == kernels.TS32 || op.Type == kernels.TS64), b2i(op.Type == kernels.TF32 || op.Type == kernels.TF64), kind)
}

func init() {
	register("atomics.intra-gpu-sys-rmw", recipe{ptx: kernels.AtomContendSys.PTX, helpers: orderingHelpers + advertisedHelpers + contentionHelpers, timeout: specTimeout / 2,
		specs: func(t Target) []spec {
			var out []spec
			for _, op := range kernels.ContendOps {
				out = append(out, spec{
					name: fmt.Sprintf("atom.%s.sys stays exact (every SM of GPU%d)", op.Name, t.A),
					key:  op.Key(),
					code: contentionOp(op) + `struct ct_side s = ct_side_for(A, &op);
s.grid *= 2; /* two CTAs per SM: the baseline has as many threads as a pair run */
char from[96];
snprintf(from, sizeof from, "GPU%d (%u×%u threads)", A, s.grid, s.block);
char text[2400];
if (ct_run(&op, A, &s, 1, 0, from, text, sizeof text) != 0)
	violation("atom.%s.sys from %s on its own memory (%llu ops): %s", op.name, from, (unsigned long long)(s.grid * s.block) * CT_ITERS, text);
`})
			}
			return out
		}})
	register("atomics.concurrent-sys-rmw", recipe{ptx: kernels.AtomContendSys.PTX, helpers: orderingHelpers + advertisedHelpers + contentionHelpers, timeout: specTimeout / 2,
		specs: func(t Target) []spec {
			var out []spec
			for _, op := range kernels.ContendOps {
				cop, ct := cudaOp(op)
				out = append(out, spec{
					name: fmt.Sprintf("atom.%s.sys stays exact (GPU%d and GPU%d on GPU%d's memory)", op.Name, t.A, t.B, t.A),
					key:  op.Key(),
					code: contentionOp(op) + fmt.Sprintf(`char found[256];
need_peer_access(B, A);
if (!advertised(B, A, %d, 0x%xu, NULL, found, sizeof found)) {
	skipped("needs %s on %s advertised as native for GPU%%d→GPU%%d (found %%s): NotSupported", B, A, found);
	return;
}
if (!ct_enable_peer(B, A)) return;
struct ct_side s[2] = {ct_side_for(A, &op), ct_side_for(B, &op)};
char from[128];
snprintf(from, sizeof from, "GPU%%d (%%u×%%u threads) and GPU%%d (%%u×%%u threads)", A, s[0].grid, s[0].block, B, s[1].grid, s[1].block);
char text[2400];
if (ct_run(&op, A, s, 2, 0, from, text, sizeof text) != 0)
	violation("atom.%%s.sys from %%s on GPU%%d's memory (%%llu ops): %%s", op.name, from, A, (unsigned long long)(s[0].grid * s[0].block + s[1].grid * s[1].block) * CT_ITERS, text);
`, int(cop), needMask(cop, ct), strings.TrimPrefix(cop.String(), "CU_ATOMIC_OPERATION_"), ct)})
			}
			return out
		}})
	register("atomics.host-native", recipe{ptx: kernels.AtomContendSys.PTX, helpers: orderingHelpers + advertisedHelpers + contentionHelpers, timeout: specTimeout,
		specs: func(t Target) []spec {
			var ops []string
			for _, name := range hostOps {
				for _, op := range kernels.ContendOps {
					if op.Name == name {
						ops = append(ops, "\t"+strings.TrimPrefix(strings.TrimSuffix(contentionOp(op), ";\n"), "static const struct ct_op op = "))
					}
				}
			}
			return []spec{{
				name: fmt.Sprintf("keeps atomics of a kernel on GPU%d and of host goroutines on the same words exact", t.A),
				code: "static const struct ct_op ops[] = {\n" + strings.Join(ops, ",\n") + `,
};
int native = attribute(A, 86 /* HOST_NATIVE_ATOMIC_SUPPORTED */);
if (native != 1) {
	skipped("needs CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED=1 on GPU%d (found %d)", A, native);
	return;
}
for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
	step("contending with atom.%s.sys from GPU%d and host atomics from this thread", ops[i].name, A);
	struct ct_side s = ct_side_for(A, &ops[i]);
	char from[128], text[2400];
	snprintf(from, sizeof from, "GPU%d (%u×%u threads) and the host (1024 virtual threads on 1 thread; the suite: 4 goroutines)", A, s.grid, s.block);
	if (ct_run(&ops[i], A, &s, 1, 1024, from, text, sizeof text) != 0)
		violation("atomics of GPU%d and host goroutines on mapped pinned memory: %s", A, text);
}
`,
			}}
		}})
}
