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
