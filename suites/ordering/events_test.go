// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package ordering_test

import (
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/harness/cuerr"
	"github.com/p2pconf/p2pconf/kernels"
)

// releaseWait bounds how long the kernel that holds the stream waits for
// the host's release. The host releases it as soon as it has queried the
// event, so the bound is reached only when the release never comes (a step
// failed before it, or the store did not reach the GPU): the kernel then
// ends with a status that the spec reports, instead of holding the GPU.
const releaseWait = 10 * time.Second

var _ = Describe("ordering: the CUDA driver", func() {
	h := harness.New()

	/*
		ID: ordering.submission-is-not-completion
		Requirement: an asynchronous copy queued behind a running kernel MUST
		NOT be complete when the call returns: an event recorded after it
		reports CUDA_ERROR_NOT_READY (600) from cuEventQuery and the
		destination, read meanwhile, still holds its poison; the event
		reports success once the stream's work is done, with the data
		copied. The
		kernel waits until the host releases it through a flag in mapped
		pinned memory, which the host sets only after its query, so the
		outcome does not depend on how soon the host thread runs.
		Source: CUDA Driver API, cuMemcpyAsync / cuMemcpyPeerAsync
		("asynchronous"), cuEventQuery (CUDA_ERROR_NOT_READY while work
		captured by the event is incomplete).
		Applies to: every GPU (a copy within it) and every ordered pair (a peer copy).
	*/
	submissionIsNotCompletion := func(ctx SpecContext, src, dst harness.GPU, copyFn func(harness.Stream, harness.DevicePtr, harness.DevicePtr, uint64)) {
		words := harness.RandomWords(harness.Seed("ordering.submission-is-not-completion", src, dst), handoffWords)
		from, to := h.Alloc(src, 4*handoffWords), h.Alloc(dst, 4*handoffWords)
		h.Upload(src, from, words)
		h.Fill(dst, to, harness.Poison, handoffWords)
		status := h.Alloc(src, 8)
		h.Fill(src, status, 0, 2)
		hb := h.HostAlloc(src, 64, harness.HostAllocPortable|harness.HostAllocDeviceMap)
		flag := harness.HostWord32(hb.Mem, 0)
		atomic.StoreUint32(flag, 0)
		release := func() { atomic.StoreUint32(flag, 1) }
		// A step that fails before the release must not leave the kernel
		// waiting out its bound while the fixture drains the stream.
		DeferCleanup(release)
		s, done := h.Stream(src), h.Event(src, harness.EventDisableTiming)

		By(fmt.Sprintf("queueing a kernel that waits for the host's release, a copy %s→%s and an event on one stream of %s", src, dst, src))
		h.Launch(s, kernels.WaitReleased, harness.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(1)},
			uint64(h.HostDevicePointer(src, hb)), uint64(releaseWait), uint64(status))
		copyFn(s, to, from, 4*handoffWords)
		h.RecordEvent(done, s)
		early := h.TryEventQuery(done)
		// The copy is queued behind the held kernel: its destination must
		// still hold the poison (the fixture's streams do not block on
		// each other, so this read does not wait for the kernel).
		beforeRelease := h.Download(dst, to, handoffWords)

		By("releasing the kernel, waiting for the event, then querying it again")
		release()
		h.MustWaitEvent(ctx, done, fmt.Sprintf("the event after the copy %s→%s", src, dst))
		// The stream as well: the kernel's status is read only once it has
		// ended, even where the event completed too early.
		h.MustWait(ctx, s, fmt.Sprintf("the stream of %s holding the kernel and the copy %s→%s", src, src, dst))
		st := h.Download(src, status, 2)
		Expect(early).To(harness.MatchCUDAError(cuerr.NotReady),
			"cuEventQuery of the event after a copy %s→%s queued behind a kernel waiting for the host, queried before the host released it (the kernel then ended with status %d after %d polls)", src, dst, st[0], st[1])
		Expect(st[0]).To(Equal(kernels.WaitReleaseSeen),
			"the kernel holding %s's stream ended with status %d after %d polls (1 released, 2 waited %s without seeing the host's release, 3 poll cap hit)", src, st[0], st[1], releaseWait)
		Expect(h.TryEventQuery(done)).To(Succeed(), "cuEventQuery after the event completed (%s→%s)", src, dst)
		Expect(beforeRelease).To(harness.EqualWords(slices.Repeat([]uint32{harness.Poison}, handoffWords)),
			"destination on %s read while the kernel queued before the copy %s→%s still held the stream: the copy ran before it", dst, src, dst)
		Expect(h.Download(dst, to, handoffWords)).To(harness.EqualWords(words), "data copied %s→%s", src, dst)
	}

	for _, g := range harness.GPUs() {
		// ID: ordering.submission-is-not-completion (requirement above), a copy within one GPU.
		It(fmt.Sprintf("reports an event after a copy within %s queued behind a kernel waiting for the host NOT_READY until the copy is done", g),
			harness.GPULabels("ordering.submission-is-not-completion", g), func(ctx SpecContext) {
				submissionIsNotCompletion(ctx, g, g, func(s harness.Stream, dst, src harness.DevicePtr, n uint64) {
					h.CopyAsync(s, dst, src, n)
				})
			}, harness.Timeout(0.5))
	}

	for _, p := range harness.Pairs() {
		// ID: ordering.submission-is-not-completion (requirement above), a peer copy A→B.
		It(fmt.Sprintf("reports an event after a peer copy %s queued behind a kernel waiting for the host NOT_READY until the copy is done", p),
			harness.PairLabels("ordering.submission-is-not-completion", p), func(ctx SpecContext) {
				submissionIsNotCompletion(ctx, p.A, p.B, func(s harness.Stream, dst, src harness.DevicePtr, n uint64) {
					h.CopyPeerAsync(s, dst, p.B, src, p.A, n)
				})
			}, harness.Timeout(0.5))

		/*
			ID: ordering.elapsed-time-across-devices
			Requirement: cuEventElapsedTime with events recorded on two
			different GPUs MUST fail (the code is not documented: it is
			recorded), while the same call with two events of one GPU succeeds.
			Source: CUDA C++ Programming Guide, multi-device system, "Stream
			and Event Behavior" (elapsed time of events of different devices
			fails). Observed on 2× H200: 400 INVALID_HANDLE.
			Applies to: every ordered pair.
		*/
		It(fmt.Sprintf("refuses cuEventElapsedTime between an event of %s and one of %s", p.A, p.B),
			harness.PairLabels("ordering.elapsed-time-across-devices", p), func(ctx SpecContext) {
				sA, sB := h.Stream(p.A), h.Stream(p.B)
				startA, endA, endB := h.Event(p.A, harness.EventDefault), h.Event(p.A, harness.EventDefault), h.Event(p.B, harness.EventDefault)
				By(fmt.Sprintf("recording two events on %s and one on %s", p.A, p.B))
				h.RecordEvent(startA, sA)
				h.RecordEvent(endA, sA)
				h.RecordEvent(endB, sB)
				h.MustWaitEvent(ctx, endA, "events of "+p.A.String())
				h.MustWaitEvent(ctx, endB, "event of "+p.B.String())

				h.ElapsedTime(startA, endA) // two events of one GPU: must succeed
				ms, err := h.TryElapsedTime(startA, endB)
				harness.Finding("cuEventElapsedTime across devices", harness.CodeOf(err), p.String())
				Expect(err).To(harness.BeCUDAError(), "cuEventElapsedTime(event of %s, event of %s) returned %g ms", p.A, p.B, ms)
			}, harness.Timeout(0.25))

		/*
			ID: ordering.source-reuse-after-completion
			Requirement: once the event recorded after an asynchronous peer copy
			has completed, the copy MUST have read its source: overwriting the
			source then leaves the destination with the old data.
			Source: CUDA Driver API, cuMemcpyPeerAsync and cuEventQuery /
			cuEventSynchronize (completion of all work captured by the event).
			Applies to: every ordered pair.
		*/
		It(fmt.Sprintf("keeps the copied data on %s when the source on %s is overwritten after the copy's event completed", p.B, p.A),
			harness.PairLabels("ordering.source-reuse-after-completion", p), func(ctx SpecContext) {
				old := harness.RandomWords(harness.Seed("ordering.source-reuse-after-completion", p.ID()), handoffWords)
				src, dst := h.Alloc(p.A, 4*handoffWords), h.Alloc(p.B, 4*handoffWords)
				h.Upload(p.A, src, old)
				h.Fill(p.B, dst, harness.Poison, handoffWords)
				status, s, done := h.Alloc(p.A, 4), h.Stream(p.A), h.Event(p.A, harness.EventDisableTiming)

				By(fmt.Sprintf("copying %s→%s behind a %s kernel and waiting for the event after the copy", p.A, p.B, producerLag))
				h.Launch(s, kernels.Delay, harness.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(1)}, uint64(producerLag), uint64(status))
				h.CopyPeerAsync(s, dst, p.B, src, p.A, 4*handoffWords)
				h.RecordEvent(done, s)
				h.MustWaitEvent(ctx, done, "the completion event of the copy "+p.String())

				By(fmt.Sprintf("overwriting the source on %s", p.A))
				h.Fill(p.A, src, harness.Poison, handoffWords)
				h.MustWait(ctx, s, "the copy's stream")
				expectDelayElapsed(h, p.A, status, producerLag)
				Expect(h.Download(p.B, dst, handoffWords)).To(harness.EqualWords(old),
					"%s's copy of %s's data after the source was overwritten once the copy's event had completed", p.B, p.A)
			}, harness.Timeout(0.25))
	}
})
