// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package ptxmodel

import (
	"errors"

	"github.com/p2pconf/p2pconf/kernels"
)

// errThinAir is a value that depends on itself through reads-from and
// register dependencies: the No-Thin-Air axiom forbids the candidate.
var errThinAir = errors.New("a value depends on itself")

// values computes what every read returns and every write stores in a
// candidate, given which write each read reads from (rf[read] = write).
type values struct {
	p      *Program
	ev     []event
	rf     []int
	byOp   map[[2]int][2]int // (thread, op) → (read event, write event), -1 where none
	memo   map[int]int64
	active map[int]bool
}

func newValues(p *Program, ev []event, rf []int) *values {
	v := &values{p: p, ev: ev, rf: rf, byOp: map[[2]int][2]int{}, memo: map[int]int64{}, active: map[int]bool{}}
	for i, e := range ev {
		if e.thread < 0 {
			continue
		}
		k := [2]int{e.thread, e.op}
		cur, ok := v.byOp[k]
		if !ok {
			cur = [2]int{-1, -1}
		}
		switch e.kind {
		case evRead:
			cur[0] = i
		case evWrite:
			cur[1] = i
		}
		v.byOp[k] = cur
	}
	return v
}

// of is the value event e reads (a read) or writes (a write).
func (v *values) of(e int) (int64, error) {
	if x, ok := v.memo[e]; ok {
		return x, nil
	}
	if v.active[e] {
		return 0, errThinAir
	}
	v.active[e] = true
	defer delete(v.active, e)
	ev := v.ev[e]
	var x int64
	var err error
	switch {
	case ev.thread < 0:
		x = v.p.Locs[ev.loc].Init
	case ev.kind == evRead:
		x, err = v.of(v.rf[e])
	default:
		x, err = v.written(ev)
	}
	if err != nil {
		return 0, err
	}
	v.memo[e] = x
	return x, nil
}

// written is the value a thread's write stores.
func (v *values) written(ev event) (int64, error) {
	op := v.p.Threads[ev.thread].Ops[ev.op]
	val, err := v.operand(ev.thread, ev.op, op.Val)
	if err != nil || op.Kind == Store {
		return val, err
	}
	old, err := v.of(v.byOp[[2]int{ev.thread, ev.op}][0])
	if err != nil {
		return 0, err
	}
	return applyAtom(op.Atom, old, val), nil
}

// casSucceeds reports whether the CAS at (thread, op) compares equal.
func (v *values) casSucceeds(t, o int) (bool, error) {
	old, err := v.of(v.byOp[[2]int{t, o}][0])
	if err != nil {
		return false, err
	}
	cmp, err := v.operand(t, o, v.p.Threads[t].Ops[o].Cmp)
	return old == cmp, err
}

// operand is an operand's value just before operation o of thread t.
func (v *values) operand(t, o int, x Operand) (int64, error) {
	if !x.IsReg {
		return x.Const, nil
	}
	return v.register(t, o, x.Reg)
}

// register is the value of register reg just before operation o of thread
// t: what the last earlier operation writing it produced, or its initial
// value.
func (v *values) register(t, o, reg int) (int64, error) {
	ops := v.p.Threads[t].Ops
	for k := o - 1; k >= 0; k-- {
		op := ops[k]
		if op.Reg != reg || op.Kind == Store || op.Kind == Fence {
			continue
		}
		if op.Kind == Local {
			a, err := v.operand(t, k, op.Val)
			if err != nil {
				return 0, err
			}
			b, err := v.operand(t, k, op.Cmp)
			if err != nil {
				return 0, err
			}
			return applyLocal(op.Local, a, b), nil
		}
		return v.of(v.byOp[[2]int{t, k}][0])
	}
	return v.p.Threads[t].Regs[reg].Init, nil
}

// final is every register of every thread after its last operation.
func (v *values) final() ([][]int64, error) {
	out := make([][]int64, len(v.p.Threads))
	for t, th := range v.p.Threads {
		out[t] = make([]int64, len(th.Regs))
		for r := range th.Regs {
			x, err := v.register(t, len(th.Ops), r)
			if err != nil {
				return nil, err
			}
			out[t][r] = x
		}
	}
	return out, nil
}

// dependencies is the dep relation of the No-Thin-Air axiom: a read
// precedes an event whose value (a write's, an RMW's operand or compared
// value) is computed from a register the read produced, directly or
// through local operations; an RMW's read precedes its write.
func dependencies(p *Program, ev []event) rel {
	byOp := newValues(p, ev, nil).byOp
	dep := newRel(len(ev))
	var readsOf func(t, o int, x Operand) set
	readsOf = func(t, o int, x Operand) set {
		if !x.IsReg {
			return 0
		}
		ops := p.Threads[t].Ops
		for k := o - 1; k >= 0; k-- {
			op := ops[k]
			if op.Reg != x.Reg || op.Kind == Store || op.Kind == Fence {
				continue
			}
			if op.Kind == Local {
				return readsOf(t, k, op.Val) | readsOf(t, k, op.Cmp)
			}
			return 1 << uint(byOp[[2]int{t, k}][0])
		}
		return 0
	}
	for i, e := range ev {
		if e.thread < 0 || e.kind != evWrite {
			continue
		}
		op := p.Threads[e.thread].Ops[e.op]
		from := readsOf(e.thread, e.op, op.Val)
		if op.Kind == RMW {
			from |= readsOf(e.thread, e.op, op.Cmp)
			from |= 1 << uint(e.pair)
		}
		from.each(func(r int) { dep.add(r, i) })
	}
	return dep
}

func applyAtom(a kernels.AtomOp, old, val int64) int64 {
	switch a {
	case kernels.OpAdd:
		return old + val
	case kernels.OpAnd:
		return old & val
	case kernels.OpOr:
		return old | val
	case kernels.OpXor:
		return old ^ val
	case kernels.OpMin:
		return min(old, val)
	case kernels.OpMax:
		return max(old, val)
	}
	// exch, and a CAS that succeeded
	return val
}

func applyLocal(o LocalOp, a, b int64) int64 {
	switch o {
	case LocalAdd:
		return a + b
	case LocalSub:
		return a - b
	case LocalMul:
		return a * b
	case LocalDiv:
		if b == 0 {
			return 0
		}
		return a / b
	case LocalAnd:
		return a & b
	case LocalOr:
		return a | b
	case LocalXor:
		return a ^ b
	}
	return a
}
