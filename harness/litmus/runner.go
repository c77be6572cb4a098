// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/machine"
	"github.com/p2pconf/p2pconf/kernels"
)

// gpuParty is one GPU's kernel in a run.
type gpuParty struct {
	gpu      machine.GPU
	roles    []int
	party    uint32
	stream   backend.Stream
	bar      backend.DevicePtr
	stress   backend.DevicePtr
	ctas     int
	testCTAs int
}

// runner holds one case's resources; everything comes from the fixture and
// is released after the spec.
type runner struct {
	ctx     context.Context
	h       Fixture
	c       Case
	env     Env
	t       *Test
	k       *kernels.Kernel
	gpus    []*gpuParty
	hostRls []int
	workers int
	n       uint32
	locs    []uint64
	regs    uint64
	hist    backend.DevicePtr
	ctl     *backend.HostBuffer
	host    hostMem
	zero    []func()
	dirty   bool
	res     *Result
}

// Run runs case c until its goal (Env.Goal: a target count of instances or
// weak outcomes, or a time cap) and returns what it saw. Requirements the
// machine does not meet skip the spec; harness and driver errors fail it.
func Run(ctx context.Context, h Fixture, c Case, env Env) *Result {
	h.Helper()
	env = env.For(c)
	goal := env.Goal(c)
	r := &runner{ctx: ctx, h: h, c: c, env: env, t: c.Test, k: withJIT(c.Test.Kernel(), env.JIT), res: &Result{Case: c, Goal: goal}}
	r.require()
	r.plan()
	r.allocate()
	seed := uint32(machine.Seed(CheckID, c.Name()))
	iters := env.FirstIters
	start := time.Now()
	for launch := 0; ; launch++ {
		took := r.launch(uint32(iters), seed+uint32(launch)*0x9E3779B1)
		r.readHistogram()
		r.res.Wall = time.Since(start)
		if r.res.Stop = r.stopped(goal); r.res.Stop != "" {
			break
		}
		iters = r.nextIters(goal, iters, took)
	}
	return r.res
}

// stopped says why the run stops after a launch, or "" to go on.
func (r *runner) stopped(goal Goal) StopReason {
	switch {
	case r.res.Reached() >= goal.Want && (goal.Hits || r.res.Vacuous() == ""):
		// A forbidden run that has not yet seen every value its threads
		// store goes on to its cap: it would end as vacuous otherwise.
		return StopTarget
	case r.res.Wall >= goal.CapAt(r.res.Reached()):
		return StopCap
	case r.ctx.Err() != nil:
		return StopInterrupted
	case r.res.consecutiveAborts >= 3:
		return StopAborted
	}
	return ""
}

// nextIters sizes the next launch: what is left to the goal at the rate
// seen so far (rounded up, so stopping overshoots by less than one
// iteration), at most LaunchTime or what is left of the cap, and growing
// at most 4× per launch, since the first, short launch includes the
// start-up and says little about the time per iteration. The launches
// grow geometrically, so their fixed cost (a few ms each) stays small
// against the run.
func (r *runner) nextIters(goal Goal, iters int, took time.Duration) int {
	perIter := max(took/time.Duration(iters), 100*time.Nanosecond)
	want := max(min(r.env.LaunchTime, goal.CapAt(r.res.Reached())-r.res.Wall)/perIter, 1)
	if perIterCount := float64(r.res.Reached()) / float64(r.res.Iterations); perIterCount > 0 && r.res.Reached() < goal.Want {
		left := float64(goal.Want - r.res.Reached())
		want = min(want, time.Duration(math.Ceil(left/perIterCount)))
	}
	return int(max(1, min(want, time.Duration(4*iters), time.Duration(r.maxIters()))))
}

// maxIters bounds a launch so that the barrier counter (iterations × CTAs
// of a GPU) stays below 2^31.
func (r *runner) maxIters() int {
	most := 1
	for _, gp := range r.gpus {
		most = max(most, gp.ctas)
	}
	most = min(maxIters, (1<<31)/most)
	if r.env.Bits>>envShiftSpin&0xFF != 0 {
		// the spin counter (iterations that spin × testing threads)
		// stays below 2^32
		for _, gp := range r.gpus {
			most = min(most, (1<<32-1)/(gp.testCTAs*r.env.Block)-1)
		}
	}
	return max(most, 1)
}

// require skips what the machine cannot run: the pair's peer access both
// ways (a triple's among all three GPUs), mapped host memory, native
// atomics where a test's RMW crosses a link.
func (r *runner) require() {
	r.h.Helper()
	c, pl := r.c, r.c.Place
	if pl.Kind == WithHost {
		r.h.RequireAttribute(c.A, backend.AttrCanMapHostMemory, 1)
		if pl.HostRMW(c.Test) {
			r.h.RequireAttribute(c.A, backend.AttrHostNativeAtomicSupported, 1)
		}
	}
	if c.Triple != nil {
		r.requireTriple()
	}
	if c.Pair != nil {
		back := c.Pair.Reverse()
		r.h.RequirePeerAccess(*c.Pair)
		r.h.RequirePeerAccess(back)
		if pl.PeerRMW(c.Test) {
			r.h.RequireP2PAttribute(*c.Pair, backend.P2PNativeAtomicSupported, 1)
			r.h.RequireP2PAttribute(back, backend.P2PNativeAtomicSupported, 1)
		}
		r.h.MustEnablePeerAccess(*c.Pair)
		r.h.MustEnablePeerAccess(back)
	}
}

// requireTriple skips a triple's case, before the first check, unless all
// six directions among its GPUs have peer access (every GPU of a
// three-GPU placement may read or write another's memory), with native
// atomics where an RMW crosses a link, and enables them.
func (r *runner) requireTriple() {
	r.h.Helper()
	pairs := r.c.Triple.Pairs()
	for _, p := range pairs {
		ok, err := r.h.B().CanAccessPeer(p.A.Ordinal, p.B.Ordinal)
		r.h.NoError(err, "cuDeviceCanAccessPeer(%s, %s)", p.A, p.B)
		if !ok {
			r.h.Skip(fmt.Sprintf("needs peer access among all three GPUs of %s (A↔B, B↔C, A↔C); found cuDeviceCanAccessPeer=0 for %s", r.c.Triple, p))
		}
	}
	if r.c.Place.PeerRMW(r.t) {
		for _, p := range pairs {
			r.h.RequireP2PAttribute(p, backend.P2PNativeAtomicSupported, 1)
		}
	}
	for _, p := range pairs {
		r.h.MustEnablePeerAccess(p)
	}
}

// plan assigns the roles to parties and sizes the launch: instances per
// iteration n (a power of two, a multiple of the block, so the roles of an
// instance always sit in different CTAs) within every GPU's co-resident
// capacity, since spinning CTAs must never wait for CTAs that cannot start.
func (r *runner) plan() {
	r.h.Helper()
	pl := r.c.Place
	r.hostRls = pl.rolesOn(UnitHost)
	limit := r.env.Instances
	if len(r.hostRls) > 0 {
		limit = r.env.HostInstances
		r.workers = r.env.HostWorkers
		if r.workers == 0 {
			r.workers = HostWorkersFor(runtime.NumCPU(), len(r.h.B().Devices()))
		}
	}
	n := uint32(1) << (bits.Len(uint(limit)) - 1)
	for i, g := range r.c.GPUs() {
		u := Unit(i)
		gp := &gpuParty{gpu: g, roles: pl.rolesOn(u), party: uint32(i)}
		per, err := r.h.B().MaxActiveBlocks(g.Ordinal, r.k, r.env.Block)
		r.h.NoError(err, "cuOccupancyMaxActiveBlocksPerMultiprocessor for %s on %s (block %d)", r.k, g, r.env.Block)
		sms := r.h.Attribute(g, backend.AttrMultiprocessorCount)
		gp.ctas = per * sms
		fit := gp.ctas * r.env.Block / max(len(gp.roles), 1)
		if r.env.Every {
			fit = gp.ctas * r.env.Block
		}
		if fit < r.env.Block {
			r.h.Fail(fmt.Sprintf("%s on %s: %d CTAs of %d threads are resident at once (%d per SM × %d SMs), too few for %d roles",
				r.t.Name(), g, gp.ctas, r.env.Block, per, sms, len(gp.roles)))
		}
		n = min(n, uint32(1)<<(bits.Len(uint(fit))-1))
		r.gpus = append(r.gpus, gp)
	}
	if n < uint32(r.env.Block) {
		r.h.Fail(fmt.Sprintf("%s: %d instances per iteration, fewer than the %d threads of a CTA", r.t.Name(), n, r.env.Block))
	}
	if g := r.c.Place.Groups; g.Shared() && r.env.Block/4 < r.env.WarpSize {
		r.h.Fail(fmt.Sprintf("%s: threads of one CTA run a quarter of the CTA apart, on different warps only in CTAs of at least %d threads (the environment has %d)", r.t.Name(), 4*r.env.WarpSize, r.env.Block))
	}
	if r.env.Every && int(n) < len(r.t.Threads)*r.env.Block {
		r.h.Fail(fmt.Sprintf("%s: %d instances per iteration in CTAs of %d threads: fewer CTAs than the %d roles, which must sit in different CTAs",
			r.t.Name(), n, r.env.Block, len(r.t.Threads)))
	}
	r.n = n
	for _, gp := range r.gpus {
		gp.testCTAs = len(gp.roles) * int(n) / r.env.Block
		if r.env.Every {
			gp.testCTAs = int(n) / r.env.Block
		}
		if !r.env.Stress {
			gp.ctas = gp.testCTAs
		}
		r.res.Grids = append(r.res.Grids, fmt.Sprintf("%s: %d CTAs × %d threads (%d testing, roles %v)", gp.gpu, gp.ctas, r.env.Block, gp.testCTAs, gp.roles))
	}
	if r.workers > 0 {
		r.res.Grids = append(r.res.Grids, fmt.Sprintf("host: %d goroutines (roles %v)", r.workers, r.hostRls))
	}
	if parties := len(r.gpus) + r.workers; parties > maxParties {
		r.h.Fail(fmt.Sprintf("%s: %d parties, at most %d", r.c.Test.Name(), parties, maxParties))
	}
}

// allocate makes the location sets, registers, histogram, control and
// barrier blocks, all zero.
func (r *runner) allocate() {
	r.h.Helper()
	pl, h, a := r.c.Place, r.h, r.c.A
	words := 2 * int(r.n) * r.slotStride() / 4
	gpus := r.c.GPUs()
	if r.env.Interleaved {
		// one buffer; location l of slot s at s·L·stride + l·stride
		base := r.buffer(pl.Homes[0], a, words)
		for l := range pl.Homes {
			r.locs = append(r.locs, base+uint64(l*r.env.Stride))
		}
	}
	for _, u := range pl.Homes {
		if r.env.Interleaved {
			break
		}
		g := a
		if u >= 0 {
			g = gpus[u]
		}
		r.locs = append(r.locs, r.buffer(u, g, words))
	}
	regHome := UnitA
	if len(r.hostRls) > 0 {
		regHome = UnitHost
	}
	r.regs = r.buffer(regHome, a, 2*max(r.t.Regs(), 1)*int(r.n))
	r.hist = h.Alloc(a, uint64(8*r.t.Model().Bins))
	h.Fill(a, r.hist, 0, 2*r.t.Model().Bins)
	r.ctl = h.HostAlloc(a, ctlBytes, backend.HostAllocDeviceMap|backend.HostAllocPortable)
	r.host = append(r.host, r.ctl)
	for _, gp := range r.gpus {
		gp.stream = h.Stream(gp.gpu)
		gp.bar = h.Alloc(gp.gpu, barBytes)
		if r.env.Stress || r.env.PreIters > 0 {
			gp.stress = h.Alloc(gp.gpu, uint64(r.env.StressLines*stressLine))
		}
	}
}

// slotStride is the bytes between two slots of a location: the stride, or
// with interleaved locations the stride times the locations.
func (r *runner) slotStride() int {
	if r.env.Interleaved {
		return len(r.t.Locs) * r.env.Stride
	}
	return r.env.Stride
}

// buffer allocates a zeroed buffer of words on a GPU or in pinned host
// memory, remembering how to zero it again after an interrupted launch.
func (r *runner) buffer(u Unit, g machine.GPU, words int) uint64 {
	r.h.Helper()
	if u == UnitHost {
		hb := r.h.HostAlloc(r.c.A, uint64(4*words), backend.HostAllocDeviceMap|backend.HostAllocPortable)
		r.host = append(r.host, hb)
		r.zero = append(r.zero, func() { clear(hb.Mem) })
		return uint64(hb.Ptr)
	}
	p := r.h.Alloc(g, uint64(4*words))
	zero := func() { r.h.Fill(g, p, 0, words) }
	zero()
	r.zero = append(r.zero, zero)
	return uint64(p)
}

// launch runs one launch of iters iterations on every party and returns its
// wall time, from opening the gate to the last party's end.
func (r *runner) launch(iters, seed uint32) time.Duration {
	r.h.Helper()
	if r.dirty {
		for _, z := range r.zero {
			z()
		}
		r.dirty = false
	}
	for i := 0; i < ctlBytes/4; i++ {
		atomic.StoreUint32(r.host.word(uint64(r.ctl.Ptr)+uint64(4*i)), 0)
	}
	parties := uint32(len(r.gpus) + r.workers)
	for _, gp := range r.gpus {
		r.h.NoError(r.h.B().Memset32Async(gp.stream, gp.bar, 0, barBytes/4), "reset the litmus barrier on %s", gp.gpu)
		r.h.Launch(gp.stream, r.k, backend.LaunchConfig{Grid: kernels.D1(uint32(gp.ctas)), Block: kernels.D1(uint32(r.env.Block))},
			r.args(gp.roles, gp.party, parties, iters, seed, gp).list()...)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	hostRoles := make([]int, len(r.hostRls))
	copy(hostRoles, r.hostRls)
	for w := 0; w < r.workers; w++ {
		hp := &hostParty{t: r.t, a: r.args(hostRoles, uint32(len(r.gpus)+w), parties, iters, seed, nil), mem: r.host,
			worker: uint32(w), workers: uint32(r.workers), timeout: r.env.Timeout, stop: &stop}
		wg.Add(1)
		go func() { defer wg.Done(); hp.run() }()
	}
	start := time.Now()
	atomic.StoreUint32(r.host.word(uint64(r.ctl.Ptr)), 1)
	var err error
	for _, gp := range r.gpus {
		if err == nil {
			err = r.h.Wait(r.ctx, gp.stream, fmt.Sprintf("litmus %s on %s", r.t.Name(), gp.gpu))
		}
	}
	if err != nil {
		stop.Store(true)
	}
	wg.Wait()
	took := time.Since(start)
	r.h.NoError(err, "run litmus %s %s", r.t.Name(), r.c.Where())
	r.res.record(iters, r.n, took, r.statuses(parties))
	r.dirty = r.res.consecutiveAborts > 0
	return took
}

// args are one party's kernel arguments (gp is nil for a host worker).
func (r *runner) args(roles []int, party, parties, iters, seed uint32, gp *gpuParty) launchArgs {
	a := launchArgs{locs: r.locs, regs: r.regs, hist: uint64(r.hist), ctl: uint64(r.ctl.Ptr),
		n: r.n, iters: iters, seed: seed, party: party, parties: parties,
		roles: packRoles(roles), nroles: uint32(len(roles)), stride: uint32(r.slotStride()),
		timeoutNS: uint64(r.env.Timeout), env: r.env.Bits, preIters: uint32(r.env.PreIters), groups: PackGroups(r.c.Place.Groups, len(r.t.Threads))}
	if gp != nil {
		a.bar, a.stress, a.testCTAs = uint64(gp.bar), uint64(gp.stress), uint32(gp.testCTAs)
		if gp.party == 0 {
			a.collect = 1
		}
		if r.env.Stress || r.env.PreIters > 0 {
			a.stressLines = uint32(r.env.StressLines)
		}
	}
	return a
}

// statuses reads why parties stopped early, if they did.
func (r *runner) statuses(parties uint32) []string {
	var out []string
	for p := uint32(0); p < parties; p++ {
		rec := uint64(r.ctl.Ptr) + ctlStride*uint64(1+p)
		st := atomic.LoadUint32(r.host.word(rec + ctlStatus))
		if st == statusOK || st == statusOther {
			continue
		}
		who := fmt.Sprintf("host thread %d", int(p)-len(r.gpus))
		if int(p) < len(r.gpus) {
			who = r.gpus[p].gpu.String()
		}
		out = append(out, fmt.Sprintf("%s stopped in iteration %d: %s", who, atomic.LoadUint32(r.host.word(rec+ctlIter)), statusText[st]))
	}
	return out
}

func (r *runner) readHistogram() {
	r.h.Helper()
	bins := r.t.Model().Bins
	b := make([]byte, 8*bins)
	r.h.NoError(r.h.B().CopyFromDevice(r.c.A.Ordinal, b, r.hist), "read the litmus histogram from %s", r.c.A)
	r.res.Hist = make([]uint64, bins)
	for i := range r.res.Hist {
		r.res.Hist[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
}

// withJIT is k compiled as jit says: k itself for the driver's default,
// else a copy carrying the options, with a module name of its own so that a
// backend that caches modules by name never hands out the default build.
func withJIT(k *kernels.Kernel, jit kernels.JITOptions) *kernels.Kernel {
	if jit == (kernels.JITOptions{}) {
		return k
	}
	c := *k
	c.JIT = jit
	c.Module = k.Module + "@" + jit.String()
	return &c
}
