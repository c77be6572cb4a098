// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package bandwidth

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gmeasure"

	"github.com/p2pconf/p2pconf/harness"
	bw "github.com/p2pconf/p2pconf/harness/bandwidth"
	"github.com/p2pconf/p2pconf/kernels"
)

// Latency probe parameters.
const (
	minChaseTable = 64 * bw.MiB // the chain's memory at least; more where the L2 is larger
	chaseHops     = 20000       // hops per timed chase (docs/observations.md, two H200: latency)
	chaseReps     = 3
	smallReps     = 200 // round trips of a 4-byte copy
	smallBatch    = 256 // 4-byte copies per pipelined batch
	smallPiped    = 5   // pipelined batches (the first may be spent lengthening the hold)
)

// smallCopyLatency times a 4-byte transfer enqueued by enqueue on st:
// round trip (host enqueue to host seeing completion), the events' time of
// a single copy, and the time per copy of a pipelined batch. dst must read
// back as src's word afterwards.
func (s *session) smallCopyLatency(st harness.Stream, src, dst *buffer, what string, enqueue func()) {
	GinkgoHelper()
	g := s.gpuOf(st.Device())
	want := harness.RandomWords(harness.Seed(s.id, s.target), 1)
	s.h.Upload(src.gpu, src.ptr, want)
	s.h.Fill(dst.gpu, dst.ptr, harness.Poison, 1)
	start, end := s.h.Event(g, harness.EventDefault), s.h.Event(g, harness.EventDefault)
	exp := gmeasure.NewExperiment("latency of " + what)
	reps := smallReps
	if s.simulated {
		reps = 10
	}
	By(fmt.Sprintf("timing %d round trips of %s", reps, what))
	for range reps {
		t0 := time.Now()
		s.h.RecordEvent(start, st)
		enqueue()
		s.h.RecordEvent(end, st)
		s.h.MustWaitEvent(s.ctx, end, what)
		exp.RecordDuration("round trip", time.Since(t0), gmeasure.Precision(100*time.Nanosecond))
		ms := s.h.ElapsedTime(start, end)
		exp.RecordValue("single (events)", float64(ms)*1000, gmeasure.Units("µs"), gmeasure.Precision(2))
	}
	By(fmt.Sprintf("timing batches of %d back-to-back %s", smallBatch, what))
	hold := s.newHold(g)
	pipedNote := ""
	for rep := range smallPiped {
		hold.launch(st)
		s.h.RecordEvent(start, st)
		t0 := time.Now()
		for range smallBatch {
			enqueue()
		}
		s.h.RecordEvent(end, st)
		enqueued := time.Since(t0)
		s.h.MustWaitEvent(s.ctx, end, what)
		if hold.tooShort(enqueued) {
			if rep < smallPiped-1 {
				continue // the GPU caught up with the host: lengthen the hold and redo
			}
			pipedNote = "; submission-bound: the host could not enqueue the last batch before the GPU was released"
		}
		ms := s.h.ElapsedTime(start, end)
		exp.RecordValue("pipelined", float64(ms)*1000/smallBatch, gmeasure.Units("µs"), gmeasure.Precision(3))
	}
	AddReportEntry(exp.Name, exp, ReportEntryVisibilityFailureOrVerbose)
	Expect(s.h.Download(dst.gpu, dst.ptr, 1)).To(harness.EqualWords(want), "the word %s delivered to %s", what, dst.where)

	rt := exp.GetStats("round trip").DurationFor(gmeasure.StatMedian)
	detail := fmt.Sprintf("%s, 4 bytes; %s=%s (%s)", what, s.targetKind(), s.targetID(), s.targetName)
	harness.Metric("latency_us.roundtrip", float64(rt)/1e3, "µs",
		detail+fmt.Sprintf("; median of %d: host enqueue to host seeing the event complete (polling)%s", reps, s.noteSuffix()))
	harness.Metric("latency_us.single", exp.GetStats("single (events)").ValueFor(gmeasure.StatMedian), "µs",
		detail+"; median event time around one copy"+s.noteSuffix())
	harness.Metric("latency_us.pipelined", exp.GetStats("pipelined").ValueFor(gmeasure.StatMedian), "µs",
		detail+fmt.Sprintf("; median of batches of %d back-to-back copies, time per copy (events)%s%s", smallBatch, pipedNote, s.noteSuffix()))
	s.alone.Done()
}

// chaseTable is the chain's size for a chase through owner's memory: a power
// of two at least twice owner's L2 (CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE), so
// the cache-cold figure is not an L2 hit, and at least minChaseTable.
func (s *session) chaseTable(owner harness.GPU) uint64 {
	GinkgoHelper()
	size := uint64(minChaseTable)
	for size < 2*uint64(s.h.Attribute(owner, harness.AttrL2CacheSize)) {
		size *= 2
	}
	return size
}

// chaseLatency times kernels.PointerChase on g over a random cycle in
// owner's memory: each timed chase continues where the previous one ended,
// so no element is visited twice (cache-cold data); a last chase repeats the
// previous one's elements (the revisit figure, cache-warm where the memory
// is cacheable on g).
func (s *session) chaseLatency(g, owner harness.GPU) {
	GinkgoHelper()
	size := min(s.chaseTable(owner), max(s.max, bw.MiB))
	nodes := int(size / kernels.ChaseStride) // a power of two: sizes are powers of two
	hops := uint64(min(chaseHops, nodes/(chaseReps+3)))
	if s.simulated {
		hops = min(hops, 1000)
	}
	base := s.h.Alloc(owner, size)
	next := s.buildChain(owner, base, nodes)
	out := s.h.Alloc(g, 16)
	st := s.h.Stream(g)
	where := owner.String() + "'s memory"

	exp := gmeasure.NewExperiment(fmt.Sprintf("pointer chase by %s through %s", g, where))
	node, prev := 0, 0
	for rep := 0; rep <= chaseReps+1; rep++ { // rep 0 warms up; the last revisits
		from := node
		if rep == chaseReps+1 {
			from = prev
		}
		var ns uint64
		node, ns = s.chase(st, out, base, next, from, hops, where)
		prev = from
		switch {
		case rep == chaseReps+1:
			exp.RecordValue("revisit", float64(ns)/float64(hops), gmeasure.Units("ns/hop"), gmeasure.Precision(1))
		case rep > 0:
			exp.RecordValue("fresh", float64(ns)/float64(hops), gmeasure.Units("ns/hop"), gmeasure.Precision(1))
		}
	}
	AddReportEntry(exp.Name, exp, ReportEntryVisibilityFailureOrVerbose)
	detail := fmt.Sprintf("one thread on %s, ld.global.cg, %s random cycle in %s, %d-byte element stride, %d hops per chase; %s=%s (%s)",
		g, bw.SizeLabel(size), where, kernels.ChaseStride, hops, s.targetKind(), s.targetID(), s.targetName)
	harness.Metric("chase_ns_per_hop", exp.GetStats("fresh").ValueFor(gmeasure.StatMedian), "ns",
		detail+fmt.Sprintf("; median of %d chases after a warm-up, each continuing the cycle (no element revisited)%s", chaseReps, s.noteSuffix()))
	harness.Metric("chase_ns_per_hop.revisit", exp.GetStats("revisit").ValueFor(gmeasure.StatMedian), "ns",
		detail+"; the last chase's elements again (a warm second run)"+s.noteSuffix())
	s.alone.Done()
}

// buildChain writes a random single cycle over nodes elements (Sattolo's
// algorithm) into owner's memory at base, each element holding its
// successor's index, and returns the successor table.
func (s *session) buildChain(owner harness.GPU, base harness.DevicePtr, nodes int) []int {
	GinkgoHelper()
	r := rand.New(rand.NewPCG(harness.Seed(s.id, s.target, "chain"), 1))
	perm := make([]int, nodes)
	for i := range perm {
		perm[i] = i
	}
	for i := nodes - 1; i > 0; i-- {
		j := r.IntN(i)
		perm[i], perm[j] = perm[j], perm[i]
	}
	next := make([]int, nodes)
	table := make([]byte, nodes*kernels.ChaseStride)
	for i := range nodes {
		next[perm[i]] = perm[(i+1)%nodes]
	}
	for i, n := range next {
		binary.LittleEndian.PutUint64(table[i*kernels.ChaseStride:], uint64(n))
	}
	By(fmt.Sprintf("writing a %d-element pointer cycle into %s's memory", nodes, owner))
	// Upload returns once the chain has landed, so the chase kernel, queued
	// on a non-blocking stream, cannot start before it.
	s.h.Upload(owner, base, harness.BytesToWords(table))
	return next
}

// chase runs one chase from element from and returns the element it ended
// on (checked against the chain) and the kernel's nanoseconds.
func (s *session) chase(st harness.Stream, out, base harness.DevicePtr, next []int, from int, hops uint64, where string) (int, uint64) {
	GinkgoHelper()
	g := s.gpuOf(st.Device())
	mask := uint64(len(next) - 1)
	s.h.Launch(st, kernels.PointerChase, harness.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(1)}, uint64(base), mask, uint64(from), hops, uint64(out))
	s.h.MustWait(s.ctx, st, fmt.Sprintf("a %d-hop pointer chase by %s through %s", hops, g, where))
	w := s.h.Download(g, out, 4)
	end, ns := uint64(w[0])|uint64(w[1])<<32, uint64(w[2])|uint64(w[3])<<32
	want := from
	for range hops {
		want = next[want]
	}
	Expect(end).To(Equal(uint64(want)),
		"the chase by %s through %s from element %d ended on element %d after %d hops; the chain leads to element %d",
		g, where, from, end, hops, want)
	return want, ns
}
