// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package repro

import "fmt"

// The vmm suite's specs (suites/vmm) that run in one process.

const vmmHelpers = `
RT_FN(cuMemGetAllocationGranularity, (size_t *g, const CUmemAllocationProp *p, int option), (g, p, option))
RT_FN(cuMemCreate, (CUmemGenericAllocationHandle *h, size_t n, const CUmemAllocationProp *p, unsigned long long flags), (h, n, p, flags))
RT_FN(cuMemRelease, (CUmemGenericAllocationHandle h), (h))

/* pinned_prop is the suite's AllocProp: pinned device memory on dev with
 * the requested shareable handle types (0: none). */
static CUmemAllocationProp pinned_prop(int dev, int handle_types) {
	CUmemAllocationProp p;
	memset(&p, 0, sizeof p);
	p.type = 1;          /* CU_MEM_ALLOCATION_TYPE_PINNED */
	p.location.type = 1; /* CU_MEM_LOCATION_TYPE_DEVICE */
	p.location.id = dev;
	p.requestedHandleTypes = handle_types;
	return p;
}

/* granularity is the suite's Granularity: 0 minimum, 1 recommended. */
static size_t granularity(int dev, int handle_types, int recommended) {
	CUmemAllocationProp p = pinned_prop(dev, handle_types);
	size_t g = 0;
	use(dev);
	setup(cuMemGetAllocationGranularity(&g, &p, recommended), recommended ? "cuMemGetAllocationGranularity(RECOMMENDED)" : "cuMemGetAllocationGranularity(MINIMUM)");
	return g;
}
`

func init() {
	register("vmm.granularity", recipe{helpers: vmmHelpers, timeout: specTimeout / 2,
		specs: func(t Target) []spec {
			return []spec{{
				name: fmt.Sprintf("reports a non-zero granularity on GPU%d, and cuMemCreate refuses a size that is not a multiple of it", t.A),
				code: `if (attribute(A, 102 /* VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED */) != 1) { skipped("needs VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED=1 on GPU%d", A); return; }
step("querying the minimum and recommended granularity on GPU%d", A);
size_t minimum = granularity(A, 0, 0), recommended = granularity(A, 0, 1);
printf("  claim: granularity.minimum = %zu, granularity.recommended = %zu\n", minimum, recommended);
if (minimum == 0) violation("minimum granularity on GPU%d: want > 0, got 0", A);
if (recommended == 0) violation("recommended granularity on GPU%d: want > 0, got 0", A);
if (minimum == 0 || recommended == 0) return;
if (recommended % minimum != 0)
	violation("recommended granularity %zu on GPU%d is not a multiple of the minimum %zu", recommended, A, minimum);
size_t odd = minimum + (minimum / 2 > 1 ? minimum / 2 : 1); /* one and a half granules */
step("creating %zu bytes, not a multiple of %zu, on GPU%d", odd, minimum, A);
CUmemAllocationProp p = pinned_prop(A, 0);
CUmemGenericAllocationHandle h = 0;
use(A);
CUresult r = cuMemCreate(&h, odd, &p, 0);
if (r == 0) cuMemRelease(h);
if (r != 1)
	violation("cuMemCreate(%zu bytes) on GPU%d with minimum granularity %zu: want CUDA_ERROR_INVALID_VALUE (1), got %s (%d)", odd, A, minimum,
		r == 0 ? "CUDA_SUCCESS" : err_name(r), r);
else
	printf("  ok: cuMemCreate(%zu bytes) failed with CUDA_ERROR_INVALID_VALUE\n", odd);
`,
			}}
		}})
}
