// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package cudabackend implements backend.Backend over the CUDA driver
// (harness/cuda) and NVML (go-nvml).
//
// Every device is used through its primary context, retained once at Open
// and released at Close, and every driver call runs inside that device's
// Context.Do, on a locked OS thread with the context current. Kernels are
// JIT-compiled from the PTX text of their kernels descriptor the first time
// they are launched on a device, and cached per device and module (modules
// belong to one context). Launch arguments travel as uint64 bit patterns and
// are narrowed here to the sizes of the descriptor's parameter kinds.
//
// Nothing here waits for queued work on purpose: the harness polls
// StreamQuery and EventQuery against each spec's deadline;
// cuStreamSynchronize and cuEventSynchronize are never called. Some calls
// synchronise inside the driver (cuMemFree, the synchronous copies and
// memsets), which is why the fixture drains a spec's streams, bounded,
// before it frees anything.
//
// Suites never import this package; the harness opens it when
// P2PCONF_BACKEND=cuda.
package cudabackend
