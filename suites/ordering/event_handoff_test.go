// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package ordering_test

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/kernels"
)

const (
	handoffWords = 1 << 18               // 1 MiB per handoff
	producerLag  = 20 * time.Millisecond // the producer's delay before it fills
)

var _ = Describe("ordering: the CUDA driver", func() {
	h := harness.New()

	for _, p := range harness.Pairs() {
		/*
			ID: ordering.cross-device-event-handoff
			Requirement: a copy stream that waits (cuStreamWaitEvent) on an
			event recorded after a slow producer on A MUST copy the produced
			data, and a consumer stream on B that waits on the event recorded
			after the copy MUST see every word of it.
			Source: CUDA Driver API, cuStreamWaitEvent ("the event may be from
			a different context or device") and cuEventRecord; CUDA C++
			Programming Guide, multi-device stream and event behaviour.
			Applies to: every ordered pair (cuMemcpyPeerAsync works with or
			without peer access).
		*/
		It(fmt.Sprintf("hands a slow producer's data from %s through a waiting copy stream to a waiting consumer on %s", p.A, p.B),
			harness.PairLabels("ordering.cross-device-event-handoff", p, harness.Variant("read-after-wait")), func(ctx SpecContext) {
				eh := newEventHandoff(h, p)
				By(fmt.Sprintf("producing on %s behind a %s delay, copying to %s and verifying there, each step waiting on the last one's event", p.A, producerLag, p.B))
				bad, first := eh.trial(ctx, h, uint32(harness.Seed("ordering.cross-device-event-handoff", p.ID())), true)
				Expect(bad).To(BeZero(), "%s's consumer found %d of %d words stale after waiting on the copy's event; first at word %d",
					p.B, bad, handoffWords, first)
			}, harness.Timeout(0.5))

		/*
			ID: ordering.cross-device-event-handoff (requirement above), with
			a read before the wait: the consumer stream on B first runs a
			kernel that reads the destination (and counts its words that
			are not the produced data yet), then waits on the copy's event
			and reads it again. The read before the wait MUST NOT leak past
			it: the read after the wait MUST see every produced word. A
			read before the wait that found no old word tested nothing (the
			copy had already landed) and is inconclusive.
		*/
		It(fmt.Sprintf("hands a slow producer's data from %s to a consumer on %s that read the destination before it waited", p.A, p.B),
			harness.PairLabels("ordering.cross-device-event-handoff", p, harness.Variant("read-before-and-after-wait")), func(ctx SpecContext) {
				eh := newEventHandoff(h, p)
				eh.preRead = true
				By(fmt.Sprintf("reading the destination on %s, then producing on %s behind a %s delay, copying and verifying again on %s after the waits", p.B, p.A, producerLag, p.B))
				bad, first := eh.trial(ctx, h, uint32(harness.Seed("ordering.cross-device-event-handoff", p.ID(), "pre-read")), true)
				old := h.Download(p.B, eh.preResult, 1)[0]
				harness.Metric("words not produced yet when read before the wait", float64(old), "words", fmt.Sprintf("of %d on %s", handoffWords, p.B))
				Expect(bad).To(BeZero(), "%s's consumer found %d of %d words stale after waiting on the copy's event, having read %d of them old before the wait; first at word %d",
					p.B, bad, handoffWords, old, first)
				if old == 0 {
					harness.Inconclusive("ordering.cross-device-event-handoff: %s's read before the wait found every word already produced, so nothing old could leak past the wait", p.B)
				}
			}, harness.Timeout(0.5))

		/*
			ID: ordering.cross-device-handoff-without-wait (mutant of
			ordering.cross-device-event-handoff)
			Without the two stream waits, the copy and the consumer are free to
			run before the producer: stale data is allowed, and seeing it shows
			that the waits are what makes the conf spec pass. Never fails on
			its outcome.
		*/
		It(fmt.Sprintf("lets the consumer on %s see stale data when nothing waits for the producer on %s", p.B, p.A),
			harness.PairLabels("ordering.cross-device-handoff-without-wait", p), func(ctx SpecContext) {
				eh := newEventHandoff(h, p)
				trials, hits := harness.RunConfig().MutantTrials, 0
				By(fmt.Sprintf("running %d handoffs from %s to %s without stream waits", trials, p.A, p.B))
				for t := 0; t < trials; t++ {
					if bad, _ := eh.trial(ctx, h, uint32(harness.Seed("ordering.cross-device-handoff-without-wait", p.ID(), t)), false); bad > 0 {
						hits++
					}
				}
				harness.Power("ordering.cross-device-event-handoff", harness.PowerResult{Observed: hits > 0, Hits: hits, Trials: trials},
					fmt.Sprintf("%s: %d of %d handoffs without stream waits saw stale data", p, hits, trials))
			}, harness.Timeout(1))
	}
})

// eventHandoff holds the buffers, streams and events of one pair's handoff:
// producer and copy streams on A, the consumer stream on B; each event is
// recorded on a stream of its own device.
type eventHandoff struct {
	p                  harness.Pair
	src, dst, result   harness.DevicePtr
	delayStatus        harness.DevicePtr
	prod, copier, cons harness.Stream
	ready, copied      harness.Event
	gridA, gridB       kernels.Dim3
	// preRead: before it waits, the consumer stream reads the destination
	// with kernels.Verify, counting into preResult the words that are not
	// the produced data yet.
	preRead   bool
	preResult harness.DevicePtr
}

func newEventHandoff(h *harness.Harness, p harness.Pair) *eventHandoff {
	GinkgoHelper()
	e := &eventHandoff{p: p,
		src: h.Alloc(p.A, 4*handoffWords), dst: h.Alloc(p.B, 4*handoffWords), result: h.Alloc(p.B, 8), delayStatus: h.Alloc(p.A, 4),
		prod: h.Stream(p.A), copier: h.Stream(p.A), cons: h.Stream(p.B),
		ready: h.Event(p.A, harness.EventDisableTiming), copied: h.Event(p.A, harness.EventDisableTiming),
		gridA: kernels.D1(uint32(max(1, p.A.Info.SMCount))), gridB: kernels.D1(uint32(max(1, p.B.Info.SMCount))),
		preResult: h.Alloc(p.B, 8),
	}
	return e
}

// trial runs one handoff (with or without the stream waits) and returns how
// many words the consumer found stale and the first of them.
func (e *eventHandoff) trial(ctx context.Context, h *harness.Harness, seed uint32, wait bool) (bad, first uint32) {
	GinkgoHelper()
	p := e.p
	h.Fill(p.A, e.src, harness.Poison, handoffWords)
	h.Fill(p.B, e.dst, harness.Poison, handoffWords)
	h.Fill(p.A, e.delayStatus, 0, 1)
	h.Upload(p.B, e.result, []uint32{0, 0xFFFFFFFF})
	h.Upload(p.B, e.preResult, []uint32{0, 0xFFFFFFFF})

	if e.preRead {
		// Queued first on the consumer stream, it runs while the producer
		// still waits out its delay.
		h.Launch(e.cons, kernels.Verify, harness.LaunchConfig{Grid: e.gridB, Block: kernels.D1(256)},
			uint64(e.dst), handoffWords, uint64(seed), uint64(e.preResult))
	}
	one := harness.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(1)}
	h.Launch(e.prod, kernels.Delay, one, uint64(producerLag), uint64(e.delayStatus))
	h.Launch(e.prod, kernels.Fill, harness.LaunchConfig{Grid: e.gridA, Block: kernels.D1(256)}, uint64(e.src), handoffWords, uint64(seed))
	h.RecordEvent(e.ready, e.prod)
	if wait {
		h.StreamWaitEvent(e.copier, e.ready)
	}
	h.CopyPeerAsync(e.copier, e.dst, p.B, e.src, p.A, 4*handoffWords)
	h.RecordEvent(e.copied, e.copier)
	if wait {
		h.StreamWaitEvent(e.cons, e.copied)
	}
	h.Launch(e.cons, kernels.Verify, harness.LaunchConfig{Grid: e.gridB, Block: kernels.D1(256)},
		uint64(e.dst), handoffWords, uint64(seed), uint64(e.result))

	for _, s := range []harness.Stream{e.cons, e.copier, e.prod} {
		h.MustWait(ctx, s, "event handoff "+p.String())
	}
	expectDelayElapsed(h, p.A, e.delayStatus, producerLag)
	res := h.Download(p.B, e.result, 2)
	return res[0], res[1]
}

// expectDelayElapsed requires that the kernels.Delay kernel whose status
// word is status on g waited its whole delay: a slow producer is what makes
// a missing wait show, so a trial without one tested nothing.
func expectDelayElapsed(h *harness.Harness, g harness.GPU, status harness.DevicePtr, delay time.Duration) {
	GinkgoHelper()
	Expect(h.Download(g, status, 1)[0]).To(Equal(kernels.DelayElapsed),
		"the %s delay kernel on %s (status %d elapsed, %d iteration cap hit first, 0 never ran): without the slow producer the trial tests no ordering",
		delay, g, kernels.DelayElapsed, kernels.DelayCapped)
}
