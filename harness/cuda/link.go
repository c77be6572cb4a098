// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cuda

/*
#include <stdlib.h>
#include <string.h>
#include "shim.h"

enum { P2PC_LINK_LOG_SIZE = 16384 };

typedef struct CUlinkState_st *CUlinkState;

// p2pc_cuLinkCreate starts a link with the same log options as
// p2pc_cuModuleLoadDataEx: error log (5, 6), info log (3, 4), verbose (12),
// and, when level is 0 or more, CU_JIT_OPTIMIZATION_LEVEL (7).
// The option arrays must outlive the link state (the driver writes the logs
// when it compiles), so they live in memory the caller frees after
// cuLinkDestroy.
static inline CUresult p2pc_cuLinkCreate(uintptr_t fn, uintptr_t *state, int *opts, void **vals,
		char *errlog, char *infolog, int level) {
	unsigned int n = 5;
	opts[0] = 5; opts[1] = 6; opts[2] = 3; opts[3] = 4; opts[4] = 12;
	vals[0] = errlog; vals[1] = (void *)(uintptr_t)P2PC_LINK_LOG_SIZE;
	vals[2] = infolog; vals[3] = (void *)(uintptr_t)P2PC_LINK_LOG_SIZE;
	vals[4] = (void *)(uintptr_t)1;
	if (level >= 0) {
		opts[5] = 7; vals[5] = (void *)(uintptr_t)(unsigned int)level; n = 6;
	}
	return ((CUresult (*)(unsigned int, int *, void **, CUlinkState *))fn)(n, opts, vals, (CUlinkState *)state);
}
// p2pc_cuLinkAddData adds PTX text (CU_JIT_INPUT_PTX = 1), NUL included.
static inline CUresult p2pc_cuLinkAddData(uintptr_t fn, uintptr_t state, const char *ptx, size_t size, const char *name) {
	return ((CUresult (*)(CUlinkState, int, void *, size_t, const char *, unsigned int, int *, void **))fn)(
		(CUlinkState)state, 1, (void *)ptx, size, name, 0, NULL, NULL);
}
static inline CUresult p2pc_cuLinkComplete(uintptr_t fn, uintptr_t state, void **cubin, size_t *size) {
	return ((CUresult (*)(CUlinkState, void **, size_t *))fn)((CUlinkState)state, cubin, size);
}
static inline CUresult p2pc_cuLinkDestroy(uintptr_t fn, uintptr_t state) {
	return ((CUresult (*)(CUlinkState))fn)((CUlinkState)state);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"strings"
	"unsafe"

	"github.com/p2pconf/p2pconf/harness/cuerr"
)

// CompilePTX JIT-compiles PTX text for the current context's device and
// returns the cubin the driver produced, as it would load it, with the JIT
// info log; wraps cuLinkCreate, cuLinkAddData, cuLinkComplete and
// cuLinkDestroy. It loads nothing: the cubin is for inspection (a
// disassembler shows which instructions the driver's JIT kept). On failure
// the error is a *cuerr.Error whose Detail is the JIT error log. Needs a
// current context.
func (d *Driver) CompilePTX(ptx, name string) ([]byte, string, error) {
	return d.CompilePTXLevel(ptx, name, -1)
}

// CompilePTXLevel is CompilePTX at CU_JIT_OPTIMIZATION_LEVEL level (0-4),
// or at the driver's default when level is negative: the compile check
// (package litmussass) looks at the code of a lowered level to tell a
// compiler's merge of accesses from the hardware's reordering.
func (d *Driver) CompilePTXLevel(ptx, name string, level int) ([]byte, string, error) {
	if level > 4 {
		return nil, "", fmt.Errorf("CompilePTXLevel %s: CU_JIT_OPTIMIZATION_LEVEL %d (0-4)", name, level)
	}
	fns := make([]C.uintptr_t, 4)
	for i, e := range []entry{cuLinkCreate, cuLinkAddData, cuLinkComplete, cuLinkDestroy} {
		fn, err := d.proc(e)
		if err != nil {
			return nil, "", err
		}
		fns[i] = fn
	}
	// One C block for the option arrays and both logs: the driver keeps
	// pointers to them until cuLinkDestroy.
	mem := C.calloc(1, C.size_t(2*C.P2PC_LINK_LOG_SIZE+6*8+6*C.sizeof_int))
	defer C.free(mem)
	errLog := (*C.char)(mem)
	infoLog := (*C.char)(unsafe.Add(mem, C.P2PC_LINK_LOG_SIZE))
	vals := (*unsafe.Pointer)(unsafe.Add(mem, 2*C.P2PC_LINK_LOG_SIZE))
	opts := (*C.int)(unsafe.Add(mem, 2*C.P2PC_LINK_LOG_SIZE+6*8))
	logs := func() (string, string) {
		*(*C.char)(unsafe.Add(mem, C.P2PC_LINK_LOG_SIZE-1)) = 0
		*(*C.char)(unsafe.Add(mem, 2*C.P2PC_LINK_LOG_SIZE-1)) = 0
		return strings.TrimSpace(C.GoString(errLog)), strings.TrimSpace(C.GoString(infoLog))
	}
	var state C.uintptr_t
	if r := C.p2pc_cuLinkCreate(fns[0], &state, opts, vals, errLog, infoLog, C.int(level)); r != 0 {
		return nil, "", cuLinkCreate.check(r)
	}
	cptx := C.CString(ptx)
	defer C.free(unsafe.Pointer(cptx))
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var cubin []byte
	err := func() error {
		if r := C.p2pc_cuLinkAddData(fns[1], state, cptx, C.size_t(len(ptx)+1), cname); r != 0 {
			el, _ := logs()
			return cuerr.New(cuLinkAddData.String(), cuerr.Result(r), el)
		}
		var img unsafe.Pointer
		var size C.size_t
		if r := C.p2pc_cuLinkComplete(fns[2], state, &img, &size); r != 0 {
			el, _ := logs()
			return cuerr.New(cuLinkComplete.String(), cuerr.Result(r), el)
		}
		// The image belongs to the link state: copy it before the destroy.
		cubin = C.GoBytes(img, C.int(size))
		return nil
	}()
	_, info := logs()
	destroyErr := cuLinkDestroy.check(C.p2pc_cuLinkDestroy(fns[3], state))
	if err = errors.Join(err, destroyErr); err != nil {
		return nil, info, err
	}
	return cubin, info, nil
}
