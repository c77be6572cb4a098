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

// counterFlagHelpers is counter_flag_test.go: 8 rounds in which every
// thread of caf_produce on B (one CTA of 128 threads per SM) stores 16 data
// words in B's memory and adds 1 to a counter in A's memory with
// atom.release.sys, while caf_consume on A waits (ld.acquire.sys, 5 s) for
// the counter to reach the thread count and then checks every word.
const counterFlagHelpers = `
enum { COUNTER_ROUNDS = 8, WORDS_PER_THREAD = 16 };
#define COUNTER_WAIT_NS 5000000000ull /* counterWaitTime: 5 s */

static void counter_as_flag(const uint32_t *seeds) {
	char found[256];
	need_peer_access(A, B);
	need_peer_access(B, A);
	/* requireAdvertised(B, A, add.u32): INTEGER_ADD (CUDA operation 0) on u32 */
	if (!advertised(B, A, 0, ADD_U32_NEED, "INTEGER_ADD", found, sizeof found)) {
		skipped("needs INTEGER_ADD on u32 advertised as native for GPU%d→GPU%d (found %s): NotSupported", B, A, found);
		return;
	}
	if (!enable_peer(A, B) || !enable_peer(B, A)) return;
	unsigned prod_grid = sm_count(B), cons_grid = sm_count(A), block = 128;
	uint32_t producers = prod_grid * block, words = producers * WORDS_PER_THREAD;
	CUdeviceptr data = dev_alloc(B, 4ull * words), counter = dev_alloc(A, 4), result = dev_alloc(A, 16), status = dev_alloc(B, 16), gate = 0;
	void *gate_host = NULL;
	use(A);
	setup(cuMemHostAlloc(&gate_host, 4096, 0x1 | 0x2 /* PORTABLE | DEVICEMAP */), "cuMemHostAlloc(PORTABLE|DEVICEMAP) for the start gate");
	setup(cuMemHostGetDevicePointer(&gate, gate_host, 0), "cuMemHostGetDevicePointer of the start gate");
	uint32_t *gate_word = gate_host;
	CUstream sa = new_stream(A), sb = new_stream(B);
	CUfunction consume = load_kernel(A, PTX, "caf_consume"), produce = load_kernel(B, PTX, "caf_produce");
	uint64_t timeout = COUNTER_WAIT_NS;
	int clean = 1;
	for (int r = 0; r < COUNTER_ROUNDS; r++) {
		uint32_t seed = seeds[r];
		step("handoff %d of %d: GPU%d publishes %u words, GPU%d waits for the counter to reach %u", r + 1, COUNTER_ROUNDS, B, words, A, producers);
		__atomic_store_n(gate_word, 0, __ATOMIC_SEQ_CST);
		fill(B, data, 0, words);
		fill(A, counter, 0, 1);
		uint32_t preset[4] = {0, 0xFFFFFFFFu, 0, 0};
		upload(A, result, preset, 4);
		fill(B, status, 0, 4);
		void *cp[] = {&data, &words, &seed, &counter, &producers, &result, &timeout};
		void *pp[] = {&data, &words, &seed, &counter, &gate, &status, &timeout};
		int ok = launch_shape(A, consume, sa, cons_grid, block, cp, "launch caf_consume") &&
			launch_shape(B, produce, sb, prod_grid, block, pp, "launch caf_produce");
		__atomic_store_n(gate_word, 1, __ATOMIC_SEQ_CST); /* always: no kernel may wait out the gate */
		if (!ok) return;
		char what[128];
		snprintf(what, sizeof what, "counter-as-flag producer on GPU%d", B);
		if (!wait_stream(B, sb, what)) return;
		snprintf(what, sizeof what, "counter-as-flag consumer on GPU%d", A);
		if (!wait_stream(A, sa, what)) return;
		uint32_t st[1], res[3], ctr[1];
		download(B, status, st, 1);
		if (st[0] != 0) violation("GPU%d: %u producer CTAs gave up waiting for the start gate", B, st[0]);
		download(A, result, res, 3);
		if (res[2] != 0) {
			download(A, counter, ctr, 1);
			violation("%u consumer threads on GPU%d timed out after 5s waiting for the counter in GPU%d's memory to reach %u (it holds %u)", res[2], A, A, producers, ctr[0]);
			return;
		}
		if (res[0] != 0) {
			violation("GPU%d read %u of %u words of GPU%d's data stale after acquiring the counter at %u; first stale word %u", A, res[0], words, B, producers, res[1]);
			clean = 0;
		}
	}
	if (clean) printf("  ok: GPU%d read all of GPU%d's data new in all %d handoffs\n", A, B, COUNTER_ROUNDS);
}
`

func init() {
	register("atomics.counter-as-flag", recipe{ptx: kernels.CounterProduce.PTX,
		helpers: fmt.Sprintf("\n#define ADD_U32_NEED 0x%xu\n", needMask(backend.AtomicIntegerAdd, claims.AtomicType{Bits: 32})) +
			orderingHelpers + advertisedHelpers + counterFlagHelpers, timeout: specTimeout / 2,
		specs: func(t Target) []spec {
			var seeds []string
			for r := 0; r < 8; r++ {
				seeds = append(seeds, fmt.Sprintf("%du", seed32("atomics.counter-as-flag", t.ID(), r)))
			}
			return []spec{{
				name: fmt.Sprintf("in GPU%d's memory lets GPU%d read all of GPU%d's data once GPU%d's atom.release.sys increments of it reach the thread count", t.A, t.A, t.B, t.B),
				code: fmt.Sprintf("static const uint32_t seeds[8] = {%s};\ncounter_as_flag(seeds);\n", strings.Join(seeds, ", ")),
			}}
		}})
}
