// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package ordering_test

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuerr"
	"github.com/p2pconf/p2pconf/kernels"
)

// slowKernel is how long the kernel that holds a stream busy runs: far
// longer than queueing a copy and an event record takes.
const slowKernel = 200 * time.Millisecond

var _ = Describe("ordering: events and asynchronous copies", func() {
	h := harness.New()

	/*
		ID: ordering.submission-is-not-completion
		Requirement: an asynchronous copy queued behind a running kernel MUST
		NOT be complete when the call returns: an event recorded after it
		reports CUDA_ERROR_NOT_READY (600) from cuEventQuery, and reports
		success once the stream's work is done, with the data copied.
		Source: CUDA Driver API, cuMemcpyAsync / cuMemcpyPeerAsync
		("asynchronous"), cuEventQuery (CUDA_ERROR_NOT_READY while work
		captured by the event is incomplete).
		Applies to: every GPU (a copy within it) and every ordered pair (a peer copy).
	*/
	submissionIsNotCompletion := func(ctx SpecContext, src, dst harness.GPU, copyFn func(backend.Stream, backend.DevicePtr, backend.DevicePtr, uint64) error) {
		words := harness.RandomWords(harness.Seed("ordering.submission-is-not-completion", src, dst), handoffWords)
		from, to := h.Alloc(src, 4*handoffWords), h.Alloc(dst, 4*handoffWords)
		h.Upload(src, from, words)
		h.Fill(dst, to, harness.Poison, handoffWords)
		status := h.Alloc(src, 4)
		s, done := h.Stream(src), h.Event(src, backend.EventDisableTiming)

		By(fmt.Sprintf("queueing a %s kernel, a copy %s→%s and an event on one stream of %s", slowKernel, src, dst, src))
		h.Launch(s, kernels.Delay, backend.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(1)}, uint64(slowKernel), uint64(status))
		harness.ExpectNoError(copyFn(s, to, from, 4*handoffWords), "queue the copy %s→%s", src, dst)
		harness.ExpectNoError(h.B().RecordEvent(done, s), "record the event after the copy on %s", src)
		Expect(h.B().EventQuery(done)).To(harness.MatchCUDAError(cuerr.NotReady),
			"cuEventQuery of the event after a copy %s→%s queued behind a %s kernel, right after queueing", src, dst, slowKernel)

		By("waiting for the event, then querying it again")
		harness.ExpectNoError(h.WaitEvent(ctx, done, "the copy's event"), "copy %s→%s", src, dst)
		Expect(h.B().EventQuery(done)).To(Succeed(), "cuEventQuery after the event completed (%s→%s)", src, dst)
		Expect(h.Download(dst, to, handoffWords)).To(harness.EqualWords(words), "data copied %s→%s", src, dst)
	}

	for _, g := range harness.GPUs() {
		// ID: ordering.submission-is-not-completion (requirement above), a copy within one GPU.
		It(fmt.Sprintf("reports an event after a copy within %s queued behind a slow kernel NOT_READY until the copy is done", g),
			harness.GPULabels("ordering.submission-is-not-completion", g), func(ctx SpecContext) {
				submissionIsNotCompletion(ctx, g, g, func(s backend.Stream, dst, src backend.DevicePtr, n uint64) error {
					return h.B().CopyAsync(s, dst, src, n)
				})
			}, SpecTimeout(time.Minute))
	}

	for _, p := range harness.Pairs() {
		// ID: ordering.submission-is-not-completion (requirement above), a peer copy A→B.
		It(fmt.Sprintf("reports an event after a peer copy %s queued behind a slow kernel NOT_READY until the copy is done", p),
			harness.PairLabels("ordering.submission-is-not-completion", p), func(ctx SpecContext) {
				submissionIsNotCompletion(ctx, p.A, p.B, func(s backend.Stream, dst, src backend.DevicePtr, n uint64) error {
					return h.B().CopyPeerAsync(s, dst, p.B.Ordinal, src, p.A.Ordinal, n)
				})
			}, SpecTimeout(time.Minute))

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
				startA, endA, endB := h.Event(p.A, backend.EventDefault), h.Event(p.A, backend.EventDefault), h.Event(p.B, backend.EventDefault)
				By(fmt.Sprintf("recording two events on %s and one on %s", p.A, p.B))
				harness.ExpectNoError(h.B().RecordEvent(startA, sA), "record on %s", p.A)
				harness.ExpectNoError(h.B().RecordEvent(endA, sA), "record on %s", p.A)
				harness.ExpectNoError(h.B().RecordEvent(endB, sB), "record on %s", p.B)
				harness.ExpectNoError(h.WaitEvent(ctx, endA, "events of "+p.A.String()), "events of %s", p.A)
				harness.ExpectNoError(h.WaitEvent(ctx, endB, "event of "+p.B.String()), "event of %s", p.B)

				_, err := h.B().ElapsedTime(startA, endA)
				harness.ExpectNoError(err, "cuEventElapsedTime with two events of %s", p.A)
				ms, err := h.B().ElapsedTime(startA, endB)
				harness.Finding("cuEventElapsedTime across devices", harness.CodeOf(err), p.String())
				Expect(err).To(harness.BeCUDAError(), "cuEventElapsedTime(event of %s, event of %s) returned %g ms", p.A, p.B, ms)
			}, SpecTimeout(30*time.Second))

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
				status, s, done := h.Alloc(p.A, 4), h.Stream(p.A), h.Event(p.A, backend.EventDisableTiming)

				By(fmt.Sprintf("copying %s→%s behind a %s kernel and waiting for the event after the copy", p.A, p.B, producerLag))
				h.Launch(s, kernels.Delay, backend.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(1)}, uint64(producerLag), uint64(status))
				harness.ExpectNoError(h.B().CopyPeerAsync(s, dst, p.B.Ordinal, src, p.A.Ordinal, 4*handoffWords), "cuMemcpyPeerAsync %s", p)
				harness.ExpectNoError(h.B().RecordEvent(done, s), "record after the copy on %s", p.A)
				harness.ExpectNoError(h.WaitEvent(ctx, done, "the copy's completion event"), "copy %s", p)

				By(fmt.Sprintf("overwriting the source on %s", p.A))
				h.Fill(p.A, src, harness.Poison, handoffWords)
				h.MustWait(ctx, s, "the copy's stream")
				Expect(h.Download(p.B, dst, handoffWords)).To(harness.EqualWords(old),
					"%s's copy of %s's data after the source was overwritten once the copy's event had completed", p.B, p.A)
			}, SpecTimeout(30*time.Second))
	}
})
