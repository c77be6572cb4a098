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

const vmmShareHelpers = `
RT_FN(cuMemExportToShareableHandle, (void *out, CUmemGenericAllocationHandle h, int type, unsigned long long flags), (out, h, type, flags))
RT_FN(cuMemImportFromShareableHandle, (CUmemGenericAllocationHandle *h, void *os, int type), (h, os, type))
RT_FN(cuMemAddressReserve, (CUdeviceptr *p, size_t n, size_t align, CUdeviceptr addr, unsigned long long flags), (p, n, align, addr, flags))
RT_FN(cuMemAddressFree, (CUdeviceptr p, size_t n), (p, n))
RT_FN(cuMemMap, (CUdeviceptr p, size_t n, size_t off, CUmemGenericAllocationHandle h, unsigned long long flags), (p, n, off, h, flags))
RT_FN(cuMemUnmap, (CUdeviceptr p, size_t n), (p, n))
RT_FN(cuMemSetAccess, (CUdeviceptr p, size_t n, const CUmemAccessDesc *d, size_t count), (p, n, d, count))

enum { ROLE_IMPORT_NUMBER = 1 };

/* The importer role (import_role_test.go), op import-number: import the
 * bare number q->value as a POSIX fd; should that succeed, map it (reserve,
 * map, grant read-write) so the spec sees where it was mapped. */
static void helper_role(const struct helper_req *q, struct helper_rep *p, int fd) {
	(void)fd;
	CUmemGenericAllocationHandle h = 0;
	use(q->a);
	CUresult r = cuMemImportFromShareableHandle(&h, (void *)(uintptr_t)q->value, 1 /* POSIX_FILE_DESCRIPTOR */);
	p->code = r;
	if (r != 0) {
		snprintf(p->error, sizeof p->error, "%s (%d)", err_name(r), r);
		return;
	}
	CUdeviceptr va = 0;
	CUmemAccessDesc d = {{1, q->a}, 3 /* PROT_READWRITE */};
	if (cuMemAddressReserve(&va, q->bytes, 0, 0, 0) == 0 && cuMemMap(va, q->bytes, 0, h, 0) == 0 && cuMemSetAccess(va, q->bytes, &d, 1) == 0)
		p->value = va;
}
`

func init() {
	register("vmm.fd-number-is-not-a-handle", recipe{helpers: vmmHelpers + vmmShareHelpers, timeout: specTimeout / 2, helperProcess: true,
		specs: func(t Target) []spec {
			return []spec{{
				name: fmt.Sprintf("of GPU%d cannot be imported from the bare number of the descriptor", t.A),
				code: `if (attribute(A, 102 /* VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED */) != 1) { skipped("needs VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED=1 on GPU%d", A); return; }
size_t size = granularity(A, 1 /* POSIX_FILE_DESCRIPTOR */, 0);
if (attribute(A, 103 /* HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED */) != 1) { skipped("needs HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED=1 on GPU%d", A); return; }
CUmemAllocationProp prop = pinned_prop(A, 1);
CUmemGenericAllocationHandle h = 0;
use(A);
setup(cuMemCreate(&h, size, &prop, 0), "cuMemCreate (POSIX_FILE_DESCRIPTOR)");
int fd = -1;
if (!must(cuMemExportToShareableHandle(&fd, h, 1, 0), "cuMemExportToShareableHandle(POSIX_FILE_DESCRIPTOR)")) return;
step("sending only the number %d to an importer process", fd);
struct helper_req q;
memset(&q, 0, sizeof q);
q.role = ROLE_IMPORT_NUMBER;
q.a = A;
q.bytes = size;
q.value = (uint64_t)fd;
struct helper_rep rep;
if (helper_call(&q, &rep, -1)) {
	printf("  finding: cuMemImportFromShareableHandle(bare fd number) = %s (%d)\n", rep.code == 0 ? "CUDA_SUCCESS" : rep.error, rep.code);
	if (rep.code == 0)
		violation("import of the bare number %d on GPU%d succeeded: want a failure", fd, A);
	if (rep.value != 0)
		violation("the importer on GPU%d mapped the failed import at 0x%llx: want nothing mapped", A, (unsigned long long)rep.value);
}
close(fd);
use(A);
cuMemRelease(h);
`,
			}}
		}})
}
