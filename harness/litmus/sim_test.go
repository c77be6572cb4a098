// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"encoding/binary"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/kernels"
)

// These tests run the whole protocol (Sims of one or two GPUs and host
// threads, start gate, barriers, collection, histogram) on a small
// in-test memory, without the harness: a sequentially consistent memory,
// and one with a store buffer whose release stores do not wait for it (the
// fake backend's release-not-ordered defect).

type arena struct {
	base uint64
	mem  []byte
	next uint64
}

func newArena(size int) *arena {
	return &arena{base: 0x1000_0000, mem: make([]byte, size)}
}

func (a *arena) alloc(n int) uint64 {
	p := a.base + a.next
	a.next += uint64((n + 127) &^ 127)
	if a.next > uint64(len(a.mem)) {
		panic("arena too small")
	}
	return p
}

func (a *arena) word(addr uint64) *uint32 { return (*uint32)(unsafe.Pointer(&a.mem[addr-a.base])) }

type miniGrid struct {
	a           *arena
	grid, block kernels.Dim3
	start       time.Time
	buffered    bool // release-not-ordered
}

func (g *miniGrid) Shape() (kernels.Dim3, kernels.Dim3) { return g.grid, g.block }
func (g *miniGrid) Device() int                         { return 0 }
func (g *miniGrid) Now() time.Duration                  { return time.Since(g.start) }
func (g *miniGrid) Pause()                              { runtime.Gosched() }
func (g *miniGrid) Read(uint64, int) ([]byte, error)    { panic("unused") }
func (g *miniGrid) Write(uint64, []byte) error          { panic("unused") }

func (g *miniGrid) Threads(n int, f func(kernels.Thread) error) error {
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			th := &miniThread{g: g, id: i}
			errs[i] = f(th)
			if len(th.sb) > 0 {
				time.Sleep(time.Millisecond)
				th.drain()
			}
		}(i)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

type miniThread struct {
	g  *miniGrid
	id int
	sb []struct{ addr, v uint64 }
}

func (t *miniThread) ID() int { return t.id }

func (t *miniThread) drain() {
	for _, e := range t.sb {
		t.store(e.addr, e.v)
	}
	t.sb = nil
}

func (t *miniThread) store(addr, v uint64) {
	if addr%8 == 0 && v > 0xFFFFFFFF {
		panic("64-bit store")
	}
	atomic.StoreUint32(t.g.a.word(addr), uint32(v))
}

func (t *miniThread) Load(addr uint64, ty kernels.Type, sem kernels.Sem, sc kernels.Scope) (uint64, error) {
	for i := len(t.sb) - 1; i >= 0; i-- {
		if t.sb[i].addr == addr {
			return t.sb[i].v, nil
		}
	}
	return uint64(atomic.LoadUint32(t.g.a.word(addr))), nil
}

func (t *miniThread) Store(addr uint64, ty kernels.Type, v uint64, sem kernels.Sem, sc kernels.Scope) error {
	if t.g.buffered && (sem == kernels.Weak || sem == kernels.Relaxed) {
		t.sb = append(t.sb, struct{ addr, v uint64 }{addr, v})
		return nil
	}
	t.store(addr, v)
	return nil
}

func (t *miniThread) Atomic(op kernels.AtomOp, addr uint64, ty kernels.Type, b, c uint64, sem kernels.Sem, sc kernels.Scope) (uint64, error) {
	for _, e := range t.sb {
		if e.addr == addr {
			t.drain()
			break
		}
	}
	if ty == kernels.TU64 {
		p := (*uint64)(unsafe.Pointer(t.g.a.word(addr)))
		return atomic.AddUint64(p, b) - b, nil
	}
	w := t.g.a.word(addr)
	for {
		old := atomic.LoadUint32(w)
		nv, write := applyRMW(Op{Atom: op, Val: uint32(b), Cmp: uint32(b)}, old)
		if op == kernels.OpCAS {
			nv, write = uint32(c), old == uint32(b)
		}
		if !write || atomic.CompareAndSwapUint32(w, old, nv) {
			return uint64(old), nil
		}
	}
}

func (t *miniThread) Fence(sem kernels.Sem, sc kernels.Scope) error {
	t.drain()
	return nil
}

type simSetup struct {
	iters, n, block uint32
	buffered        bool
	timeout         time.Duration
	skipParty       int    // a party index that never starts (-1: none)
	stressCTAs      uint32 // extra CTAs of stress threads on each GPU
	env, preIters   uint32 // lt_env and lt_pre_iters (between CTAs)
}

// runSim runs test tt in placement pl on the in-test memory and returns the
// histogram and the parties' statuses.
func runSim(t *testing.T, tt *Test, pl Placement, s simSetup) ([]uint64, []uint32) {
	t.Helper()
	const stride = 16
	a := newArena(1 << 22)
	var locs []uint64
	for range tt.Locs {
		locs = append(locs, a.alloc(int(2*s.n*stride)))
	}
	m := tt.Model()
	regs := a.alloc(int(2 * uint32(max(tt.Regs(), 1)) * s.n * 4))
	hist := a.alloc(8 * m.Bins)
	ctl := a.alloc(ctlBytes)
	units := []Unit{UnitA}
	if pl.Kind == TwoGPUs {
		units = append(units, UnitB)
	}
	hostRoles := pl.rolesOn(UnitHost)
	workers := 0
	if len(hostRoles) > 0 {
		workers = 2
	}
	parties := uint32(len(units) + workers)
	base := launchArgs{locs: locs, regs: regs, hist: hist, ctl: ctl, n: s.n, iters: s.iters, seed: 42,
		parties: parties, stride: stride, timeoutNS: uint64(s.timeout), env: s.env, preIters: s.preIters}
	var wg sync.WaitGroup
	errs := make([]error, len(units))
	for p, u := range units {
		if p == s.skipParty {
			continue
		}
		roles := pl.rolesOn(u)
		la := base
		la.roles, la.nroles, la.party, la.bar = packRoles(roles), uint32(len(roles)), uint32(p), a.alloc(barBytes)
		la.testCTAs = uint32(len(roles)) * s.n / s.block
		if s.env&envEvery != 0 {
			la.testCTAs = s.n / s.block
		}
		if p == 0 {
			la.collect = 1
		}
		if s.stressCTAs > 0 || s.preIters > 0 {
			la.stressLines, la.stress = 8, a.alloc(8*stressLine)
		}
		g := &miniGrid{a: a, grid: kernels.D1(la.testCTAs + s.stressCTAs), block: kernels.D1(s.block), start: time.Now(), buffered: s.buffered}
		wg.Add(1)
		go func(p int) { defer wg.Done(); errs[p] = simFunc(tt)(g, la.list()) }(p)
	}
	hb := &backend.HostBuffer{Ptr: backend.DevicePtr(a.base), Mem: a.mem}
	var stop atomic.Bool
	for w := 0; w < workers; w++ {
		la := base
		la.roles, la.nroles, la.party = packRoles(hostRoles), uint32(len(hostRoles)), uint32(len(units)+w)
		hp := &hostParty{t: tt, a: la, mem: hostMem{hb}, worker: uint32(w), workers: uint32(workers), timeout: s.timeout, stop: &stop}
		wg.Add(1)
		go func() { defer wg.Done(); hp.run() }()
	}
	atomic.StoreUint32(a.word(ctl), 1)
	wg.Wait()
	for p, err := range errs {
		if err != nil {
			t.Fatalf("%s: party %d: %v", tt.Name(), p, err)
		}
	}
	out := make([]uint64, m.Bins)
	for i := range out {
		out[i] = binary.LittleEndian.Uint64(a.mem[hist-a.base+8*uint64(i):])
	}
	var st []uint32
	for p := uint32(0); p < parties; p++ {
		st = append(st, *a.word(ctl + ctlStride*uint64(1+p) + ctlStatus))
	}
	return out, st
}

func classCounts(tt *Test, hist []uint64) (total uint64, by map[Class]uint64) {
	by = map[Class]uint64{}
	m := tt.Model()
	for bin, c := range hist {
		total += c
		by[m.Class(bin)] += c
	}
	return total, by
}

func TestSimCountsEveryInstanceOnSCMemory(t *testing.T) {
	for _, name := range []string{"MP rel.sys/acq.sys", "SB F.sc.sys", "ISA2 rel.sys/acq.sys", "CoWR rlx.sys", "atomicity atom.add.rlx.sys"} {
		tt := findTest(t, name)
		for _, kind := range []PlaceKind{CTAs, TwoGPUs, WithHost} {
			for _, pl := range tt.Placements(kind) {
				setup := simSetup{iters: 6, n: 32, block: 16, timeout: 5 * time.Second, skipParty: -1}
				hist, st := runSim(t, tt, pl, setup)
				total, by := classCounts(tt, hist)
				if total != uint64(setup.iters*setup.n) || by[Target]+by[OtherWeak]+by[Impossible] != 0 {
					t.Errorf("%s %s: %d instances counted (want %d), classes %v, statuses %v", name, pl.Describe(tt, "A", "B"), total, setup.iters*setup.n, by, st)
				}
			}
		}
	}
}

func TestSimShowsReleaseNotOrdered(t *testing.T) {
	tt := findTest(t, "MP rel.sys/acq.sys")
	for _, pl := range append(tt.Placements(CTAs), tt.Placements(TwoGPUs)...) {
		hist, _ := runSim(t, tt, pl, simSetup{iters: 20, n: 32, block: 16, buffered: true, timeout: 5 * time.Second, skipParty: -1})
		if _, by := classCounts(tt, hist); by[Target] == 0 {
			t.Errorf("%s: release stores that do not wait for earlier stores never showed r0=1 r1=0: %v", pl.Describe(tt, "A", "B"), by)
		}
	}
}

func TestSimStopsWhenAPartyNeverComes(t *testing.T) {
	tt := findTest(t, "MP rel.sys/acq.sys")
	pl := tt.Placements(TwoGPUs)[0]
	hist, st := runSim(t, tt, pl, simSetup{iters: 4, n: 32, block: 16, timeout: 100 * time.Millisecond, skipParty: 1})
	if total, _ := classCounts(tt, hist); total != 0 || st[0] != statusParties {
		t.Errorf("counted %d instances, statuses %v; want none counted and party 0 stopped with %d", total, st, statusParties)
	}
}

func TestSimWithStressThreads(t *testing.T) {
	tt := findTest(t, "MP rel.sys/acq.sys")
	for _, pl := range append(tt.Placements(CTAs), tt.Placements(TwoGPUs)[0]) {
		setup := simSetup{iters: 5, n: 32, block: 16, timeout: 5 * time.Second, skipParty: -1, stressCTAs: 2}
		hist, st := runSim(t, tt, pl, setup)
		if total, by := classCounts(tt, hist); total != uint64(setup.iters*setup.n) || by[Target] != 0 {
			t.Errorf("%s with stress CTAs: %d instances (want %d), classes %v, statuses %v", pl.Describe(tt, "A", "B"), total, setup.iters*setup.n, by, st)
		}
	}
}

// Every role in every thread, with each knob of the environment on: every
// instance is still counted once with a sequentially consistent outcome on
// SC memory, and the fake's release-not-ordered defect still shows.
func TestSimEveryRoleEnvironment(t *testing.T) {
	all := uint32(envEvery|envPermuteLanes) | 50<<envShiftShuffle | 100<<envShiftSpin | 100<<envShiftPre
	for _, env := range []uint32{envEvery, all, all | envSameSlot} {
		for _, name := range []string{"MP rel.sys/acq.sys", "ISA2 rel.sys/acq.sys", "MP once rel.gpu/acq.gpu", "WRC once rel.gpu/acq.gpu", "ISA2 once rel.gpu/acq.gpu"} {
			tt := findTest(t, name)
			pl := tt.Placements(CTAs)[0]
			setup := simSetup{iters: 6, n: 32, block: 4, timeout: 5 * time.Second, skipParty: -1, env: env, preIters: 3}
			hist, st := runSim(t, tt, pl, setup)
			total, by := classCounts(tt, hist)
			if total != uint64(setup.iters*setup.n) || by[Target]+by[OtherWeak]+by[Impossible] != 0 {
				t.Errorf("%s env %#x: %d instances counted (want %d), classes %v, statuses %v", name, env, total, setup.iters*setup.n, by, st)
			}
		}
		tt := findTest(t, "MP rel.sys/acq.sys")
		hist, _ := runSim(t, tt, tt.Placements(CTAs)[0], simSetup{iters: 20, n: 32, block: 4, buffered: true, timeout: 5 * time.Second, skipParty: -1, env: env})
		if _, by := classCounts(tt, hist); by[Target] == 0 {
			t.Errorf("env %#x: release stores that do not wait for earlier stores never showed r0=1 r1=0: %v", env, by)
		}
	}
}

// every.instance gives each role a bijection from threads to instances and
// puts the roles of an instance in different CTAs.
func TestEveryRolePlacement(t *testing.T) {
	const ctas, block = 8, 16
	for k := uint32(0); k < 20; k++ {
		p := newPerm(7, k, ctas*block)
		e := newEvery(7, k, ctas, block, envPermuteLanes|100<<envShiftShuffle)
		ctaOf := map[uint32]map[uint32]bool{}
		for r := 0; r < 3; r++ {
			seen := map[uint32]bool{}
			for c := uint32(0); c < ctas; c++ {
				for l := uint32(0); l < block; l++ {
					i := e.instance(p, PackGroups(nil, 3), r, c, l)
					if i >= ctas*block || seen[i] {
						t.Fatalf("iteration %d role %d: instance %d out of range or played twice", k, r, i)
					}
					seen[i] = true
					if ctaOf[i] == nil {
						ctaOf[i] = map[uint32]bool{}
					}
					ctaOf[i][c] = true
				}
			}
		}
		for i, cs := range ctaOf {
			if len(cs) != 3 {
				t.Fatalf("iteration %d: the 3 roles of instance %d sit in %d CTAs", k, i, len(cs))
			}
		}
	}
}

func TestResultStatistics(t *testing.T) {
	tt := findTest(t, "MP rel.sys/acq.sys")
	m := tt.Model()
	r := &Result{Case: ctasCase(tt), Hist: make([]uint64, m.Bins), Launched: 1_000_100, Elapsed: time.Second}
	r.Hist[m.Encode([]uint32{1, 1})] = 999_000
	r.Hist[m.Encode([]uint32{0, 0})] = 1_000
	if r.Instances() != 1_000_000 || r.Skipped() != 100 || r.Violations() != 0 {
		t.Errorf("instances %d skipped %d violations %d", r.Instances(), r.Skipped(), r.Violations())
	}
	if ub := r.UpperBound95(); ub < 2.99e-6 || ub > 3.0e-6 {
		t.Errorf("upper bound with no violation in 1e6: %g, want about 3/N", ub)
	}
	r.Hist[m.Encode([]uint32{1, 0})] = 10
	if r.Violations() != 10 || r.UpperBound95() <= 10.0/1_000_010 {
		t.Errorf("violations %d, upper bound %g", r.Violations(), r.UpperBound95())
	}
	// The same histogram from the relaxed mutant: the model allows the
	// stale read there, so nothing is a violation; the verdict field does
	// not decide it, the model does.
	mutant := &Result{Case: ctasCase(findTest(t, "MP rlx.sys")), Hist: r.Hist}
	if mutant.Violations() != 0 || mutant.Count(Target) != 10 {
		t.Errorf("a mutant: violations %d, weak outcomes %d", mutant.Violations(), mutant.Count(Target))
	}
	mutant.Case.Verdict = Forbidden
	if mutant.Violations() != 0 {
		t.Errorf("a case's verdict field decided its violations: %d", mutant.Violations())
	}
}

// TestGroupedRolePlacement: with a grouping, each role is still a bijection
// from threads to instances; the roles of one group of an instance run in
// one CTA on different warps, those of different groups in different CTAs.
func TestGroupedRolePlacement(t *testing.T) {
	const ctas, block, warp = 8, 128, 32
	for _, n := range []int{2, 3, 4} {
		for _, g := range AllGroupings(n) {
			groups := PackGroups(g, n)
			for k := uint32(0); k < 5; k++ {
				p := newPerm(11, k, ctas*block)
				e := newEvery(11, k, ctas, block, envPermuteLanes|50<<envShiftShuffle)
				type where struct{ cta, lane uint32 }
				at := map[uint32][]where{}
				for r := 0; r < n; r++ {
					seen := map[uint32]bool{}
					for c := uint32(0); c < ctas; c++ {
						for l := uint32(0); l < block; l++ {
							i := e.instance(p, groups, r, c, l)
							if i >= ctas*block || seen[i] {
								t.Fatalf("%s role %d: instance %d out of range or played twice", g.Key(), r, i)
							}
							seen[i] = true
							at[i] = append(at[i], where{c, l})
						}
					}
				}
				for i, ws := range at {
					for a := 0; a < n; a++ {
						for b := a + 1; b < n; b++ {
							sameCTA := ws[a].cta == ws[b].cta
							if g[a] == g[b] && (!sameCTA || ws[a].lane/warp == ws[b].lane/warp) {
								t.Fatalf("%s instance %d: roles %d and %d of one group at %v and %v", g.Key(), i, a, b, ws[a], ws[b])
							}
							if g[a] != g[b] && sameCTA {
								t.Fatalf("%s instance %d: roles %d and %d of different groups in CTA %d", g.Key(), i, a, b, ws[a].cta)
							}
						}
					}
				}
			}
		}
	}
}
