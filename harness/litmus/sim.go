// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"errors"
	"fmt"
	"time"

	"github.com/p2pconf/p2pconf/kernels"
)

// maxSimThreads is the most logical threads a litmus Sim asks for: its
// threads wait for each other at barriers, so each needs its own goroutine
// in the fake backend (which runs at most 4096 at once).
const maxSimThreads = 4096

// errStopped ends a Sim thread that left the iterations early (a timed-out
// wait it has recorded in the control block); it is not a kernel error.
var errStopped = errors.New("stopped")

// simFunc interprets the test's kernel for the fake backend: the same
// parameters, memory layout and protocol as the PTX, every access through
// kernels.Thread with the same semantics and scope, so the fake's injected
// defects act on the litmus operations exactly as on the GPU. Barriers are
// counted per thread instead of per CTA (the Sim has no bar.sync).
func simFunc(t *Test) kernels.SimFunc {
	return func(g kernels.Grid, args []uint64) error {
		grid, block := g.Shape()
		n := grid.Count() * block.Count()
		if n > maxSimThreads {
			return fmt.Errorf("litmus Sim: %d threads, at most %d (they wait for each other)", n, maxSimThreads)
		}
		s := &simRun{t: t, m: t.Model(), a: parseArgs(len(t.Locs), args), g: g, threads: uint32(n)}
		s.nt = s.a.testCTAs * uint32(block.Count())
		s.timeout = time.Duration(s.a.timeoutNS)
		return g.Threads(n, s.thread)
	}
}

type simRun struct {
	t       *Test
	m       *Model
	a       launchArgs
	g       kernels.Grid
	threads uint32 // all threads of the launch
	nt      uint32 // testing threads
	timeout time.Duration
}

func (s *simRun) mine() uint64 { return s.a.ctl + ctlStride*uint64(1+s.a.party) }

func (s *simRun) thread(th kernels.Thread) error {
	gtid := uint32(th.ID())
	hist := map[int]uint64{}
	err := s.iterations(th, gtid, hist)
	if err != nil && !errors.Is(err, errStopped) {
		return err
	}
	for bin, c := range hist {
		if _, err := th.Atomic(kernels.OpAdd, s.a.hist+8*uint64(bin), kernels.TU64, c, 0, kernels.Relaxed, kernels.GPU); err != nil {
			return err
		}
	}
	return nil
}

func (s *simRun) iterations(th kernels.Thread, gtid uint32, hist map[int]uint64) error {
	if err := s.gate(th); err != nil {
		return err
	}
	test := gtid < s.nt
	spins := uint32(0)
	for k := uint32(0); k < s.a.iters; k++ {
		p := newPerm(s.a.seed, k, s.a.n)
		if s.a.env&envSameSlot != 0 {
			p = p.sameSlot()
		}
		set := k & 1
		if test {
			if err := s.preStress(th, gtid, k); err != nil {
				return err
			}
			if chance(s.a.seed, k, saltSpin, s.a.env>>envShiftSpin&0xFF) {
				spins++
				if err := s.spin(th, spins); err != nil {
					return err
				}
			}
			if err := s.play(th, gtid, k, set, p); err != nil {
				return err
			}
		} else if err := s.stress(th, gtid, k); err != nil {
			return err
		}
		if err := s.barrier(th, k); err != nil {
			return err
		}
		if s.a.collect != 0 && test {
			for i := gtid; i < s.a.n; i += s.nt {
				bin, err := s.collect(th, i, set, p)
				if err != nil {
					return err
				}
				hist[bin]++
			}
		}
	}
	return nil
}

// play runs this testing thread's roles of iteration k: one role per item
// (split), or every role for its own instance (envEvery), the registers
// stored after the last role as in the PTX.
func (s *simRun) play(th kernels.Thread, gtid, k, set uint32, p perm) error {
	if s.a.env&envEvery == 0 {
		for j := gtid; j < s.a.nroles*s.a.n; j += s.nt {
			r := s.a.role(j / s.a.n)
			i := p.instance(r, j%s.a.n, s.a.n)
			regs, err := s.role(th, r, i, set, p)
			if err == nil {
				err = s.storeRegs(th, regs, i, set)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	_, block := s.g.Shape()
	b := uint32(block.Count())
	e := newEvery(s.a.seed, k, s.a.testCTAs, b, s.a.env)
	inst := make([]uint32, len(s.t.Threads))
	all := make([]map[int]uint32, len(s.t.Threads))
	for r := range s.t.Threads {
		inst[r] = e.instance(p, s.a.groups, r, gtid/b, gtid%b)
		regs, err := s.role(th, r, inst[r], set, p)
		if err != nil {
			return err
		}
		all[r] = regs
	}
	for r, regs := range all {
		if err := s.storeRegs(th, regs, inst[r], set); err != nil {
			return err
		}
	}
	return nil
}

// preStress is the PTX's pre-stress: in drawn iterations, lt_pre_iters
// stress accesses before the roles.
func (s *simRun) preStress(th kernels.Thread, gtid, k uint32) error {
	if s.a.stressLines == 0 || !chance(s.a.seed, k, saltPre, s.a.env>>envShiftPre&0xFF) {
		return nil
	}
	for r := uint32(0); r < s.a.preIters; r++ {
		if err := s.stressAccess(th, gtid, r, k); err != nil {
			return err
		}
	}
	return nil
}

// spin is the PTX's spin barrier before the roles: arrive, then poll until
// every testing thread has (the spins-th time in this launch), at most
// spinPolls polls.
func (s *simRun) spin(th kernels.Thread, spins uint32) error {
	old, err := th.Atomic(kernels.OpAdd, s.a.bar+barSpin, kernels.TU32, 1, 0, kernels.Relaxed, kernels.GPU)
	if err != nil {
		return err
	}
	v, limit := uint32(old)+1, spins*s.nt
	for polls := 0; v < limit && polls < spinPolls; polls++ {
		s.g.Pause()
		w, err := th.Load(s.a.bar+barSpin, kernels.TU32, kernels.Relaxed, kernels.GPU)
		if err != nil {
			return err
		}
		v = uint32(w)
	}
	return nil
}

// gate waits for the start word like thread 0 of a CTA.
func (s *simRun) gate(th kernels.Thread) error {
	deadline := s.g.Now() + s.timeout
	for {
		v, err := th.Load(s.a.ctl, kernels.TU32, kernels.Relaxed, kernels.Sys)
		if err != nil || v != 0 {
			if err == nil {
				err = th.Fence(kernels.AcqRel, kernels.Sys)
			}
			return err
		}
		if s.g.Now() > deadline {
			return s.fail(th, statusGate, 0)
		}
		s.g.Pause()
	}
}

// role runs thread r of instance i and returns its registers. Each
// operation is followed by a pause, so the fake interleaves the threads
// finely (a GPU's latencies do that), and the role starts after a few
// pauses that differ between the roles of an instance and from instance to
// instance, as a GPU's roles start at different times: without that skew
// every Sim thread makes its first access at once, and a value one role
// stores before the other's load (LB's stores, read by the other thread's
// load) is never observed.
func (s *simRun) role(th kernels.Thread, r int, i, set uint32, p perm) (map[int]uint32, error) {
	for range mix(p.roleAdd[0]^i, uint32(r), saltRoleMul) % 8 {
		s.g.Pause()
	}
	regs := map[int]uint32{}
	err := runProgram(s.t.Threads[r], func(_ int, op Op) (uint32, error) {
		addr := locAddr(s.a.locs[max(op.Loc, 0)], p, max(op.Loc, 0), set, i, s.a.n, s.a.stride)
		v, err := s.op(th, op, addr, regs)
		if err == nil && op.Reg != NoReg {
			regs[op.Reg] = v
		}
		s.g.Pause()
		return v, err
	}, func() {})
	if err != nil {
		return nil, err
	}
	return regs, nil
}

// storeRegs stores instance i's registers of one role.
func (s *simRun) storeRegs(th kernels.Thread, regs map[int]uint32, i, set uint32) error {
	for reg, v := range regs {
		a := regAddr(s.a.regs, max(s.t.Regs(), 1), reg, set, i, s.a.n)
		if err := th.Store(a, kernels.TU32, uint64(v), kernels.Weak, kernels.Sys); err != nil {
			return err
		}
	}
	for range 3 {
		s.g.Pause()
	}
	return nil
}

// op performs one operation once (runProgram repeats a poll) and returns
// the value read.
func (s *simRun) op(th kernels.Thread, op Op, addr uint64, regs map[int]uint32) (uint32, error) {
	var v uint64
	var err error
	switch op.Kind {
	case Fence:
		return 0, th.Fence(op.Sem, op.Scope)
	case Store:
		val := op.Val
		if op.Src != NoReg {
			val += regs[op.Src]
		}
		return 0, th.Store(addr, kernels.TU32, uint64(val), op.Sem, op.Scope)
	case Load:
		v, err = th.Load(addr, kernels.TU32, op.Sem, op.Scope)
	case RMW:
		b, c := uint64(op.Val), uint64(0)
		if op.Atom == kernels.OpCAS {
			b, c = uint64(op.Cmp), uint64(op.Val)
		}
		v, err = th.Atomic(op.Atom, addr, kernels.TU32, b, c, op.Sem, op.Scope)
	}
	return uint32(v), err
}

func (s *simRun) stress(th kernels.Thread, gtid, k uint32) error {
	if s.a.stressLines == 0 {
		return nil
	}
	for r := uint32(0); r < stressRounds; r++ {
		if err := s.stressAccess(th, gtid, r, k); err != nil {
			return err
		}
	}
	return nil
}

// stressAccess is the PTX's stressAccess: a relaxed store (even r) or load
// of one stress line.
func (s *simRun) stressAccess(th kernels.Thread, gtid, r, k uint32) error {
	line := (gtid*mixK + r*mixSalt + k) % s.a.stressLines
	addr := s.a.stress + uint64(line)*stressLine
	if r&1 == 0 {
		return th.Store(addr, kernels.TU32, uint64(r), kernels.Relaxed, kernels.GPU)
	}
	_, err := th.Load(addr, kernels.TU32, kernels.Relaxed, kernels.GPU)
	return err
}

// barrier is the kernel's barrier with each thread arriving for itself.
func (s *simRun) barrier(th kernels.Thread, k uint32) error {
	k1 := uint64(k) + 1
	multi := s.a.parties > 1
	if err := s.fence(th, multi); err != nil {
		return err
	}
	old, err := th.Atomic(kernels.OpAdd, s.a.bar, kernels.TU32, 1, 0, kernels.AcqRel, kernels.GPU)
	if err != nil {
		return err
	}
	deadline := s.g.Now() + s.timeout
	if old+1 == k1*uint64(s.threads) {
		if multi {
			if err := s.parties(th, k, deadline); err != nil {
				return err
			}
		}
		if err := th.Store(s.a.bar+barGen, kernels.TU32, k1, kernels.Release, kernels.GPU); err != nil {
			return err
		}
		return s.fence(th, multi)
	}
	deadline += s.timeout // the last thread may wait a whole timeout for the parties
	for spin := 0; ; spin++ {
		v, err := th.Load(s.a.bar+barGen, kernels.TU32, kernels.Acquire, kernels.GPU)
		switch {
		case err != nil:
			return err
		case v == genAbort:
			return errStopped
		case v >= k1:
			return s.fence(th, multi)
		case spin%32 == 31 && s.g.Now() > deadline:
			return s.fail(th, statusLocal, k)
		}
		s.g.Pause()
	}
}

// parties publishes this party's epoch and waits for every party's.
func (s *simRun) parties(th kernels.Thread, k uint32, deadline time.Duration) error {
	k1 := uint64(k) + 1
	if err := th.Store(s.mine()+ctlEpoch, kernels.TU32, k1, kernels.Release, kernels.Sys); err != nil {
		return err
	}
	for q := uint64(0); q < uint64(s.a.parties); q++ {
		rec := s.a.ctl + ctlStride*(1+q)
		for {
			v, err := th.Load(rec+ctlEpoch, kernels.TU32, kernels.Acquire, kernels.Sys)
			if err != nil || v >= k1 {
				if err != nil {
					return err
				}
				break
			}
			st, err := th.Load(rec+ctlStatus, kernels.TU32, kernels.Relaxed, kernels.Sys)
			switch {
			case err != nil:
				return err
			case st != 0:
				return s.fail(th, statusOther, k)
			case s.g.Now() > deadline:
				return s.fail(th, statusParties, k)
			}
			s.g.Pause()
		}
	}
	return nil
}

func (s *simRun) fence(th kernels.Thread, multi bool) error {
	if multi {
		return th.Fence(kernels.SC, kernels.Sys)
	}
	return th.Fence(kernels.AcqRel, kernels.GPU)
}

// fail records why this party stopped and releases its waiting threads.
func (s *simRun) fail(th kernels.Thread, status, k uint32) error {
	for _, w := range []struct {
		addr uint64
		v    uint64
		sc   kernels.Scope
	}{{s.mine() + ctlIter, uint64(k), kernels.Sys}, {s.mine() + ctlStatus, uint64(status), kernels.Sys}, {s.a.bar + barGen, genAbort, kernels.GPU}} {
		if err := th.Store(w.addr, kernels.TU32, w.v, kernels.Relaxed, w.sc); err != nil {
			return err
		}
	}
	return errStopped
}

// collect reads instance i's outcome and resets its words.
func (s *simRun) collect(th kernels.Thread, i, set uint32, p perm) (int, error) {
	vals := make([]uint32, len(s.m.Obs))
	for j, o := range s.m.Obs {
		addr := regAddr(s.a.regs, max(s.t.Regs(), 1), o.Reg, set, i, s.a.n)
		if o.Reg == NoReg {
			addr = locAddr(s.a.locs[o.Loc], p, o.Loc, set, i, s.a.n, s.a.stride)
		}
		v, err := th.Load(addr, kernels.TU32, kernels.Relaxed, kernels.Sys)
		if err != nil {
			return 0, err
		}
		vals[j] = uint32(v)
		if o.Reg != NoReg {
			if err := th.Store(addr, kernels.TU32, 0, kernels.Relaxed, kernels.Sys); err != nil {
				return 0, err
			}
		}
	}
	for l := range s.t.Locs {
		addr := locAddr(s.a.locs[l], p, l, set, i, s.a.n, s.a.stride)
		if err := th.Store(addr, kernels.TU32, 0, kernels.Relaxed, kernels.Sys); err != nil {
			return 0, err
		}
	}
	return s.m.Encode(vals), nil
}
