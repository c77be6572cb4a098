// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package ordering_test

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/kernels"
)

// latestRecordRounds is how many times a spec records its event twice and
// waits on it: the second round waits on the event's fourth record.
const latestRecordRounds = 2

var _ = Describe("ordering: a stream waiting on an event recorded twice", func() {
	h := harness.New()

	/*
		ID: ordering.wait-on-latest-record
		Requirement: cuStreamWaitEvent MUST wait for the event's most recent
		record before the call. A producer stream records event E after work
		1 (a fill with one seed), then after work 2 (a delay kernel, then a
		fill of the same buffer with another seed); only then does a
		consumer stream wait on E and read the buffer: it MUST see every
		word of work 2, never work 1's (the earlier record's) or a mix. Two
		rounds on the same event (its second and fourth records are waited
		for). The delay kernel MUST have waited its whole delay (its status
		says so): without the slow work 2 a wait on the earlier record
		would not show. On a pair the event and the producer are A's and
		the consumer is a stream of B that copies A's buffer to B
		(cuMemcpyPeerAsync) and checks it there; on one GPU the consumer is
		a second stream of the same GPU.
		Source: CUDA Driver API, cuEventRecord ("can be called multiple
		times on the same event and will overwrite the previously captured
		state. Other APIs such as cuStreamWaitEvent() use the most recently
		captured state at the time of the API call") and cuStreamWaitEvent
		("the event may be from a different context or device").
		Applies to: every GPU and every ordered pair (cuMemcpyPeerAsync
		works with or without peer access).
	*/
	for _, g := range harness.GPUs() {
		It(fmt.Sprintf("on %s makes another stream of %s wait for the latest record", g, g),
			harness.GPULabels("ordering.wait-on-latest-record", g), func(ctx SpecContext) {
				lr := newLatestRecord(h, g, g)
				for r := range latestRecordRounds {
					lr.round(ctx, h, r)
				}
			}, harness.Timeout(0.5))
	}
	for _, p := range harness.Pairs() {
		It(fmt.Sprintf("on %s makes a stream of %s wait for the latest record", p.A, p.B),
			harness.PairLabels("ordering.wait-on-latest-record", p), func(ctx SpecContext) {
				lr := newLatestRecord(h, p.A, p.B)
				for r := range latestRecordRounds {
					lr.round(ctx, h, r)
				}
			}, harness.Timeout(0.5))
	}
})

// latestRecord holds one spec's buffers, streams and event: the event and
// the producer stream are the producer GPU's; the consumer stream is the
// consumer GPU's (another stream of the same GPU on one GPU).
type latestRecord struct {
	prodGPU, consGPU harness.GPU
	src, dst, result harness.DevicePtr // src on the producer; dst and result on the consumer
	delayStatus      harness.DevicePtr
	prod, cons       harness.Stream
	ev               harness.Event
	gridP, gridC     kernels.Dim3
}

func newLatestRecord(h *harness.Harness, prodGPU, consGPU harness.GPU) *latestRecord {
	GinkgoHelper()
	lr := &latestRecord{prodGPU: prodGPU, consGPU: consGPU,
		src: h.Alloc(prodGPU, 4*handoffWords), result: h.Alloc(consGPU, 8), delayStatus: h.Alloc(prodGPU, 4),
		prod: h.Stream(prodGPU), cons: h.Stream(consGPU), ev: h.Event(prodGPU, harness.EventDisableTiming),
		gridP: kernels.D1(uint32(max(1, prodGPU.Info.SMCount))), gridC: kernels.D1(uint32(max(1, consGPU.Info.SMCount))),
	}
	lr.dst = h.Alloc(consGPU, 4*handoffWords)
	return lr
}

func (lr *latestRecord) where() string {
	if lr.consGPU.Ordinal == lr.prodGPU.Ordinal {
		return fmt.Sprintf("a second stream of %s (copying the buffer within %s)", lr.consGPU, lr.consGPU)
	}
	return fmt.Sprintf("a stream of %s (copying %s's buffer to %s)", lr.consGPU, lr.prodGPU, lr.consGPU)
}

// round records the event after work 1 and again after the slow work 2,
// then has the consumer wait on it and check the buffer against work 2.
func (lr *latestRecord) round(ctx context.Context, h *harness.Harness, r int) {
	GinkgoHelper()
	id := fmt.Sprintf("%s-%s", lr.prodGPU, lr.consGPU)
	seed1 := uint32(harness.Seed("ordering.wait-on-latest-record", id, r, 1))
	seed2 := uint32(harness.Seed("ordering.wait-on-latest-record", id, r, 2))
	if seed2 == seed1 {
		seed2 ^= 1
	}
	h.Fill(lr.prodGPU, lr.src, harness.Poison, handoffWords)
	h.Fill(lr.consGPU, lr.dst, harness.Poison, handoffWords)
	h.Fill(lr.prodGPU, lr.delayStatus, 0, 1)
	h.Upload(lr.consGPU, lr.result, []uint32{0, 0xFFFFFFFF})

	By(fmt.Sprintf("round %d: recording an event of %s after work 1 and again after a %s delay and work 2, then waiting on it from %s",
		r+1, lr.prodGPU, producerLag, lr.where()))
	fill := harness.LaunchConfig{Grid: lr.gridP, Block: kernels.D1(256)}
	one := harness.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(1)}
	h.Launch(lr.prod, kernels.Fill, fill, uint64(lr.src), handoffWords, uint64(seed1))
	h.RecordEvent(lr.ev, lr.prod)
	h.Launch(lr.prod, kernels.Delay, one, uint64(producerLag), uint64(lr.delayStatus))
	h.Launch(lr.prod, kernels.Fill, fill, uint64(lr.src), handoffWords, uint64(seed2))
	h.RecordEvent(lr.ev, lr.prod)
	h.StreamWaitEvent(lr.cons, lr.ev)
	// The consumer's copy keeps what it read, so a failure can say whose
	// data it was.
	if lr.consGPU.Ordinal == lr.prodGPU.Ordinal {
		h.CopyAsync(lr.cons, lr.dst, lr.src, 4*handoffWords)
	} else {
		h.CopyPeerAsync(lr.cons, lr.dst, lr.consGPU, lr.src, lr.prodGPU, 4*handoffWords)
	}
	h.Launch(lr.cons, kernels.Verify, harness.LaunchConfig{Grid: lr.gridC, Block: kernels.D1(256)},
		uint64(lr.dst), handoffWords, uint64(seed2), uint64(lr.result))
	h.MustWait(ctx, lr.cons, "consumer waiting on the latest record, "+lr.where())
	h.MustWait(ctx, lr.prod, "producer on "+lr.prodGPU.String())
	expectDelayElapsed(h, lr.prodGPU, lr.delayStatus, producerLag)

	res := h.Download(lr.consGPU, lr.result, 2)
	harness.Metric(fmt.Sprintf("words not work 2's, round %d", r+1), float64(res[0]), "words",
		fmt.Sprintf("of %d, read by %s after cuStreamWaitEvent on record %d of an event of %s", handoffWords, lr.where(), 2*(r+1), lr.prodGPU))
	if res[0] == 0 {
		return
	}
	// Which record the consumer saw: words of work 1 mean it waited for
	// the earlier record.
	got := h.Download(lr.consGPU, lr.dst, handoffWords)
	old := 0
	for i, w := range got {
		if w == kernels.PatternWord(seed1, uint64(i)) {
			old++
		}
	}
	Fail(fmt.Sprintf("%s found %d of %d words not work 2's after cuStreamWaitEvent on an event of %s recorded after work 1 and again after work 2 (round %d, record %d); %d of them work 1's, the earlier record's; first at word %d",
		lr.where(), res[0], handoffWords, lr.prodGPU, r+1, 2*(r+1), old, res[1]))
}
