// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"sync"

	"github.com/p2pconf/p2pconf/kernels"
)

// acc is the semantics and scope of an access.
type acc struct {
	sem kernels.Sem
	sc  kernels.Scope
}

// Accesses and fences used by the catalogue.
var (
	weak   = acc{kernels.Weak, kernels.Sys}
	rlxSys = acc{kernels.Relaxed, kernels.Sys}
	rlxGPU = acc{kernels.Relaxed, kernels.GPU}
	rlxCTA = acc{kernels.Relaxed, kernels.CTA}
	relSys = acc{kernels.Release, kernels.Sys}
	relGPU = acc{kernels.Release, kernels.GPU}
	relCTA = acc{kernels.Release, kernels.CTA}
	acqSys = acc{kernels.Acquire, kernels.Sys}
	acqGPU = acc{kernels.Acquire, kernels.GPU}
	acqCTA = acc{kernels.Acquire, kernels.CTA}
	arSys  = acc{kernels.AcqRel, kernels.Sys}
	scSys  = acc{kernels.SC, kernels.Sys}
	scGPU  = acc{kernels.SC, kernels.GPU}
	scCTA  = acc{kernels.SC, kernels.CTA}
)

// Location indexes.
const (
	x = 0
	y = 1
	z = 2
)

func st(loc int, v uint32, a acc) Op {
	return Op{Kind: Store, Loc: loc, Val: v, Sem: a.sem, Scope: a.sc, Reg: NoReg, Src: NoReg}
}

// stVolatile is st.volatile: st.relaxed.sys under the memory model, kept
// by the compiler however many stores of one address a thread makes.
func stVolatile(loc int, v uint32) Op {
	op := st(loc, v, rlxSys)
	op.Volatile = true
	return op
}

// stInc stores register src + 1: the store half of a non-atomic increment.
func stInc(loc, src int, a acc) Op {
	return Op{Kind: Store, Loc: loc, Val: 1, Sem: a.sem, Scope: a.sc, Reg: NoReg, Src: src}
}

func ld(loc, reg int, a acc) Op {
	return Op{Kind: Load, Loc: loc, Reg: reg, Sem: a.sem, Scope: a.sc, Src: NoReg}
}

// poll loads until it reads until (bounded by pollCap). Every test so far
// waits for 1; the value is part of the operation all the same.
//
//nolint:unparam // the awaited value belongs to the operation, whatever the tests use today
func poll(loc int, until uint32, reg int, a acc) Op {
	op := ld(loc, reg, a)
	op.Poll, op.Until = true, until
	return op
}

// readInLoop is a polled reader's flag poll p followed by the operations
// then. They run inside the poll loop, right after the flag in every
// iteration (Op.InPoll), when every load among them is strong at system
// scope (relaxed or stronger, .sys): then no branch on the flag stands
// between the flag and the data. Otherwise they stay after the loop, the
// form these tests had when their results were first recorded. A weak data
// load inside the loop is a test of its own (readInLoopWeak): the PTX
// memory model judges it (its race with the writer's store is of uniform
// size, which the axioms cover), and a compiler that serves the loop's
// weak loads from the first iteration's value breaks it.
func readInLoop(p Op, then ...Op) []Op {
	inLoop := true
	for _, op := range then {
		if op.Kind == Load && !op.strongSys() {
			inLoop = false
		}
	}
	if !inLoop {
		return readAfterLoop(p, then...)
	}
	return readInLoopWeak(p, then...)
}

// readInLoopWeak is a polled reader's flag poll p with the operations then
// inside its loop, whatever their strength: the weak-x-in-loop variants.
// In the iteration that sees the flag, the data load follows the acquire
// that observed the release, so the Causality axiom forbids a stale value
// whatever the earlier iterations read; on an H200 (driver 580, CUDA 13.0)
// ptxas kept one load of the data for the whole unrolled loop and these
// tests failed (docs/litmus.md, "A weak data load in the poll loop").
func readInLoopWeak(p Op, then ...Op) []Op {
	out := []Op{p}
	for _, op := range then {
		op.InPoll = true
		out = append(out, op)
	}
	return out
}

// readAfterLoop is a polled reader's flag poll p, then the operations then
// after its loop: the form of every polled reader before the data moved
// into the loop, kept where the data is weak (readInLoop).
func readAfterLoop(p Op, then ...Op) []Op { return append([]Op{p}, then...) }

func fence(a acc) Op { return Op{Kind: Fence, Sem: a.sem, Scope: a.sc, Reg: NoReg, Src: NoReg} }

func rmw(op kernels.AtomOp, loc int, v uint32, reg int, a acc) Op {
	return Op{Kind: RMW, Atom: op, Loc: loc, Val: v, Reg: reg, Sem: a.sem, Scope: a.sc, Src: NoReg}
}

// pollCAS retries atom.cas(loc, cmp → nv) until it succeeds (reads cmp).
func pollCAS(loc int, cmp, nv uint32, reg int, a acc) Op {
	op := rmw(kernels.OpCAS, loc, nv, reg, a)
	op.Cmp, op.Poll, op.Until = cmp, true, cmp
	return op
}

type out = map[string]uint32

const (
	everywhere = InCTAs | InPair | InHost
	onGPUs     = InCTAs | InPair
)

var (
	catalogueOnce sync.Once
	catalogue     []*Test
)

// Catalogue lists every litmus test variant, family by family, mutants
// first within a family (so that, in definition order, a forbidden test
// runs after the mutants that give it power).
func Catalogue() []*Test {
	catalogueOnce.Do(func() {
		for _, family := range [][]*Test{mpTests(), sbTests(), lbTests(), coherenceTests(), rmwTests(), wrcTests(), isa2Tests(), iriwTests(),
			mpOnceTests(), wrcOnceTests(), isa2OnceTests()} {
			var mutants, forbidden []*Test
			for _, t := range withCompilerVariants(family) {
				if t.Verdict == Allowed {
					mutants = append(mutants, t)
				} else {
					forbidden = append(forbidden, t)
				}
			}
			catalogue = append(append(catalogue, mutants...), forbidden...)
		}
	})
	return catalogue
}

// mpTests: message passing, docs/litmus.md A. T0 writes data x then flag y; T1
// polls the flag, then reads the data after the loop (readAfterLoop). The
// forbidden forms write and read x weakly, so their data load must not sit
// in the loop (readInLoop), and the mutants wait the same way so that they
// lend those forms power (GivesPower compares the poll forms). Weak: flag
// seen, data stale.
func mpTests() []*Test {
	mk := func(variant string, v Verdict, where Where, host []string, w, r []Op) *Test {
		return &Test{Family: "MP", Variant: variant, Locs: []string{"x", "y"}, Threads: [][]Op{w, r},
			Target: out{"r0": 1, "r1": 0}, Verdict: v, Where: where, Host: host, Source: "docs/litmus.md A (message passing)"}
	}
	// Release/acquire pairs at scopes that cover both threads: forbidden.
	relAcq := func(name string, where Where, rel, acq acc) *Test {
		return mk(name, Forbidden, where, nil, []Op{st(x, 1, weak), st(y, 1, rel)}, readAfterLoop(poll(y, 1, 0, acq), ld(x, 1, weak)))
	}
	fenced := func(name string, v Verdict, where Where, host []string, flag, f acc) *Test {
		return mk(name, v, where, host, []Op{st(x, 1, weak), fence(f), st(y, 1, flag)}, readAfterLoop(poll(y, 1, 0, flag), fence(f), ld(x, 1, weak)))
	}
	both := []string{"GH", "HG"}
	t := []*Test{
		mk("rlx.sys", Allowed, everywhere, both, []Op{st(x, 1, rlxSys), st(y, 1, rlxSys)}, readAfterLoop(poll(y, 1, 0, rlxSys), ld(x, 1, rlxSys))),
		mk("rel.sys/acq.sys", Forbidden, everywhere, both, []Op{st(x, 1, weak), st(y, 1, relSys)}, readAfterLoop(poll(y, 1, 0, acqSys), ld(x, 1, weak))),
		fenced("F.ar.sys+rlx.sys", Forbidden, everywhere, both, rlxSys, arSys),
		fenced("F.sc.sys+rlx.sys", Forbidden, everywhere, both, rlxSys, scSys),
		mk("rel.sys/rlx.sys (no acquire)", Allowed, everywhere, []string{"HG"}, []Op{st(x, 1, weak), st(y, 1, relSys)}, readAfterLoop(poll(y, 1, 0, rlxSys), ld(x, 1, weak))),
		mk("rlx.sys/acq.sys (no release)", Allowed, everywhere, []string{"GH"}, []Op{st(x, 1, weak), st(y, 1, rlxSys)}, readAfterLoop(poll(y, 1, 0, acqSys), ld(x, 1, weak))),
		relAcq("rel.gpu/acq.gpu", onGPUs, relGPU, acqGPU),
		relAcq("rel.sys/acq.gpu", InPair, relSys, acqGPU),
		relAcq("rel.gpu/acq.sys", InPair, relGPU, acqSys),
		relAcq("rel.cta/acq.cta", InCTAs, relCTA, acqCTA),
		mk("exch.rel.sys/cas.acq.sys", Forbidden, everywhere, both,
			[]Op{st(x, 1, weak), rmw(kernels.OpExch, y, 1, NoReg, relSys)}, readAfterLoop(pollCAS(y, 1, 1, 0, acqSys), ld(x, 1, weak))),
		fenced("weak flag+F.ar.sys", Allowed, onGPUs, nil, weak, arSys),
		fenced("weak flag+F.sc.sys", Forbidden, onGPUs, nil, weak, scSys),
		// The weak-x-in-loop forms: the reader loads x weakly in every
		// iteration of its poll (readInLoopWeak), as the tests that failed
		// on an H200 did; with the acquire forbidden by the model, without
		// it their mutant (the same poll form, so it lends them power).
		mk("rel.sys/rlx.sys (no acquire) weak x in loop", Allowed, everywhere, []string{"HG"},
			[]Op{st(x, 1, weak), st(y, 1, relSys)}, readInLoopWeak(poll(y, 1, 0, rlxSys), ld(x, 1, weak))),
		mk("rel.sys/acq.sys weak x in loop", Forbidden, everywhere, []string{"HG"},
			[]Op{st(x, 1, weak), st(y, 1, relSys)}, readInLoopWeak(poll(y, 1, 0, acqSys), ld(x, 1, weak))),
		mk("rel.gpu/acq.gpu weak x in loop", Forbidden, onGPUs, nil,
			[]Op{st(x, 1, weak), st(y, 1, relGPU)}, readInLoopWeak(poll(y, 1, 0, acqGPU), ld(x, 1, weak))),
	}
	return t
}

// sbTests: store buffering, docs/litmus.md B. Weak: both loads read 0.
func sbTests() []*Test {
	mk := func(variant string, v Verdict, where Where, host []string, sym bool, t0, t1 []Op) *Test {
		return &Test{Family: "SB", Variant: variant, Locs: []string{"x", "y"}, Threads: [][]Op{t0, t1},
			Target: out{"r0": 0, "r1": 0}, Verdict: v, Where: where, Host: host, Symmetric: sym, Source: "docs/litmus.md B (store buffering)"}
	}
	plain := func(variant string, v Verdict, where Where, host []string, s, l acc) *Test {
		return mk(variant, v, where, host, true, []Op{st(x, 1, s), ld(y, 0, l)}, []Op{st(y, 1, s), ld(x, 1, l)})
	}
	fenced := func(variant string, v Verdict, where Where, host []string, f acc) *Test {
		return mk(variant, v, where, host, true, []Op{st(x, 1, rlxSys), fence(f), ld(y, 0, rlxSys)}, []Op{st(y, 1, rlxSys), fence(f), ld(x, 1, rlxSys)})
	}
	rmwSide := func(a, b int, reg int) []Op {
		return []Op{rmw(kernels.OpExch, a, 1, NoReg, arSys), rmw(kernels.OpAdd, b, 0, reg, arSys)}
	}
	return []*Test{
		plain("rlx.sys", Allowed, everywhere, []string{"GH"}, rlxSys, rlxSys),
		plain("rel.sys/acq.sys", Allowed, onGPUs, nil, relSys, acqSys),
		fenced("F.ar.sys", Allowed, onGPUs, nil, arSys),
		fenced("F.sc.sys", Forbidden, everywhere, []string{"GH"}, scSys),
		fenced("F.sc.gpu", Forbidden, onGPUs, nil, scGPU),
		fenced("F.sc.cta", Forbidden, InCTAs, nil, scCTA),
		mk("atom.acq_rel.sys", Forbidden, onGPUs, nil, true, rmwSide(x, y, 0), rmwSide(y, x, 1)),
		mk("atom.acq_rel.sys, T1 plain", Allowed, onGPUs, nil, false, rmwSide(x, y, 0), []Op{st(y, 1, rlxSys), ld(x, 1, rlxSys)}),
	}
}

// lbTests: load buffering, docs/litmus.md C. Weak: both loads read the other
// thread's later store.
func lbTests() []*Test {
	mk := func(variant string, v Verdict, sym bool, l0, s0, l1, s1 acc) *Test {
		return &Test{Family: "LB", Variant: variant, Locs: []string{"x", "y"},
			Threads: [][]Op{{ld(x, 0, l0), st(y, 1, s0)}, {ld(y, 1, l1), st(x, 1, s1)}},
			Target:  out{"r0": 1, "r1": 1}, Verdict: v, Where: onGPUs, Symmetric: sym, Source: "docs/litmus.md C (load buffering)"}
	}
	f := &Test{Family: "LB", Variant: "F.ar.sys", Locs: []string{"x", "y"},
		Threads: [][]Op{{ld(x, 0, rlxSys), fence(arSys), st(y, 1, rlxSys)}, {ld(y, 1, rlxSys), fence(arSys), st(x, 1, rlxSys)}},
		Target:  out{"r0": 1, "r1": 1}, Verdict: Forbidden, Where: onGPUs, Symmetric: true, Source: "docs/litmus.md C (load buffering)"}
	return []*Test{
		mk("rlx.sys", Allowed, false, rlxSys, rlxSys, rlxSys, rlxSys),
		mk("acq.sys/rel.sys", Forbidden, true, acqSys, relSys, acqSys, relSys),
		mk("one way rel.sys/acq.sys", Forbidden, false, rlxSys, relSys, acqSys, rlxSys),
		mk("acq.gpu/rel.gpu", Forbidden, true, acqGPU, relGPU, acqGPU, relGPU),
		f,
	}
}
