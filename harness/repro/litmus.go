// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package repro

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/litmus"
	"github.com/p2pconf/p2pconf/harness/machine"
	"github.com/p2pconf/p2pconf/kernels"
)

// litmusHelpers is harness/litmus/runner.go in C for GPU parties: plan
// (instances per iteration within the co-resident CTAs), allocate, launch
// with the start gate, read the histogram, size the next launch, stop at
// the target or the cap, and judge as suites/ordering/litmus_test.go does.
// Its sizes and the stopping and evidence rules are the package's own
// (litmusDefaults).
var litmusHelpers = `
RT_FN(cuOccupancyMaxActiveBlocksPerMultiprocessor, (int *n, CUfunction f, int block, size_t shmem), (n, f, block, shmem))

` + litmusDefaults() + litmusRuntime

// litmusDefaults are DefaultEnv and the default litmus settings of
// harness/litmus as C constants, without memory stress (the reproducer
// leaves P2PCONF_LITMUS_STRESS unset).
func litmusDefaults() string {
	env := litmus.DefaultEnv(machine.Config{}, litmus.DefaultSettings())
	s, lim := env.Evidence, litmus.RunLimits()
	var b strings.Builder
	b.WriteString("/* DefaultEnv and the default litmus settings (harness/litmus/env.go,\n * harness/litmus/settings.go), without memory stress (P2PCONF_LITMUS_STRESS unset). */\n")
	fmt.Fprintf(&b, "enum { LT_BLOCK = %d, LT_STRIDE = %d, LT_FIRST_ITERS = %d, LT_CTL_STRIDE = %d, LT_CTL_BYTES = %d * %d, LT_BAR_BYTES = %d };\n",
		env.Block, env.Stride, env.FirstIters, lim.CtlStride, lim.CtlStride, lim.CtlRecords, lim.BarBytes)
	fmt.Fprintf(&b, "#define LT_INSTANCES %s\n", cPow2(env.Instances))
	fmt.Fprintf(&b, "#define LT_HOST_INSTANCES %du /* HostInstances: the host plays its instances one after another */\n", env.HostInstances)
	fmt.Fprintf(&b, "#define LT_MAX_ITERS %s\n", cPow2(lim.MaxIters))
	fmt.Fprintf(&b, "#define LT_LAUNCH_S %s\n", cFloat(env.LaunchTime.Seconds()))
	fmt.Fprintf(&b, "#define LT_TIMEOUT_NS %dull\n", env.Timeout.Nanoseconds())
	rules := [][3]string{
		{"LT_TARGET", fmt.Sprintf("%dull", s.Target), litmus.EnvTarget + ": between CTAs of one GPU"},
		{"LT_LINK_TARGET", fmt.Sprintf("%dull", s.LinkTarget), litmus.EnvLinkTarget + ": across the pair"},
		{"LT_BUDGET_S", cFloat(s.Budget.Seconds()), machine.EnvLitmusBudget},
		{"LT_MIN_INSTANCES", fmt.Sprintf("%dull", s.MinInstances), litmus.EnvMinInstances},
		{"LT_MIN_FLAG_SHARE", cFloat(s.MinFlagShare), litmus.EnvMinFlagShare},
		{"LT_MAX_BOUND", cFloat(s.MaxViolationBound), litmus.EnvMaxViolationBound},
	}
	width := 0
	for _, r := range rules {
		width = max(width, len(r[0])+1+len(r[1]))
	}
	for _, r := range rules {
		fmt.Fprintf(&b, "#define %-*s /* %s */\n", width, r[0]+" "+r[1], r[2])
	}
	b.WriteString("\n")
	return b.String()
}

// cPow2 writes a power of two as C does best: (1u << k).
func cPow2(n int) string {
	if n <= 0 || n&(n-1) != 0 {
		panic(fmt.Sprintf("repro: %d is not a power of two", n))
	}
	return fmt.Sprintf("(1u << %d)", bits.TrailingZeros(uint(n)))
}

// cFloat writes a double constant in its shortest form that C reads back
// as a double: 0.1, 2.0, 1e-4 (an exponent below a thousandth).
func cFloat(v float64) string {
	s := strconv.FormatFloat(v, 'g', -1, 64)
	if v != 0 && math.Abs(v) < 1e-3 {
		s = strconv.FormatFloat(v, 'e', -1, 64)
	}
	if i := strings.IndexByte(s, 'e'); i >= 0 {
		mant, exp := s[:i], s[i+1:]
		sign := ""
		if exp[0] == '-' || exp[0] == '+' {
			sign, exp = strings.TrimPrefix(exp[:1], "+"), exp[1:]
		}
		return mant + "e" + sign + strings.TrimLeft(exp, "0")
	}
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// litmusRuntime is the rest of litmusHelpers: the host side and the run.
const litmusRuntime = `/* lt_op is a litmus.Op for the host side: kind 0 ld, 1 st, 2 atom
 * (a add, o or, x exch, c cas), 3 fence; in_poll: it runs inside the loop
 * of the poll before it, after the flag access in every round. */
struct lt_op {
	int kind, loc, reg, src;
	uint32_t val, cmp, until;
	int poll;
	char atom;
	int in_poll;
};

struct lt_case {
	const char *test, *target_text, *entry, *ptx;
	int pair, link, host_rmw, peer_rmw, nlocs, homes[4], nregs, nbins, polled;
	/* every: every thread plays every role (lt_env bit 0), as the suite runs a
	   placement that groups threads into one CTA; groups: lt_groups */
	int every;
	unsigned groups;
	unsigned roles[2], host_roles;
	int nroles[2], nhost_roles;
	const struct lt_op *ops[4];
	int nops[4];
	const char *cls, *flag;
	const char *const *text;
};

/* Pinned host buffers by the address the kernels get, so the host thread
 * reaches the words a launch argument names (hostMem in host.go). */
static struct { CUdeviceptr dev; uint32_t *host; size_t bytes; } lt_maps[8];
static int lt_nmaps;

static uint32_t *lt_word(uint64_t addr) {
	for (int i = 0; i < lt_nmaps; i++)
		if (addr >= lt_maps[i].dev && addr + 4 <= lt_maps[i].dev + lt_maps[i].bytes && addr % 4 == 0)
			return lt_maps[i].host + (addr - lt_maps[i].dev) / 4;
	cannot_run("litmus: the host thread touches 0x%llx, which is not in pinned host memory", (unsigned long long)addr);
}

static CUdeviceptr lt_host_alloc(size_t bytes, const char *what) {
	void *p = NULL;
	CUdeviceptr d = 0;
	use(A);
	setup(cuMemHostAlloc(&p, bytes, 0x1 | 0x2 /* PORTABLE | DEVICEMAP */), what);
	setup(cuMemHostGetDevicePointer(&d, p, 0), what);
	memset(p, 0, bytes);
	if (lt_nmaps == 8) cannot_run("litmus: too many pinned host buffers");
	lt_maps[lt_nmaps].dev = d;
	lt_maps[lt_nmaps].host = p;
	lt_maps[lt_nmaps++].bytes = bytes;
	return d;
}

static void lt_host_free(CUdeviceptr d) {
	for (int i = 0; i < lt_nmaps; i++)
		if (lt_maps[i].dev == d) {
			use(A);
			setup(cuMemFreeHost(lt_maps[i].host), "cuMemFreeHost");
			lt_maps[i] = lt_maps[--lt_nmaps];
			return;
		}
}

/* mix, perm, locAddr and regAddr of layout.go. */
static uint32_t lt_mix(uint32_t seed, uint32_t k, uint32_t salt) {
	uint32_t h = k * 0x9E3779B9u ^ seed ^ salt * 0x85EBCA6Bu;
	h ^= h >> 16;
	h *= 0x7FEB352Du;
	h ^= h >> 15;
	h *= 0x846CA68Bu;
	h ^= h >> 16;
	return h;
}
struct lt_perm { uint32_t role_mul[4], role_add[4], loc_mul[4], loc_add[4]; };
static struct lt_perm lt_new_perm(uint32_t seed, uint32_t k, uint32_t n) {
	struct lt_perm p;
	for (uint32_t r = 0; r < 4; r++) {
		p.role_mul[r] = (lt_mix(seed, k, 0 + r) | 1) & (n - 1);
		p.role_add[r] = lt_mix(seed, k, 8 + r) & (n - 1);
		p.loc_mul[r] = (lt_mix(seed, k, 16 + r) | 1) & (n - 1);
		p.loc_add[r] = lt_mix(seed, k, 32 + r) & (n - 1);
	}
	return p;
}

/* lt_host is the host party (hostParty of host.go), played by this thread:
 * every access sequentially consistent (__atomic, SEQ_CST). */
struct lt_host {
	const struct lt_case *c;
	CUdeviceptr loc[4], regs, ctl;
	uint32_t n, iters, seed, party, parties, priv;
};

static uint32_t lt_host_op(const struct lt_op *op, uint32_t *w, const uint32_t *regs) {
	switch (op->kind) {
	case 0: return __atomic_load_n(w, __ATOMIC_SEQ_CST);
	case 1: __atomic_store_n(w, op->val + (op->src >= 0 ? regs[op->src] : 0), __ATOMIC_SEQ_CST); return 0;
	}
	switch (op->atom) {
	case 'a': return __atomic_fetch_add(w, op->val, __ATOMIC_SEQ_CST);
	case 'o': return __atomic_fetch_or(w, op->val, __ATOMIC_SEQ_CST);
	case 'x': return __atomic_exchange_n(w, op->val, __ATOMIC_SEQ_CST);
	}
	for (;;) {
		uint32_t old = __atomic_load_n(w, __ATOMIC_SEQ_CST), expect = old;
		if (old != op->cmp || __atomic_compare_exchange_n(w, &expect, op->val, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return old;
	}
}

static void lt_host_role(struct lt_host *h, int r, uint32_t i, uint32_t set, const struct lt_perm *p) {
	const struct lt_case *c = h->c;
	uint32_t regs[16] = {0};
	int has[16] = {0};
	for (int j = 0; j < c->nops[r]; j++) {
		/* a poll repeats with the operations of its loop (in_poll) after it in each round */
		int body = 1;
		while (c->ops[r][j].poll && j + body < c->nops[r] && c->ops[r][j + body].in_poll) body++;
		for (int round = 1;; round++) {
			uint32_t flag = 0;
			for (int b = 0; b < body; b++) {
				const struct lt_op *op = &c->ops[r][j + b];
				if (op->kind == 3) { /* a fence: a read-modify-write of a private word stands in */
					__atomic_fetch_add(&h->priv, 1, __ATOMIC_SEQ_CST);
					continue;
				}
				uint32_t slot = (i * p->loc_mul[op->loc] + p->loc_add[op->loc]) & (h->n - 1);
				uint32_t *w = lt_word(h->loc[op->loc] + ((uint64_t)set * h->n + slot) * LT_STRIDE);
				uint32_t v = lt_host_op(op, w, regs);
				if (b == 0) flag = v;
				if (op->reg >= 0) regs[op->reg] = v, has[op->reg] = 1;
			}
			if (!c->ops[r][j].poll || flag == c->ops[r][j].until || round >= 64 /* pollCap */) break;
			usleep(0);
		}
		j += body - 1;
	}
	uint64_t nregs = (uint64_t)(c->nregs > 0 ? c->nregs : 1);
	for (int g = 0; g < 16; g++)
		if (has[g]) __atomic_store_n(lt_word(h->regs + (((uint64_t)set * nregs + (uint64_t)g) * h->n + i) * 4), regs[g], __ATOMIC_SEQ_CST);
}

static uint32_t lt_host_fail(struct lt_host *h, uint32_t status, uint32_t k) {
	uint64_t mine = h->ctl + LT_CTL_STRIDE * (1 + (uint64_t)h->party);
	__atomic_store_n(lt_word(mine + 8), k, __ATOMIC_SEQ_CST);
	__atomic_store_n(lt_word(mine + 4), status, __ATOMIC_SEQ_CST);
	return status;
}

/* lt_host_run plays every iteration of a launch (hostParty.run). */
static void lt_host_run(struct lt_host *h) {
	const struct lt_case *c = h->c;
	double deadline = rt_now() + LT_TIMEOUT_NS / 1e9;
	while (__atomic_load_n(lt_word(h->ctl), __ATOMIC_SEQ_CST) == 0)
		if (rt_now() > deadline) {
			lt_host_fail(h, 1, 0);
			return;
		}
	for (uint32_t k = 0; k < h->iters; k++) {
		struct lt_perm p = lt_new_perm(h->seed, k, h->n);
		for (int q = 0; q < c->nhost_roles; q++) {
			int r = (int)(c->host_roles >> (4 * q) & 15);
			for (uint32_t s = 0; s < h->n; s++) /* one host thread: every instance */
				lt_host_role(h, r, (s * p.role_mul[r] + p.role_add[r]) & (h->n - 1), k & 1, &p);
		}
		/* barrier: publish the iteration and wait for every party's */
		__atomic_store_n(lt_word(h->ctl + LT_CTL_STRIDE * (1 + (uint64_t)h->party)), k + 1, __ATOMIC_SEQ_CST);
		for (uint32_t q = 0; q < h->parties; q++) {
			uint64_t rec = h->ctl + LT_CTL_STRIDE * (1 + (uint64_t)q);
			deadline = rt_now() + LT_TIMEOUT_NS / 1e9;
			while (__atomic_load_n(lt_word(rec), __ATOMIC_SEQ_CST) < k + 1) {
				if (__atomic_load_n(lt_word(rec + 4), __ATOMIC_SEQ_CST) != 0) {
					lt_host_fail(h, 4, k);
					return;
				}
				if (rt_now() > deadline) {
					lt_host_fail(h, 3, k);
					return;
				}
			}
		}
	}
}

static const char *lt_class_name(char c) {
	switch (c) {
	case 'T': return "target";
	case 'S': return "sequential";
	case 'I': return "interleaved";
	case 'W': return "other-weak";
	}
	return "impossible";
}

static unsigned lt_pow2_floor(uint64_t v) {
	unsigned p = 1;
	while ((uint64_t)p * 2 <= v && p < (1u << 31)) p *= 2;
	return p;
}

/* lt_enable_peer enables peer access a→b once (already enabled is fine). */
static int lt_enable_peer(int a, int b) {
	CUcontext peer = ctx_of(b);
	use(a);
	CUresult r = cuCtxEnablePeerAccess(peer, 0);
	if (r == 704 /* PEER_ACCESS_ALREADY_ENABLED */) return 1;
	char what[96];
	snprintf(what, sizeof what, "cuCtxEnablePeerAccess GPU%d→GPU%d", a, b);
	return must(r, what);
}

static CUfunction lt_load_kernel(int dev, const char *ptx, const char *entry, int level);

/* lt_run runs case c until its target or its cap with the kernel loaded at
 * CU_JIT_OPTIMIZATION_LEVEL level (the driver's default when negative),
 * prints what it counted and, for the default level, judges it; it
 * returns 0 when the run could not complete, else 1 with the instances and
 * the forbidden outcomes counted. */
static int lt_run(const struct lt_case *c, uint32_t seed, int level, uint64_t *n_forbidden, uint64_t *n_instances) {
	int ngpu = c->pair ? 2 : 1, dev[2] = {A, B};
	char what[256];
	if (c->nhost_roles > 0) {
		if (attribute(A, 19 /* CAN_MAP_HOST_MEMORY */) != 1) {
			skipped("needs CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY=1 on GPU%d (found %d)", A, attribute(A, 19));
			return 0;
		}
		if (c->host_rmw && attribute(A, 86 /* HOST_NATIVE_ATOMIC_SUPPORTED */) != 1) {
			skipped("needs CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED=1 on GPU%d for a read-modify-write on host memory (found %d)", A, attribute(A, 86));
			return 0;
		}
	}
	if (c->pair) {
		need_peer_access(A, B);
		need_peer_access(B, A);
		for (int d = 0; d < 2 && c->peer_rmw; d++) {
			int v = -1, a = d ? B : A, b = d ? A : B;
			use(a);
			setup(cuDeviceGetP2PAttribute(&v, 3 /* NATIVE_ATOMIC_SUPPORTED */, a, b), "cuDeviceGetP2PAttribute(NATIVE_ATOMIC_SUPPORTED)");
			if (v != 1) {
				skipped("needs CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED=1 GPU%d→GPU%d for a read-modify-write across the link (found %d)", a, b, v);
				return 0;
			}
		}
		if (!lt_enable_peer(A, B) || !lt_enable_peer(B, A)) return 0;
	}
	/* plan */
	CUfunction f[2];
	int ctas[2];
	unsigned n = c->nhost_roles > 0 ? LT_HOST_INSTANCES : LT_INSTANCES, test_ctas[2];
	for (int u = 0; u < ngpu; u++) {
		f[u] = lt_load_kernel(dev[u], c->ptx, c->entry, level);
		int per = 0;
		use(dev[u]);
		snprintf(what, sizeof what, "cuOccupancyMaxActiveBlocksPerMultiprocessor for %s on GPU%d (block %d)", c->entry, dev[u], LT_BLOCK);
		setup(cuOccupancyMaxActiveBlocksPerMultiprocessor(&per, f[u], LT_BLOCK, 0), what);
		int sms = attribute(dev[u], 16 /* MULTIPROCESSOR_COUNT */);
		ctas[u] = per * sms;
		uint64_t fit = (uint64_t)ctas[u] * LT_BLOCK / (uint64_t)(c->nroles[u] > 0 && !c->every ? c->nroles[u] : 1);
		if (fit < LT_BLOCK) {
			skipped("%s on GPU%d: %d CTAs of %d threads are resident at once (%d per SM × %d SMs), too few for %d roles", c->test, dev[u], ctas[u], LT_BLOCK, per, sms, c->nroles[u]);
			return 0;
		}
		if (lt_pow2_floor(fit) < n) n = lt_pow2_floor(fit);
	}
	for (int u = 0; u < ngpu; u++) {
		test_ctas[u] = (unsigned)(c->every ? 1 : c->nroles[u]) * n / LT_BLOCK;
		ctas[u] = (int)test_ctas[u];
		printf("  GPU%d: %d CTAs × %d threads (%u testing, %d roles)\n", dev[u], ctas[u], LT_BLOCK, test_ctas[u], c->nroles[u]);
	}
	if (c->nhost_roles > 0) printf("  host: 1 thread (%d roles; the suite's run spreads them over max(1, min(8, CPUs / (2 × GPUs))) goroutines)\n", c->nhost_roles);
	/* allocate */
	size_t words = 2 * (size_t)n * LT_STRIDE / 4, rwords = 2 * (size_t)(c->nregs > 0 ? c->nregs : 1) * n;
	CUdeviceptr loc[4] = {0, 0, 0, 0}, regs, hist = dev_alloc(A, 8 * (size_t)c->nbins), bar[2], stress = 0, ctl;
	for (int l = 0; l < c->nlocs; l++) {
		if (c->homes[l] < 0) {
			loc[l] = lt_host_alloc(4 * words, "cuMemHostAlloc(PORTABLE|DEVICEMAP) of a location");
			continue;
		}
		loc[l] = dev_alloc(dev[c->homes[l]], 4 * words);
		fill(dev[c->homes[l]], loc[l], 0, words);
	}
	if (c->nhost_roles > 0)
		regs = lt_host_alloc(4 * rwords, "cuMemHostAlloc(PORTABLE|DEVICEMAP) of the registers");
	else {
		regs = dev_alloc(A, 4 * rwords);
		fill(A, regs, 0, rwords);
	}
	fill(A, hist, 0, 2 * (size_t)c->nbins);
	ctl = lt_host_alloc(LT_CTL_BYTES, "cuMemHostAlloc(PORTABLE|DEVICEMAP) of the control block");
	uint32_t *ctlw = lt_word(ctl);
	CUstream st[2];
	for (int u = 0; u < ngpu; u++) {
		st[u] = new_stream(dev[u]);
		bar[u] = dev_alloc(dev[u], LT_BAR_BYTES);
	}
	/* run until the target or the cap */
	uint64_t want = c->link ? LT_LINK_TARGET : LT_TARGET, *h = calloc((size_t)c->nbins, 8), iterations = 0, launched = 0, instances = 0;
	if (h == NULL) cannot_run("calloc of the histogram failed");
	uint32_t iters = LT_FIRST_ITERS, parties = (uint32_t)ngpu + (c->nhost_roles > 0), stride = LT_STRIDE, stress_lines = 0;
	uint64_t timeout_ns = LT_TIMEOUT_NS;
	uint32_t env = c->every ? 1 : 0, pre_iters = 0, groups = c->groups; /* lt_env, lt_pre_iters, lt_groups: one role per thread unless grouped, no spin, no pre-stress */
	int launches = 0, consecutive = 0, dirty = 0;
	unsigned most = 1;
	for (int u = 0; u < ngpu; u++)
		if ((unsigned)ctas[u] > most) most = (unsigned)ctas[u];
	uint64_t max_iters = (1ull << 31) / most < LT_MAX_ITERS ? (1ull << 31) / most : LT_MAX_ITERS;
	const char *stop = NULL;
	double start = rt_now(), elapsed = 0, wall = 0;
	for (uint32_t launch = 0;; launch++) {
		if (dirty) {
			for (int l = 0; l < c->nlocs; l++)
				if (c->homes[l] < 0) memset(lt_word(loc[l]), 0, 4 * words);
				else fill(dev[c->homes[l]], loc[l], 0, words);
			if (c->nhost_roles > 0) memset(lt_word(regs), 0, 4 * rwords);
			else fill(A, regs, 0, rwords);
			dirty = 0;
		}
		for (int i = 0; i < LT_CTL_BYTES / 4; i++) __atomic_store_n(&ctlw[i], 0, __ATOMIC_SEQ_CST);
		uint32_t s = seed + launch * 0x9E3779B1u;
		for (int u = 0; u < ngpu; u++) {
			uint32_t party = (uint32_t)u, collect = u == 0, nroles = (uint32_t)c->nroles[u], roles = c->roles[u], tc = test_ctas[u];
			void *params[4 + 20];
			int k = 0;
			for (int l = 0; l < c->nlocs; l++) params[k++] = &loc[l];
			void *rest[] = {&regs, &hist, &ctl, &bar[u], &stress, &n, &iters, &s, &party, &parties, &roles, &nroles, &collect, &tc, &stress_lines, &stride, &timeout_ns, &env, &pre_iters, &groups};
			for (size_t i = 0; i < sizeof rest / sizeof rest[0]; i++) params[k++] = rest[i];
			use(dev[u]);
			snprintf(what, sizeof what, "reset the litmus barrier on GPU%d", dev[u]);
			if (!must(cuMemsetD32Async(bar[u], 0, LT_BAR_BYTES / 4, st[u]), what)) return 0;
			snprintf(what, sizeof what, "cuLaunchKernel %s on GPU%d (%d CTAs × %d threads)", c->entry, dev[u], ctas[u], LT_BLOCK);
			if (!must(cuLaunchKernel(f[u], (unsigned)ctas[u], 1, 1, LT_BLOCK, 1, 1, 0, st[u], params, NULL), what)) return 0;
		}
		double t0 = rt_now();
		__atomic_store_n(&ctlw[0], 1, __ATOMIC_SEQ_CST); /* open the start gate */
		if (c->nhost_roles > 0) {
			struct lt_host hp = {c, {loc[0], loc[1], loc[2], loc[3]}, regs, ctl, n, iters, s, (uint32_t)ngpu, parties, 0};
			lt_host_run(&hp);
		}
		for (int u = 0; u < ngpu; u++) {
			snprintf(what, sizeof what, "litmus %s on GPU%d", c->test, dev[u]);
			if (!wait_stream(dev[u], st[u], what)) return 0;
		}
		double took = rt_now() - t0;
		launches++;
		iterations += iters;
		launched += (uint64_t)iters * n;
		elapsed += took;
		int aborted = 0;
		for (uint32_t p = 0; p < parties; p++) {
			uint32_t status = __atomic_load_n(&ctlw[(LT_CTL_STRIDE * (1 + p) + 4) / 4], __ATOMIC_SEQ_CST);
			if (status == 0 || status == 4) continue;
			static const char *why[] = {"", "the start gate did not open in time", "waiting for the other CTAs of this GPU timed out", "waiting for the other parties (GPU or host threads) timed out"};
			char who[32];
			if (p < (uint32_t)ngpu) snprintf(who, sizeof who, "GPU%d", dev[p]);
			else snprintf(who, sizeof who, "host thread %u", p - (uint32_t)ngpu);
			printf("  note: %s stopped in iteration %u: %s\n", who, __atomic_load_n(&ctlw[(LT_CTL_STRIDE * (1 + p) + 8) / 4], __ATOMIC_SEQ_CST), status < 4 ? why[status] : "unknown status");
			aborted = 1;
		}
		consecutive = aborted ? consecutive + 1 : 0;
		dirty = aborted;
		use(A);
		snprintf(what, sizeof what, "read the litmus histogram from GPU%d", A);
		setup(cuMemcpyDtoH(h, hist, 8 * (size_t)c->nbins), what);
		instances = 0;
		for (int b = 0; b < c->nbins; b++) instances += h[b];
		wall = rt_now() - start;
		if (instances >= want) stop = "target";
		else if (wall >= LT_BUDGET_S) stop = "cap";
		else if (consecutive >= 3) stop = "aborted";
		if (stop) break;
		/* nextIters */
		double per_iter = took / iters > 1e-7 ? took / iters : 1e-7, left_s = LT_BUDGET_S - wall;
		uint64_t next = (uint64_t)((LT_LAUNCH_S < left_s ? LT_LAUNCH_S : left_s) / per_iter);
		if (next < 1) next = 1;
		double per_iter_count = (double)instances / (double)iterations;
		if (per_iter_count > 0) {
			double x = (double)(want - instances) / per_iter_count;
			uint64_t need = (uint64_t)x;
			if ((double)need < x) need++;
			if (need < next) next = need;
		}
		if (next > 4ull * iters) next = 4ull * iters;
		if (next > max_iters) next = max_iters;
		iters = (uint32_t)(next < 1 ? 1 : next);
	}
	/* report */
	uint64_t count[5] = {0, 0, 0, 0, 0}, flag_seen = 0;
	static const char order[] = "TSIWX";
	printf("  stopped at the %s: %llu instances counted of %llu launched (%llu iterations of %u, %d launches) in %.3f s (%.3g instances/s); goal %.3g instances within %gs\n",
		stop, (unsigned long long)instances, (unsigned long long)launched, (unsigned long long)iterations, n, launches, wall, elapsed > 0 ? instances / elapsed : 0.0, (double)want, LT_BUDGET_S);
	printf("  histogram:\n");
	for (int b = 0; b < c->nbins; b++) {
		if (h[b] == 0) continue;
		printf("    %-28s %-12s %llu\n", c->text[b], lt_class_name(c->cls[b]), (unsigned long long)h[b]);
		count[strchr(order, c->cls[b]) - order] += h[b];
		if (c->flag[b] == '1') flag_seen += h[b];
	}
	uint64_t forbidden = count[0] + count[3];
	printf("  forbidden outcomes: %llu (target %s: %llu, other not sequentially consistent: %llu)\n", (unsigned long long)forbidden, c->target_text, (unsigned long long)count[0], (unsigned long long)count[3]);
	if (level < 0) { /* the default level judges; the differential only counts */
		int judged = 1;
		if (instances == 0) {
			violation("no instance of %s on %s completed", c->test, TARGET);
			judged = 0;
		}
		if (count[4] > 0) violation("values no operation wrote were read on %s: %llu instances", TARGET, (unsigned long long)count[4]);
		if (forbidden > 0) {
			violation("forbidden outcome %s observed on %s in %llu of %llu instances, other outcomes that are not sequentially consistent in %llu",
				c->target_text, TARGET, (unsigned long long)count[0], (unsigned long long)instances, (unsigned long long)count[3]);
			judged = 0;
		}
		double bound = instances == 0 ? 1 : 2.995732273553991 / (double)instances; /* -ln(0.05)/N */
		if (judged && count[4] == 0) {
			if (instances < LT_MIN_INSTANCES)
				skipped("inconclusive: %llu instances counted, fewer than the %llu required (P2PCONF_LITMUS_MIN_INSTANCES)", (unsigned long long)instances, LT_MIN_INSTANCES);
			else if (c->polled && ((double)flag_seen < LT_MIN_FLAG_SHARE * (double)instances || flag_seen == 0))
				skipped("inconclusive: flag seen in %llu of %llu instances, less than the required share %.3g (P2PCONF_LITMUS_MIN_FLAG_SHARE): the reads the test is about were never reached often enough",
					(unsigned long long)flag_seen, (unsigned long long)instances, LT_MIN_FLAG_SHARE);
			else if (bound > LT_MAX_BOUND)
				skipped("inconclusive: the 95 %% upper bound on the violation rate is %.3g per instance over %llu instances, above the allowed %.3g (P2PCONF_LITMUS_MAX_VIOLATION_BOUND)",
					bound, (unsigned long long)instances, LT_MAX_BOUND);
			else
				printf("  ok: the forbidden outcome %s never appeared in %llu instances (95 %% upper bound %.3g per instance)\n", c->target_text, (unsigned long long)instances, bound);
		}
	}
	free(h);
	for (int u = 0; u < ngpu; u++) {
		stream_free(dev[u], st[u]);
		dev_free(dev[u], bar[u]);
	}
	for (int l = 0; l < c->nlocs; l++)
		if (c->homes[l] < 0) lt_host_free(loc[l]);
		else dev_free(dev[c->homes[l]], loc[l]);
	if (c->nhost_roles > 0) lt_host_free(regs);
	else dev_free(A, regs);
	dev_free(A, hist);
	lt_host_free(ctl);
	*n_forbidden = forbidden;
	*n_instances = instances;
	return 1;
}

/* lt_load_kernel is load_kernel, with CU_JIT_OPTIMIZATION_LEVEL level
 * when level is 0 or more. */
static CUfunction lt_load_kernel(int dev, const char *ptx, const char *entry, int level) {
	if (level < 0) return load_kernel(dev, ptx, entry);
	use(dev);
	static char errlog[16384], infolog[16384];
	int opts[6] = {5, 6, 3, 4, 12, 7 /* CU_JIT_OPTIMIZATION_LEVEL */};
	void *vals[6] = {errlog, (void *)(uintptr_t)sizeof errlog, infolog, (void *)(uintptr_t)sizeof infolog,
		(void *)(uintptr_t)1, (void *)(uintptr_t)(unsigned)level};
	CUmodule m;
	CUresult r = cuModuleLoadDataEx(&m, ptx, 6, opts, vals);
	errlog[sizeof errlog - 1] = 0;
	if (r != 0) cannot_run("cuModuleLoadDataEx (CU_JIT_OPTIMIZATION_LEVEL %d) on GPU%d: %s (%d)\n%s", level, dev, err_name(r), r, errlog);
	CUfunction f;
	char what[160];
	snprintf(what, sizeof what, "cuModuleGetFunction(%s) on GPU%d, CU_JIT_OPTIMIZATION_LEVEL %d", entry, dev, level);
	setup(cuModuleGetFunction(&f, m, entry), what);
	return f;
}

/* run_litmus runs case c and judges it; on a forbidden outcome it runs the
 * differential: the same PTX loaded again with CU_JIT_OPTIMIZATION_LEVEL 0,
 * where the driver's JIT keeps every access, counted the same way. An
 * outcome that vanishes there is the compiler's (ptxas merged or hoisted
 * an access of the PTX); one that stays is the hardware's, or a merge
 * level 0 makes too. The verdict (exit 1) is the default level's. */
static void run_litmus(const struct lt_case *c, uint32_t seed) {
	uint64_t bad = 0, n = 0, bad0 = 0, n0 = 0;
	if (!lt_run(c, seed, -1, &bad, &n) || bad == 0) return;
	printf("  differential: the same PTX loaded again with CU_JIT_OPTIMIZATION_LEVEL 0 (the JIT keeps every access), the same goal\n");
	if (!lt_run(c, seed, 0, &bad0, &n0)) {
		printf("  differential: the run at CU_JIT_OPTIMIZATION_LEVEL 0 did not complete\n");
		return;
	}
	const char *why = "too few instances at level 0 to tell";
	if (bad0 > 0) why = "the outcome shows at level 0 too: the hardware, or a merge level 0 makes as well";
	else if ((double)bad * (double)n0 / (double)n >= 3.0)
		why = "the outcome vanishes when the JIT keeps every access: the compiler (the driver's JIT merged or hoisted an access of the PTX)";
	printf("  differential: forbidden outcomes in %llu of %llu instances at the driver's default JIT level, %llu of %llu at CU_JIT_OPTIMIZATION_LEVEL 0: %s\n",
		(unsigned long long)bad, (unsigned long long)n, (unsigned long long)bad0, (unsigned long long)n0, why);
}
`

// litmusSpecs are the forbidden litmus cases on t, one spec each, in the
// suite's order: between CTAs of GPU t.A and with host threads, or across
// the pair with every placement of the suite (harness/litmus).
func litmusSpecs(t Target) []spec {
	a := machine.GPU{Ordinal: backend.Device(t.A)}
	cases := litmus.GPUCases(a)
	if t.Pair {
		cases = litmus.PairCases(machine.Pair{A: a, B: machine.GPU{Ordinal: backend.Device(t.B)}})
	}
	var out []spec
	for _, c := range cases {
		if c.Verdict == litmus.Forbidden {
			out = append(out, litmusSpec(c))
		}
	}
	return out
}

// litmusSpec is case c as a C lt_case: its placement (where each location
// lives, which threads each GPU and the host play), its threads, its
// outcome model (class, flag and text of every histogram bin) and the PTX
// harness/litmus generates for it.
func litmusSpec(c litmus.Case) spec {
	name, m, k := c.Name(), c.Test.Model(), c.Test.Kernel()
	entry := k.Entry
	var classes, flags []byte
	texts := make([]string, m.Bins)
	for bin := range m.Bins {
		classes = append(classes, classCode[m.Class(bin)])
		hist := make([]uint64, m.Bins)
		hist[bin] = 1
		flags = append(flags, "01"[min((&litmus.Result{Case: c, Hist: hist}).FlagSeen(), 1)])
		texts[bin] = cString(m.Text(bin))
	}
	decls := fmt.Sprintf("\n/* %s: the PTX harness/litmus generates for it, unchanged. */\nstatic const char PTX_%s[] =\n%s;\nstatic const char *const TEXT_%s[] = {%s};\n",
		c.Test.Name(), entry, cStringLines(k.PTX), entry, strings.Join(texts, ", "))
	homes := []string{"0", "0", "0", "0"}
	for i, u := range c.Place.Homes {
		homes[i] = fmt.Sprint(int(u))
	}
	var roles [2][]int
	var hostRoles []int
	for i, u := range c.Place.Roles {
		if u == litmus.UnitHost {
			hostRoles = append(hostRoles, i)
			continue
		}
		roles[u] = append(roles[u], i)
	}
	ops, nops := make([]string, 4), make([]string, 4)
	for r := range ops {
		ops[r], nops[r] = "NULL", "0"
		if r >= len(c.Test.Threads) {
			continue
		}
		th := c.Test.Threads[r]
		ops[r], nops[r] = fmt.Sprintf("OPS_%s_%d", entry, r), fmt.Sprint(len(th))
		var list []string
		for _, op := range th {
			list = append(list, fmt.Sprintf("{%d, %d, %d, %d, %du, %du, %du, %d, %s, %d}", op.Kind, op.Loc, op.Reg, op.Src, op.Val, op.Cmp, op.Until, b2i(op.Poll), atomChar(atomCode[op.Atom]), b2i(op.InPoll)))
		}
		decls += fmt.Sprintf("static const struct lt_op OPS_%s_%d[] = {%s};\n", entry, r, strings.Join(list, ", "))
	}
	code := fmt.Sprintf(`static const struct lt_case c = {
	.test = %s, .target_text = %s, .entry = %s, .ptx = PTX_%s,
	.pair = %d, .link = %d, .host_rmw = %d, .peer_rmw = %d, .nlocs = %d, .homes = {%s}, .nregs = %d, .nbins = %d, .polled = %d,
	.every = %d, .groups = 0x%xu,
	.roles = {0x%xu, 0x%xu}, .nroles = {%d, %d}, .host_roles = 0x%xu, .nhost_roles = %d,
	.ops = {%s}, .nops = {%s},
	.cls = %s, .flag = %s, .text = TEXT_%s,
};
step("running %%s until %%.3g instances or %%g s, with up to %%u instances per iteration", c.test, (double)(c.link ? LT_LINK_TARGET : LT_TARGET), LT_BUDGET_S, c.nhost_roles ? LT_HOST_INSTANCES : LT_INSTANCES);
run_litmus(&c, %du);
`, cString(c.Test.Name()), cString(c.Test.TargetText()), cString(entry), entry,
		b2i(c.Pair != nil), b2i(c.Place.Kind != litmus.CTAs), b2i(c.Place.HostRMW(c.Test)), b2i(c.Place.PeerRMW(c.Test)), len(c.Place.Homes), strings.Join(homes, ", "),
		c.Test.Regs(), m.Bins, b2i(c.Test.Polled()),
		b2i(c.Place.Groups.Shared() && len(c.Test.Threads) > 1), litmus.PackGroups(c.Place.Groups, len(c.Test.Threads)),
		packRoles(roles[0]), packRoles(roles[1]), len(roles[0]), len(roles[1]), packRoles(hostRoles), len(hostRoles),
		strings.Join(ops, ", "), strings.Join(nops, ", "),
		cString(string(classes)), cString(string(flags)), entry, uint32(machine.Seed(litmus.CheckID, name)))
	return spec{name: name, key: c.Key(), decls: decls, code: code}
}

// classCode is the letter of an outcome class in an lt_case's cls: T
// target, S sequential, I interleaved, W other weak, X impossible.
var classCode = map[litmus.Class]byte{litmus.Target: 'T', litmus.Sequential: 'S', litmus.Interleaved: 'I', litmus.OtherWeak: 'W', litmus.Impossible: 'X'}

// atomCode is the letter of a read-modify-write in an lt_op: a add, o or,
// x exch, c CAS; 0 for the other operations.
var atomCode = map[kernels.AtomOp]byte{kernels.OpAdd: 'a', kernels.OpOr: 'o', kernels.OpExch: 'x', kernels.OpCAS: 'c'}

// packRoles packs a list of threads, one nibble each (layout.go).
func packRoles(roles []int) uint32 {
	var v uint32
	for q, r := range roles {
		v |= uint32(r) << (4 * q)
	}
	return v
}

func atomChar(a byte) string {
	if a == 0 {
		return "0"
	}
	return "'" + string(a) + "'"
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func init() {
	register("ordering.litmus", recipe{helpers: litmusHelpers, timeout: specTimeout / 2, specs: litmusSpecs})
}
