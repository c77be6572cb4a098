// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package atomics_test

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

const (
	counterRounds   = 8  // handoffs per spec, each with fresh data
	wordsPerThread  = 16 // data words each producer thread stores
	counterWaitTime = 5 * time.Second
)

var _ = Describe("atomics: an atomic counter used as a flag", func() {
	h := harness.New()

	for _, p := range harness.Pairs() {
		/*
			ID: atomics.counter-as-flag
			Requirement: when every thread of a kernel on B stores its data
			(plain stores, in B's memory) and then increments a counter in A's
			memory with atom.release.sys, a kernel on A that has read the
			counter at N (all B's threads) with ld.acquire.sys MUST read all of
			B's data new.
			Source: PTX ISA, memory consistency model (release pattern on an
			RMW, acquire pattern, causality order at .sys scope).
			Applies to: pairs with peer access both ways where integer add is
			advertised as native from B to A.
		*/
		It(fmt.Sprintf("in %s's memory lets %s read all of %s's data once %s's atom.release.sys increments of it reach the thread count", p.A, p.A, p.B, p.B),
			harness.PairLabels("atomics.counter-as-flag", p), func(ctx SpecContext) {
				h.RequirePeerAccess(p)
				h.RequirePeerAccess(p.Reverse())
				requireAdvertised(h, p.B, p.A, opNamed("add.u32"))
				h.MustEnablePeerAccess(p)
				h.MustEnablePeerAccess(p.Reverse())
				cf := newCounterFlag(h, p)
				for r := 0; r < counterRounds; r++ {
					By(fmt.Sprintf("handoff %d of %d: %s publishes %d words, %s waits for the counter to reach %d", r+1, counterRounds, p.B, cf.words, p.A, cf.producers))
					cf.round(ctx, h, uint32(harness.Seed("atomics.counter-as-flag", p.ID(), r)))
				}
			}, harness.Timeout(0.5))
	}
})

// counterFlag holds the buffers of the counter-as-flag handoff.
type counterFlag struct {
	p                harness.Pair
	prod, cons       side
	producers, words uint32
	data             harness.DevicePtr // in B's memory
	counter, result  harness.DevicePtr // in A's memory
	status           harness.DevicePtr // in B's memory
	gate             *harness.HostBuffer
	streamA, streamB harness.Stream
}

func newCounterFlag(h *harness.Harness, p harness.Pair) *counterFlag {
	GinkgoHelper()
	cf := &counterFlag{p: p, prod: sideFor(p.B, opNamed("add.u32")), cons: sideFor(p.A, opNamed("add.u32"))}
	cf.producers = cf.prod.threads()
	cf.words = cf.producers * wordsPerThread
	cf.data = h.Alloc(p.B, 4*uint64(cf.words))
	cf.counter, cf.result = h.Alloc(p.A, 4), h.Alloc(p.A, 16)
	cf.status = h.Alloc(p.B, 16)
	cf.gate = h.HostAlloc(p.A, 4096, harness.HostAllocPortable|harness.HostAllocDeviceMap)
	cf.streamA, cf.streamB = h.Stream(p.A), h.Stream(p.B)
	return cf
}

func (cf *counterFlag) round(ctx context.Context, h *harness.Harness, seed uint32) {
	GinkgoHelper()
	p := cf.p
	gate := harness.HostWord32(cf.gate.Mem, 0)
	atomic.StoreUint32(gate, 0)
	defer atomic.StoreUint32(gate, 1)
	h.Fill(p.B, cf.data, 0, int(cf.words))
	h.Fill(p.A, cf.counter, 0, 1)
	h.Upload(p.A, cf.result, []uint32{0, 0xFFFFFFFF, 0, 0})
	h.Fill(p.B, cf.status, 0, 4)

	h.Launch(cf.streamA, kernels.CounterConsume, harness.LaunchConfig{Grid: kernels.D1(cf.cons.grid), Block: kernels.D1(cf.cons.block)},
		uint64(cf.data), uint64(cf.words), uint64(seed), uint64(cf.counter), uint64(cf.producers), uint64(cf.result), uint64(counterWaitTime))
	h.Launch(cf.streamB, kernels.CounterProduce, harness.LaunchConfig{Grid: kernels.D1(cf.prod.grid), Block: kernels.D1(cf.prod.block)},
		uint64(cf.data), uint64(cf.words), uint64(seed), uint64(cf.counter), uint64(cf.gate.Ptr), uint64(cf.status), uint64(counterWaitTime))
	atomic.StoreUint32(gate, 1)
	h.MustWait(ctx, cf.streamB, "counter-as-flag producer on "+p.B.String())
	h.MustWait(ctx, cf.streamA, "counter-as-flag consumer on "+p.A.String())

	st := h.Download(p.B, cf.status, 1)
	Expect(st[0]).To(BeZero(), "%s: %d producer CTAs gave up waiting for the start gate", p.B, st[0])
	res := h.Download(p.A, cf.result, 3)
	if res[2] != 0 {
		ctr := h.Download(p.A, cf.counter, 1)
		Fail(fmt.Sprintf("%d consumer threads on %s timed out after %s waiting for the counter in %s's memory to reach %d (it holds %d)",
			res[2], p.A, counterWaitTime, p.A, cf.producers, ctr[0]))
	}
	Expect(res[0]).To(BeZero(), "%s read %d of %d words of %s's data stale after acquiring the counter at %d; first stale word %d",
		p.A, res[0], cf.words, p.B, cf.producers, res[1])
}
