// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cuda

/*
#include <stdlib.h>
#include "shim.h"

enum { P2PC_JIT_LOG_SIZE = 16384 };

// p2pc_cuModuleLoadDataEx loads image with the JIT asked to fill an error log
// and a verbose info log, so a PTX error reads as ptxas wrote it. Options are
// CU_JIT_ERROR_LOG_BUFFER (5), CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES (6),
// CU_JIT_INFO_LOG_BUFFER (3), CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES (4),
// CU_JIT_LOG_VERBOSE (12) and, when level is 0 or more,
// CU_JIT_OPTIMIZATION_LEVEL (7). Each value is one pointer-sized slot:
// buffers as pointers, scalars stored in the slot itself; the driver
// overwrites the size slots with the number of bytes written. Both arrays
// are C stack memory.
static inline CUresult p2pc_cuModuleLoadDataEx(uintptr_t fn, uintptr_t *mod, const char *image,
		char *errlog, char *infolog, int level) {
	int opts[6] = {5, 6, 3, 4, 12, 7};
	void *vals[6] = {errlog, (void *)(uintptr_t)P2PC_JIT_LOG_SIZE, infolog,
		(void *)(uintptr_t)P2PC_JIT_LOG_SIZE, (void *)(uintptr_t)1, (void *)(uintptr_t)(unsigned int)level};
	unsigned int n = level >= 0 ? 6 : 5;
	CUresult r = ((CUresult (*)(CUmodule *, const void *, unsigned int, int *, void **))fn)(
		(CUmodule *)mod, image, n, opts, vals);
	errlog[P2PC_JIT_LOG_SIZE - 1] = 0;
	infolog[P2PC_JIT_LOG_SIZE - 1] = 0;
	return r;
}
static inline CUresult p2pc_cuModuleGetFunction(uintptr_t fn, uintptr_t *f, uintptr_t mod, const char *name) {
	return ((CUresult (*)(CUfunction *, CUmodule, const char *))fn)((CUfunction *)f, (CUmodule)mod, name);
}
static inline CUresult p2pc_cuModuleUnload(uintptr_t fn, uintptr_t mod) {
	return ((CUresult (*)(CUmodule))fn)((CUmodule)mod);
}
*/
import "C"

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/p2pconf/p2pconf/harness/cuerr"
)

// Module is a CUmodule. Modules, and the functions in them, belong to the
// context they were loaded in: load PTX once per device context.
type Module struct{ h C.uintptr_t }

// Function is a CUfunction, a kernel entry of a Module.
type Function struct{ h C.uintptr_t }

// LoadModule JIT-compiles PTX text (or loads a cubin/fatbin image) into the
// current context; wraps cuModuleLoadDataEx. The NUL terminator the driver
// needs is added here. On failure the error is a *cuerr.Error whose Detail is
// the JIT error log; on success the second result is the JIT info log
// (verbose: registers and spills per entry). Needs a current context.
func (d *Driver) LoadModule(image string) (Module, string, error) {
	return d.LoadModuleLevel(image, -1)
}

// LoadModuleLevel is LoadModule with CU_JIT_OPTIMIZATION_LEVEL level (0-4),
// or the driver's default when level is negative: a litmus run at a lowered
// level tells a compiler's merge of accesses from the hardware's reordering
// (harness/litmusrun, Diagnose).
func (d *Driver) LoadModuleLevel(image string, level int) (Module, string, error) {
	if level > 4 {
		return Module{}, "", fmt.Errorf("LoadModuleLevel: CU_JIT_OPTIMIZATION_LEVEL %d (0-4)", level)
	}
	fn, err := d.proc(cuModuleLoadDataEx)
	if err != nil {
		return Module{}, "", err
	}
	cimage := C.CString(image) // a C copy with the trailing NUL
	defer C.free(unsafe.Pointer(cimage))
	logs := (*C.char)(C.calloc(2, C.P2PC_JIT_LOG_SIZE))
	defer C.free(unsafe.Pointer(logs))
	errLog, infoLog := logs, (*C.char)(unsafe.Add(unsafe.Pointer(logs), C.P2PC_JIT_LOG_SIZE))
	var m Module
	r := C.p2pc_cuModuleLoadDataEx(fn, &m.h, cimage, errLog, infoLog, C.int(level))
	return m, strings.TrimSpace(C.GoString(infoLog)), jitError(r, C.GoString(errLog))
}

// jitError attaches the JIT error log to a failed load.
func jitError(r C.CUresult, log string) error {
	if r == 0 {
		return nil
	}
	return cuerr.New(cuModuleLoadDataEx.String(), cuerr.Result(r), strings.TrimSpace(log))
}

// Function looks up a kernel by its PTX .entry name; wraps
// cuModuleGetFunction. An unknown name gives CUDA_ERROR_NOT_FOUND. Needs a
// current context.
func (d *Driver) Function(m Module, name string) (Function, error) {
	fn, err := d.proc(cuModuleGetFunction)
	if err != nil {
		return Function{}, err
	}
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var f Function
	r := C.p2pc_cuModuleGetFunction(fn, &f.h, m.h, cname)
	return f, cuModuleGetFunction.check(r)
}

// UnloadModule unloads m; its functions become invalid. Wraps
// cuModuleUnload. Needs a current context.
func (d *Driver) UnloadModule(m Module) error {
	fn, err := d.proc(cuModuleUnload)
	if err != nil {
		return err
	}
	return cuModuleUnload.check(C.p2pc_cuModuleUnload(fn, m.h))
}
