// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cuda

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include "shim.h"

// dlerror's text is per thread and overwritten by the next dl call, so each
// helper copies it out within the same C call that failed.
static void *p2pc_dlopen(const char *path, char *msg, size_t n) {
	// RTLD_NOW: a broken install fails here, not at a later call.
	// RTLD_LOCAL: keep the driver's symbols out of the global namespace.
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		const char *e = dlerror();
		snprintf(msg, n, "%s", e != NULL ? e : "dlopen failed without a dlerror message");
	}
	return h;
}

static uintptr_t p2pc_dlsym(void *h, const char *name, char *msg, size_t n) {
	dlerror();
	void *p = dlsym(h, name);
	if (p == NULL) {
		const char *e = dlerror();
		snprintf(msg, n, "%s", e != NULL ? e : "symbol is NULL");
	}
	return (uintptr_t)p;
}

static int p2pc_dlclose(void *h, char *msg, size_t n) {
	int r = dlclose(h);
	if (r != 0) {
		const char *e = dlerror();
		snprintf(msg, n, "%s", e != NULL ? e : "dlclose failed");
	}
	return r;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
)

// DefaultLibrary is the driver library's soname. The versioned name is used
// because the unversioned libcuda.so belongs to the toolkit (often a stub
// that returns CUDA_ERROR_STUB_LIBRARY) and is absent on driver-only hosts.
const DefaultLibrary = "libcuda.so.1"

// ErrNotLoaded is returned by every method of a nil or closed *Driver.
var ErrNotLoaded = errors.New("cuda: driver library not loaded")

// LoadError reports a library that could not be opened or used. Err keeps
// the dynamic loader's own text, because "cannot open shared object file"
// and "wrong ELF class" need different fixes on a test node.
type LoadError struct {
	Path string
	Err  error
}

func (e *LoadError) Error() string { return fmt.Sprintf("cuda: load %s: %v", e.Path, e.Err) }

// Unwrap returns the underlying cause.
func (e *LoadError) Unwrap() error { return e.Err }

// Driver is one opened libcuda.so.1 with its resolved entry points. It is
// safe for concurrent use, except that Close must not race with other calls.
type Driver struct {
	path    string
	handle  unsafe.Pointer // from dlopen; nil once closed
	version int            // cuDriverGetVersion, read at load time
	fns     [numEntries]C.uintptr_t
}

// Load opens the driver library at path (usually DefaultLibrary) and
// resolves every entry point of the table in entrypoints.go through
// cuGetProcAddress_v2. It does not call cuInit; see Init. Entry points the
// driver lacks do not fail the load: calling them returns a *SymbolError.
func Load(path string) (*Driver, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var msg [1024]C.char
	h := C.p2pc_dlopen(cpath, &msg[0], C.size_t(len(msg)))
	if h == nil {
		return nil, &LoadError{Path: path, Err: errors.New(C.GoString(&msg[0]))}
	}
	d := &Driver{path: path, handle: h}
	if err := d.init(&msg); err != nil {
		C.p2pc_dlclose(h, &msg[0], C.size_t(len(msg)))
		return nil, &LoadError{Path: path, Err: err}
	}
	return d, nil
}

// init resolves the entry points and reads the driver version.
func (d *Driver) init(msg *[1024]C.char) error {
	name := C.CString("cuGetProcAddress_v2")
	defer C.free(unsafe.Pointer(name))
	gpa := C.p2pc_dlsym(d.handle, name, &msg[0], C.size_t(len(msg)))
	if gpa == 0 {
		return fmt.Errorf("no cuGetProcAddress_v2 export (%s); p2pconf needs a driver for CUDA 12.0 (r525) or newer", C.GoString(&msg[0]))
	}
	if err := d.resolve(gpa); err != nil {
		return err
	}
	v, err := d.DriverVersion()
	d.version = v
	if err == nil {
		d.dropNewerThan(v)
	}
	return err
}

// Close unloads the library. Release every Context first: the driver's
// state does not survive the unload. After a successful Init the real
// driver runs threads of its own and is not built to be unloaded from a
// live process, so a process that goes on running keeps an initialised
// driver loaded (harness/cudabackend never closes it). Closing twice is
// harmless.
func (d *Driver) Close() error {
	if d == nil || d.handle == nil {
		return nil
	}
	var msg [256]C.char
	h := d.handle
	d.handle = nil
	if C.p2pc_dlclose(h, &msg[0], C.size_t(len(msg))) != 0 {
		return fmt.Errorf("cuda: dlclose %s: %s", d.path, C.GoString(&msg[0]))
	}
	return nil
}

// Path is the path the library was loaded from.
func (d *Driver) Path() string { return d.path }

// Version is the CUDA version the driver supports, as cuDriverGetVersion
// reported it at load time (1000*major + 10*minor, e.g. 12040 for 12.4).
func (d *Driver) Version() int { return d.version }

// VersionString formats a CUDA version number as "major.minor": 12040 is "12.4".
func VersionString(v int) string { return fmt.Sprintf("%d.%d", v/1000, v%1000/10) }
