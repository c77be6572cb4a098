// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

// Single-shot forms of MP, WRC and ISA2: every reading thread reads its
// flag once instead of polling it (the form of MC Mutants and cuda-litmus).
// A data load after a poll loop sits behind the loop's exit branch, which
// depends on the value read: a control dependency in front of the
// reader's next load, which a GPU may honour, hiding the reordering the
// mutants are there to show. The polled forms read their data inside the
// loop where it is strong at .sys (readInLoop, Op.InPoll: WRC, ISA2
// rlx.sys) and after it where it is weak; the single-shot forms have no
// loop at all, and keep the shape of the tools they are compared with. The
// instance records whether the flag was seen (Op.Once:
// the register keeps the one value read, FlagSeen counts the instances that
// saw it). They run between CTAs of one GPU at device scope, the scope of
// cuda-litmus's SCOPE_DEVICE builds, with their own families (names ending
// in "once"), so a single-shot mutant gives power only to its single-shot
// siblings.

// once reads loc a single time; the instance counts whether it read until.
// Every test so far waits for 1, as with poll.
//
//nolint:unparam // the awaited value belongs to the operation, whatever the tests use today
func once(loc int, until uint32, reg int, a acc) Op {
	op := poll(loc, until, reg, a)
	op.Once = true
	return op
}

// mpOnceTests: docs/litmus.md A, single-shot. T0 writes data x then flag y;
// T1 reads y once, then x. Weak: flag seen, data stale.
func mpOnceTests() []*Test {
	mk := func(variant string, v Verdict, ws, wf, rf, rd acc) *Test {
		return &Test{Family: "MP once", Variant: variant, Locs: []string{"x", "y"},
			Threads: [][]Op{{st(x, 1, ws), st(y, 1, wf)}, {once(y, 1, 0, rf), ld(x, 1, rd)}},
			Target:  out{"r0": 1, "r1": 0}, Verdict: v, Where: InCTAs,
			Source: "docs/litmus.md A (message passing), single-shot reader as in MC Mutants and cuda-litmus"}
	}
	return []*Test{
		mk("rlx.gpu", Allowed, rlxGPU, rlxGPU, rlxGPU, rlxGPU),
		mk("rel.gpu/rlx.gpu (no acquire)", Allowed, weak, relGPU, rlxGPU, weak),
		mk("rlx.gpu/acq.gpu (no release)", Allowed, weak, rlxGPU, acqGPU, weak),
		mk("rel.cta/acq.cta", Forbidden, weak, relCTA, acqCTA, weak),
		mk("rel.gpu/acq.gpu", Forbidden, weak, relGPU, acqGPU, weak),
	}
}

// wrcOnceTests: docs/litmus.md F, single-shot. T0 writes x; T1 reads x
// once, then writes y; T2 reads y once, then x. Weak: T1 saw x, T2 saw y
// but not x.
func wrcOnceTests() []*Test {
	mk := func(variant string, v Verdict, rx, sy, ry acc) *Test {
		return &Test{Family: "WRC once", Variant: variant, Locs: []string{"x", "y"},
			Threads: [][]Op{{st(x, 1, rlxGPU)}, {once(x, 1, 0, rx), st(y, 1, sy)}, {once(y, 1, 1, ry), ld(x, 2, rlxGPU)}},
			Target:  out{"r0": 1, "r1": 1, "r2": 0}, Verdict: v, Where: InCTAs,
			Source: "docs/litmus.md F (cumulativity), single-shot readers as in cuda-litmus"}
	}
	return []*Test{
		mk("rlx.gpu", Allowed, rlxGPU, rlxGPU, rlxGPU),
		mk("acq.gpu only (no release)", Allowed, rlxGPU, rlxGPU, acqGPU),
		mk("rel.gpu only (no acquire)", Allowed, rlxGPU, relGPU, rlxGPU),
		mk("rel.cta/acq.cta", Forbidden, rlxGPU, relCTA, acqCTA),
		mk("rel.gpu/acq.gpu", Forbidden, rlxGPU, relGPU, acqGPU),
	}
}

// isa2OnceTests: docs/litmus.md F, single-shot. T0 writes x, then y; T1
// reads y once, then writes z; T2 reads z once, then x. Weak: both flags
// seen, x stale.
func isa2OnceTests() []*Test {
	mk := func(variant string, v Verdict, data, rel1, acq1, rel2, acq2 acc) *Test {
		return &Test{Family: "ISA2 once", Variant: variant, Locs: []string{"x", "y", "z"},
			Threads: [][]Op{{st(x, 1, data), st(y, 1, rel1)}, {once(y, 1, 0, acq1), st(z, 1, rel2)}, {once(z, 1, 1, acq2), ld(x, 2, data)}},
			Target:  out{"r0": 1, "r1": 1, "r2": 0}, Verdict: v, Where: InCTAs,
			Source: "docs/litmus.md F (cumulativity), single-shot readers as in cuda-litmus"}
	}
	return []*Test{
		mk("rlx.gpu", Allowed, rlxGPU, rlxGPU, rlxGPU, rlxGPU, rlxGPU),
		mk("hop 1 relaxed", Allowed, weak, rlxGPU, acqGPU, relGPU, acqGPU),
		mk("hop 2 relaxed", Allowed, weak, relGPU, acqGPU, rlxGPU, acqGPU),
		mk("rel.gpu/acq.gpu", Forbidden, weak, relGPU, acqGPU, relGPU, acqGPU),
	}
}
