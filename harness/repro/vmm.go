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

/* require_vmm is the suite's VMM requirement: VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED=1
 * on dev, else the spec is skipped (it returns 0 then). */
static int require_vmm(int dev) {
	if (attribute(dev, 102 /* VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED */) == 1) return 1;
	skipped("needs VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED=1 on GPU%d", dev);
	return 0;
}

/* require_fd_export adds the POSIX fd checks' requirement,
 * HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED=1, and sets *size to the
 * minimum granularity of memory exported that way (read in between, as the
 * suite does). It returns 0 when the spec is skipped. */
static int require_fd_export(int dev, size_t *size) {
	if (!require_vmm(dev)) return 0;
	*size = granularity(dev, 1 /* POSIX_FILE_DESCRIPTOR */, 0);
	if (attribute(dev, 103 /* HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED */) == 1) return 1;
	skipped("needs HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED=1 on GPU%d", dev);
	return 0;
}
`

// fdExportImport is fdExportImport, newExport and sendTo of
// fd_handle_test.go: export a filled allocation of a as a POSIX fd, send it
// with SCM_RIGHTS to an importer that maps it on b, read and write it
// there, then kill the importer and check the exporter can still unmap and
// release it and free memory comes back.
const fdExportImport = `
/* vmm_map_new creates size bytes on a (handle_types: 0 none, 1 POSIX fd
 * export), maps them at r and grants a read-write; each call must work,
 * prefix names the stage in the message of one that fails. */
static CUmemGenericAllocationHandle vmm_map_new(int a, CUdeviceptr r, size_t size, int handle_types, const char *prefix) {
	CUmemAllocationProp prop = pinned_prop(a, handle_types);
	CUmemGenericAllocationHandle h;
	CUmemAccessDesc d = {{1, a}, 3};
	char what[96];
	use(a);
	snprintf(what, sizeof what, "%scuMemCreate%s", prefix, handle_types == 1 ? " (POSIX_FILE_DESCRIPTOR)" : "");
	setup(cuMemCreate(&h, size, &prop, 0), what);
	snprintf(what, sizeof what, "%scuMemMap", prefix);
	setup(cuMemMap(r, size, 0, h, 0), what);
	snprintf(what, sizeof what, "%scuMemSetAccess", prefix);
	setup(cuMemSetAccess(r, size, &d, 1), what);
	return h;
}

/* vmm_cycle creates, maps, grants, fills, verifies, unmaps and releases one
 * granule at r: warmUp, so the baseline is read with everything loaded. */
static void vmm_cycle(int a, struct gpu_work *w, CUdeviceptr r, size_t size) {
	CUmemGenericAllocationHandle h = vmm_map_new(a, r, size, 0, "warm-up ");
	if (!run_fill(w, r, size / 4, 1, "warm-up fill")) return;
	run_verify(w, r, size / 4, 1);
	use(a);
	setup(cuMemUnmap(r, size), "warm-up cuMemUnmap");
	setup(cuMemRelease(h), "warm-up cuMemRelease");
}

/* vmm_reserve reserves size bytes of address space for a's mappings and
 * warms up with one vmm_cycle there, so that the free memory read next is
 * the baseline. */
static CUdeviceptr vmm_reserve(int a, struct gpu_work *w, size_t size) {
	CUdeviceptr r = 0;
	use(a);
	setup(cuMemAddressReserve(&r, size, 0, 0, 0), "cuMemAddressReserve");
	step("warming up: one VMM cycle and the kernels on GPU%d", a);
	vmm_cycle(a, w, r, size);
	return r;
}

/* fd_export is the state the POSIX fd checks share: the exporter's mapping
 * and the importer process with its last request and report. */
struct fd_export {
	size_t size, baseline;
	uint64_t n;
	struct gpu_work w;
	CUdeviceptr r;
	CUmemGenericAllocationHandle h;
	struct helper imp;
	struct helper_req q;
	struct helper_rep rep;
};

/* fd_export is newExport and sendTo: after a warm-up cycle and the free
 * memory baseline, a granule of a created for POSIX fd export, mapped at r
 * and filled, its fd sent with SCM_RIGHTS to a fresh importer process that
 * imports, maps and grants it on b. It returns 0 when the check cannot go
 * on (skipped, or the violation recorded). */
static int fd_export(int a, int b, uint32_t seed, struct fd_export *x) {
	if (!require_fd_export(a, &x->size)) return 0;
	size_t size = x->size;
	x->n = size / 4;
	x->w = gpu_work(a);
	x->r = vmm_reserve(a, &x->w, size);
	x->baseline = free_memory(a);
	step("creating %zu bytes on GPU%d for POSIX fd export, mapping and filling them", size, a);
	x->h = vmm_map_new(a, x->r, size, 1, "");
	if (!run_fill(&x->w, x->r, x->n, seed, "fill on the exporter's GPU")) return 0;
	x->imp = helper_open();
	step("exporting a POSIX fd and sending it with SCM_RIGHTS; the importer imports, maps and grants GPU%d", b);
	int fds = count_fds(), fd = -1;
	use(a);
	if (!must(cuMemExportToShareableHandle(&fd, x->h, 1, 0), "cuMemExportToShareableHandle(POSIX_FILE_DESCRIPTOR)")) return 0;
	memset(&x->q, 0, sizeof x->q);
	x->q.role = ROLE_IMPORT_FD;
	x->q.b = b;
	x->q.bytes = size;
	int ok = helper_do(&x->imp, &x->q, &x->rep, fd);
	close(fd);
	if (!ok) return 0;
	const struct helper_rep *rep = &x->rep;
	if (count_fds() != fds) violation("the exporter's open descriptors after exporting, sending and closing the fd: want %d, got %d", fds, count_fds());
	if (rep->fds_closed != rep->fds_imported - 1)
		violation("the importer's open descriptors after importing, before and after closing the received fd: %d then %d", rep->fds_imported, rep->fds_closed);
	if (rep->code != 0) {
		violation("import and map on GPU%d of GPU%d's memory: %s", b, a, rep->error);
		return 0;
	}
	if (rep->access[0] != 3) violation("cuMemGetAccess(GPU%d) in the importer after granting: want PROT_READWRITE (3), got %d", b, rep->access[0]);
	return 1;
}

static void fd_export_import(int a, int b, uint32_t seed) {
	struct fd_export x;
	if (!fd_export(a, b, seed, &x)) return;
	step("reading every word and writing a new pattern with a kernel on GPU%d in the importer", b);
	x.q.role = ROLE_VERIFY;
	x.q.seed = seed;
	if (!helper_do(&x.imp, &x.q, &x.rep, -1)) return;
	if (x.rep.code != 0) violation("importer's kernel on GPU%d reading GPU%d's memory: %s", b, a, x.rep.error);
	else if (x.rep.result[0].mismatches != 0) violation("data the importer on GPU%d read: %s", b, verdict_text(x.rep.result[0]));
	else printf("  ok: the importer on GPU%d read every word\n", b);
	x.q.role = ROLE_FILL;
	x.q.seed = seed + 1;
	if (!helper_do(&x.imp, &x.q, &x.rep, -1)) return;
	if (x.rep.code != 0) violation("importer's kernel on GPU%d writing GPU%d's memory: %s", b, a, x.rep.error);
	struct verdict v = run_verify(&x.w, x.r, x.n, seed + 1);
	if (v.code != 0 || v.mismatches != 0)
		violation("the pattern the importer on GPU%d wrote, read by the exporter on GPU%d: %s", b, a, verdict_text(v));
	else
		printf("  ok: the exporter on GPU%d sees every word the importer wrote\n", a);
	step("killing the importer while it maps the allocation; the exporter unmaps and releases it");
	helper_end(&x.imp, 1);
	use(a);
	if (!must(cuMemUnmap(x.r, x.size), "cuMemUnmap on the exporter's side") || !must(cuMemRelease(x.h), "cuMemRelease on the exporter's side")) return;
	free_back_to(a, x.baseline, "the importer was killed and the exporter unmapped and released");
}
`

// importOutlivesRelease is the vmm.import-outlives-exporter-release spec
// of fd_handle_test.go: newExport and sendTo as fd_export_import does, then
// the exporter unmaps and releases while the importer still maps the
// memory; device-wide free memory must stay below the baseline by the size
// and the importer's data stay whole until the importer unmaps and
// releases, after which free memory returns to the baseline.
const importOutlivesRelease = `
static void import_outlives_release(int a, uint32_t seed) {
	struct fd_export x;
	if (!fd_export(a, a, seed, &x)) return;
	int importer_fds = x.rep.fds;
	size_t size = x.size, baseline = x.baseline;
	step("unmapping and releasing on the exporter's side");
	use(a);
	if (!must(cuMemUnmap(x.r, size), "cuMemUnmap on the exporter's side") || !must(cuMemRelease(x.h), "cuMemRelease on the exporter's side")) return;
	size_t now = free_memory(a);
	if (now > baseline - size)
		violation("free memory on GPU%d while only the importer maps the %zu bytes (baseline %zu): want at most %zu, found %zu",
			a, size, baseline, baseline - size, now);
	else
		printf("  ok: %zu bytes free on GPU%d while the importer maps the memory (baseline %zu)\n", now, a, baseline);
	step("reading every word in the importer, then unmapping there");
	x.q.role = ROLE_VERIFY;
	x.q.seed = seed;
	if (!helper_do(&x.imp, &x.q, &x.rep, -1)) return;
	if (x.rep.code != 0) violation("importer's kernel on GPU%d after the exporter released: %s", a, x.rep.error);
	else if (x.rep.result[0].mismatches != 0) violation("importer's data on GPU%d after the exporter released: %s", a, verdict_text(x.rep.result[0]));
	else printf("  ok: the importer on GPU%d read every word after the exporter released\n", a);
	x.q.role = ROLE_UNMAP;
	if (!helper_do(&x.imp, &x.q, &x.rep, -1)) return;
	if (x.rep.code != 0) violation("importer's unmap and release on GPU%d: %s", a, x.rep.error);
	if (x.rep.fds != importer_fds)
		violation("the importer's open descriptors after unmapping and releasing the import: want %d (before it received the fd), got %d", importer_fds, x.rep.fds);
	helper_end(&x.imp, 0);
	if (free_back_to(a, baseline, "both sides unmapped and released"))
		printf("  ok: free memory on GPU%d back to its baseline %zu\n", a, baseline);
}
`

func init() {
	register("vmm.granularity", recipe{helpers: vmmHelpers, timeout: specTimeout / 2,
		specs: func(t Target) []spec {
			return []spec{{
				name: fmt.Sprintf("reports a non-zero granularity on GPU%d, and cuMemCreate refuses a size that is not a multiple of it", t.A),
				code: `if (!require_vmm(A)) return;
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
RT_FN(cuMemGetAccess, (unsigned long long *flags, const CUmemLocation *loc, CUdeviceptr p), (flags, loc, p))

enum { ROLE_IMPORT_NUMBER = 1, ROLE_VMM_FAULT = 2, ROLE_IMPORT_FD = 3, ROLE_VERIFY = 4, ROLE_FILL = 5, ROLE_UNMAP = 6 };

/* The importer role's state (import_role_test.go): one imported mapping. */
static struct {
	int dev;
	size_t size;
	CUmemGenericAllocationHandle h;
	CUdeviceptr va;
	struct gpu_work w;
	int have_w;
} imp;

/* import_map is the importer's mapping of an imported allocation: reserve
 * size bytes at *va, map h there and grant dev read-write. It returns the
 * first call's failure, or 0. */
static CUresult import_map(CUdeviceptr *va, size_t size, CUmemGenericAllocationHandle h, int dev) {
	CUmemAccessDesc d = {{1, dev}, 3 /* PROT_READWRITE */};
	CUresult r = cuMemAddressReserve(va, size, 0, 0, 0);
	if (r == 0) r = cuMemMap(*va, size, 0, h, 0);
	if (r == 0) r = cuMemSetAccess(*va, size, &d, 1);
	return r;
}

/* importer serves the importer role's commands. */
static void importer(const struct helper_req *q, struct helper_rep *p, int fd) {
	CUresult r = 0;
	switch (q->role) {
	case ROLE_IMPORT_FD: {
		imp.dev = q->b;
		imp.size = q->bytes;
		use(imp.dev);
		if (!imp.have_w) imp.w = gpu_work(imp.dev), imp.have_w = 1; /* the suite's importer has its work before it counts */
		p->fds = count_fds() - 1; /* before the received descriptor arrived */
		r = cuMemImportFromShareableHandle(&imp.h, (void *)(uintptr_t)fd, 1 /* POSIX_FILE_DESCRIPTOR */);
		p->fds_imported = count_fds();
		close(fd);
		p->fds_closed = count_fds();
		if (r == 0) r = import_map(&imp.va, imp.size, imp.h, imp.dev);
		unsigned long long flags = 0;
		CUmemLocation loc = {1, imp.dev};
		if (r == 0) r = cuMemGetAccess(&flags, &loc, imp.va);
		p->access[0] = (int)flags;
		break;
	}
	case ROLE_VERIFY:
	case ROLE_FILL:
		if (!imp.have_w) imp.w = gpu_work(imp.dev), imp.have_w = 1;
		if (q->role == ROLE_VERIFY) {
			p->result[0] = run_verify(&imp.w, imp.va, imp.size / 4, q->seed);
			r = p->result[0].code;
		} else {
			r = helper_fill(imp.dev, imp.w.s, imp.va, imp.size / 4, q->seed, 1024);
		}
		break;
	case ROLE_UNMAP:
		use(imp.dev);
		r = cuMemUnmap(imp.va, imp.size);
		if (r == 0) r = cuMemAddressFree(imp.va, imp.size);
		if (r == 0) r = cuMemRelease(imp.h);
		p->fds = count_fds();
		break;
	}
	p->code = r;
	if (r != 0) snprintf(p->error, sizeof p->error, "%s (%d)", err_name(r), r);
}

/* vmm_fault is the role vmm.fault (fault_role_test.go): create one granule
 * on q->a, map it at each range (granting what the request says), fill one
 * range, then probe: cuMemGetAccess for the probing device, and a kernel
 * that loads (verify) or stores (fill) every word; the first fault ends it. */
static void vmm_fault(const struct helper_req *q, struct helper_rep *p) {
	int owner = q->a;
	size_t size = granularity(owner, 0, 0);
	uint64_t n = size / 4;
	CUmemAllocationProp prop = pinned_prop(owner, 0);
	CUmemGenericAllocationHandle h;
	use(owner);
	setup(cuMemCreate(&h, size, &prop, 0), "helper: cuMemCreate");
	CUdeviceptr r[2] = {0, 0};
	for (int i = 0; i < q->nranges; i++) {
		use(owner);
		setup(cuMemAddressReserve(&r[i], size, 0, 0, 0), "helper: cuMemAddressReserve");
		setup(cuMemMap(r[i], size, 0, h, 0), "helper: cuMemMap");
		for (int g = 0; g < q->ngrants[i]; g++) {
			CUmemAccessDesc d = {{1, q->grant[i][g][0]}, q->grant[i][g][1]};
			setup(cuMemSetAccess(r[i], size, &d, 1), "helper: cuMemSetAccess");
		}
	}
	if (q->fill >= 0) {
		step("helper: fill range %d with GPU%d", q->fill, owner);
		struct gpu_work w = gpu_work(owner);
		if (!run_fill(&w, r[q->fill], n, q->seed, "helper: fill")) exit(EXIT_CANNOT_RUN);
	}
	for (int i = 0; i < q->nprobes; i++) {
		int range = q->probe[i][0], dev = q->probe[i][1], store = q->probe[i][2];
		step("helper: probe %d: %s by GPU%d on range %d", i, store ? "store" : "load", dev, range);
		unsigned long long flags = 0;
		CUmemLocation loc = {1, dev};
		use(owner);
		setup(cuMemGetAccess(&flags, &loc, r[range]), "helper: cuMemGetAccess");
		p->access[i] = (int)flags;
		struct gpu_work w = gpu_work(dev);
		if (store) {
			uint64_t grid = (n + 255) / 256;
			grid = grid < 1 ? 1 : grid > 1024 ? 1024 : grid;
			p->result[i].code = helper_fill(dev, w.s, r[range], n, q->seed + 1, (unsigned)grid);
		} else {
			p->result[i] = run_verify(&w, r[range], n, q->seed);
		}
		p->nresults = i + 1;
		if (p->result[i].code != 0) break;
	}
}

/* probe_text is probeResult's String. */
static const char *probe_text(const struct helper_rep *rep, int i) {
	static char buf[256];
	static const char *prot[4] = {"PROT_NONE", "PROT_READ", "2", "PROT_READWRITE"};
	const char *a = rep->access[i] >= 0 && rep->access[i] < 4 ? prot[rep->access[i]] : "?";
	if (rep->result[i].code != 0)
		snprintf(buf, sizeof buf, "access %s, kernel failed: %s (%d)", a, err_name(rep->result[i].code), rep->result[i].code);
	else
		snprintf(buf, sizeof buf, "access %s, kernel completed: %s", a, verdict_text(rep->result[i]));
	return buf;
}

static void expect_fault(const struct helper_rep *rep, int i, const char *what);

/* fault_request is a faultReq of the role: owner, one range per entry of
 * grants ("" none, else "dev:flags,dev:flags"), fill range, probes. */
static struct helper_req fault_request(int owner, int fill, uint32_t seed) {
	struct helper_req q;
	memset(&q, 0, sizeof q);
	q.role = ROLE_VMM_FAULT;
	q.a = owner;
	q.fill = fill;
	q.seed = seed;
	return q;
}

static void add_range(struct helper_req *q, int ngrants, int dev0, int flags0, int dev1, int flags1) {
	int i = q->nranges++;
	q->ngrants[i] = ngrants;
	q->grant[i][0][0] = dev0, q->grant[i][0][1] = flags0;
	q->grant[i][1][0] = dev1, q->grant[i][1][1] = flags1;
}

static void add_probe(struct helper_req *q, int range, int dev, int store) {
	int i = q->nprobes++;
	q->probe[i][0] = range, q->probe[i][1] = dev, q->probe[i][2] = store;
}

/* expect_read_only is expectReadOnly. */
static void expect_read_only(const struct helper_rep *rep, const char *what) {
	if (rep->nresults < 1) {
		violation("probe results for %s: none", what);
		return;
	}
	if (rep->access[0] != 1) violation("cuMemGetAccess for %s: want PROT_READ (1), got %d", what, rep->access[0]);
	if (rep->result[0].code != 0 || rep->result[0].mismatches != 0)
		violation("kernel load by %s: %s", what, probe_text(rep, 0));
	char buf[256];
	snprintf(buf, sizeof buf, "kernel store by %s", what);
	expect_fault(rep, 1, buf);
}

/* expect_fault is expectFault. */
static void expect_fault(const struct helper_rep *rep, int i, const char *what) {
	if (rep->nresults <= i) {
		violation("%s: the helper ran %d probes, not %d", what, rep->nresults, i + 1);
		return;
	}
	printf("  finding: fault code: %s (%d) (%s)\n", rep->result[i].code == 0 ? "CUDA_SUCCESS" : err_name(rep->result[i].code), rep->result[i].code, what);
	if (rep->result[i].code == 0) violation("%s: the kernel completed (%s); it must not succeed", what, probe_text(rep, i));
}

/* The importer role (import_role_test.go), op import-number: import the
 * bare number q->value as a POSIX fd; should that succeed, map it (reserve,
 * map, grant read-write) so the spec sees where it was mapped. */
static void helper_role(const struct helper_req *q, struct helper_rep *p, int fd) {
	(void)fd;
	if (q->role == ROLE_VMM_FAULT) {
		vmm_fault(q, p);
		return;
	}
	if (q->role != ROLE_IMPORT_NUMBER) {
		importer(q, p, fd);
		return;
	}
	CUmemGenericAllocationHandle h = 0;
	use(q->a);
	CUresult r = cuMemImportFromShareableHandle(&h, (void *)(uintptr_t)q->value, 1 /* POSIX_FILE_DESCRIPTOR */);
	p->code = r;
	if (r != 0) {
		snprintf(p->error, sizeof p->error, "%s (%d)", err_name(r), r);
		return;
	}
	CUdeviceptr va = 0;
	if (import_map(&va, q->bytes, h, q->a) == 0) p->value = va;
}
`

func init() {
	register("vmm.no-access-until-set", recipe{basic: true, helpers: vmmHelpers + accessHelpers + vmmShareHelpers, timeout: specTimeout / 2, helperProcess: true,
		specs: func(t Target) []spec {
			return []spec{{
				name: fmt.Sprintf("on GPU%d gives no access until cuMemSetAccess", t.A),
				code: `if (!require_vmm(A)) return;
step("mapping memory of GPU%d without cuMemSetAccess, then reading it with a kernel in a helper", A);
struct helper_req q = fault_request(A, -1, 0);
add_range(&q, 0, 0, 0, 0, 0);
add_probe(&q, 0, A, 0);
struct helper_rep rep;
if (!helper_call(&q, &rep, -1)) return;
if (rep.nresults < 1) {
	violation("probe results from the helper on GPU%d: none", A);
	return;
}
if (rep.access[0] != 0)
	violation("cuMemGetAccess(GPU%d) after cuMemMap, before cuMemSetAccess: want PROT_NONE (0), got %d", A, rep.access[0]);
expect_fault(&rep, 0, "kernel on " TARGET " reading a mapping without access");
expect_healthy(A, A);
`,
			}}
		}})

	register("vmm.read-only-access", recipe{basic: true, helpers: vmmHelpers + accessHelpers + vmmShareHelpers, timeout: specTimeout / 2, helperProcess: true,
		specs: func(t Target) []spec {
			if !t.Pair {
				return []spec{{
					name: fmt.Sprintf("of GPU%[1]d's memory set PROT_READ lets a kernel on GPU%[1]d read but not write it", t.A),
					code: fmt.Sprintf(`if (!require_vmm(A)) return;
step("filling through a read-write range, then loading and storing through a read-only range of the same memory");
struct helper_req q = fault_request(A, 0, %du);
add_range(&q, 1, A, 3, 0, 0);
add_range(&q, 1, A, 1, 0, 0);
add_probe(&q, 1, A, 0);
add_probe(&q, 1, A, 1);
struct helper_rep rep;
if (!helper_call(&q, &rep, -1)) return;
expect_read_only(&rep, "GPU%d on a PROT_READ mapping of its own memory");
expect_healthy(A, A);
`, seed32("vmm.read-only-access", t.String()), t.A),
				}}
			}
			return []spec{{
				name: fmt.Sprintf("of GPU%d's memory set PROT_READ for GPU%d lets a kernel on GPU%d read but not write it (%s)", t.A, t.B, t.B, t),
				code: fmt.Sprintf(`if (!require_vmm(A)) return;
if (!require_peer_access(B, A)) return;
step("granting GPU%%d read-write and GPU%%d read-only on one range of GPU%%d's memory", A, B, A);
struct helper_req q = fault_request(A, 0, %du);
add_range(&q, 2, A, 3, B, 1);
add_probe(&q, 0, B, 0);
add_probe(&q, 0, B, 1);
struct helper_rep rep;
if (!helper_call(&q, &rep, -1)) return;
expect_read_only(&rep, "GPU%d on GPU%d's memory mapped PROT_READ for it");
expect_healthy(A, B);
`, seed32("vmm.read-only-access", t.ID()), t.B, t.A),
			}}
		}})

	register("vmm.access-is-per-range", recipe{basic: true, helpers: vmmHelpers + accessHelpers + vmmShareHelpers, timeout: specTimeout / 2, helperProcess: true,
		specs: func(t Target) []spec {
			return []spec{{
				name: fmt.Sprintf("with access set gives none to a second mapping of the same memory on GPU%d", t.A),
				code: fmt.Sprintf(`if (!require_vmm(A)) return;
step("mapping one allocation twice, granting read-write on the first range only");
struct helper_req q = fault_request(A, 0, %du);
add_range(&q, 1, A, 3, 0, 0);
add_range(&q, 0, 0, 0, 0, 0);
add_probe(&q, 0, A, 0);
add_probe(&q, 1, A, 0);
struct helper_rep rep;
if (!helper_call(&q, &rep, -1)) return;
if (rep.nresults < 1 || rep.result[0].code != 0 || rep.result[0].mismatches != 0) {
	violation("kernel on GPU%%d reading the range with access: %%s", A, rep.nresults < 1 ? "not run" : probe_text(&rep, 0));
	return;
}
if (rep.nresults > 1 && rep.access[1] != 0) violation("cuMemGetAccess(GPU%%d) on the second range: want PROT_NONE (0), got %%d", A, rep.access[1]);
expect_fault(&rep, 1, "kernel on GPU%d reading the second mapping, which has no access");
expect_healthy(A, A);
`, seed32("vmm.access-is-per-range", t.String()), t.A),
			}}
		}})

	register("vmm.peer-access-grant", recipe{basic: true, helpers: vmmHelpers + accessHelpers + vmmShareHelpers, timeout: specTimeout / 2, helperProcess: true,
		specs: func(t Target) []spec {
			return []spec{{
				name: fmt.Sprintf("lets a kernel on GPU%d use GPU%d's VMM memory only once cuMemSetAccess grants it (%s)", t.B, t.A, t),
				code: fmt.Sprintf(`if (!require_vmm(A)) return;
size_t size = granularity(A, 0, 0);
if (!require_peer_access(B, A)) return;
uint64_t n = size / 4;
uint32_t seed = %du;
step("in a helper: a kernel on GPU%%d reading GPU%%d's memory mapped with access for GPU%%d only", B, A, A);
struct helper_req q = fault_request(A, 0, seed);
add_range(&q, 1, A, 3 /* PROT_READWRITE */, 0, 0);
add_probe(&q, 0, B, 0);
struct helper_rep rep;
if (!helper_call(&q, &rep, -1)) return;
if (rep.nresults < 1) {
	violation("probe results for %%s: none", TARGET);
	return;
}
if (rep.access[0] != 0)
	violation("cuMemGetAccess(GPU%%d) on GPU%%d's memory with access for GPU%%d only: want PROT_NONE (0), got %%d", B, A, A, rep.access[0]);
expect_fault(&rep, 0, "kernel on GPU%d reading GPU%d's memory without access");
step("granting GPU%%d, then GPU%%d read-write on a mapping of GPU%%d's memory in this process", A, B, A);
CUmemAllocationProp prop = pinned_prop(A, 0);
CUmemGenericAllocationHandle h;
CUdeviceptr r = 0;
use(A);
setup(cuMemCreate(&h, size, &prop, 0), "cuMemCreate");
setup(cuMemAddressReserve(&r, size, 0, 0, 0), "cuMemAddressReserve");
setup(cuMemMap(r, size, 0, h, 0), "cuMemMap");
CUmemAccessDesc da = {{1, A}, 3}, db = {{1, B}, 3};
if (!must(cuMemSetAccess(r, size, &da, 1), "cuMemSetAccess(GPU A read-write)")) return;
struct gpu_work wa = gpu_work(A), wb = gpu_work(B);
if (!run_fill(&wa, r, n, seed, "fill on GPU A")) return;
use(A);
if (!must(cuMemSetAccess(r, size, &db, 1), "cuMemSetAccess(GPU B read-write)")) return;
unsigned long long flags = 0;
CUmemLocation lb = {1, B};
if (must(cuMemGetAccess(&flags, &lb, r), "cuMemGetAccess(GPU B) after the grant") && flags != 3)
	violation("cuMemGetAccess(GPU%%d) after the grant: want PROT_READWRITE (3), got %%llu", B, flags);
step("reading and rewriting every word with a kernel on GPU%%d", B);
struct verdict v = run_verify(&wb, r, n, seed);
if (v.code != 0) {
	violation("kernel on GPU%%d reading GPU%%d's memory after the grant: %%s", B, A, verdict_text(v));
	return;
}
if (v.mismatches != 0) violation("data read by GPU%%d from GPU%%d's memory: %%s", B, A, verdict_text(v));
if (!run_fill(&wb, r, n, seed + 1, "kernel on GPU B writing GPU A's memory after the grant")) return;
v = run_verify(&wa, r, n, seed + 1);
if (v.code != 0 || v.mismatches != 0) violation("data GPU%%d wrote into GPU%%d's memory, read on GPU%%d: %%s", B, A, A, verdict_text(v));
else printf("  ok: GPU%%d read and wrote every word of GPU%%d's memory after the grant\n", B, A);
`, seed32("vmm.peer-access-grant", t.ID()), t.B, t.A),
			}}
		}})

	register("vmm.fd-export-import", recipe{basic: true, helpers: vmmHelpers + accessHelpers + vmmShareHelpers + fdExportImport, timeout: specTimeout / 2, helperProcess: true,
		specs: func(t Target) []spec {
			name := fmt.Sprintf("shares memory of GPU%d with another process when sent with SCM_RIGHTS", t.A)
			if t.Pair {
				name = fmt.Sprintf("shares memory of GPU%d with a process on GPU%d when sent with SCM_RIGHTS (%s)", t.A, t.B, t)
			}
			return crossProcessSpec("vmm.fd-export-import", t, name, "", "fd_export_import")
		}})

	register("vmm.release-while-mapped", recipe{basic: true, helpers: vmmHelpers + vmmShareHelpers + fdExportImport, timeout: specTimeout / 2, helperProcess: true,
		specs: func(t Target) []spec {
			return []spec{{
				name: fmt.Sprintf("keeps memory on GPU%d alive after cuMemRelease until the last cuMemUnmap", t.A),
				code: fmt.Sprintf(`if (!require_vmm(A)) return;
size_t size = granularity(A, 0, 0);
uint64_t n = size / 4;
uint32_t seed = %du;
struct gpu_work w = gpu_work(A);
CUdeviceptr r = vmm_reserve(A, &w, size);
size_t baseline = free_memory(A);
step("creating, mapping and filling %%zu bytes on GPU%%d", size, A);
CUmemGenericAllocationHandle h = vmm_map_new(A, r, size, 0, "");
if (!run_fill(&w, r, n, seed, "fill the mapping")) return;
step("releasing the handle while the range is still mapped");
use(A);
if (!must(cuMemRelease(h), "cuMemRelease of a mapped allocation")) return;
size_t now = free_memory(A);
if (now > baseline - size)
	violation("free memory on GPU%%d right after cuMemRelease of a mapped %%zu-byte allocation (baseline %%zu): the memory must still be held, found %%zu free", A, size, baseline, now);
struct verdict v = run_verify(&w, r, n, seed);
if (v.code != 0) {
	violation("read the released-but-mapped range on GPU%%d: %%s", A, verdict_text(v));
	return;
}
if (v.mismatches != 0) violation("data read on GPU%%d after cuMemRelease while mapped: %%s", A, verdict_text(v));
else printf("  ok: the released range still holds every word\n");
step("unmapping the last mapping");
use(A);
if (!must(cuMemUnmap(r, size), "cuMemUnmap of the last mapping")) return;
free_back_to(A, baseline, "cuMemUnmap of the last mapping of a released allocation");
`, seed32("vmm.release-while-mapped", t.String())),
			}}
		}})

	register("vmm.import-outlives-exporter-release", recipe{basic: true, helpers: vmmHelpers + accessHelpers + vmmShareHelpers + fdExportImport + importOutlivesRelease, timeout: specTimeout / 2, helperProcess: true,
		specs: func(t Target) []spec {
			return []spec{{
				name: fmt.Sprintf("keeps memory of GPU%d valid in an importer after the exporter unmaps and releases it", t.A),
				code: fmt.Sprintf("import_outlives_release(A, %du);\n", seed32("vmm.import-outlives-exporter-release", t.String())),
			}}
		}})

	register("vmm.fd-number-is-not-a-handle", recipe{helpers: vmmHelpers + vmmShareHelpers, timeout: specTimeout / 2, helperProcess: true,
		specs: func(t Target) []spec {
			return []spec{{
				name: fmt.Sprintf("of GPU%d cannot be imported from the bare number of the descriptor", t.A),
				code: `size_t size;
if (!require_fd_export(A, &size)) return;
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
