// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package cuenum holds the CUDA driver's enum and flag values that p2pconf
// passes to the driver: device and P2P attributes, atomic operations and
// their capability bits, pointer attributes, memory types, allocation,
// access, stream and event flags.
//
// It is the one place these numbers are written. The cgo binding
// (harness/cuda) passes them to libcuda, the backend interface
// (harness/backend) re-exports them for the suites, and the fake backend
// answers with them, so a value cannot drift between layers: each is a
// number the driver reads, and a wrong one silently asks for something else.
// The package is pure Go, so the fake backend and the suites use it without
// cgo. cuenum_test.go pins every value to its cuda.h name and number.
package cuenum
