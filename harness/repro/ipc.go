// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package repro

import "fmt"

// The ipc suite's specs (suites/ipc) that run in one process.

const ipcHelpers = `
RT_FN(cuIpcGetMemHandle, (CUipcMemHandle *h, CUdeviceptr p), (h, p))
RT_FN(cuIpcOpenMemHandle, (CUdeviceptr *p, CUipcMemHandle h, unsigned int flags), (p, h, flags))
RT_FN(cuIpcCloseMemHandle, (CUdeviceptr p), (p))
RT_FN(cuIpcGetEventHandle, (CUipcEventHandle *h, CUevent e), (h, e))
RT_FN(cuIpcOpenEventHandle, (CUevent *e, CUipcEventHandle h), (e, h))

/* require_ipc is requireIPC: UNIFIED_ADDRESSING=1. */
static int require_ipc(int dev) {
	if (attribute(dev, 41 /* UNIFIED_ADDRESSING */) == 1) return 1;
	skipped("needs UNIFIED_ADDRESSING=1 on GPU%d", dev);
	return 0;
}
`

func init() {
	register("ipc.same-process-open-rejected", recipe{helpers: ipcHelpers, timeout: specTimeout / 2,
		specs: func(t Target) []spec {
			return []spec{{
				name: fmt.Sprintf("of GPU%d cannot be opened in the process that exported it", t.A),
				code: `if (!require_ipc(A)) return;
CUdeviceptr p = dev_alloc(A, 8 << 20); /* ipcBytes */
CUipcMemHandle h;
use(A);
if (!must(cuIpcGetMemHandle(&h, p), "cuIpcGetMemHandle")) return;
step("opening the handle in this, the exporting, process");
CUdeviceptr ptr = 0;
CUresult r = cuIpcOpenMemHandle(&ptr, h, 1 /* CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS */);
printf("  finding: cuIpcOpenMemHandle in the exporting process = %s (%d)\n", r == 0 ? "CUDA_SUCCESS" : err_name(r), r);
if (r == 0) {
	violation("cuIpcOpenMemHandle in the exporting process on GPU%d returned 0x%llx: want a CUDA error", A, (unsigned long long)ptr);
	cuIpcCloseMemHandle(ptr);
} else if (ptr != 0) {
	violation("pointer returned by the refused cuIpcOpenMemHandle on GPU%d: want 0, got 0x%llx", A, (unsigned long long)ptr);
}
dev_free(A, p);
`,
			}}
		}})

	register("ipc.event-flags", recipe{helpers: ipcHelpers, timeout: specTimeout / 2,
		specs: func(t Target) []spec {
			return []spec{{
				name: fmt.Sprintf("cannot be created on GPU%d without DISABLE_TIMING, nor exported without INTERPROCESS", t.A),
				code: `if (!require_ipc(A)) return;
if (attribute(A, 125 /* IPC_EVENT_SUPPORTED */) != 1) { skipped("needs IPC_EVENT_SUPPORTED=1 on GPU%d", A); return; }
step("creating an event with INTERPROCESS and without DISABLE_TIMING");
CUevent ev = NULL;
use(A);
CUresult r = cuEventCreate(&ev, 0x4 /* INTERPROCESS */);
if (r == 0) cuEventDestroy(ev);
if (r != 1)
	violation("cuEventCreate(INTERPROCESS) on GPU%d: want CUDA_ERROR_INVALID_VALUE (1), got %s (%d)", A, r == 0 ? "CUDA_SUCCESS" : err_name(r), r);
step("exporting a handle of an event created without INTERPROCESS");
CUevent plain;
setup(cuEventCreate(&plain, 0x2 /* DISABLE_TIMING */), "cuEventCreate(DISABLE_TIMING)");
CUipcEventHandle h;
r = cuIpcGetEventHandle(&h, plain);
printf("  finding: cuIpcGetEventHandle(non-interprocess event) = %s (%d)\n", r == 0 ? "CUDA_SUCCESS" : err_name(r), r);
if (r == 0) violation("cuIpcGetEventHandle of a DISABLE_TIMING-only event on GPU%d: want a CUDA error, got CUDA_SUCCESS", A);
step("exporting a handle of an INTERPROCESS|DISABLE_TIMING event, which must work");
CUevent ipc;
setup(cuEventCreate(&ipc, 0x4 | 0x2), "cuEventCreate(INTERPROCESS|DISABLE_TIMING)");
must(cuIpcGetEventHandle(&h, ipc), "cuIpcGetEventHandle of an INTERPROCESS|DISABLE_TIMING event");
`,
			}}
		}})
}

// ipcAgent is the agent role of agent_role_test.go, the ops the round trip
// uses: open a handle, verify or fill the opened memory with a kernel,
// close it.
const ipcAgent = `
enum { ROLE_OPEN = 1, ROLE_VERIFY = 2, ROLE_FILL = 3, ROLE_CLOSE = 4, ROLE_PROBE = 5, ROLE_OPEN_EVENT = 6, ROLE_CONSUME = 7 };
enum { IPC_BYTES = 8 << 20 }; /* ipcBytes */

static struct {
	CUdeviceptr opened;
	CUevent event;
	struct gpu_work w;
	int have_w;
} agent;

static void helper_role(const struct helper_req *q, struct helper_rep *p, int fd) {
	(void)fd;
	int dev = q->b;
	CUresult r = 0;
	use(dev);
	switch (q->role) {
	case ROLE_OPEN: {
		CUipcMemHandle h;
		memcpy(h.reserved, q->handle, 64);
		r = cuIpcOpenMemHandle(&agent.opened, h, 1 /* CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS */);
		p->value = r == 0 ? agent.opened : 0;
		break;
	}
	case ROLE_VERIFY:
	case ROLE_FILL:
		if (!agent.have_w) agent.w = gpu_work(dev), agent.have_w = 1;
		if (q->role == ROLE_VERIFY) {
			p->result[0] = run_verify(&agent.w, agent.opened, q->bytes / 4, q->seed);
			r = p->result[0].code;
		} else {
			r = helper_fill(dev, agent.w.s, agent.opened, q->bytes / 4, q->seed, 1024);
		}
		break;
	case ROLE_CLOSE:
		r = cuIpcCloseMemHandle(agent.opened);
		agent.opened = 0;
		break;
	case ROLE_OPEN_EVENT: {
		CUipcEventHandle h;
		memcpy(h.reserved, q->handle, 64);
		r = cuIpcOpenEventHandle(&agent.event, h);
		break;
	}
	case ROLE_CONSUME:
		/* the consumer: wait for the opened event (when asked), then verify */
		if (!agent.have_w) agent.w = gpu_work(dev), agent.have_w = 1;
		if (q->enable && (r = cuStreamWaitEvent(agent.w.s, agent.event, 0)) != 0) break;
		p->result[0] = run_verify(&agent.w, agent.opened, q->bytes / 4, q->seed);
		r = p->result[0].code;
		break;
	case ROLE_PROBE: {
		/* The attribute first, before the probe's kernel allocates anything. */
		int ord = -1;
		p->access[0] = cuPointerGetAttribute(&ord, 9 /* DEVICE_ORDINAL */, q->value);
		p->value = (uint64_t)ord;
		if (!agent.have_w) agent.w = gpu_work(dev), agent.have_w = 1;
		p->result[0] = run_verify(&agent.w, q->value, q->bytes / 4, q->seed);
		r = p->result[0].code;
		break;
	}
	}
	p->code = r;
	if (r != 0) snprintf(p->error, sizeof p->error, "%s (%d)", err_name(r), r);
}

/* agent_must is the agent's must: a failed command is a violation. */
static int agent_must(struct helper *h, struct helper_req *q, struct helper_rep *p, const char *what) {
	if (!helper_do(h, q, p, -1)) return 0;
	if (p->code != 0) {
		violation("%s: %s", what, p->error);
		return 0;
	}
	return 1;
}

/* ipc_export is the exporter's side of every check with an agent: IPC_BYTES
 * on g, filled with seed's pattern and exported with cuIpcGetMemHandle. It
 * returns 0 after recording why it could not. */
static int ipc_export(int g, struct gpu_work *w, uint32_t seed, CUdeviceptr *mem, CUipcMemHandle *h) {
	step("allocating %d bytes on GPU%d, filling them and exporting them with cuIpcGetMemHandle", IPC_BYTES, g);
	*mem = dev_alloc(g, IPC_BYTES);
	if (!run_fill(w, *mem, IPC_BYTES / 4, seed, "fill on the exporter's GPU")) return 0;
	use(g);
	return must(cuIpcGetMemHandle(h, *mem), "cuIpcGetMemHandle");
}

/* agent_start starts an agent process for dev and sets q to its first
 * request: all zero but the device and the exporter's allocation size. */
static struct helper agent_start(int dev, struct helper_req *q) {
	struct helper imp = helper_open();
	memset(q, 0, sizeof *q);
	q->b = dev;
	q->bytes = IPC_BYTES;
	return imp;
}

/* agent_open has the agent open a 64-byte handle (role ROLE_OPEN for memory,
 * ROLE_OPEN_EVENT for an event); a failure is a violation. */
static int agent_open(struct helper *h, struct helper_req *q, struct helper_rep *p, int role, const char *handle, const char *what) {
	q->role = role;
	memcpy(q->handle, handle, 64);
	return agent_must(h, q, p, what);
}

/* roundtrip is the round trip of mem_handle_test.go: a's allocation, filled
 * and exported, opened, read and rewritten by a process on b. */
static void roundtrip(int a, int b, uint32_t seed) {
	char what[160];
	struct gpu_work w = gpu_work(a);
	CUdeviceptr mem;
	CUipcMemHandle h;
	if (!ipc_export(a, &w, seed, &mem, &h)) return;
	struct helper_req q;
	struct helper_rep p;
	struct helper imp = agent_start(b, &q);
	step("opening the 64-byte handle in a process on GPU%d", b);
	snprintf(what, sizeof what, "cuIpcOpenMemHandle on GPU%d of GPU%d's allocation", b, a);
	if (!agent_open(&imp, &q, &p, ROLE_OPEN, h.reserved, what)) goto out;
	if (p.value == 0) violation("pointer the importer on GPU%d got: 0", b);
	step("reading every word and writing a new pattern with a kernel on GPU%d", b);
	q.role = ROLE_VERIFY;
	q.seed = seed;
	snprintf(what, sizeof what, "importer's kernel on GPU%d reading", b);
	if (!agent_must(&imp, &q, &p, what)) goto out;
	if (p.result[0].mismatches != 0) violation("data the importer on GPU%d read from GPU%d: %s", b, a, verdict_text(p.result[0]));
	else printf("  ok: the importer on GPU%d read every word\n", b);
	q.role = ROLE_FILL;
	q.seed = seed + 1;
	snprintf(what, sizeof what, "importer's kernel on GPU%d writing", b);
	if (!agent_must(&imp, &q, &p, what)) goto out;
	struct verdict v = run_verify(&w, mem, IPC_BYTES / 4, seed + 1);
	if (v.code != 0 || v.mismatches != 0)
		violation("the pattern the importer on GPU%d wrote, read by the exporter on GPU%d: %s", b, a, verdict_text(v));
	else
		printf("  ok: the exporter on GPU%d sees every word the importer wrote\n", a);
	q.role = ROLE_CLOSE;
	snprintf(what, sizeof what, "cuIpcCloseMemHandle on GPU%d", b);
	agent_must(&imp, &q, &p, what);
out:
	helper_end(&imp, 0);
}
`

// rawPointer is ipc.raw-pointer-is-not-a-handle of mem_handle_test.go.
const rawPointer = `
static void raw_pointer(int g, uint32_t seed) {
	struct gpu_work w = gpu_work(g);
	CUdeviceptr mem;
	CUipcMemHandle h;
	if (!ipc_export(g, &w, seed, &mem, &h)) return;
	struct helper_req q;
	struct helper_rep p;
	struct helper imp = agent_start(g, &q);
	step("opening a corrupted handle (every byte inverted) and a truncated one (16 of 64 bytes)");
	for (int bad = 0; bad < 2; bad++) {
		const char *what = bad == 0 ? "corrupted handle" : "truncated handle";
		q.role = ROLE_OPEN;
		memset(q.handle, 0, 64);
		for (int i = 0; i < (bad == 0 ? 64 : 16); i++) q.handle[i] = bad == 0 ? (unsigned char)~h.reserved[i] : (unsigned char)h.reserved[i];
		if (!helper_do(&imp, &q, &p, -1)) return;
		printf("  finding: cuIpcOpenMemHandle(%s) = %s (%d)\n", what, p.code == 0 ? "CUDA_SUCCESS" : p.error, p.code);
		if (p.code == 0) violation("cuIpcOpenMemHandle of a %s on GPU%d returned pointer 0x%llx: want a failure", what, g, (unsigned long long)p.value);
	}
	step("giving the importer only the pointer value 0x%llx", (unsigned long long)mem);
	q.role = ROLE_PROBE;
	q.value = mem;
	q.seed = seed;
	if (!helper_do(&imp, &q, &p, -1)) return;
	printf("  finding: cuPointerGetAttribute of the bare pointer in another process = %d\n", p.access[0]);
	if (p.code == 0) printf("  finding: kernel completed; against the exporter's pattern: %s\n", verdict_text(p.result[0]));
	else printf("  finding: kernel: %s\n", p.error[0] ? p.error : verdict_text(p.result[0]));
	if (p.access[0] == 0)
		violation("cuPointerGetAttribute(DEVICE_ORDINAL) on the exporter's bare pointer 0x%llx in another process on GPU%d answered %llu", (unsigned long long)mem, g, (unsigned long long)p.value);
	if (p.code == 0 && p.result[0].mismatches == 0)
		violation("a kernel dereferencing the exporter's bare pointer 0x%llx in another process on GPU%d completed and read the exporter's data", (unsigned long long)mem, g);
	helper_end(&imp, 0);
	step("checking the exporter after the importer's probe: its context works and its data is intact");
	struct verdict v = run_verify(&w, mem, IPC_BYTES / 4, seed);
	if (v.code != 0 || v.mismatches != 0) violation("the exporter's data after the importer's probe, read by the exporter on GPU%d: %s", g, verdict_text(v));
	else printf("  ok: the exporter's context works and its data is intact\n");
}
`

// lifetime is lifetime_test.go: ipc.close-then-free and ipc.importer-killed.
const lifetime = `
/* ipc_warm_up is warmUp: load and run the kernels and export one
 * allocation, which lives until the end, before the baseline is read. */
static void ipc_warm_up(int g, struct gpu_work *w) {
	CUdeviceptr warm = dev_alloc(g, IPC_BYTES);
	if (!run_fill(w, warm, IPC_BYTES / 4, 1, "warm-up fill")) cannot_run("the warm-up fill failed");
	run_verify(w, warm, IPC_BYTES / 4, 1);
	CUipcMemHandle h;
	use(g);
	setup(cuIpcGetMemHandle(&h, warm), "warm-up cuIpcGetMemHandle");
}

static void close_then_free(int g, uint32_t seed) {
	struct gpu_work w = gpu_work(g);
	ipc_warm_up(g, &w);
	size_t baseline = free_memory(g);
	CUdeviceptr mem;
	CUipcMemHandle h;
	if (!ipc_export(g, &w, seed, &mem, &h)) return;
	struct helper_req q;
	struct helper_rep p;
	struct helper imp = agent_start(g, &q);
	if (!agent_open(&imp, &q, &p, ROLE_OPEN, h.reserved, "cuIpcOpenMemHandle in the importer")) return;
	uint64_t opened = p.value;
	q.role = ROLE_FILL;
	q.seed = seed + 1;
	if (!agent_must(&imp, &q, &p, "importer's kernel writing")) return;
	step("closing in the importer, then using its pointer there");
	q.role = ROLE_CLOSE;
	if (!agent_must(&imp, &q, &p, "cuIpcCloseMemHandle in the importer")) return;
	q.role = ROLE_PROBE;
	q.value = opened;
	if (!helper_do(&imp, &q, &p, -1)) return;
	if (p.access[0] == 0)
		violation("cuPointerGetAttribute(DEVICE_ORDINAL) on the importer's pointer 0x%llx after cuIpcCloseMemHandle on GPU%d answered %llu", (unsigned long long)opened, g, (unsigned long long)p.value);
	if (p.code == 0 && p.result[0].mismatches == 0)
		violation("a kernel dereferencing the importer's pointer 0x%llx after cuIpcCloseMemHandle on GPU%d completed and read the exporter's data", (unsigned long long)opened, g);
	helper_end(&imp, 0);
	step("checking the exporter's allocation survived the close, then freeing it");
	struct verdict v = run_verify(&w, mem, IPC_BYTES / 4, seed + 1);
	if (v.code != 0 || v.mismatches != 0)
		violation("the importer's pattern after the importer closed, read by the exporter on GPU%d: %s", g, verdict_text(v));
	size_t now = free_memory(g);
	if (now > baseline - IPC_BYTES)
		violation("free memory on GPU%d after the importer closed, before the exporter freed (baseline %zu): found %zu", g, baseline, now);
	use(g);
	if (!must(cuMemFree(mem), "the exporter's cuMemFree")) return;
	if (free_back_to(g, baseline, "the importer closed and the exporter freed"))
		printf("  ok: free memory on GPU%d is back to its baseline after the importer closed and the exporter freed\n", g);
}

static void importer_killed(int g, uint32_t seed) {
	struct gpu_work w = gpu_work(g);
	ipc_warm_up(g, &w);
	size_t baseline = free_memory(g);
	CUdeviceptr mem;
	CUipcMemHandle h;
	if (!ipc_export(g, &w, seed, &mem, &h)) return;
	int fds = count_fds(); /* before the importer exists */
	struct helper_req q;
	struct helper_rep p;
	struct helper imp = agent_start(g, &q);
	if (!agent_open(&imp, &q, &p, ROLE_OPEN, h.reserved, "cuIpcOpenMemHandle in the importer")) return;
	q.role = ROLE_VERIFY;
	q.seed = seed;
	if (!agent_must(&imp, &q, &p, "importer's kernel reading")) return;
	if (p.result[0].mismatches != 0) violation("data the importer on GPU%d read: %s", g, verdict_text(p.result[0]));
	step("killing the importer with SIGKILL while it maps the allocation");
	pid_t pid = imp.pid;
	int status = helper_end(&imp, 1);
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) violation("importer after SIGKILL: wait status 0x%x", status);
	if (kill(pid, 0) == 0) violation("the killed importer's pid %d must be gone", (int)pid);
	if (count_fds() != fds) violation("this process's open descriptors after the importer was killed: want %d, got %d", fds, count_fds());
	step("checking the exporter: data intact, cuMemFree succeeds, memory back to baseline");
	struct verdict v = run_verify(&w, mem, IPC_BYTES / 4, seed);
	if (v.code != 0 || v.mismatches != 0) violation("the exporter's data after the importer was killed, read by the exporter on GPU%d: %s", g, verdict_text(v));
	use(g);
	if (!must(cuMemFree(mem), "the exporter's cuMemFree")) return;
	if (free_back_to(g, baseline, "the importer was killed and the exporter freed"))
		printf("  ok: free memory on GPU%d is back to its baseline after the importer was killed and the exporter freed\n", g);
}
`

// eventHandoff is handoffConf and the handoff of events_test.go: a slow
// producer in this process, a consumer in another that waits for the
// producer's interprocess event, three trials.
const eventHandoff = `
static void event_handoff(int a, int b, uint32_t seed) {
	if (!require_ipc(a) || !require_ipc(b)) return;
	if (attribute(a, 125) != 1 || attribute(b, 125) != 1) { skipped("needs IPC_EVENT_SUPPORTED=1 on GPU%d and GPU%d", a, b); return; }
	struct gpu_work w = gpu_work(a);
	CUdeviceptr buf = dev_alloc(a, IPC_BYTES), status = dev_alloc(a, 4);
	CUevent ev;
	use(a);
	setup(cuEventCreate(&ev, 0x4 | 0x2 /* INTERPROCESS | DISABLE_TIMING */), "cuEventCreate(INTERPROCESS|DISABLE_TIMING)");
	CUipcMemHandle mh;
	CUipcEventHandle eh;
	if (!must(cuIpcGetMemHandle(&mh, buf), "cuIpcGetMemHandle") || !must(cuIpcGetEventHandle(&eh, ev), "cuIpcGetEventHandle")) return;
	step("opening the allocation and the event of GPU%d in a process on GPU%d", a, b);
	struct helper_req q;
	struct helper_rep p;
	struct helper imp = agent_start(b, &q);
	if (!agent_open(&imp, &q, &p, ROLE_OPEN, mh.reserved, "cuIpcOpenMemHandle in the consumer's process") ||
		!agent_open(&imp, &q, &p, ROLE_OPEN_EVENT, eh.reserved, "cuIpcOpenEventHandle in the consumer's process")) return;
	uint64_t n = IPC_BYTES / 4;
	for (uint32_t t = 0; t < 3; t++) {
		step("trial %u: slow producer on GPU%d, consumer on GPU%d waits for the event", t, a, b);
		uint32_t s = seed + t;
		use(a);
		if (!must(cuMemsetD32Async(buf, POISON, n, w.s), "poison the buffer") || !must(cuMemsetD32Async(status, 0, 1, w.s), "clear the delay status") ||
			!wait_stream(a, w.s, "poison")) return;
		if (!launch_delay(a, w.s, 20000000ull /* producerDelay: 20 ms */, status)) return;
		CUfunction f = basic_kernel(a, "fill", rt_fill_fn);
		void *params[] = {&buf, &n, &s};
		if (!launch_n(a, f, w.s, n, params, "launch the producer (fill)") || !record(a, ev, w.s, "cuEventRecord of the interprocess event")) return;
		/* the host barrier: the consume command leaves only after cuEventRecord returned */
		q.role = ROLE_CONSUME;
		q.enable = 1;
		q.seed = s;
		if (!agent_must(&imp, &q, &p, "consumer")) return;
		if (!wait_stream(a, w.s, "producer")) return;
		if (p.result[0].mismatches != 0)
			violation("consumer on GPU%d after cuStreamWaitEvent on GPU%d's interprocess event, trial %u: %s", b, a, t, verdict_text(p.result[0]));
		else
			printf("  ok: trial %u: the consumer saw every word\n", t);
	}
	helper_end(&imp, 0);
}
`

// ipcOneGPU is the recipe of a one-GPU ipc check whose C function
// fn(gpu, seed), in code, works with an agent process on the same GPU.
// name is the spec's text with one %d for the GPU.
func ipcOneGPU(id, code, fn, name string) recipe {
	return recipe{basic: true, helpers: ipcHelpers + ipcAgent + code, timeout: specTimeout / 2, helperProcess: true,
		specs: func(t Target) []spec {
			return []spec{{
				name: fmt.Sprintf(name, t.A),
				code: fmt.Sprintf("if (!require_ipc(A)) return;\n%s(A, %du);\n", fn, seed32(id, t.String())),
			}}
		}}
}

func init() {
	register("ipc.event-handoff", recipe{basic: true, helpers: ipcHelpers + orderingHelpers + ipcAgent + eventHandoff, timeout: specTimeout / 2, helperProcess: true,
		specs: func(t Target) []spec {
			name := fmt.Sprintf("lets a consumer in another process on GPU%[1]d wait for GPU%[1]d's producer", t.A)
			if t.Pair {
				name = fmt.Sprintf("lets a consumer in a process on GPU%d wait for GPU%d's producer (%s)", t.B, t.A, t)
			}
			return crossProcessSpec("ipc.event-handoff", t, name, "", "event_handoff")
		}})

	register("ipc.close-then-free", ipcOneGPU("ipc.close-then-free", lifetime, "close_then_free",
		"is unmapped on close in the importer and freed by the exporter's cuMemFree on GPU%d"))
	register("ipc.importer-killed", ipcOneGPU("ipc.importer-killed", lifetime, "importer_killed",
		"stays healthy on GPU%d when an importer holding a mapping is killed"))
	register("ipc.raw-pointer-is-not-a-handle", ipcOneGPU("ipc.raw-pointer-is-not-a-handle", rawPointer, "raw_pointer",
		"is required: another process on GPU%d gets no access through a bare pointer or a damaged handle"))

	register("ipc.mem-handle-roundtrip", recipe{basic: true, helpers: ipcHelpers + ipcAgent, timeout: specTimeout / 2, helperProcess: true,
		specs: func(t Target) []spec {
			name, require := fmt.Sprintf("lets another process on GPU%[1]d open, read and write an allocation of GPU%[1]d", t.A), "if (!require_ipc(A)) return;\n"
			if t.Pair {
				name = fmt.Sprintf("lets a process on GPU%d open, read and write an allocation of GPU%d (%s)", t.B, t.A, t)
				require = "if (!require_ipc(A) || !require_ipc(B)) return;\n"
			}
			return crossProcessSpec("ipc.mem-handle-roundtrip", t, name, require, "roundtrip")
		}})
}
