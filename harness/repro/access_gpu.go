// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package repro

import (
	"fmt"
	"strings"

	"github.com/p2pconf/p2pconf/harness/cuenum"
)

// The access suite's one-GPU specs of gpu_test.go that need no kernel.

func init() {
	register("access.self-is-not-a-peer", recipe{timeout: specTimeout,
		specs: func(t Target) []spec {
			var attrs strings.Builder
			for _, a := range []cuenum.P2PAttr{cuenum.P2PPerformanceRank, cuenum.P2PAccessSupported, cuenum.P2PNativeAtomicSupported,
				cuenum.P2PCudaArrayAccessSupported, cuenum.P2POnlyPartialNativeAtomicSupported} {
				fmt.Fprintf(&attrs, "\t{%d, %s},\n", int(a), cString(a.String()))
			}
			return []spec{{
				name: fmt.Sprintf("GPU%[1]d is no peer of itself: cuDeviceCanAccessPeer(GPU%[1]d, GPU%[1]d) is 0, P2P queries reject the pair and enabling peer access to itself fails", t.A),
				code: `static const struct { int attr; const char *name; } ATTRS[] = {
` + attrs.String() + `};
CUresult r;
int can = -1;
step("asking cuDeviceCanAccessPeer(GPU%d, GPU%d)", A, A);
use(A);
if (must(cuDeviceCanAccessPeer(&can, A, A), "cuDeviceCanAccessPeer(d, d)")) {
	printf("  claim: cuDeviceCanAccessPeer(GPU%d, GPU%d) = %d\n", A, A, can);
	if (can != 0) violation("cuDeviceCanAccessPeer(GPU%d, GPU%d) reports %d", A, A, can);
}
for (size_t i = 0; i < sizeof ATTRS / sizeof ATTRS[0]; i++) {
	if (ATTRS[i].attr == 5 && rt_driver_version < 13000) continue; /* attribute 5 needs CUDA 13.0 */
	step("asking cuDeviceGetP2PAttribute(%s, GPU%d, GPU%d)", ATTRS[i].name, A, A);
	int v = -1;
	if ((r = cuDeviceGetP2PAttribute(&v, ATTRS[i].attr, A, A)) != 101)
		violation("cuDeviceGetP2PAttribute(%s, GPU%d, GPU%d) (returned value %d): want CUDA_ERROR_INVALID_DEVICE (101), got %s (%d)",
			ATTRS[i].name, A, A, v, r == 0 ? "CUDA_SUCCESS" : err_name(r), r);
}
step("asking cuDeviceGetP2PAtomicCapabilities(GPU%d, GPU%d)", A, A);
if (rt_fn[E_cuDeviceGetP2PAtomicCapabilities] == NULL) {
	printf("  finding: cuDeviceGetP2PAtomicCapabilities(d, d) not checked: missing entry point\n");
} else {
	int ops[13];
	unsigned caps[13];
	for (int i = 0; i < 13; i++) ops[i] = i, caps[i] = 0;
	if ((r = cuDeviceGetP2PAtomicCapabilities(caps, ops, 13, A, A)) != 101)
		violation("cuDeviceGetP2PAtomicCapabilities(GPU%d, GPU%d): want CUDA_ERROR_INVALID_DEVICE (101), got %s (%d)", A, A,
			r == 0 ? "CUDA_SUCCESS" : err_name(r), r);
}
step("enabling peer access from GPU%d to itself", A);
CUcontext own = ctx_of(A);
r = cuCtxEnablePeerAccess(own, 0);
printf("  finding: cuCtxEnablePeerAccess(own context) = %s (%d)\n", r == 0 ? "CUDA_SUCCESS" : err_name(r), r);
if (r == 0) {
	violation("cuCtxEnablePeerAccess of GPU%d's context to itself: want a CUDA error, got CUDA_SUCCESS", A);
	cuCtxDisablePeerAccess(own);
}
`,
			}}
		}})

	register("access.uva-owner", recipe{timeout: specTimeout, helpers: uvaHelpers,
		specs: func(t Target) []spec {
			return []spec{{
				name: fmt.Sprintf("pointers queried on GPU%[1]d name their owner: GPU%[1]d's allocations, pinned host memory and every other GPU's allocations", t.A),
				code: `step("querying an allocation of GPU%d", A);
expect_owner(A, A, dev_alloc(A, 4096));
step("querying pinned host memory allocated with GPU%d", A);
void *hb = NULL;
use(A);
setup(cuMemHostAlloc(&hb, 4096, 0), "cuMemHostAlloc");
unsigned mt = 0;
if (must(cuPointerGetAttribute(&mt, 2 /* MEMORY_TYPE */, (CUdeviceptr)(uintptr_t)hb), "cuPointerGetAttribute(MEMORY_TYPE) of pinned host memory") && mt != 1)
	violation("MEMORY_TYPE of pinned host memory 0x%llx on GPU%d (1 HOST, 2 DEVICE): want 1, got %u", (unsigned long long)(uintptr_t)hb, A, mt);
for (int o = 0; o < rt_ndev; o++) {
	if (o == A) continue;
	step("querying an allocation of GPU%d in GPU%d's context", o, A);
	expect_owner(A, o, dev_alloc(o, 4096));
}
`,
			}}
		}})
}

const uvaHelpers = `
/* expect_owner is expectOwner: in g's context, p was allocated on owner. */
static void expect_owner(int g, int owner, CUdeviceptr p) {
	int ord = -1;
	unsigned mt = 0;
	char what[160];
	use(g);
	snprintf(what, sizeof what, "cuPointerGetAttribute(DEVICE_ORDINAL) of 0x%llx in GPU%d's context", (unsigned long long)p, g);
	if (must(cuPointerGetAttribute(&ord, 9 /* DEVICE_ORDINAL */, p), what) && ord != owner)
		violation("DEVICE_ORDINAL of 0x%llx, allocated on GPU%d, queried in GPU%d's context: want %d, got %d", (unsigned long long)p, owner, g, owner, ord);
	else if (ord == owner)
		printf("  ok: DEVICE_ORDINAL of GPU%d's allocation, queried in GPU%d's context, is %d\n", owner, g, ord);
	use(g);
	snprintf(what, sizeof what, "cuPointerGetAttribute(MEMORY_TYPE) of 0x%llx in GPU%d's context", (unsigned long long)p, g);
	if (must(cuPointerGetAttribute(&mt, 2 /* MEMORY_TYPE */, p), what) && mt != 2)
		violation("MEMORY_TYPE of 0x%llx allocated on GPU%d, queried in GPU%d's context (1 HOST, 2 DEVICE): want 2, got %u", (unsigned long long)p, owner, g, mt);
}
`
