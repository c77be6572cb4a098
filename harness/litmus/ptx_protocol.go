// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

// The synchronisation around the litmus operations: stress CTAs, the
// barrier between iterations (CTAs of a GPU, then the parties through
// pinned host memory), the collection of outcomes and the histogram flush.

// fail records status %s8 at iteration %s9 in this party's record, makes
// this GPU's waiting CTAs leave (generation genAbort) and sets %s3.
func (g *ptxGen) fail() {
	g.ins("st.relaxed.sys.global.u32 [%%d_mine+%d], %%s9;", ctlIter)
	g.ins("st.relaxed.sys.global.u32 [%%d_mine+%d], %%s8;", ctlStatus)
	g.ins("mov.u32 %%s10, 0x%08X;", uint32(genAbort))
	g.ins("st.relaxed.gpu.global.u32 [%%d_bar+%d], %%s10;", barGen)
	g.ins("mov.u32 %%s3, 1;")
	g.ins("st.shared.u32 [lt_flag], %%s3;")
}

// stress: CTAs beyond the testing ones store to and load from the lines of
// a stress buffer (relaxed, so the compiler keeps them; few lines make them
// hot), then join the barrier.
func (g *ptxGen) stress() {
	g.label("STRESS")
	g.ins("setp.eq.u32 %%sp0, %%u_stress_lines, 0;")
	g.ins("@%%sp0 bra BARRIER;")
	g.ins("mov.u32 %%s0, 0;")
	g.label("STRESS_LOOP")
	g.stressAccess()
	g.ins("add.u32 %%s0, %%s0, 1;")
	g.ins("setp.lt.u32 %%sp0, %%s0, %d;", stressRounds)
	g.ins("@%%sp0 bra STRESS_LOOP;")
}

// barrier: CTAs of this GPU arrive on a counter in its memory; the last one
// publishes the party's epoch in pinned host memory and waits for every
// other party's, then releases the CTAs. All waits are bounded.
func (g *ptxGen) barrier() {
	g.label("BARRIER")
	g.ins("bar.sync 0;")
	g.ins("add.u32 %%u_k1, %%u_k, 1;")
	g.ins("mov.u32 %%s3, 0;")
	g.ins("setp.ne.u32 %%sp0, %%u_tid, 0;")
	g.ins("@%%sp0 bra BAR_JOIN;")
	g.fence("BAR_F1")
	g.ins("atom.acq_rel.gpu.global.add.u32 %%s0, [%%d_bar], 1;")
	g.ins("add.u32 %%s0, %%s0, 1;")
	g.ins("mul.lo.u32 %%s1, %%u_k1, %%u_nctas;")
	g.ins("mov.u64 %%sd1, %%globaltimer;")
	g.ins("add.u64 %%sd2, %%sd1, %%d_timeout;")
	g.ins("setp.ne.u32 %%sp0, %%s0, %%s1;")
	g.ins("@%%sp0 bra BAR_WAIT0;")
	g.ins("@!%%q_multi bra BAR_RELEASE;")
	g.ins("st.release.sys.global.u32 [%%d_mine+%d], %%u_k1;", ctlEpoch)
	g.ins("mov.u32 %%s4, 0;")
	g.label("BAR_PARTY")
	g.ins("setp.ge.u32 %%sp0, %%s4, %%u_parties;")
	g.ins("@%%sp0 bra BAR_RELEASE;")
	g.ins("add.u32 %%s5, %%s4, 1;")
	g.ins("mul.wide.u32 %%sd3, %%s5, %d;", ctlStride)
	g.ins("add.u64 %%sd3, %%d_ctl, %%sd3;")
	g.label("BAR_PARTY_POLL")
	g.ins("ld.acquire.sys.global.u32 %%s6, [%%sd3+%d];", ctlEpoch)
	g.ins("setp.ge.u32 %%sp0, %%s6, %%u_k1;")
	g.ins("@%%sp0 bra BAR_PARTY_NEXT;")
	g.ins("ld.relaxed.sys.global.u32 %%s7, [%%sd3+%d];", ctlStatus)
	g.ins("mov.u32 %%s8, %d;", statusOther)
	g.ins("setp.ne.u32 %%sp0, %%s7, 0;")
	g.ins("@%%sp0 bra BAR_FAIL;")
	g.ins("mov.u32 %%s8, %d;", statusParties)
	g.ins("mov.u64 %%sd1, %%globaltimer;")
	g.ins("setp.lt.u64 %%sp0, %%sd1, %%sd2;")
	g.ins("@%%sp0 bra BAR_PARTY_POLL;")
	g.ins("bra BAR_FAIL;")
	g.label("BAR_PARTY_NEXT")
	g.ins("add.u32 %%s4, %%s4, 1;")
	g.ins("bra BAR_PARTY;")
	g.label("BAR_RELEASE")
	g.ins("st.release.gpu.global.u32 [%%d_bar+%d], %%u_k1;", barGen)
	g.ins("bra BAR_DONE;")
	// The CTAs wait for the last one, which may wait a whole timeout for
	// the other parties: they give up only after twice the timeout, so a
	// party that never came is reported as such.
	g.label("BAR_WAIT0")
	g.ins("add.u64 %%sd2, %%sd2, %%d_timeout;")
	g.label("BAR_WAIT")
	g.ins("ld.acquire.gpu.global.u32 %%s6, [%%d_bar+%d];", barGen)
	g.ins("setp.eq.u32 %%sp0, %%s6, 0x%08X;", uint32(genAbort))
	g.ins("@%%sp0 bra BAR_ABORTED;")
	g.ins("setp.ge.u32 %%sp0, %%s6, %%u_k1;")
	g.ins("@%%sp0 bra BAR_DONE;")
	g.ins("mov.u64 %%sd1, %%globaltimer;")
	g.ins("setp.lt.u64 %%sp0, %%sd1, %%sd2;")
	g.ins("@%%sp0 bra BAR_WAIT;")
	g.ins("mov.u32 %%s8, %d;", statusLocal)
	g.label("BAR_FAIL")
	g.ins("mov.u32 %%s9, %%u_k;")
	g.fail()
	g.ins("bra BAR_DONE;")
	g.label("BAR_ABORTED")
	g.ins("mov.u32 %%s3, 1;")
	g.label("BAR_DONE")
	g.fence("BAR_F2")
	g.ins("st.shared.u32 [lt_flag], %%s3;")
	g.label("BAR_JOIN")
	g.ins("bar.sync 0;")
	g.ins("ld.shared.u32 %%s0, [lt_flag];")
	g.ins("setp.ne.u32 %%sp0, %%s0, 0;")
	g.ins("@%%sp0 bra FLUSH;")
}

// fence is fence.sc.sys with several parties (other GPUs or the host must
// see this CTA's writes), fence.acq_rel.gpu within one GPU.
func (g *ptxGen) fence(id string) {
	g.ins("@%%q_multi bra %s_SYS;", id)
	g.ins("fence.acq_rel.gpu;")
	g.ins("bra %s_END;", id)
	g.label(id + "_SYS")
	g.ins("fence.sc.sys;")
	g.label(id + "_END")
}

// collect: party 0's testing threads read each instance's registers and
// final values, count its outcome and reset its words for the set's next use.
func (g *ptxGen) collect() {
	t, m := g.t, g.m
	g.ins("@!%%q_coll bra ITER_NEXT;")
	g.ins("@!%%q_test bra ITER_NEXT;")
	g.ins("mov.u32 %%u_i, %%u_gtid;")
	g.ins("mov.u32 %%s9, 0;")
	g.label("COLLECT")
	g.ins("setp.ge.u32 %%sp0, %%u_i, %%u_n;")
	g.ins("@%%sp0 bra ITER_NEXT;")
	for j, o := range m.Obs {
		if o.Reg == NoReg {
			continue
		}
		g.regAddr(o.Reg)
		g.ins("ld.relaxed.sys.global.u32 %%u_o%d, [%%sd3];", j)
		g.ins("st.relaxed.sys.global.u32 [%%sd3], %%s9;")
	}
	for l := range t.Locs {
		g.locAddr(l)
		for j, o := range m.Obs {
			if o.Reg == NoReg && o.Loc == l {
				g.ins("ld.relaxed.sys.global.u32 %%u_o%d, [%%d_a%d];", j, l)
			}
		}
		g.ins("st.relaxed.sys.global.u32 [%%d_a%d], %%s9;", l)
	}
	g.ins("mov.u32 %%s0, 0;")
	for j := range m.Obs {
		g.ins("min.u32 %%s1, %%u_o%d, %d;", j, m.Radix[j]-1)
		g.ins("mul.lo.u32 %%s1, %%s1, %d;", m.Mult[j])
		g.ins("add.u32 %%s0, %%s0, %%s1;")
	}
	g.ins("shl.b32 %%s0, %%s0, 2;")
	g.ins("mov.u32 %%s1, lt_hsh;")
	g.ins("add.u32 %%s0, %%s1, %%s0;")
	g.ins("atom.shared.add.u32 %%s1, [%%s0], 1;")
	g.ins("add.u32 %%u_i, %%u_i, %%u_nt;")
	g.ins("bra COLLECT;")
	g.label("ITER_NEXT")
	g.ins("add.u32 %%u_k, %%u_k, 1;")
	g.ins("bra ITER;")
}

// flush adds the CTA's histogram into the device histogram.
func (g *ptxGen) flush() {
	g.label("FLUSH")
	g.ins("bar.sync 0;")
	g.ins("mov.u32 %%s0, %%u_tid;")
	g.label("FLUSH_LOOP")
	g.ins("setp.ge.u32 %%sp0, %%s0, %d;", g.m.Bins)
	g.ins("@%%sp0 bra EXIT;")
	g.ins("shl.b32 %%s1, %%s0, 2;")
	g.ins("mov.u32 %%s2, lt_hsh;")
	g.ins("add.u32 %%s1, %%s2, %%s1;")
	g.ins("ld.shared.u32 %%s3, [%%s1];")
	g.ins("setp.eq.u32 %%sp0, %%s3, 0;")
	g.ins("@%%sp0 bra FLUSH_NEXT;")
	g.ins("cvt.u64.u32 %%sd4, %%s3;")
	g.ins("mul.wide.u32 %%sd5, %%s0, 8;")
	g.ins("add.u64 %%sd5, %%d_hist, %%sd5;")
	g.ins("red.global.add.u64 [%%sd5], %%sd4;")
	g.label("FLUSH_NEXT")
	g.ins("add.u32 %%s0, %%s0, %%u_ntid;")
	g.ins("bra FLUSH_LOOP;")
	g.label("EXIT")
	g.ins("ret;")
}
