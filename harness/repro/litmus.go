// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package repro

import (
	"fmt"
	"strings"
)

// litmusCase is one forbidden case of harness/litmus (a test in one
// placement), as litmus_tables.go records it: the spec text with {A} and
// {B} for the GPUs, the placement (where each location lives, which
// threads each GPU plays) and the test's outcome model, one entry per
// histogram bin.
type litmusCase struct {
	Name, Test, Target, Entry string
	Pair                      bool
	Regs                      int
	Polled                    bool
	Homes                     []int    // per location: 0 GPU A, 1 GPU B
	Roles                     [2][]int // the threads GPU A and GPU B play
	Classes                   string   // per bin: T target, S sequential, I interleaved, W other weak, X impossible
	Flags                     string   // per bin: 1 when every poll read the value it waits for
	Texts                     []string // per bin: the outcome, "r0=1 r1=0"
}

// litmusHelpers is harness/litmus/runner.go in C for GPU parties: plan
// (instances per iteration within the co-resident CTAs), allocate, launch
// with the start gate, read the histogram, size the next launch, stop at
// the target or the cap, and judge as suites/ordering/litmus_test.go does.
const litmusHelpers = `
RT_FN(cuOccupancyMaxActiveBlocksPerMultiprocessor, (int *n, CUfunction f, int block, size_t shmem), (n, f, block, shmem))

/* DefaultEnv and the default litmus settings (harness/litmus/env.go,
 * harness/litmus_settings.go), without memory stress (P2PCONF_LITMUS_STRESS unset). */
enum { LT_BLOCK = 256, LT_STRIDE = 128, LT_FIRST_ITERS = 16, LT_CTL_STRIDE = 128, LT_CTL_BYTES = 128 * 16, LT_BAR_BYTES = 256 };
#define LT_INSTANCES (1u << 17)
#define LT_MAX_ITERS (1u << 20)
#define LT_LAUNCH_S 0.1
#define LT_TIMEOUT_NS 2000000000ull
#define LT_TARGET 1000000000ull    /* P2PCONF_LITMUS_TARGET: between CTAs of one GPU */
#define LT_LINK_TARGET 10000000ull /* P2PCONF_LITMUS_LINK_TARGET: across the pair */
#define LT_BUDGET_S 2.0            /* P2PCONF_LITMUS_BUDGET */
#define LT_MIN_INSTANCES 100000ull /* P2PCONF_LITMUS_MIN_INSTANCES */
#define LT_MIN_FLAG_SHARE 1e-5     /* P2PCONF_LITMUS_MIN_FLAG_SHARE */
#define LT_MAX_BOUND 1e-4          /* P2PCONF_LITMUS_MAX_VIOLATION_BOUND */

struct lt_case {
	const char *test, *target_text, *entry, *ptx;
	int pair, nlocs, homes[4], nregs, nbins, polled;
	unsigned roles[2];
	int nroles[2];
	const char *cls, *flag;
	const char *const *text;
};

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

static void run_litmus(const struct lt_case *c, uint32_t seed) {
	int ngpu = c->pair ? 2 : 1, dev[2] = {A, B};
	char what[256];
	if (c->pair) {
		need_peer_access(A, B);
		need_peer_access(B, A);
		if (!lt_enable_peer(A, B) || !lt_enable_peer(B, A)) return;
	}
	/* plan */
	CUfunction f[2];
	int ctas[2];
	unsigned n = LT_INSTANCES, test_ctas[2];
	for (int u = 0; u < ngpu; u++) {
		f[u] = load_kernel(dev[u], c->ptx, c->entry);
		int per = 0;
		use(dev[u]);
		snprintf(what, sizeof what, "cuOccupancyMaxActiveBlocksPerMultiprocessor for %s on GPU%d (block %d)", c->entry, dev[u], LT_BLOCK);
		setup(cuOccupancyMaxActiveBlocksPerMultiprocessor(&per, f[u], LT_BLOCK, 0), what);
		int sms = attribute(dev[u], 16 /* MULTIPROCESSOR_COUNT */);
		ctas[u] = per * sms;
		uint64_t fit = (uint64_t)ctas[u] * LT_BLOCK / (uint64_t)(c->nroles[u] > 0 ? c->nroles[u] : 1);
		if (fit < LT_BLOCK) {
			skipped("%s on GPU%d: %d CTAs of %d threads are resident at once (%d per SM × %d SMs), too few for %d roles", c->test, dev[u], ctas[u], LT_BLOCK, per, sms, c->nroles[u]);
			return;
		}
		if (lt_pow2_floor(fit) < n) n = lt_pow2_floor(fit);
	}
	for (int u = 0; u < ngpu; u++) {
		test_ctas[u] = (unsigned)c->nroles[u] * n / LT_BLOCK;
		ctas[u] = (int)test_ctas[u];
		printf("  GPU%d: %d CTAs × %d threads (%u testing, %d roles)\n", dev[u], ctas[u], LT_BLOCK, test_ctas[u], c->nroles[u]);
	}
	/* allocate */
	size_t words = 2 * (size_t)n * LT_STRIDE / 4, rwords = 2 * (size_t)(c->nregs > 0 ? c->nregs : 1) * n;
	CUdeviceptr loc[4], regs = dev_alloc(A, 4 * rwords), hist = dev_alloc(A, 8 * (size_t)c->nbins), bar[2], stress = 0, ctl = 0;
	for (int l = 0; l < c->nlocs; l++) {
		loc[l] = dev_alloc(dev[c->homes[l]], 4 * words);
		fill(dev[c->homes[l]], loc[l], 0, words);
	}
	fill(A, regs, 0, rwords);
	fill(A, hist, 0, 2 * (size_t)c->nbins);
	void *ctl_host = NULL;
	use(A);
	setup(cuMemHostAlloc(&ctl_host, LT_CTL_BYTES, 0x1 | 0x2 /* PORTABLE | DEVICEMAP */), "cuMemHostAlloc(PORTABLE|DEVICEMAP) for the control block");
	setup(cuMemHostGetDevicePointer(&ctl, ctl_host, 0), "cuMemHostGetDevicePointer of the control block");
	uint32_t *ctlw = ctl_host;
	CUstream st[2];
	for (int u = 0; u < ngpu; u++) {
		st[u] = new_stream(dev[u]);
		bar[u] = dev_alloc(dev[u], LT_BAR_BYTES);
	}
	/* run until the target or the cap */
	uint64_t want = c->pair ? LT_LINK_TARGET : LT_TARGET, *h = calloc((size_t)c->nbins, 8), iterations = 0, launched = 0, instances = 0;
	if (h == NULL) cannot_run("calloc of the histogram failed");
	uint32_t iters = LT_FIRST_ITERS, parties = (uint32_t)ngpu, stride = LT_STRIDE, stress_lines = 0;
	uint64_t timeout_ns = LT_TIMEOUT_NS;
	int launches = 0, consecutive = 0, dirty = 0;
	unsigned most = 1;
	for (int u = 0; u < ngpu; u++)
		if ((unsigned)ctas[u] > most) most = (unsigned)ctas[u];
	uint64_t max_iters = (1ull << 31) / most < LT_MAX_ITERS ? (1ull << 31) / most : LT_MAX_ITERS;
	const char *stop = NULL;
	double start = rt_now(), elapsed = 0, wall = 0;
	for (uint32_t launch = 0;; launch++) {
		if (dirty) {
			for (int l = 0; l < c->nlocs; l++) fill(dev[c->homes[l]], loc[l], 0, words);
			fill(A, regs, 0, rwords);
			dirty = 0;
		}
		for (int i = 0; i < LT_CTL_BYTES / 4; i++) __atomic_store_n(&ctlw[i], 0, __ATOMIC_SEQ_CST);
		uint32_t s = seed + launch * 0x9E3779B1u;
		for (int u = 0; u < ngpu; u++) {
			uint32_t party = (uint32_t)u, collect = u == 0, nroles = (uint32_t)c->nroles[u], roles = c->roles[u], tc = test_ctas[u];
			void *params[4 + 17];
			int k = 0;
			for (int l = 0; l < c->nlocs; l++) params[k++] = &loc[l];
			void *rest[] = {&regs, &hist, &ctl, &bar[u], &stress, &n, &iters, &s, &party, &parties, &roles, &nroles, &collect, &tc, &stress_lines, &stride, &timeout_ns};
			for (size_t i = 0; i < sizeof rest / sizeof rest[0]; i++) params[k++] = rest[i];
			use(dev[u]);
			snprintf(what, sizeof what, "reset the litmus barrier on GPU%d", dev[u]);
			if (!must(cuMemsetD32Async(bar[u], 0, LT_BAR_BYTES / 4, st[u]), what)) return;
			snprintf(what, sizeof what, "cuLaunchKernel %s on GPU%d (%d CTAs × %d threads)", c->entry, dev[u], ctas[u], LT_BLOCK);
			if (!must(cuLaunchKernel(f[u], (unsigned)ctas[u], 1, 1, LT_BLOCK, 1, 1, 0, st[u], params, NULL), what)) return;
		}
		double t0 = rt_now();
		__atomic_store_n(&ctlw[0], 1, __ATOMIC_SEQ_CST); /* open the start gate */
		for (int u = 0; u < ngpu; u++) {
			snprintf(what, sizeof what, "litmus %s on GPU%d", c->test, dev[u]);
			if (!wait_stream(dev[u], st[u], what)) return;
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
			printf("  note: GPU%d stopped in iteration %u: %s\n", dev[p], __atomic_load_n(&ctlw[(LT_CTL_STRIDE * (1 + p) + 8) / 4], __ATOMIC_SEQ_CST), status < 4 ? why[status] : "unknown status");
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
	free(h);
	for (int u = 0; u < ngpu; u++) {
		stream_free(dev[u], st[u]);
		dev_free(dev[u], bar[u]);
	}
	for (int l = 0; l < c->nlocs; l++) dev_free(dev[c->homes[l]], loc[l]);
	dev_free(A, regs);
	dev_free(A, hist);
	use(A);
	setup(cuMemFreeHost(ctl_host), "cuMemFreeHost of the control block");
}
`

// litmusSpecs are the forbidden litmus cases on t, one spec each: between
// CTAs of GPU t.A, or across the pair with every placement of the suite.
func litmusSpecs(t Target) []spec {
	names := strings.NewReplacer("{A}", fmt.Sprintf("GPU%d", t.A), "{B}", fmt.Sprintf("GPU%d", t.B))
	var out []spec
	for _, c := range litmusCases {
		if c.Pair != t.Pair {
			continue
		}
		name := names.Replace(c.Name)
		decls := fmt.Sprintf("\n/* %s: the PTX harness/litmus generates for it, unchanged. */\nstatic const char PTX_%s[] =\n%s;\nstatic const char *const TEXT_%s[] = {", c.Test, c.Entry, cStringLines(litmusPTX[c.Entry]), c.Entry)
		for i, s := range c.Texts {
			if i > 0 {
				decls += ", "
			}
			decls += cString(s)
		}
		decls += "};\n"
		homes := make([]string, 4)
		for i := range homes {
			homes[i] = "0"
			if i < len(c.Homes) {
				homes[i] = fmt.Sprint(c.Homes[i])
			}
		}
		var roles [2]uint32
		for u := range roles {
			for q, r := range c.Roles[u] {
				roles[u] |= uint32(r) << (4 * q)
			}
		}
		code := fmt.Sprintf(`static const struct lt_case c = {
	.test = %s, .target_text = %s, .entry = %s, .ptx = PTX_%s,
	.pair = %d, .nlocs = %d, .homes = {%s}, .nregs = %d, .nbins = %d, .polled = %d,
	.roles = {0x%xu, 0x%xu}, .nroles = {%d, %d},
	.cls = %s, .flag = %s, .text = TEXT_%s,
};
step("running %%s until %%.3g instances or %%g s, with up to %%u instances per iteration", c.test, (double)(c.pair ? LT_LINK_TARGET : LT_TARGET), LT_BUDGET_S, LT_INSTANCES);
run_litmus(&c, %du);
`, cString(c.Test), cString(c.Target), cString(c.Entry), c.Entry,
			b2i(c.Pair), len(c.Homes), strings.Join(homes, ", "), c.Regs, len(c.Classes), b2i(c.Polled),
			roles[0], roles[1], len(c.Roles[0]), len(c.Roles[1]),
			cString(c.Classes), cString(c.Flags), c.Entry, seed32("ordering.litmus", name))
		out = append(out, spec{name: name, decls: decls, code: code})
	}
	return out
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
