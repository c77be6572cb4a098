// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package ipc_test

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/harness/cuerr"
	"github.com/p2pconf/p2pconf/kernels"
)

// producerDelay keeps the producer busy long enough that a consumer that
// does not wait certainly runs first: the consume command reaches the
// importer and its kernel starts within well under a millisecond.
const producerDelay = 20 * time.Millisecond

var _ = Describe("ipc: an interprocess event", func() {
	h := harness.New()

	/*
		ID: ipc.event-handoff
		Requirement: a consumer kernel queued behind cuStreamWaitEvent on an
		opened interprocess event MUST see all data the exporter's producer
		wrote before it recorded the event. A host message orders the record
		before the wait is submitted.
		Source: CUDA Driver API cuIpcOpenEventHandle / cuStreamWaitEvent;
		observed on H200.
		Applies to: GPUs with IPC_EVENT_SUPPORTED=1; pairs where also
		cuDeviceCanAccessPeer(B, A)=1.
	*/
	handoffConf := func(ctx context.Context, a, b harness.GPU, seed uint32) {
		ho := newHandoff(ctx, h, a, b)
		for t := range uint32(3) {
			By(fmt.Sprintf("trial %d: slow producer on %s, consumer on %s waits for the event", t, a, b))
			v := ho.trial(ctx, seed+t, true)
			Expect(v.Mismatches).To(BeZero(), "consumer on %s after cuStreamWaitEvent on %s's interprocess event, trial %d: %s", b, a, t, v)
		}
		ho.imp.exit(ctx, false)
	}

	/*
		ID: ipc.event-handoff-without-wait (mutant of ipc.event-handoff)
		Observes: the same handoff without cuStreamWaitEvent; trials whose
		consumer read incomplete data show that the wait is what makes the conf
		spec pass. Never fails because the weak outcome did not show.
	*/
	handoffMutant := func(ctx context.Context, a, b harness.GPU, seed uint32) {
		ho := newHandoff(ctx, h, a, b)
		trials, hits := harness.RunConfig().MutantTrials, 0
		By(fmt.Sprintf("%d trials: slow producer on %s, consumer on %s does not wait", trials, a, b))
		for t := range trials {
			if v := ho.trial(ctx, seed+uint32(t), false); v.Mismatches > 0 {
				hits++
			}
		}
		ho.imp.exit(ctx, false)
		detail := fmt.Sprintf("%d of %d trials read incomplete data (%s→%s, producer delay %s)", hits, trials, a, b, producerDelay)
		harness.Metric("incomplete-read rate", float64(hits)/float64(trials), "ratio", detail)
		harness.Power("ipc.event-handoff", harness.PowerResult{Observed: hits > 0, Hits: hits, Trials: trials}, detail)
	}

	for _, g := range harness.GPUs() {
		It(fmt.Sprintf("lets a consumer in another process on %s wait for %s's producer", g, g),
			harness.GPULabels("ipc.event-handoff", g, harness.ProcessMulti), func(ctx SpecContext) {
				handoffConf(ctx, g, g, uint32(harness.Seed("ipc.event-handoff", g)))
			}, harness.Timeout(0.5))
		It(fmt.Sprintf("is needed: a consumer in another process on %s that does not wait for it reads incomplete data", g),
			harness.GPULabels("ipc.event-handoff-without-wait", g, harness.ProcessMulti), func(ctx SpecContext) {
				handoffMutant(ctx, g, g, uint32(harness.Seed("ipc.event-handoff-without-wait", g)))
			}, harness.Timeout(0.5))
	}
	for _, p := range harness.Pairs() {
		It(fmt.Sprintf("lets a consumer in a process on %s wait for %s's producer (%s)", p.B, p.A, p),
			harness.PairLabels("ipc.event-handoff", p, harness.ProcessMulti), func(ctx SpecContext) {
				h.RequirePeerAccess(p.Reverse())
				handoffConf(ctx, p.A, p.B, uint32(harness.Seed("ipc.event-handoff", p.ID())))
			}, harness.Timeout(0.5))
		It(fmt.Sprintf("is needed: a consumer in a process on %s that does not wait for it reads incomplete data from %s (%s)", p.B, p.A, p),
			harness.PairLabels("ipc.event-handoff-without-wait", p, harness.ProcessMulti), func(ctx SpecContext) {
				h.RequirePeerAccess(p.Reverse())
				handoffMutant(ctx, p.A, p.B, uint32(harness.Seed("ipc.event-handoff-without-wait", p.ID())))
			}, harness.Timeout(0.5))
	}

	for _, g := range harness.GPUs() {
		/*
			ID: ipc.event-flags
			Requirement: cuEventCreate with INTERPROCESS but without
			DISABLE_TIMING MUST fail with CUDA_ERROR_INVALID_VALUE, and
			cuIpcGetEventHandle of an event created without INTERPROCESS MUST
			fail (while it succeeds for an INTERPROCESS|DISABLE_TIMING event).
			Source: CUDA Driver API cuEventCreate ("CU_EVENT_INTERPROCESS ...
			must be specified along with CU_EVENT_DISABLE_TIMING") and
			cuIpcGetEventHandle; observed on H200: cuEventCreate 1
			INVALID_VALUE, cuIpcGetEventHandle of a non-interprocess event 400
			INVALID_HANDLE (recorded: the documentation does not fix it).
			Applies to: GPUs with IPC_EVENT_SUPPORTED=1.
		*/
		It(fmt.Sprintf("cannot be created on %s without DISABLE_TIMING, nor exported without INTERPROCESS", g),
			harness.GPULabels("ipc.event-flags", g), func(ctx SpecContext) {
				requireIPC(h, g)
				h.RequireAttribute(g, harness.AttrIPCEventSupported, 1)
				By("creating an event with INTERPROCESS and without DISABLE_TIMING")
				_, err := h.TryNewEvent(g, harness.EventInterprocess)
				Expect(err).To(harness.MatchCUDAError(cuerr.InvalidValue), "cuEventCreate(INTERPROCESS) on %s", g)

				By("exporting a handle of an event created without INTERPROCESS")
				plain := h.Event(g, harness.EventDisableTiming)
				_, err = h.TryIPCEventHandle(plain)
				harness.Finding("cuIpcGetEventHandle(non-interprocess event)", harness.CodeOf(err), g.String())
				Expect(err).To(harness.BeCUDAError(), "cuIpcGetEventHandle of a DISABLE_TIMING-only event on %s", g)

				By("exporting a handle of an INTERPROCESS|DISABLE_TIMING event, which must work")
				h.IPCEventHandle(h.Event(g, harness.EventInterprocess|harness.EventDisableTiming))
			}, harness.Timeout(0.5))
	}
})

// handoff is a producer in this process on a and a consumer agent on b that
// share an allocation and an interprocess event of a.
type handoff struct {
	h      *harness.Harness
	a, b   harness.GPU
	w      *harness.GPUWork
	buf    harness.DevicePtr
	status harness.DevicePtr
	ev     harness.Event
	imp    *agentHelper
}

func newHandoff(ctx context.Context, h *harness.Harness, a, b harness.GPU) *handoff {
	GinkgoHelper()
	requireIPC(h, a)
	requireIPC(h, b)
	h.RequireAttribute(a, harness.AttrIPCEventSupported, 1)
	h.RequireAttribute(b, harness.AttrIPCEventSupported, 1)
	ho := &handoff{h: h, a: a, b: b, w: h.GPUWork(a), buf: h.Alloc(a, ipcBytes), status: h.Alloc(a, 4),
		ev: h.Event(a, harness.EventInterprocess|harness.EventDisableTiming)}
	mh := h.IPCMemHandle(a, ho.buf)
	eh := h.IPCEventHandle(ho.ev)

	By(fmt.Sprintf("opening the allocation and the event of %s in a process on %s", a, b))
	ho.imp = startAgent(ctx, h, b)
	ho.imp.must(agentCmd{Op: opOpen, Handle: mh[:]}, fmt.Sprintf("cuIpcOpenMemHandle on %s of %s's allocation", b, a))
	ho.imp.must(agentCmd{Op: opOpenEvent, Handle: eh[:]}, fmt.Sprintf("cuIpcOpenEventHandle on %s of %s's event", b, a))
	return ho
}

// trial poisons the buffer, queues the slow producer (kernels.Delay, then
// kernels.Fill from seed) and the event record on a, then has the consumer
// on b verify the buffer, waiting for the event first if wait. It returns
// what the consumer saw.
func (ho *handoff) trial(ctx context.Context, seed uint32, wait bool) harness.Verdict {
	GinkgoHelper()
	s, n := ho.w.Stream(), uint64(ipcBytes/4)
	ho.h.Memset32Async(s, ho.buf, harness.Poison, n)
	ho.h.Memset32Async(s, ho.status, 0, 1)
	harness.ExpectNoError(ho.w.Wait(ctx, "poison"), "poison the buffer on %s", ho.a)
	ho.h.Launch(s, kernels.Delay, harness.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(1)}, uint64(producerDelay), uint64(ho.status))
	ho.h.Launch(s, kernels.Fill, harness.LaunchShape(n), uint64(ho.buf), n, uint64(seed))
	ho.h.RecordEvent(ho.ev, s)
	// The host barrier: the consume command leaves only after cuEventRecord
	// returned, so the record is submitted before the consumer's wait.
	rep := ho.imp.must(agentCmd{Op: opConsume, Wait: wait, Size: ipcBytes, Seed: seed}, "consumer on "+ho.b.String())
	harness.ExpectNoError(ho.w.Wait(ctx, "producer"), "producer on %s", ho.a)
	// Without the slow producer the consumer would find the data whether
	// or not it waited: a trial whose delay did not elapse proved nothing.
	Expect(ho.h.Download(ho.a, ho.status, 1)[0]).To(Equal(kernels.DelayElapsed),
		"the producer's %s delay kernel on %s (status %d elapsed, %d iteration cap hit first, 0 never ran): without it the trial tests no wait",
		producerDelay, ho.a, kernels.DelayElapsed, kernels.DelayCapped)
	return rep.Verdict
}
