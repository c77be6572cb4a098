// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package atomics_test

import (
	"math"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/kernels"
)

// plan is the arithmetic of one contention run: the operation, the operand
// every op number k applies (kernels.ContendOperand), the value every word
// starts at and how many words share the ops. The values are chosen so that
// the final words and the returned values are determined whatever the
// interleaving, and so that a wrong width or signedness shows: counters
// wrap past 2^32, min/max operands cross zero and 2^31 (2^63), and bit
// operations give every op a bit of its own.
type plan struct {
	op     kernels.ContendOp
	mode   uint32
	a, b   uint64
	init   uint64
	nwords uint64
	total  uint64 // ops by every participant together
}

// cudaOp maps a kernel operation to the CUatomicOperation and type the
// capability queries describe it with.
func cudaOp(op kernels.ContendOp) (harness.AtomicOperation, harness.AtomicType) {
	t := harness.AtomicType{Bits: op.Bits(), Signed: op.Type == kernels.TS32 || op.Type == kernels.TS64,
		Float: op.Type == kernels.TF32 || op.Type == kernels.TF64}
	switch op.Op {
	case kernels.OpAdd:
		if t.Float {
			return harness.AtomicFloatAdd, t
		}
		return harness.AtomicIntegerAdd, t
	case kernels.OpMin:
		return harness.AtomicIntegerMin, t
	case kernels.OpMax:
		return harness.AtomicIntegerMax, t
	case kernels.OpInc:
		return harness.AtomicIntegerIncrement, t
	case kernels.OpDec:
		return harness.AtomicIntegerDecrement, t
	case kernels.OpAnd:
		return harness.AtomicAnd, t
	case kernels.OpOr:
		return harness.AtomicOr, t
	case kernels.OpXor:
		return harness.AtomicXor, t
	case kernels.OpExch:
		return harness.AtomicExchange, t
	}
	return harness.AtomicCAS, t
}

func newPlan(op kernels.ContendOp, total uint64) plan {
	p := plan{op: op, nwords: 4, total: total}
	if op.Op == kernels.OpCAS {
		p.nwords = 16
	}
	per := (total + p.nwords - 1) / p.nwords // ops per word, at most
	half := total / 2
	const step64 = uint64(1) << 33 // min/max 64-bit operands move the high word
	switch op.Name {
	case "add.u32", "cas.b32":
		p.a, p.init = 1, math.MaxUint32+1-per/2 // wraps past 2^32
	case "add.u64", "cas.b64":
		p.a, p.init = 1, 1<<32-per/2 // carries into the high word
	case "add.f32":
		p.a, p.init = uint64(math.Float32bits(1)), uint64(math.Float32bits(0))
	case "add.f64":
		p.a, p.init = math.Float64bits(0.25), math.Float64bits(1<<20)
	case "exch.b32":
		p.a, p.b = 1, 1 // values k+1: unique, never the initial 0
	case "exch.b64":
		p.a, p.b = 1<<32|1, 1<<32|1
	case "min.s32":
		p.a, p.b, p.init = half, neg(1), math.MaxInt32
	case "min.u32":
		p.a, p.b, p.init = 1<<31+half, neg(1), math.MaxUint32
	case "min.s64":
		p.a, p.b, p.init = half*step64, neg(step64), math.MaxInt64
	case "min.u64":
		p.a, p.b, p.init = 1<<63+half*step64, neg(step64), math.MaxUint64
	case "max.s32":
		p.a, p.b, p.init = neg(half), 1, 1<<31
	case "max.u32":
		p.a, p.b = 1<<31-half, 1
	case "max.s64":
		p.a, p.b, p.init = neg(half*step64), step64, 1<<63
	case "max.u64":
		p.a, p.b = 1<<63-half*step64, step64
	case "and.b32", "and.b64":
		p.mode, p.init, p.nwords = kernels.OperandNotBit, math.MaxUint64, (total+uint64(op.Bits())-1)/uint64(op.Bits())
	case "or.b32", "or.b64":
		p.mode, p.nwords = kernels.OperandBit, (total+uint64(op.Bits())-1)/uint64(op.Bits())
	case "xor.b32", "xor.b64":
		p.a, p.b, p.init = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x0123456789ABCDEF
	case "inc.u32":
		p.a = max(1, per/3) // the limit: the counter wraps about three times
	case "dec.u32":
		p.a = max(1, per/3)
		p.init = p.a / 2
	}
	p.init = p.trunc(p.init)
	return p
}

func neg(v uint64) uint64 { return -v }

func (p plan) trunc(v uint64) uint64 {
	if p.op.Bits() == 32 {
		return v & math.MaxUint32
	}
	return v
}

func (p plan) operand(k uint64) uint64 {
	return p.trunc(kernels.ContendOperand(p.mode, p.a, p.b, k, p.nwords))
}

// ordered is true for operations whose word runs through a fixed sequence
// of values whatever the interleaving (the operand is the same for every
// op): add, CAS-loop increments, inc and dec.
func (p plan) ordered() bool {
	switch p.op.Op {
	case kernels.OpAdd, kernels.OpCAS, kernels.OpInc, kernels.OpDec:
		return true
	}
	return false
}

// next is the value after one op on v, for ordered operations.
func (p plan) next(v uint64) uint64 {
	x := p.a
	switch {
	case p.op.Type == kernels.TF32:
		return uint64(math.Float32bits(math.Float32frombits(uint32(v)) + math.Float32frombits(uint32(x))))
	case p.op.Type == kernels.TF64:
		return math.Float64bits(math.Float64frombits(v) + math.Float64frombits(x))
	case p.op.Op == kernels.OpInc:
		if v >= x {
			return 0
		}
		return v + 1
	case p.op.Op == kernels.OpDec:
		if v == 0 || v > x {
			return x
		}
		return v - 1
	}
	return p.trunc(v + p.trunc(x))
}

// less compares as the operation's type does.
func (p plan) less(x, y uint64) bool {
	switch p.op.Type {
	case kernels.TS32:
		return int32(uint32(x)) < int32(uint32(y))
	case kernels.TS64:
		return int64(x) < int64(y)
	}
	return x < y
}

// fold is the final value of a word that started at init after ops with
// the given operands, for min, max and the bit operations.
func (p plan) fold(init uint64, operands []uint64) uint64 {
	v := init
	for _, x := range operands {
		switch p.op.Op {
		case kernels.OpMin:
			if p.less(x, v) {
				v = x
			}
		case kernels.OpMax:
			if p.less(v, x) {
				v = x
			}
		case kernels.OpAnd:
			v &= x
		case kernels.OpOr:
			v |= x
		case kernels.OpXor:
			v ^= x
		}
	}
	return v
}
