// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package kernels holds the suite's hand-written PTX modules and a Go
// descriptor for each entry: its parameters (checked against the PTX by a
// test that needs no GPU), the lowest compute capability it runs on, and
// what it means, as a Go function the fake backend runs in its place. The
// real backend JIT-compiles the PTX with the driver; no CUDA toolkit is
// needed.
package kernels
