// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package kernels

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Kernels of the atomics suite; the PTX is kernels/atomics.ptx, whose
// header comment gives the exact meaning of every parameter.
var (
	// AtomContendSys applies one atomic operation (ContendOps, chosen by
	// ac_op) at .sys scope, ac_iters times per thread, to ac_nwords words,
	// recording every returned value. Several GPUs can run it at once on the
	// same words (ac_tbase and ac_tcount give each thread a unique index over
	// all of them); a start gate in mapped host memory lines them up.
	AtomContendSys = define("atomics.ptx", "atom_contend_sys", 70, simContend(Sys), contendParams()...)
	// AtomContendGPU is AtomContendSys with .gpu scope: across GPUs, lost
	// updates are allowed.
	AtomContendGPU = define("atomics.ptx", "atom_contend_gpu", 70, simContend(GPU), contendParams()...)

	// CounterProduce is the producer of the counter-as-flag handoff: after
	// the start gate, plain stores of FlagWord(caf_seed, i) to
	// caf_data[0..caf_n), then atom.release.sys add 1 to *caf_counter per
	// thread. Status: [0] gate timeouts (CTAs).
	CounterProduce = define("atomics.ptx", "caf_produce", 70, simCounterProduce,
		P("caf_data", Ptr), P("caf_n", U32), P("caf_seed", U32), P("caf_counter", Ptr),
		P("caf_gate", Ptr), P("caf_status", Ptr), P("caf_timeout_ns", U64))
	// CounterConsume waits (ld.acquire.sys, bounded) until *cac_counter
	// reaches cac_target, then checks cac_data[0..cac_n) against
	// FlagWord(cac_seed, i) with plain loads. Result: [0] stale words, [1]
	// lowest stale index (preset it to 0xFFFFFFFF), [2] threads whose wait
	// timed out.
	CounterConsume = define("atomics.ptx", "caf_consume", 70, simCounterConsume,
		P("cac_data", Ptr), P("cac_n", U32), P("cac_seed", U32), P("cac_counter", Ptr), P("cac_target", U32),
		P("cac_result", Ptr), P("cac_timeout_ns", U64))
)

func contendParams() []Param {
	return []Param{P("ac_words", Ptr), P("ac_nwords", U32), P("ac_op", U32), P("ac_a", U64), P("ac_b", U64),
		P("ac_mode", U32), P("ac_old", Ptr), P("ac_tbase", U32), P("ac_tcount", U32), P("ac_iters", U32),
		P("ac_gate", Ptr), P("ac_status", Ptr), P("ac_timeout_ns", U64)}
}

// ContendOp is one operation × type the contention kernels apply.
type ContendOp struct {
	Sel  uint32 // the ac_op value
	Name string // the PTX spelling, e.g. "min.s64"; "cas.b32" is a CAS loop
	Op   AtomOp
	Type Type // the simulated type (b32 and b64 are TU32 and TU64)
}

// Key is the operation in a spec's variant key: "min-s64".
func (o ContendOp) Key() string { return strings.ReplaceAll(o.Name, ".", "-") }

// Bits is the operand width.
func (o ContendOp) Bits() int { return 8 * o.Type.Size() }

// ContendOps lists the operations and types the contention kernels apply,
// in ac_op order: every PTX atom operation on sm_70 global memory in its
// 32- and 64-bit forms (signed and unsigned where that changes the result;
// inc and dec exist only on u32), and float add on f32 and f64.
var ContendOps = []ContendOp{
	{0, "add.u32", OpAdd, TU32}, {1, "add.u64", OpAdd, TU64}, {2, "add.f32", OpAdd, TF32}, {3, "add.f64", OpAdd, TF64},
	{4, "exch.b32", OpExch, TU32}, {5, "exch.b64", OpExch, TU64}, {6, "cas.b32", OpCAS, TU32}, {7, "cas.b64", OpCAS, TU64},
	{8, "min.s32", OpMin, TS32}, {9, "min.u32", OpMin, TU32}, {10, "min.s64", OpMin, TS64}, {11, "min.u64", OpMin, TU64},
	{12, "max.s32", OpMax, TS32}, {13, "max.u32", OpMax, TU32}, {14, "max.s64", OpMax, TS64}, {15, "max.u64", OpMax, TU64},
	{16, "and.b32", OpAnd, TU32}, {17, "and.b64", OpAnd, TU64}, {18, "or.b32", OpOr, TU32}, {19, "or.b64", OpOr, TU64},
	{20, "xor.b32", OpXor, TU32}, {21, "xor.b64", OpXor, TU64}, {22, "inc.u32", OpInc, TU32}, {23, "dec.u32", OpDec, TU32},
}

// Operand modes (ac_mode).
const (
	OperandLinear = 0 // a + b*k
	OperandBit    = 1 // 1 << (k / nwords)
	OperandNotBit = 2 // ^(1 << (k / nwords))
)

// ContendOperand is the operand the kernels use for op number k (before
// truncation to the operation's width).
func ContendOperand(mode uint32, a, b, k, nwords uint64) uint64 {
	switch mode {
	case OperandBit:
		return 1 << (k / nwords)
	case OperandNotBit:
		return ^(uint64(1) << (k / nwords))
	}
	return a + b*k
}

// CASGaveUp is the value a CAS loop records when it gave up.
const CASGaveUp = math.MaxUint64

// casAttempts bounds a CAS loop, as in the PTX.
const casAttempts = 1 << 20

// FlagWord is data word i of a handoff with seed (the PTX's word(seed, i)).
func FlagWord(seed, i uint32) uint32 { return i*0x9E3779B1 ^ seed*0x85EBCA6B }

func simContend(scope Scope) SimFunc {
	return func(g Grid, a []uint64) error {
		words, nwords, sel, opA, opB, mode := a[0], a[1], uint32(a[2]), a[3], a[4], uint32(a[5])
		old, tbase, tcount, iters, gate, status, timeout := a[6], a[7], a[8], uint32(a[9]), a[10], a[11], time.Duration(a[12])
		grid, block := g.Shape()
		nl := grid.Count() * block.Count()
		return g.Threads(nl, func(t Thread) error {
			tl := t.ID()
			if gate != 0 {
				if err := simGate(g, t, gate, 1, timeout, status, tl%int(block.X) == 0); err != nil {
					return err
				}
			}
			if int(sel) >= len(ContendOps) {
				// As the PTX: counted once per thread (status[2]), which then
				// stops without applying or recording anything.
				if iters == 0 {
					return nil
				}
				_, err := t.Atomic(OpAdd, status+8, TU32, 1, 0, Relaxed, Sys)
				return err
			}
			for i := uint32(0); i < iters; i++ {
				k := uint64(i)*tcount + tbase + uint64(tl)
				x := ContendOperand(mode, opA, opB, k, nwords)
				r, err := simContendOne(g, t, sel, words+8*(k%nwords), x, scope, status)
				if err != nil {
					return fmt.Errorf("atom_contend_%s: %w", scope, err)
				}
				if old != 0 {
					if err := t.Store(old+8*(uint64(i)*uint64(nl)+uint64(tl)), TU64, r, Weak, GPU); err != nil {
						return err
					}
				}
			}
			return nil
		})
	}
}

// simContendOne applies operation sel (a known one) once, as the PTX's
// dispatch does.
func simContendOne(g Grid, t Thread, sel uint32, addr, x uint64, scope Scope, status uint64) (uint64, error) {
	op := ContendOps[sel]
	if op.Bits() == 32 {
		x &= math.MaxUint32
	}
	if op.Op != OpCAS {
		return t.Atomic(op.Op, addr, op.Type, x, 0, Relaxed, scope)
	}
	cur, err := t.Load(addr, op.Type, Relaxed, scope)
	if err != nil {
		return 0, err
	}
	for n := 0; n < casAttempts; n++ {
		next := cur + x
		if op.Bits() == 32 {
			next &= math.MaxUint32
		}
		got, err := t.Atomic(OpCAS, addr, op.Type, cur, next, Relaxed, scope)
		if err != nil || got == cur {
			return got, err
		}
		cur = got
		if n%64 == 63 {
			g.Pause()
		}
	}
	_, err = t.Atomic(OpAdd, status+4, TU32, 1, 0, Relaxed, Sys)
	return CASGaveUp, err
}

// simGate waits for the start gate as thread 0 of a CTA does in the PTX
// (ld.acquire.sys until the word is at least want, bounded by timeout; a
// timeout is counted at status[0]). In the simulation every thread waits,
// which is what the CTA barrier after the gate amounts to; only leaders
// count timeouts.
func simGate(g Grid, t Thread, gate, want uint64, timeout time.Duration, status uint64, leader bool) error {
	start := g.Now()
	for {
		v, err := t.Load(gate, TU32, Acquire, Sys)
		if err != nil {
			return err
		}
		if v >= want {
			return nil
		}
		if g.Now()-start >= timeout {
			if leader {
				_, err = t.Atomic(OpAdd, status, TU32, 1, 0, Relaxed, Sys)
			}
			return err
		}
		g.Pause()
	}
}

func simCounterProduce(g Grid, a []uint64) error {
	data, n, seed, counter := a[0], uint32(a[1]), uint32(a[2]), a[3]
	gate, status, timeout := a[4], a[5], time.Duration(a[6])
	grid, block := g.Shape()
	nl := grid.Count() * block.Count()
	return g.Threads(nl, func(t Thread) error {
		tl := t.ID()
		if err := simGate(g, t, gate, 1, timeout, status, tl%int(block.X) == 0); err != nil {
			return err
		}
		for i := uint32(tl); i < n; i += uint32(nl) {
			if err := t.Store(data+4*uint64(i), TU32, uint64(FlagWord(seed, i)), Weak, GPU); err != nil {
				return err
			}
		}
		_, err := t.Atomic(OpAdd, counter, TU32, 1, 0, Release, Sys)
		return err
	})
}

func simCounterConsume(g Grid, a []uint64) error {
	data, n, seed, counter, target := a[0], uint32(a[1]), uint32(a[2]), a[3], a[4]
	result, timeout := a[5], time.Duration(a[6])
	grid, block := g.Shape()
	nl := grid.Count() * block.Count()
	return g.Threads(nl, func(t Thread) error {
		start := g.Now()
		for {
			v, err := t.Load(counter, TU32, Acquire, Sys)
			if err != nil {
				return err
			}
			if v >= target {
				break
			}
			if g.Now()-start >= timeout {
				_, err := t.Atomic(OpAdd, result+8, TU32, 1, 0, Relaxed, Sys)
				return err
			}
			g.Pause()
		}
		for i := uint32(t.ID()); i < n; i += uint32(nl) {
			v, err := t.Load(data+4*uint64(i), TU32, Weak, GPU)
			if err != nil {
				return err
			}
			if uint32(v) == FlagWord(seed, i) {
				continue
			}
			if _, err := t.Atomic(OpAdd, result, TU32, 1, 0, Relaxed, Sys); err != nil {
				return err
			}
			if _, err := t.Atomic(OpMin, result+4, TU32, uint64(i), 0, Relaxed, Sys); err != nil {
				return err
			}
		}
		return nil
	})
}
