// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"fmt"
	"strings"
	"sync"

	"github.com/p2pconf/p2pconf/harness/ptxmodel"
	"github.com/p2pconf/p2pconf/kernels"
)

// The verdict of every (test, placement) is the executable PTX memory
// model's (package ptxmodel), computed from the test as the engine runs
// it in that placement:
//
//   - a GPU thread runs in its own CTA (or in its group's CTA, Grouping)
//     of its placement's GPU; a host thread is only in the system scope;
//   - a host thread's accesses are sync/atomic, sequentially consistent,
//     which in PTX terms is C++'s seq_cst at system scope under the PTX
//     ISA's atomics ABI: a load is fence.sc.sys then ld.acquire.sys, a
//     store fence.sc.sys then st.relaxed.sys, an RMW fence.sc.sys then
//     atom.acquire.sys, and a fence (the host side's RMW of a private
//     word) fence.sc.sys;
//   - a poll is the iteration that ends the loop: one read of the flag,
//     then the operations of its loop (Op.InPoll) once each, as the
//     registers keep that iteration's values; the earlier iterations
//     only read, and reads of values that synchronise with nothing
//     change no verdict;
//   - a store of a register plus a constant is a local add and a store
//     of the sum (a data dependency, as in the PTX).

// ModelVerdict is the model's answer for a test in a placement: the verdict
// of its target outcome, why (the axiom that forbids it, or the execution
// that allows it) and the program the model judged.
type ModelVerdict struct {
	Verdict Verdict
	Why     string
	Program *ptxmodel.Program
	Result  *ptxmodel.Result
}

var verdicts sync.Map // coverageKey → ModelVerdict

// coverageKey names a model program by what its verdicts depend on: its
// operations, its condition, and for every strong operation the threads its
// scope covers. The model reads a thread's place only through scope
// inclusion (ptxmodel.Place.Includes), so programs with equal keys have
// equal verdicts and outcomes: the generated space places one test in many
// groupings that cover the same threads, and the model runs once for them.
func coverageKey(prog *ptxmodel.Program) string {
	var b strings.Builder
	for i, th := range prog.Threads {
		fmt.Fprintf(&b, "T%d:%d;", i, len(th.Regs))
		for _, op := range th.Ops {
			covers := 0
			for j, other := range prog.Threads {
				if op.Kind == ptxmodel.Local || op.Sem == kernels.Weak {
					break
				}
				if th.Place.Includes(op.Scope, other.Place) {
					covers |= 1 << j
				}
			}
			sys := th.Place.Host && op.Scope == kernels.Sys // a host thread's scope is the system's
			fmt.Fprintf(&b, "%d/%d/%d/%d/%d/%v/%v/%d/%d/%v/%x/%v;", op.Kind, op.Sem, op.Loc, op.Size, op.Reg,
				op.Val, op.Cmp, op.Atom, op.Local, op.Reduction, covers, sys)
		}
	}
	fmt.Fprintf(&b, "locs:%d;cond:%+v", len(prog.Locs), prog.Cond)
	return b.String()
}

// ModelVerdict runs the model for t in p (once per distinct model program,
// coverageKey). It panics on a test the model cannot read: the catalogue is
// code, held by its unit tests.
func (p Placement) ModelVerdict(t *Test) ModelVerdict {
	prog := p.Program(t)
	prog.Name = ""
	k := coverageKey(prog)
	prog.Name = t.Name()
	if v, ok := verdicts.Load(k); ok {
		mv := v.(ModelVerdict)
		mv.Program = prog
		return mv
	}
	res, err := ptxmodel.Check(prog)
	if err != nil {
		panic(fmt.Sprintf("litmus: %s %s: the model cannot judge it: %v", t.Name(), p, err))
	}
	if res.Undefined() {
		panic(fmt.Sprintf("litmus: %s %s: a mixed-size race, which the PTX memory model does not judge (Test.Validate refuses it)", t.Name(), p))
	}
	mv := ModelVerdict{Verdict: Forbidden, Program: prog, Result: res}
	switch {
	case res.Reachable:
		mv.Verdict = Allowed
		mv.Why = "the PTX memory model allows it"
		if wide, err := ptxmodel.Check(widened(prog)); err == nil && !wide.Reachable {
			mv.Why += ": a scope does not cover the threads it synchronises here (with every scope .sys it would be forbidden)"
		}
	case len(res.Forbidden) > 0:
		mv.Why = "the PTX memory model forbids it (" + res.Forbidden[0].Axiom + ": " + res.Forbidden[0].Detail + ")"
	}
	actual, _ := verdicts.LoadOrStore(k, mv)
	return actual.(ModelVerdict)
}

// Verdict is the model's verdict for t in p and why.
func (p Placement) Verdict(t *Test) (Verdict, string) {
	mv := p.ModelVerdict(t)
	return mv.Verdict, mv.Why
}

// String names the placement compactly, for caches and messages:
// "ctas", "ctas tb-01-2", "pair ab/ba", "host gh".
func (p Placement) String() string {
	units := func(us []Unit) string {
		b := make([]byte, len(us))
		for i, u := range us {
			b[i] = map[Unit]byte{UnitA: 'a', UnitB: 'b', UnitC: 'c', UnitHost: 'h'}[u]
		}
		return string(b)
	}
	s := [...]string{"ctas", "host", "pair", "triple"}[p.Kind] + " " + units(p.Roles) + "/" + units(p.Homes)
	if p.Groups != nil {
		s += " " + p.Groups.Key()
	}
	return s
}

// Program is t in p as a program of the PTX memory model, with the target
// outcome as its exists condition.
func (p Placement) Program(t *Test) *ptxmodel.Program {
	prog, _ := p.program(t)
	return prog
}

// regRef is where a test's register lives in the model's program: thread
// and index.
type regRef struct{ thread, reg int }

func (p Placement) program(t *Test) (*ptxmodel.Program, map[int]regRef) {
	prog := &ptxmodel.Program{Name: t.Name()}
	for _, l := range t.Locs {
		prog.Locs = append(prog.Locs, ptxmodel.Loc{Name: l})
	}
	regs := map[int]regRef{} // the test's registers are numbered across threads
	for i, th := range t.Threads {
		mt := ptxmodel.Thread{Name: fmt.Sprintf("P%d", i), Place: p.place(i)}
		reg := func(global int) int {
			if r, ok := regs[global]; ok && r.thread == i {
				return r.reg
			}
			regs[global] = regRef{i, len(mt.Regs)}
			mt.Regs = append(mt.Regs, ptxmodel.Reg{Name: fmt.Sprintf("r%d", global)})
			return len(mt.Regs) - 1
		}
		host := mt.Place.Host
		for _, op := range th {
			mt.Ops = append(mt.Ops, modelOps(op, host, reg, func() int {
				mt.Regs = append(mt.Regs, ptxmodel.Reg{Name: fmt.Sprintf("t%d", len(mt.Regs))})
				return len(mt.Regs) - 1
			})...)
		}
		prog.Threads = append(prog.Threads, mt)
	}
	var conj ptxmodel.And
	for _, o := range t.Observations() {
		want, ok := t.Target[o.Name]
		if !ok {
			continue
		}
		conj = append(conj, ptxmodel.Cmp{A: obsValue(o, regs), B: ptxmodel.Value{Kind: ptxmodel.ConstValue, Const: int64(want)}})
	}
	prog.Cond = ptxmodel.Condition{Quantifier: ptxmodel.Exists, Expr: conj}
	return prog, regs
}

// widened is prog with every strong operation at system scope: whether a
// verdict of "allowed" comes from a scope too narrow for the placement.
func widened(prog *ptxmodel.Program) *ptxmodel.Program {
	w := *prog
	w.Threads = nil
	for _, th := range prog.Threads {
		th.Ops = append([]ptxmodel.Op(nil), th.Ops...)
		for i := range th.Ops {
			if th.Ops[i].Sem != kernels.Weak {
				th.Ops[i].Scope = kernels.Sys
			}
		}
		w.Threads = append(w.Threads, th)
	}
	return &w
}

var allowedBins sync.Map // verdictKey → map[int]bool

type verdictKey struct {
	t     *Test
	place string
}

// ModelForbids reports whether the model forbids the outcome of histogram
// bin in the case's placement: no consistent execution of the test there
// ends in it. Bins of values no operation writes are forbidden too.
func (c Case) ModelForbids(bin int) bool {
	k := verdictKey{c.Test, c.Place.String()}
	if m, ok := allowedBins.Load(k); ok {
		return !m.(map[int]bool)[bin]
	}
	allowed, err := c.Place.modelOutcomes(c.Test)
	if err != nil {
		panic(fmt.Sprintf("litmus: %s %s: the model cannot judge it: %v", c.Test.Name(), c.Place, err))
	}
	m, _ := allowedBins.LoadOrStore(k, allowed)
	return !m.(map[int]bool)[bin]
}

var outcomes sync.Map // outcomesKey → map[int]bool

type outcomesKey struct {
	t        *Test
	coverage string
}

// modelOutcomes is ModelOutcomes once per test and distinct model program
// (coverageKey).
func (p Placement) modelOutcomes(t *Test) (map[int]bool, error) {
	prog, _ := p.program(t)
	prog.Name = ""
	k := outcomesKey{t, coverageKey(prog)}
	if m, ok := outcomes.Load(k); ok {
		return m.(map[int]bool), nil
	}
	m, err := p.ModelOutcomes(t)
	if err != nil {
		return nil, err
	}
	actual, _ := outcomes.LoadOrStore(k, m)
	return actual.(map[int]bool), nil
}

// ModelOutcomes lists the outcomes (the test's observations, as the
// histogram encodes them) the model allows for t in p.
func (p Placement) ModelOutcomes(t *Test) (map[int]bool, error) {
	prog, regs := p.program(t)
	var of []ptxmodel.Value
	for _, o := range t.Observations() {
		of = append(of, obsValue(o, regs))
	}
	outs, err := ptxmodel.Outcomes(prog, of)
	if err != nil {
		return nil, err
	}
	m := t.Model()
	allowed := map[int]bool{}
	for _, o := range outs {
		v32 := make([]uint32, len(o.Values))
		for i, v := range o.Values {
			v32[i] = uint32(v)
		}
		allowed[m.Encode(v32)] = true
	}
	return allowed, nil
}

func obsValue(o Obs, regs map[int]regRef) ptxmodel.Value {
	if o.Reg == NoReg {
		return ptxmodel.Value{Kind: ptxmodel.LocValue, Loc: o.Loc}
	}
	r := regs[o.Reg]
	return ptxmodel.Value{Kind: ptxmodel.RegValue, Thread: r.thread, Reg: r.reg}
}

// place is where thread i runs, for the model.
func (p Placement) place(i int) ptxmodel.Place {
	u := p.Roles[i]
	if u == UnitHost {
		return ptxmodel.Place{Host: true}
	}
	cta := i
	if p.Groups != nil {
		cta = p.Groups[i]
	}
	return ptxmodel.Place{GPU: int(u), CTA: cta}
}

// modelOps is one operation of a thread as the model's operations.
func modelOps(op Op, host bool, reg func(int) int, temp func() int) []ptxmodel.Op {
	sem, scope := op.Sem, op.Scope
	var pre []ptxmodel.Op
	if host {
		// seq_cst at system scope, by the atomics ABI
		pre = append(pre, ptxmodel.Op{Kind: ptxmodel.Fence, Sem: kernels.SC, Scope: kernels.Sys, Reg: ptxmodel.NoReg})
		scope = kernels.Sys
		switch op.Kind {
		case Load, RMW:
			sem = kernels.Acquire
		case Store:
			sem = kernels.Relaxed
		case Fence:
			return pre
		}
	}
	mo := ptxmodel.Op{Sem: sem, Scope: scope, Loc: op.Loc, Size: op.Size, Reg: ptxmodel.NoReg, Val: ptxmodel.Const(int64(op.Val)), Cmp: ptxmodel.Const(0)}
	switch op.Kind {
	case Load:
		mo.Kind, mo.Reg = ptxmodel.Load, reg(op.Reg)
	case Store:
		mo.Kind = ptxmodel.Store
		if op.Src != NoReg {
			sum := temp()
			pre = append(pre, ptxmodel.Op{Kind: ptxmodel.Local, Local: ptxmodel.LocalAdd, Reg: sum,
				Val: ptxmodel.RegOp(reg(op.Src)), Cmp: ptxmodel.Const(int64(op.Val))})
			mo.Val = ptxmodel.RegOp(sum)
		}
	case RMW:
		mo.Kind, mo.Atom = ptxmodel.RMW, op.Atom
		if op.Reg != NoReg {
			mo.Reg = reg(op.Reg)
		} else {
			mo.Reg = temp()
		}
		if op.Atom == kernels.OpCAS {
			mo.Cmp = ptxmodel.Const(int64(op.Cmp))
		}
	case Fence:
		mo = ptxmodel.Op{Kind: ptxmodel.Fence, Sem: sem, Scope: scope, Reg: ptxmodel.NoReg}
	}
	return append(pre, mo)
}
