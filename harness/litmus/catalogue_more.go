// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import "github.com/p2pconf/p2pconf/kernels"

// coherenceTests: SC per location, docs/litmus.md D. Relaxed .sys accesses are
// morally strong across GPUs, so each shape is forbidden; with .gpu scope
// across GPUs or .cta scope across CTAs the accesses are not morally strong
// and the outcome is allowed (a scope mutant there).
//
// Every shape also runs as an interleaving mutant: its target is a
// sequentially consistent outcome that needs the other thread's access to
// fall between the two accesses of one thread, so it shows that the
// threads' accesses to the location interleave at that granularity in this
// placement (evidence class interleaving, see power.go). There are no weak
// (plain ld/st) mutants of CoRR, CoWR and CoWW: the compiler merges two
// ld.weak of one address into one load, forwards the constant of st.weak
// into the ld.weak after it and keeps only the last of two st.weak, so
// their weak outcomes cannot occur whatever the hardware does. CoRW's weak
// mutant (a load, then a store, of one address) keeps both accesses.
//
// CoWW's writer cannot be two st.relaxed of one address either: ptxas
// keeps only the second, so the first value is never seen. At .sys scope
// the writer uses st.volatile (the PTX model's st.relaxed.sys, and the
// compiler keeps every volatile access); PTX has no .gpu volatile, so at
// .gpu scope the second write is atom.exch.relaxed.gpu, a morally strong
// write the compiler does not merge with the store before it.
func coherenceTests() []*Test {
	const src = "docs/litmus.md D (coherence)"
	corr := func(variant string, v Verdict, where Where, host []string, a acc, target out) *Test {
		return &Test{Family: "CoRR", Variant: variant, Locs: []string{"x"},
			Threads: [][]Op{{st(x, 1, a)}, {ld(x, 0, a), ld(x, 1, a)}},
			Target:  target, Verdict: v, Where: where, Host: host, Source: src}
	}
	cowr := func(variant string, v Verdict, where Where, a acc, target out) *Test {
		return &Test{Family: "CoWR", Variant: variant, Locs: []string{"x"},
			Threads: [][]Op{{st(x, 1, a), ld(x, 0, a)}, {st(x, 2, a)}}, Finals: []int{x},
			Target: target, Verdict: v, Where: where, Source: src}
	}
	corw := func(variant string, v Verdict, a acc, target out) *Test {
		return &Test{Family: "CoRW", Variant: variant, Locs: []string{"x"},
			Threads: [][]Op{{ld(x, 0, a), st(x, 1, a)}, {st(x, 2, a)}}, Finals: []int{x},
			Target: target, Verdict: v, Where: onGPUs, Source: src}
	}
	coww := func(variant string, v Verdict, where Where, host []string, w []Op, a acc, target out) *Test {
		return &Test{Family: "CoWW", Variant: variant, Locs: []string{"x"},
			Threads: [][]Op{w, {ld(x, 0, a), ld(x, 1, a)}},
			Target:  target, Verdict: v, Where: where, Host: host, Source: src + ", MP-CO"}
	}
	// CoW-exch: T0 stores x = 1, then exchanges 2 into x, reading the old
	// value; T1 stores x = 3. The exchange must read T0's own store or
	// T1's, never the initial 0: the store precedes it in coherence order,
	// and an RMW reads the write just before it. The one coherence test in
	// which a lost store shows as a forbidden outcome.
	cowx := func(variant string, v Verdict, target out) *Test {
		return &Test{Family: "CoW-exch", Variant: variant, Locs: []string{"x"},
			Threads: [][]Op{{st(x, 1, rlxSys), rmw(kernels.OpExch, x, 2, 0, rlxSys)}, {st(x, 3, rlxSys)}}, Finals: []int{x},
			Target: target, Verdict: v, Where: onGPUs, Source: src + ", CoWR with an RMW as the read"}
	}
	volatileWrites := []Op{stVolatile(x, 1), stVolatile(x, 2)}
	exchWrites := []Op{st(x, 1, rlxGPU), rmw(kernels.OpExch, x, 2, NoReg, rlxGPU)}
	stale := out{"r0": 1, "r1": 0}
	hg := []string{"HG"}
	return []*Test{
		corr("rlx.sys interleaving", Allowed, everywhere, hg, rlxSys, out{"r0": 0, "r1": 1}),
		corr("rlx.sys", Forbidden, everywhere, hg, rlxSys, stale),
		corr("rlx.gpu", Forbidden, onGPUs, nil, rlxGPU, stale),
		corr("rlx.cta", Forbidden, InCTAs, nil, rlxCTA, stale),
		cowr("rlx.sys interleaving", Allowed, onGPUs, rlxSys, out{"r0": 2, "x": 2}),
		cowr("rlx.sys", Forbidden, onGPUs, rlxSys, out{"r0": 2, "x": 1}),
		cowr("rlx.gpu", Forbidden, onGPUs, rlxGPU, out{"r0": 2, "x": 1}),
		corw("weak", Allowed, weak, out{"r0": 2, "x": 2}),
		corw("rlx.sys interleaving", Allowed, rlxSys, out{"r0": 0, "x": 1}),
		corw("rlx.sys", Forbidden, rlxSys, out{"r0": 2, "x": 2}),
		corw("rlx.gpu", Forbidden, rlxGPU, out{"r0": 2, "x": 2}),
		coww("st.volatile interleaving", Allowed, everywhere, hg, volatileWrites, rlxSys, out{"r0": 1, "r1": 2}),
		coww("st.volatile", Forbidden, everywhere, hg, volatileWrites, rlxSys, out{"r0": 2, "r1": 1}),
		coww("rlx.gpu, atom.exch second", Forbidden, onGPUs, nil, exchWrites, rlxGPU, out{"r0": 2, "r1": 1}),
		cowx("rlx.sys interleaving", Allowed, out{"r0": 3, "x": 2}),
		cowx("rlx.sys", Forbidden, out{"r0": 0}),
	}
}

// rmwTests: RMW atomicity, docs/litmus.md E. An atomic add and a concurrent store
// (or add) to one word: the store must not vanish inside the add, and two
// adds must not both read the initial value. Non-atomic ld/st increments
// are the mutants.
func rmwTests() []*Test {
	const src = "docs/litmus.md E (RMW atomicity)"
	add := func(reg int, a acc) []Op { return []Op{rmw(kernels.OpAdd, x, 1, reg, a)} }
	inc := func(reg int, a acc) []Op { return []Op{ld(x, reg, a), stInc(x, reg, a)} }
	atomicity := func(variant string, v Verdict, where Where, host []string, t0 []Op, a acc) *Test {
		return &Test{Family: "atomicity", Variant: variant, Locs: []string{"x"},
			Threads: [][]Op{t0, {st(x, 2, a)}}, Finals: []int{x},
			Target: out{"r0": 0, "x": 1}, Verdict: v, Where: where, Host: host, Source: src}
	}
	lost := func(variant string, v Verdict, t0, t1 []Op) *Test {
		return &Test{Family: "lost-update", Variant: variant, Locs: []string{"x"},
			Threads: [][]Op{t0, t1}, Finals: []int{x},
			Target: out{"r0": 0, "r1": 0}, Verdict: v, Where: onGPUs, Symmetric: true, Source: src}
	}
	return []*Test{
		atomicity("ld/st increment", Allowed, everywhere, []string{"GH"}, inc(0, rlxSys), rlxSys),
		atomicity("atom.add.rlx.sys", Forbidden, everywhere, []string{"GH"}, add(0, rlxSys), rlxSys),
		atomicity("atom.add.rlx.gpu", Forbidden, onGPUs, nil, add(0, rlxGPU), rlxGPU),
		lost("ld/st increments", Allowed, inc(0, rlxSys), inc(1, rlxSys)),
		lost("atom.add.rlx.sys", Forbidden, add(0, rlxSys), add(1, rlxSys)),
		lost("atom.add.rlx.gpu", Forbidden, add(0, rlxGPU), add(1, rlxGPU)),
	}
}

// wrcTests: write-to-read causality, docs/litmus.md F. T1 sees T0's x, then
// publishes y; T2 sees y and must see x. Unannotated accesses rlx.sys.
// T2 reads x in the same iteration of its poll loop as y (readInLoop); T1's
// store stays after its loop.
func wrcTests() []*Test {
	mk := func(variant string, v Verdict, host []string, rel, acq acc) *Test {
		return &Test{Family: "WRC", Variant: variant, Locs: []string{"x", "y"},
			Threads: [][]Op{{st(x, 1, rlxSys)}, {poll(x, 1, 0, rlxSys), st(y, 1, rel)}, readInLoop(poll(y, 1, 1, acq), ld(x, 2, rlxSys))},
			Target:  out{"r0": 1, "r1": 1, "r2": 0}, Verdict: v, Where: everywhere | InTriple, Host: host, Source: "docs/litmus.md F (cumulativity)"}
	}
	return []*Test{
		mk("rlx.sys", Allowed, []string{"GGH"}, rlxSys, rlxSys),
		mk("acq.sys only", Allowed, nil, rlxSys, acqSys),
		mk("rel.sys/acq.sys", Forbidden, []string{"GGH"}, relSys, acqSys),
		mk("rel.gpu/acq.gpu", Forbidden, nil, relGPU, acqGPU),
	}
}

// isa2Tests: ISA2, a chain of two release/acquire hops, docs/litmus.md F. The
// scope-chained variant (hop 1 at .gpu between threads of one GPU, hop 2 at
// .sys to the other GPU or the host) is the CUDA guide's cumulativity
// example: forbidden where the first hop stays inside one GPU. The mutants:
// every access relaxed (the form that shows on an H200, as the single-shot
// ISA2 rlx.gpu does), and either hop relaxed. The data x is written and
// read relaxed.sys in every variant (as WRC's), so T2 reads it in the same
// iteration of its poll loop as z (readInLoop) and every variant polls the
// same way: the rlx.sys mutant, the one whose weak outcome shows, lends the
// forbidden variants power, which a weak x read after the loop could not
// (its loop's control dependency hid every hop mutant). The release and
// acquire hops order x whatever its strength, so the verdicts stay. T1's
// store stays after its loop.
func isa2Tests() []*Test {
	mk := func(variant string, v Verdict, host []string, rel1, acq1, rel2, acq2 acc) *Test {
		return &Test{Family: "ISA2", Variant: variant, Locs: []string{"x", "y", "z"},
			Threads: [][]Op{{st(x, 1, rlxSys), st(y, 1, rel1)}, {poll(y, 1, 0, acq1), st(z, 1, rel2)}, readInLoop(poll(z, 1, 1, acq2), ld(x, 2, rlxSys))},
			Target:  out{"r0": 1, "r1": 1, "r2": 0}, Verdict: v, Where: everywhere | InTriple, Host: host, Source: "docs/litmus.md F (cumulativity), CUDA guide memory-model example"}
	}
	relaxed := mk("rlx.sys", Allowed, []string{"GGH"}, rlxSys, rlxSys, rlxSys, rlxSys)
	relaxed.Source = "docs/litmus.md F (cumulativity), every access relaxed as cuda-litmus's ISA2 RELAXED"
	return []*Test{
		relaxed,
		mk("hop 1 relaxed", Allowed, nil, rlxSys, acqSys, relSys, acqSys),
		mk("hop 2 relaxed", Allowed, []string{"GGH"}, relSys, acqSys, rlxSys, acqSys),
		mk("rel.sys/acq.sys", Forbidden, []string{"GGH"}, relSys, acqSys, relSys, acqSys),
		mk("hop 1 .gpu, hop 2 .sys", Forbidden, []string{"GGH"}, relGPU, acqGPU, relSys, acqSys),
		mk("hop 1 .sys, hop 2 .gpu", Forbidden, nil, relSys, acqSys, relGPU, acqGPU),
		weakX(mk("rel.sys/acq.sys weak x in loop", Forbidden, nil, relSys, acqSys, relSys, acqSys)),
		weakX(mk("hop 1 .gpu, hop 2 .sys weak x in loop", Forbidden, nil, relGPU, acqGPU, relSys, acqSys)),
		weakX(mk("hop 1 .sys, hop 2 .gpu weak x in loop", Forbidden, nil, relSys, acqSys, relGPU, acqGPU)),
	}
}

// weakX is an ISA2 test with its data x written and read weakly, the read
// in every iteration of T2's poll loop: the form of the three ISA2 tests
// that failed on an H200, forbidden by the model (readInLoopWeak). They
// run between CTAs, across pairs and triples; the host placements keep to
// the relaxed.sys forms.
func weakX(t *Test) *Test {
	t.Threads[0][0] = st(x, 1, weak)
	t.Threads[2] = readInLoopWeak(t.Threads[2][0], ld(x, 2, weak))
	t.Where &^= InHost
	return t
}

// iriwTests: independent reads of independent writes, docs/litmus.md F. T0
// writes x, T1 writes y; T2 reads x then y, T3 reads y then x. Weak: the
// readers disagree on the order of the writes (T2 sees x but not y, T3 y
// but not x). PTX is not multi-copy atomic: acquire loads, or
// fence.acq_rel between the loads, allow it; fence.sc.sys between both
// readers' loads forbids it; fence.sc.gpu does so only within one GPU, so
// across GPUs it is a scope mutant. IRIW needs its four agents on
// different GPUs, so it runs on triples only (Test.triplePlacements).
func iriwTests() []*Test {
	mk := func(variant string, v Verdict, l acc, f *acc) *Test {
		reader := func(a, b, ra, rb int) []Op {
			if f == nil {
				return []Op{ld(a, ra, l), ld(b, rb, l)}
			}
			return []Op{ld(a, ra, l), fence(*f), ld(b, rb, l)}
		}
		return &Test{Family: "IRIW", Variant: variant, Locs: []string{"x", "y"},
			Threads: [][]Op{{st(x, 1, rlxSys)}, {st(y, 1, rlxSys)}, reader(x, y, 0, 1), reader(y, x, 2, 3)},
			Target:  out{"r0": 1, "r1": 0, "r2": 1, "r3": 0}, Verdict: v, Where: InTriple,
			Source: "docs/litmus.md F (multi-copy atomicity; PTX is not multi-copy atomic)"}
	}
	return []*Test{
		mk("rlx.sys", Allowed, rlxSys, nil),
		mk("acq.sys readers", Allowed, acqSys, nil),
		mk("F.ar.sys readers", Allowed, rlxSys, &arSys),
		mk("F.sc.sys readers", Forbidden, rlxSys, &scSys),
		mk("F.sc.gpu readers", Forbidden, rlxSys, &scGPU),
	}
}
