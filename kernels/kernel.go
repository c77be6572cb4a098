// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package kernels

import (
	"fmt"
	"time"
)

// ParamKind is the PTX type of one kernel parameter.
type ParamKind int

// Parameter kinds. Ptr is a .u64 holding a device address; the others are
// plain values. Launch arguments travel as uint64 bit patterns and are
// narrowed to the kind's size when marshalled.
const (
	Ptr ParamKind = iota // .param .u64, a device (or mapped host) address
	U32                  // .param .u32
	U64                  // .param .u64, a value
	F32                  // .param .f32, bits from math.Float32bits
	F64                  // .param .f64, bits from math.Float64bits
)

// PTXType is the type written in the .param declaration.
func (k ParamKind) PTXType() string {
	switch k {
	case Ptr, U64:
		return ".u64"
	case U32:
		return ".u32"
	case F32:
		return ".f32"
	case F64:
		return ".f64"
	}
	return "?"
}

// Size is the parameter's size in bytes.
func (k ParamKind) Size() int {
	switch k {
	case U32, F32:
		return 4
	}
	return 8
}

// Param is one kernel parameter.
type Param struct {
	Name string
	Kind ParamKind
}

// Kernel describes one PTX entry point: what the cuda backend loads and
// launches, and what the fake backend runs in its place.
type Kernel struct {
	// Entry is the .entry name in the PTX.
	Entry string
	// Module names the PTX module; kernels of one module share PTX and are
	// loaded together. For embedded files it is the file name.
	Module string
	// PTX is the whole module text (without the trailing NUL the driver
	// needs; the cuda backend appends it).
	PTX string
	// Params are the entry's parameters in order.
	Params []Param
	// MinSM is the lowest compute capability (major*10+minor) the PTX needs.
	MinSM int
	// Sim is the kernel's meaning in Go, run by the fake backend. It must do
	// what the PTX does, memory order and scope included, because the fake is
	// how the suite proves it can fail.
	Sim SimFunc
	// JIT is how the driver compiles the kernel's module; the zero value is
	// the driver's default.
	JIT JITOptions
}

// String names the kernel as module:entry.
func (k *Kernel) String() string { return k.Module + ":" + k.Entry }

// CheckArgs reports whether args fit the parameter list.
func (k *Kernel) CheckArgs(args []uint64) error {
	if len(args) != len(k.Params) {
		return fmt.Errorf("kernel %s takes %d arguments (%s), got %d", k, len(k.Params), k.paramList(), len(args))
	}
	return nil
}

func (k *Kernel) paramList() string {
	s := ""
	for i, p := range k.Params {
		if i > 0 {
			s += ", "
		}
		s += p.Name + " " + p.Kind.PTXType()
	}
	return s
}

// Dim3 is a grid or block shape.
type Dim3 struct{ X, Y, Z uint32 }

// D1 is a one-dimensional shape.
func D1(x uint32) Dim3 { return Dim3{x, 1, 1} }

// Count is X*Y*Z.
func (d Dim3) Count() int { return int(d.X) * int(d.Y) * int(d.Z) }

// Sem is the memory-order qualifier of a PTX memory operation.
type Sem int

// PTX memory semantics.
const (
	Weak    Sem = iota // plain ld/st (no qualifier)
	Relaxed            // .relaxed
	Acquire            // .acquire
	Release            // .release
	AcqRel             // .acq_rel
	SC                 // fence.sc only
)

var semNames = [...]string{"weak", "relaxed", "acquire", "release", "acq_rel", "sc"}

func (s Sem) String() string { return semNames[s] }

// Scope is the PTX scope qualifier.
type Scope int

// PTX scopes.
const (
	CTA Scope = iota
	GPU
	Sys
)

var scopeNames = [...]string{"cta", "gpu", "sys"}

func (s Scope) String() string { return scopeNames[s] }

// Type is the data type of a simulated memory access.
type Type int

// Data types for simulated accesses and atomics.
const (
	TU32 Type = iota
	TS32
	TU64
	TS64
	TF32
	TF64
)

var typeNames = [...]string{"u32", "s32", "u64", "s64", "f32", "f64"}

func (t Type) String() string { return typeNames[t] }

// Size is the access size in bytes.
func (t Type) Size() int {
	switch t {
	case TU32, TS32, TF32:
		return 4
	}
	return 8
}

// AtomOp is a PTX atom operation.
type AtomOp int

// PTX atom operations.
const (
	OpAdd AtomOp = iota
	OpMin
	OpMax
	OpInc // .inc: old >= b ? 0 : old+1 (u32 only)
	OpDec // .dec: (old == 0 || old > b) ? b : old-1 (u32 only)
	OpAnd
	OpOr
	OpXor
	OpExch
	OpCAS // stores c iff *a == b
)

var atomNames = [...]string{"add", "min", "max", "inc", "dec", "and", "or", "xor", "exch", "cas"}

func (o AtomOp) String() string { return atomNames[o] }

// SimFunc runs a kernel launch in the fake backend.
type SimFunc func(g Grid, args []uint64) error

// Grid is what a simulated launch sees: its shape, its device and the
// memory of the (fake) machine. It is implemented by the fake backend.
type Grid interface {
	// Shape returns the launch's grid and block dimensions.
	Shape() (grid, block Dim3)
	// Device is the ordinal of the GPU the launch runs on.
	Device() int
	// Threads runs f once per logical thread 0..n-1, concurrently, each with
	// its own Thread (own store buffer), and returns the first error.
	Threads(n int, f func(t Thread) error) error
	// Read copies n bytes at addr as a bulk weak load of the launching GPU.
	Read(addr uint64, n int) ([]byte, error)
	// Write stores b at addr as a bulk weak store of the launching GPU.
	Write(addr uint64, b []byte) error
	// Now is the time since the launch started (the %globaltimer analogue).
	Now() time.Duration
	// Pause lets other simulated work run; spin loops call it every round.
	Pause()
}

// Thread is one simulated GPU thread's view of memory. Every access checks
// that the launching GPU may touch the address, and fails with
// CUDA_ERROR_ILLEGAL_ADDRESS otherwise, as the hardware would fault.
type Thread interface {
	ID() int
	Load(addr uint64, t Type, sem Sem, sc Scope) (uint64, error)
	Store(addr uint64, t Type, v uint64, sem Sem, sc Scope) error
	// Atomic applies op and returns the old value; c is the new value for CAS.
	Atomic(op AtomOp, addr uint64, t Type, b, c uint64, sem Sem, sc Scope) (uint64, error)
	Fence(sem Sem, sc Scope) error
}
