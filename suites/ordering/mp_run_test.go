// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package ordering_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/kernels"
)

// Flag-handoff geometry (docs/litmus.md, "How an instance runs"):
// one writer thread on A and one reader thread on B per instance, the
// reader of instance i sitting at a permuted position (odd multiplier,
// changed every launch), locations 128 bytes apart, both kernels started
// together by a gate word in mapped pinned host memory.
const (
	mpWords    = 4                     // data words per instance
	mpGateWait = 5 * time.Second       // how long a CTA waits for the gate
	mpSpin     = 20 * time.Millisecond // how long a reader polls its flag
	mpMaxInst  = 1 << 16               // instances per launch, at most
	mpMinRuns  = 2                     // launches every spec makes, at least
	mpMaxRuns  = 400                   // launches a spec makes, at most
	mpWant     = 1000                  // a mutant stops once it saw this many weak outcomes
)

// mpVariant is one way of publishing and observing the flag.
type mpVariant struct {
	what, key      string // key: the form in the spec's variant key
	writer, reader kernels.MPMode
	// pre: the reader also loads the data before it polls the flag
	// (kernels.MPPreRead).
	pre bool
}

// readerMode is the reader's mode argument.
func (v mpVariant) readerMode() kernels.MPMode {
	if v.pre {
		return v.reader | kernels.MPPreRead
	}
	return v.reader
}

// oneGPU is the pair of g with itself, for the one-GPU form of the handoff.
func oneGPU(g harness.GPU) harness.Pair { return harness.Pair{A: g, B: g, Link: "none"} }

// mpRun is one pair's flag handoff: writer kernels on A, reader kernels on
// B, data and flags in home's memory, counters in B's.
type mpRun struct {
	p                harness.Pair
	v                mpVariant
	home             harness.GPU
	n, gen           uint32
	data, flags      harness.DevicePtr
	counts           harness.DevicePtr
	wStatus, rStatus harness.DevicePtr
	gate             *harness.HostBuffer
	sA, sB           harness.Stream
}

// mpTally is what the readers counted (kernels.MPSeen ...).
type mpTally struct {
	seen, staleInst, staleWords, notSeen uint64
	preOld                               uint64 // pre-read words not new yet (kernels.MPPreOld)
	launches                             int
	elapsed                              time.Duration
}

// newMPRun sets up p's handoff; a pair of one GPU with itself (oneGPU) is
// the one-GPU form: writer and reader kernels on two streams of that GPU,
// which needs no peer access.
func newMPRun(h *harness.Harness, p harness.Pair, v mpVariant, home harness.GPU) *mpRun {
	GinkgoHelper()
	switch {
	case p.A.Ordinal == p.B.Ordinal:
	case home.Ordinal == p.A.Ordinal:
		h.RequirePeerAccess(p.Reverse())
		h.MustEnablePeerAccess(p.Reverse())
	default:
		h.RequirePeerAccess(p)
		h.MustEnablePeerAccess(p)
	}
	n := uint32(1)
	for n*2 <= mpMaxInst && n*2 <= uint32(max(1, min(p.A.Info.SMCount, p.B.Info.SMCount)))*512 {
		n *= 2
	}
	r := &mpRun{p: p, v: v, home: home, n: n,
		data: h.Alloc(home, uint64(n)*kernels.MPStride), flags: h.Alloc(home, uint64(n)*kernels.MPStride),
		counts: h.Alloc(p.B, 4*kernels.MPCountWords), wStatus: h.Alloc(p.A, 8), rStatus: h.Alloc(p.B, 8),
		gate: h.HostAlloc(p.A, 4096, harness.HostAllocPortable|harness.HostAllocDeviceMap),
		sA:   h.Stream(p.A), sB: h.Stream(p.B)}
	h.Fill(home, r.data, 0, int(n)*kernels.MPStride/4)
	h.Fill(home, r.flags, 0, int(n)*kernels.MPStride/4)
	h.Fill(p.B, r.counts, 0, kernels.MPCountWords)
	h.Fill(p.A, r.wStatus, 0, 2)
	h.Fill(p.B, r.rStatus, 0, 2)
	atomic.StoreUint32(r.gateWord(), 0)
	return r
}

func (r *mpRun) gateWord() *uint32 { return harness.HostWord32(r.gate.Mem, 0) }

// run launches writer and reader until budget is spent (at least mpMinRuns
// launches, at most mpMaxRuns) or until stop says enough, and returns the
// counts over all launches.
func (r *mpRun) run(ctx context.Context, h *harness.Harness, budget time.Duration, stop func(mpTally) bool) mpTally {
	GinkgoHelper()
	var t mpTally
	start := time.Now()
	for t.launches < mpMaxRuns && (t.launches < mpMinRuns || (time.Since(start) < budget && !stop(t))) {
		r.launch(ctx, h, uint32(2*t.launches+1)*0x9E3779B1|1)
		t.launches++
		if t.launches%8 == 0 || t.launches == mpMinRuns {
			t = r.tally(h, t.launches)
		}
	}
	t = r.tally(h, t.launches)
	t.elapsed = time.Since(start)
	ws, rs := h.Download(r.p.A, r.wStatus, 2), h.Download(r.p.B, r.rStatus, 2)
	Expect(ws[0]+rs[0]).To(BeZero(), "start gate: %d writer CTAs on %s and %d reader CTAs on %s gave up after %s", ws[0], r.p.A, rs[0], r.p.B, mpGateWait)
	Expect(ws[1]+rs[1]).To(BeZero(), "the flag-handoff kernels did not know mode %d/%d", r.v.writer, r.v.reader)
	return t
}

// launch runs one generation: the writer on A and the reader on B behind
// the gate, which opens once both are queued.
func (r *mpRun) launch(ctx context.Context, h *harness.Harness, mult uint32) {
	GinkgoHelper()
	r.gen++
	defer atomic.StoreUint32(r.gateWord(), r.gen) // never leave a kernel waiting out the gate
	grid := kernels.D1((r.n + 255) / 256)
	cfg := harness.LaunchConfig{Grid: grid, Block: kernels.D1(256)}
	h.Launch(r.sA, kernels.MPWrite, cfg, uint64(r.data), uint64(r.flags), uint64(r.n), mpWords, uint64(r.gen),
		uint64(r.v.writer), uint64(r.gate.Ptr), uint64(r.wStatus), uint64(mpGateWait))
	h.Launch(r.sB, kernels.MPRead, cfg, uint64(r.data), uint64(r.flags), uint64(r.n), mpWords, uint64(r.gen),
		uint64(mult), uint64(r.v.readerMode()), uint64(r.counts), uint64(r.gate.Ptr), uint64(r.rStatus), uint64(mpGateWait), uint64(mpSpin))
	atomic.StoreUint32(r.gateWord(), r.gen)
	h.MustWait(ctx, r.sA, fmt.Sprintf("flag-handoff writer on %s, launch %d", r.p.A, r.gen))
	h.MustWait(ctx, r.sB, fmt.Sprintf("flag-handoff reader on %s, launch %d", r.p.B, r.gen))
}

func (r *mpRun) tally(h *harness.Harness, launches int) mpTally {
	GinkgoHelper()
	c := h.Download(r.p.B, r.counts, kernels.MPCountWords)
	return mpTally{seen: uint64(c[kernels.MPSeen]), staleInst: uint64(c[kernels.MPStaleInst]),
		staleWords: uint64(c[kernels.MPStaleWords]), notSeen: uint64(c[kernels.MPNotSeen]),
		preOld: uint64(c[kernels.MPPreOld]), launches: launches}
}

// describe is the outcome histogram for messages and report entries.
func (t mpTally) describe(n uint32) string {
	s := fmt.Sprintf("%d launches × %d instances in %s: flag seen %d (%d of them with stale data, %d stale words), flag not seen %d",
		t.launches, n, t.elapsed.Round(time.Millisecond), t.seen, t.staleInst, t.staleWords, t.notSeen)
	if t.preOld > 0 {
		s += fmt.Sprintf("; %d data words not new yet when read before the poll", t.preOld)
	}
	return s
}
