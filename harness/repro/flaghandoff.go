// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package repro

import (
	"fmt"

	"github.com/p2pconf/p2pconf/kernels"
)

// flagHandoffHelpers is mp_run_test.go: a writer kernel on A and a reader
// kernel on rd (B, or A itself in the one-GPU form), started together by a gate word in mapped pinned memory; per
// instance 4 data words and a flag, 128 bytes apart, in home's memory; the
// reader of instance i at a permuted position (an odd multiplier, changed
// every launch); launches for at least 2 and up to 400 runs within a quarter
// of a second (P2PCONF_LITMUS_BUDGET/8 at its default of 2 s).
const flagHandoffHelpers = `
enum { MP_WORDS = 4, MP_STRIDE = 128, MP_MAX_INST = 1 << 16, MP_MIN_RUNS = 2, MP_MAX_RUNS = 400, MP_COUNT_WORDS = 5, MP_PRE_READ = 16 };
#define MP_GATE_WAIT_NS 5000000000ull /* mpGateWait: 5 s */
#define MP_SPIN_NS 20000000ull        /* mpSpin: 20 ms */
#define MP_BUDGET_S 0.25              /* P2PCONF_LITMUS_BUDGET (2 s) / 8 */

static int mp_enable_peer(int a, int b) {
	static int enabled[2];
	int i = a == A ? 0 : 1;
	if (!enabled[i] && !enable_peer(a, b)) return 0;
	enabled[i] = 1;
	return 1;
}

static void flag_handoff(int home, int rd, unsigned wmode, unsigned rmode, const char *what) {
	if (rd == A) {
		/* the one-GPU form: two streams of A, no peer access */
	} else if (home == A) {
		need_peer_access(rd, A);
		if (!mp_enable_peer(rd, A)) return;
	} else {
		need_peer_access(A, rd);
		if (!mp_enable_peer(A, rd)) return;
	}
	uint32_t n = 1, smin = sm_count(A) < sm_count(rd) ? sm_count(A) : sm_count(rd);
	while (n * 2 <= MP_MAX_INST && n * 2 <= smin * 512) n *= 2;
	CUdeviceptr data = dev_alloc(home, (size_t)n * MP_STRIDE), flags = dev_alloc(home, (size_t)n * MP_STRIDE);
	CUdeviceptr counts = dev_alloc(rd, 4 * MP_COUNT_WORDS), wstatus = dev_alloc(A, 8), rstatus = dev_alloc(rd, 8), gate = 0;
	fill(home, data, 0, (size_t)n * MP_STRIDE / 4);
	fill(home, flags, 0, (size_t)n * MP_STRIDE / 4);
	fill(rd, counts, 0, MP_COUNT_WORDS);
	fill(A, wstatus, 0, 2);
	fill(rd, rstatus, 0, 2);
	void *gate_host = NULL;
	use(A);
	setup(cuMemHostAlloc(&gate_host, 4096, 0x1 | 0x2 /* PORTABLE | DEVICEMAP */), "cuMemHostAlloc(PORTABLE|DEVICEMAP) for the start gate");
	setup(cuMemHostGetDevicePointer(&gate, gate_host, 0), "cuMemHostGetDevicePointer of the start gate");
	uint32_t *gate_word = gate_host;
	__atomic_store_n(gate_word, 0, __ATOMIC_SEQ_CST);
	CUstream sa = new_stream(A), sb = new_stream(rd);
	CUfunction wf = load_kernel(A, PTX, "mp_write"), rf = load_kernel(rd, PTX, "mp_read");
	step("running %u handoff instances per launch for up to %gs (at least %d launches)", n, MP_BUDGET_S, MP_MIN_RUNS);
	uint32_t words = MP_WORDS, gen = 0, c[MP_COUNT_WORDS] = {0, 0, 0, 0, 0};
	uint64_t gate_wait = MP_GATE_WAIT_NS, spin = MP_SPIN_NS;
	unsigned grid = (n + 255) / 256;
	int launches = 0;
	double start = rt_now();
	while (launches < MP_MAX_RUNS && (launches < MP_MIN_RUNS || rt_now() - start < MP_BUDGET_S)) {
		uint32_t mult = (uint32_t)(2 * launches + 1) * 0x9E3779B1u | 1;
		gen++;
		void *wp[] = {&data, &flags, &n, &words, &gen, &wmode, &gate, &wstatus, &gate_wait};
		void *rp[] = {&data, &flags, &n, &words, &gen, &mult, &rmode, &counts, &gate, &rstatus, &gate_wait, &spin};
		int ok = launch_shape(A, wf, sa, grid, 256, wp, "launch mp_write") && launch_shape(rd, rf, sb, grid, 256, rp, "launch mp_read");
		__atomic_store_n(gate_word, gen, __ATOMIC_SEQ_CST); /* always: no kernel may wait out the gate */
		if (!ok) return;
		char w[96];
		snprintf(w, sizeof w, "flag-handoff writer on GPU%d, launch %u", A, gen);
		if (!wait_stream(A, sa, w)) return;
		snprintf(w, sizeof w, "flag-handoff reader on GPU%d, launch %u", rd, gen);
		if (!wait_stream(rd, sb, w)) return;
		launches++;
	}
	double elapsed = rt_now() - start;
	download(rd, counts, c, MP_COUNT_WORDS);
	uint32_t ws[2], rs[2];
	download(A, wstatus, ws, 2);
	download(rd, rstatus, rs, 2);
	char tally[256];
	snprintf(tally, sizeof tally, "%d launches × %u instances in %.0fms: flag seen %u (%u of them with stale data, %u stale words), flag not seen %u",
		launches, n, elapsed * 1000, c[0], c[1], c[2], c[3]);
	printf("  metric: handoffs/s = %.3g (%s)\n", c[0] / elapsed, tally);
	if (ws[0] + rs[0] != 0) violation("start gate: %u writer CTAs on GPU%d and %u reader CTAs on GPU%d gave up after 5s", ws[0], A, rs[0], rd);
	if (ws[1] + rs[1] != 0) violation("the flag-handoff kernels did not know mode %u/%u", wmode, rmode);
	if (c[0] == 0) violation("no reader on GPU%d saw its flag within 20ms, so nothing was checked: %s", rd, tally);
	if (c[1] != 0) violation("GPU%d read stale data after seeing GPU%d's flag (%s): %s", rd, A, what, tally);
	else if ((rmode & MP_PRE_READ) && c[4] == 0) skipped("inconclusive: the reads before the poll never found old data, so none could leak past the flag: %s", tally);
	else if (c[0] != 0) printf("  ok: %s (%u data words not new yet when read before the poll)\n", tally, c[4]);
}
`

func init() {
	type variant struct {
		what, key      string // the suite's text and variant key (suites/ordering)
		writer, reader kernels.MPMode
	}
	conf := []variant{
		{"st.release.sys and ld.acquire.sys on the flag", "rel-acq", kernels.MPReleaseAcquire, kernels.MPReleaseAcquire},
		{"fence.acq_rel.sys around relaxed .sys flag accesses", "fence-acq-rel", kernels.MPFenceAcqRel, kernels.MPFenceAcqRel},
		{"fence.sc.sys around relaxed .sys flag accesses", "fence-sc", kernels.MPFenceSC, kernels.MPFenceSC},
	}
	// preRead is the suite's pre-read form of a variant (preReadForms).
	preRead := func(v variant) variant {
		v.what += ", the data also read before the poll"
		v.key += "-pre-read"
		v.reader |= kernels.MPPreRead
		return v
	}
	register("ordering.flag-handoff-sys", recipe{ptx: kernels.MPWrite.PTX, helpers: orderingHelpers + flagHandoffHelpers, timeout: specTimeout / 2,
		specs: func(t Target) []spec {
			var out []spec
			if !t.Pair {
				for _, c := range conf {
					v := preRead(c)
					out = append(out, spec{
						name: fmt.Sprintf("hands data between two kernels on GPU%d with %s", t.A, v.what),
						key:  v.key + "-one-gpu",
						code: fmt.Sprintf("flag_handoff(A, A, %du, %du, %s);\n", v.writer, v.reader, cString(v.what)),
					})
				}
				return out
			}
			forms := append([]variant(nil), conf...)
			for _, c := range conf {
				forms = append(forms, preRead(c))
			}
			for _, v := range forms {
				for _, home := range []int{t.A, t.B} {
					homeName, in := "A", "writer"
					if home == t.B {
						homeName, in = "B", "reader"
					}
					out = append(out, spec{
						name: fmt.Sprintf("hands data from GPU%d to GPU%d with %s, data and flags in GPU%d's memory", t.A, t.B, v.what, home),
						key:  v.key + "-in-" + in,
						code: fmt.Sprintf("flag_handoff(%s, B, %du, %du, %s);\n", homeName, v.writer, v.reader, cString(v.what)),
					})
				}
			}
			return out
		}})
}
