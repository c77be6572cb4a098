// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cuda

/*
#include <stdlib.h>
#include "shim.h"

static inline CUresult p2pc_cuLaunchKernel(uintptr_t fn, uintptr_t f,
		unsigned int gx, unsigned int gy, unsigned int gz,
		unsigned int bx, unsigned int by, unsigned int bz,
		unsigned int shmem, uintptr_t s, void **params) {
	return ((CUresult (*)(CUfunction, unsigned int, unsigned int, unsigned int,
		unsigned int, unsigned int, unsigned int, unsigned int, CUstream, void **, void **))fn)(
		(CUfunction)f, gx, gy, gz, bx, by, bz, shmem, (CUstream)s, params, NULL);
}
static inline CUresult p2pc_cuLaunchCooperativeKernel(uintptr_t fn, uintptr_t f,
		unsigned int gx, unsigned int gy, unsigned int gz,
		unsigned int bx, unsigned int by, unsigned int bz,
		unsigned int shmem, uintptr_t s, void **params) {
	return ((CUresult (*)(CUfunction, unsigned int, unsigned int, unsigned int,
		unsigned int, unsigned int, unsigned int, unsigned int, CUstream, void **))fn)(
		(CUfunction)f, gx, gy, gz, bx, by, bz, shmem, (CUstream)s, params);
}
static inline CUresult p2pc_cuOccupancyMaxActiveBlocksPerMultiprocessor(uintptr_t fn, int *n, uintptr_t f,
		int block, size_t shmem) {
	return ((CUresult (*)(int *, CUfunction, int, size_t))fn)(n, (CUfunction)f, block, shmem);
}
*/
import "C"

import (
	"fmt"
	"math"
	"unsafe"
)

// Dim3 is a grid or block shape. A zero Y or Z counts as 1, so Dim3{X: n} is
// n×1×1; a zero X is passed on and rejected by the driver.
type Dim3 struct{ X, Y, Z uint32 }

func (d Dim3) c() (x, y, z C.uint) {
	return C.uint(d.X), C.uint(max(d.Y, 1)), C.uint(max(d.Z, 1))
}

// LaunchConfig is where and how wide a kernel runs.
type LaunchConfig struct {
	Grid, Block    Dim3
	SharedMemBytes uint32 // dynamic shared memory per block
	Stream         Stream
}

// LaunchKernel enqueues f on cfg.Stream; wraps cuLaunchKernel. args are the
// kernel parameters in .param order, each one of uint8, int8, uint16, int16,
// uint32, int32, uint64, int64, float32, float64 or DevicePtr, and must match
// the PTX parameter sizes (the driver takes sizes from the kernel image and
// cannot check). Values are copied into C memory for the call, so nothing
// Go-owned is handed to the driver. Needs a current context (f's).
func (d *Driver) LaunchKernel(f Function, cfg LaunchConfig, args ...any) error {
	fn, err := d.proc(cuLaunchKernel)
	if err != nil {
		return err
	}
	params, err := marshalParams(args)
	if err != nil {
		return err
	}
	defer C.free(unsafe.Pointer(params))
	gx, gy, gz := cfg.Grid.c()
	bx, by, bz := cfg.Block.c()
	return cuLaunchKernel.check(C.p2pc_cuLaunchKernel(fn, f.h, gx, gy, gz, bx, by, bz, C.uint(cfg.SharedMemBytes), cfg.Stream.h, params))
}

// LaunchCooperativeKernel is LaunchKernel for kernels that need every block
// resident at once (grid-wide barriers); wraps cuLaunchCooperativeKernel.
// A grid larger than the device can hold fails with
// CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE. Needs a current context.
func (d *Driver) LaunchCooperativeKernel(f Function, cfg LaunchConfig, args ...any) error {
	fn, err := d.proc(cuLaunchCooperativeKernel)
	if err != nil {
		return err
	}
	params, err := marshalParams(args)
	if err != nil {
		return err
	}
	defer C.free(unsafe.Pointer(params))
	gx, gy, gz := cfg.Grid.c()
	bx, by, bz := cfg.Block.c()
	return cuLaunchCooperativeKernel.check(C.p2pc_cuLaunchCooperativeKernel(fn, f.h, gx, gy, gz, bx, by, bz, C.uint(cfg.SharedMemBytes), cfg.Stream.h, params))
}

// MaxActiveBlocksPerSM is how many blocks of f with blockSize threads and
// dynamicSMem bytes of dynamic shared memory fit on one multiprocessor at
// once; kernels whose blocks wait for each other must not launch more than
// this times the SM count. Wraps cuOccupancyMaxActiveBlocksPerMultiprocessor.
// Needs a current context (f's).
func (d *Driver) MaxActiveBlocksPerSM(f Function, blockSize int, dynamicSMem uint64) (int, error) {
	fn, err := d.proc(cuOccupancyMaxActiveBlocksPerMultiprocessor)
	if err != nil {
		return 0, err
	}
	var n C.int
	r := C.p2pc_cuOccupancyMaxActiveBlocksPerMultiprocessor(fn, &n, f.h, C.int(blockSize), C.size_t(dynamicSMem))
	return int(n), cuOccupancyMaxActiveBlocksPerMultiprocessor.check(r)
}

// paramSlot is the size of one value slot: every supported type fits in 8
// bytes, and 8-byte slots keep each value naturally aligned.
const paramSlot = 8

// marshalParams builds the kernelParams array in one C allocation: n
// pointers followed by n value slots, pointer i addressing slot i. The
// caller frees it with C.free. No arguments give NULL, which the driver
// accepts for a kernel without parameters.
func marshalParams(args []any) (*unsafe.Pointer, error) {
	if len(args) == 0 {
		return nil, nil
	}
	n := len(args)
	block := C.calloc(C.size_t(2*n), paramSlot)
	ptrs := unsafe.Slice((*unsafe.Pointer)(block), n)
	for i, a := range args {
		slot := unsafe.Add(block, (n+i)*paramSlot)
		if err := putParam(slot, a); err != nil {
			C.free(block)
			return nil, fmt.Errorf("cuda: kernel argument %d: %w", i, err)
		}
		ptrs[i] = slot
	}
	return (*unsafe.Pointer)(block), nil
}

// putParam writes one value into its slot with the width of its Go type.
func putParam(slot unsafe.Pointer, a any) error {
	switch v := a.(type) {
	case uint8:
		*(*uint8)(slot) = v
	case int8:
		*(*int8)(slot) = v
	case uint16:
		*(*uint16)(slot) = v
	case int16:
		*(*int16)(slot) = v
	case uint32:
		*(*uint32)(slot) = v
	case int32:
		*(*int32)(slot) = v
	case uint64:
		*(*uint64)(slot) = v
	case int64:
		*(*int64)(slot) = v
	case float32:
		*(*uint32)(slot) = math.Float32bits(v)
	case float64:
		*(*uint64)(slot) = math.Float64bits(v)
	case DevicePtr:
		*(*uint64)(slot) = uint64(v)
	default:
		return fmt.Errorf("unsupported type %T (want a sized integer, float or DevicePtr)", a)
	}
	return nil
}
