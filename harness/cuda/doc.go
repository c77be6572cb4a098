// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package cuda is p2pconf's only cgo binding to the CUDA driver. It opens
// libcuda.so.1 at run time with dlopen (a test machine has the driver but no
// toolkit or headers), resolves every entry point through cuGetProcAddress_v2
// with a CUDA version pinned per function, and wraps each one in a short Go
// method with Go names and concrete handle types. Enum and flag arguments
// are harness/cuenum types, the one place their cuda.h values are written.
//
// Why pin versions: the plain export names are old ABIs (cuMemAlloc takes a
// 32-bit size, cuIpcOpenMemHandle has older semantics), and asking
// cuGetProcAddress_v2 for "the newest" silently changes signatures when a new
// driver adds a variant. The table in entrypoints.go lists the ABI each
// wrapper was written for (docs/observations.md, driver and symbols).
//
// Lifecycle, in order:
//
//  1. Load opens the library and resolves the entry points (no cuInit yet).
//  2. (*Driver).Init calls cuInit(0).
//  3. (*Driver).RetainPrimaryContext gives one *Context per device; p2pconf
//     uses primary contexts only, the ones the CUDA runtime also uses.
//  4. Calls that need a current context run inside (*Context).Do, which
//     locks the goroutine to its OS thread and makes the context current
//     there (the current context belongs to an OS thread, and goroutines
//     move between threads). Each method says whether it needs one.
//  5. (*Context).Release. (*Driver).Close unloads the library, which a
//     process that goes on running does only before Init (see Close).
//
// Errors: driver results become *cuerr.Error values ("cuCtxEnablePeerAccess:
// CUDA_ERROR_PEER_ACCESS_UNSUPPORTED (217)") that match cuerr codes with
// errors.Is. An entry point this driver lacks yields a *SymbolError that
// matches ErrMissingEntryPoint, so callers can turn "the driver is too old"
// into a skip. A failed load yields a *LoadError with the dlerror text.
//
// Nothing here asserts, logs or keeps global state: one *Driver holds the
// library handle and its resolved entry points. Suites never import this
// package; they reach it through harness and harness/cudabackend.
package cuda
