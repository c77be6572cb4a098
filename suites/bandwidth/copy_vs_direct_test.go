// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package bandwidth

import (
	"fmt"
	"os"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/p2pconf/p2pconf/harness"
	bw "github.com/p2pconf/p2pconf/harness/bandwidth"
	"github.com/p2pconf/p2pconf/kernels"
)

const idCopyVsDirect = "bandwidth.copy-vs-direct"

// reuseCounts are the reuse counts k each way is timed at; one timeline of
// maxReuse passes gives them all (an event after pass k).
var reuseCounts = []int{1, 2, 4, 8, 16, 32, 64}

const maxReuse = 64

// reusePattern is the order in which the consumer reads the buffer.
type reusePattern struct {
	name     string
	colsLog2 uint // 0: contiguous; 3: a warp's loads in 32 different 32-byte sectors
}

var reusePatterns = []reusePattern{{"contiguous", 0}, {"strided", 3}}

// reuseWay is one way for the consumer to reach the producer's data.
type reuseWay struct {
	name  string            // "direct", "copy", "managed"
	what  string            // for messages
	src   harness.DevicePtr // what the consumer's kernel reads
	stage func(size uint64) // queues the copy or prefetch on the consumer's stream; nil for direct
	reset func(size uint64) // untimed: puts managed data back where it starts; nil otherwise
}

// reuseTimes is one way's timeline at one size and pattern, in ms since the
// start event: the staging (0 for direct) and the end of pass k.
type reuseTimes struct {
	staged float64
	at     map[int]float64
}

// reuseBench is the consumer side of a copy-vs-direct measurement.
type reuseBench struct {
	s        *session
	consumer harness.GPU
	stream   harness.Stream
	out      harness.DevicePtr // maxReuse u32 sums, one per pass
	shape    harness.LaunchConfig
	hold     holdKernel
	start    harness.Event
	staged   harness.Event
	passEnd  map[int]harness.Event
	ways     []reuseWay
}

var _ = Describe("bandwidth: copy or read in place", func() {
	h := harness.New()

	for _, p := range harness.Pairs() {
		/*
		   ID: bandwidth.copy-vs-direct (info)
		   Requirement: none (informational). A consumer kernel on B reduces A's buffer k times (k = 1 …
		   64), contiguously and strided, three ways: reading A's memory over the peer mapping; after
		   cuMemcpyPeerAsync to B (copy time included); managed memory of A prefetched to B (prefetch
		   time included). Records the times, the bandwidths and the reuse count k* from which copying
		   (and prefetching) is faster than reading in place; every pass's sum is checked.
		   Source: CUDA Programming Guide, Peer-to-Peer Memory Access and Unified Memory.
		   Applies to: ordered pairs where cuDeviceCanAccessPeer(B, A) = 1.
		*/
		It(fmt.Sprintf("finds from which reuse count a kernel on %s does better to copy %s's buffer than to read it in place", p.B, p.A),
			harness.PairLabels(idCopyVsDirect, p, harness.Slow), func(ctx SpecContext) {
				s := pairSession(h, ctx, idCopyVsDirect, p)
				s.requirePeers(p.Reverse(), false)
				sizes := reuseSizes(s, p.A, p.B)
				largest := sizes[len(sizes)-1]
				seed := s.seed(0)
				src := s.devBufOf(p.A, largest)
				s.fill(src, largest/4, seed)
				b := s.reuseBench(p.B)
				dst := s.h.Alloc(p.B, largest)
				b.ways = append(b.ways,
					reuseWay{name: "direct", what: fmt.Sprintf("reading %s's memory over the peer mapping", p.A), src: src.ptr},
					reuseWay{name: "copy", what: fmt.Sprintf("cuMemcpyPeerAsync %s→%s, then reading %s's copy", p.A, p.B, p.B), src: dst,
						stage: func(n uint64) { s.h.CopyPeerAsync(b.stream, dst, p.B, src.ptr, p.A, n) }})
				b.addManaged(p.A, harness.GPULocation(p.A), seed, largest, p.A, p.B)
				b.measure(sizes, seed)
			}, sizedTimeout())
	}

	for _, g := range harness.GPUs() {
		/*
		   ID: bandwidth.copy-vs-direct (info)
		   Requirement: none (informational). The host analogue on one GPU: a consumer kernel reduces
		   mapped pinned host memory k times in place, after cuMemcpyAsync to the GPU, and as managed
		   memory resident on the host prefetched to the GPU. Source: CUDA Driver API cuMemHostAlloc,
		   cuMemPrefetchAsync. Applies to: every GPU that maps host memory.
		*/
		It(fmt.Sprintf("finds from which reuse count a kernel on %s does better to copy pinned host memory than to read it in place", g),
			harness.GPULabels(idCopyVsDirect, g, harness.Slow), func(ctx SpecContext) {
				s := gpuSession(h, ctx, idCopyVsDirect, g)
				s.requireHostMapping(g)
				sizes := reuseSizes(s, g)
				largest := sizes[len(sizes)-1]
				seed := s.seed(0)
				hb := s.h.HostAlloc(g, largest, harness.HostAllocPortable|harness.HostAllocDeviceMap)
				src := &buffer{gpu: g, ptr: s.h.HostDevicePointer(g, hb), cePtr: hb.Ptr, where: "pinned host memory"}
				s.fill(src, largest/4, seed)
				b := s.reuseBench(g)
				dst := s.h.Alloc(g, largest)
				b.ways = append(b.ways,
					reuseWay{name: "direct", what: "reading mapped pinned host memory", src: src.ptr},
					reuseWay{name: "copy", what: "cuMemcpyAsync host→" + g.String() + ", then reading the copy", src: dst,
						stage: func(n uint64) { s.h.CopyAsync(b.stream, dst, src.cePtr, n) }})
				b.addManaged(g, harness.HostLocation, seed, largest, g)
				b.measure(sizes, seed)
			}, sizedTimeout())
	}
})

// reuseSizes are the sizes the spec measures: P2PCONF_BW_REUSE_SWEEP's,
// up to the suite's largest size, and only those that leave three quarters
// of every GPU's free memory free (each GPU holds at most two buffers of
// the size). None left is a skip, before any measurement.
func reuseSizes(s *session, gs ...harness.GPU) []uint64 {
	GinkgoHelper()
	all, err := harness.ReuseSizes(os.Getenv, s.max)
	if err != nil {
		Fail("bandwidth suite configuration: " + err.Error())
	}
	var out []uint64
	for _, n := range all {
		fits := true
		for _, g := range gs {
			fits = fits && s.h.ManagedSize(g, 2*n) == 2*n
		}
		if fits {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		Skip(fmt.Sprintf("needs room for two %s buffers on %v (found less than a quarter of free memory, or a largest size %s below %s)",
			bw.SizeLabel(harness.ReuseMinSize), gs, bw.SizeLabel(s.max), bw.SizeLabel(harness.ReuseMinSize)))
	}
	for _, g := range gs {
		s.h.RequireFreeMemory(g, 2*out[len(out)-1], "the copy-vs-direct buffers")
	}
	if len(out) < len(all) {
		s.note("sizes above %s left out: they would take more than a quarter of free memory", bw.SizeLabel(out[len(out)-1]))
	}
	return out
}

func (s *session) devBufOf(g harness.GPU, size uint64) *buffer {
	GinkgoHelper()
	p := s.h.Alloc(g, size)
	return &buffer{gpu: g, ptr: p, cePtr: p, where: g.String() + "'s memory"}
}

func (s *session) reuseBench(consumer harness.GPU) *reuseBench {
	GinkgoHelper()
	b := &reuseBench{s: s, consumer: consumer, stream: s.h.Stream(consumer), out: s.h.Alloc(consumer, 4*maxReuse),
		start: s.h.Event(consumer, harness.EventDefault), staged: s.h.Event(consumer, harness.EventDefault),
		passEnd: map[int]harness.Event{}, hold: s.newHold(consumer)}
	// A timeline queues about 70 operations: start with a hold that covers
	// them, so the first timelines are not run twice to learn it.
	b.hold.ns = max(b.hold.ns, uint64(2*time.Millisecond))
	for _, k := range reuseCounts {
		b.passEnd[k] = s.h.Event(consumer, harness.EventDefault)
	}
	blocks := s.h.MaxActiveBlocks(consumer, kernels.Reduce, 256) * max(consumer.Info.SMCount, 1)
	b.shape = harness.LaunchConfig{Grid: kernels.D1(uint32(max(blocks, 1))), Block: kernels.D1(256)}
	return b
}

// addManaged adds the managed way where the driver and the GPUs allow a
// prefetch (CUDA 12.2, CONCURRENT_MANAGED_ACCESS=1), else notes why it is
// left out: managed memory made with owner's context, filled on owner,
// resident at home before each timeline and prefetched to the consumer in
// it.
func (b *reuseBench) addManaged(owner harness.GPU, home harness.Location, seed uint32, size uint64, gs ...harness.GPU) {
	GinkgoHelper()
	s := b.s
	if v := s.h.DriverVersion(); v < 12020 {
		s.note("managed way left out: cuMemPrefetchAsync_v2 needs CUDA 12.2 (found %d)", v)
		return
	}
	for _, g := range gs {
		if s.h.Attribute(g, harness.AttrConcurrentManagedAccess) != 1 {
			s.note("managed way left out: %s has CONCURRENT_MANAGED_ACCESS=0, and cuMemPrefetchAsync needs it", g)
			return
		}
	}
	m := s.h.AllocManaged(owner, size)
	w := s.h.GPUWork(owner)
	harness.ExpectNoError(w.Fill(s.ctx, m.Ptr, size/4, seed), "fill the managed buffer on %s", owner)
	b.ways = append(b.ways, reuseWay{name: "managed", what: fmt.Sprintf("managed memory resident on %s prefetched to %s", home, b.consumer), src: m.Ptr,
		stage: func(n uint64) { s.h.PrefetchAsync(b.stream, m.Ptr, n, harness.GPULocation(b.consumer)) },
		reset: func(n uint64) {
			harness.ExpectNoError(w.Prefetch(s.ctx, m.Ptr, n, home), "prefetch the managed buffer back to %s", home)
		}})
}

// measure times every way at every size and pattern, checks every pass's
// sum, and records the figures and the crossovers.
func (b *reuseBench) measure(sizes []uint64, seed uint32) {
	GinkgoHelper()
	s := b.s
	for _, size := range sizes {
		n := size / 4
		want := kernels.PatternSum(seed, n)
		for _, pat := range reusePatterns {
			times := map[string]reuseTimes{}
			for _, w := range b.ways {
				By(fmt.Sprintf("%s, %s, %s: %d passes", bw.SizeLabel(size), pat.name, w.what, maxReuse))
				b.timeline(w, size, pat, 1, want) // warm-up: module, first touch, page tables
				times[w.name] = b.timeline(w, size, pat, maxReuse, want)
			}
			b.record(size, pat, times)
		}
	}
	s.alone.Done()
}

// timeline runs one way's staging and passes reduces on the consumer's
// stream behind the hold kernel, with events at the start, after the
// staging and after each pass of reuseCounts, and checks that every pass
// summed the buffer to want. A hold that ended before the host had queued
// everything is lengthened and the timeline run again (three times at
// most; then the figures are noted as submission-bound).
func (b *reuseBench) timeline(w reuseWay, size uint64, pat reusePattern, passes int, want uint32) reuseTimes {
	GinkgoHelper()
	s, n := b.s, size/4
	rows := uint64(log2(n)) - uint64(pat.colsLog2)
	for attempt := 0; ; attempt++ {
		if w.reset != nil {
			w.reset(size)
		}
		s.h.Memset32Async(b.stream, b.out, 0, maxReuse)
		b.hold.launch(b.stream)
		s.h.RecordEvent(b.start, b.stream)
		t0 := time.Now()
		if w.stage != nil {
			w.stage(size)
		}
		s.h.RecordEvent(b.staged, b.stream)
		for j := 1; j <= passes; j++ {
			s.h.Launch(b.stream, kernels.Reduce, b.shape, uint64(w.src), n, rows, uint64(pat.colsLog2), uint64(b.out)+4*uint64(j-1))
			if e, ok := b.passEnd[j]; ok {
				s.h.RecordEvent(e, b.stream)
			}
		}
		enqueued := time.Since(t0)
		s.h.MustWait(s.ctx, b.stream, fmt.Sprintf("%d passes of %s over %s (%s)", passes, kernels.Reduce, bw.SizeLabel(size), w.what))
		sums := s.h.Download(b.consumer, b.out, passes)
		for j, got := range sums {
			Expect(got).To(Equal(want), "pass %d of %d by a kernel on %s, %s, %s %s: the sum of the words read (mod 2^32) is 0x%08x, the seeded pattern's is 0x%08x",
				j+1, passes, b.consumer, w.what, bw.SizeLabel(size), pat.name, got, want)
		}
		if passes < maxReuse || !b.hold.tooShort(enqueued) || attempt == 3 {
			if attempt == 3 {
				s.note("%s %s %s: submission-bound (the host queued the passes slower than the GPU ran them)", w.name, bw.SizeLabel(size), pat.name)
			}
			t := reuseTimes{at: map[int]float64{}}
			t.staged = float64(s.h.ElapsedTime(b.start, b.staged))
			for _, k := range reuseCounts {
				if k <= passes {
					t.at[k] = float64(s.h.ElapsedTime(b.start, b.passEnd[k]))
				}
			}
			return t
		}
	}
}

// crossover is the least k of reuseCounts at which way beats direct, 0
// when it never does up to maxReuse.
func crossover(way, direct reuseTimes) int {
	for _, k := range reuseCounts {
		if way.at[k] < direct.at[k] {
			return k
		}
	}
	return 0
}

// record files the figures of one size and pattern: per way the staging and
// per-pass read rates, per staged way the crossover k*.
func (b *reuseBench) record(size uint64, pat reusePattern, times map[string]reuseTimes) {
	GinkgoHelper()
	s, label := b.s, bw.SizeLabel(size)
	direct := times["direct"]
	base := fmt.Sprintf("size=%s bytes=%d pattern=%s consumer=%s target=%s", label, size, pat.name, b.consumer, s.targetName)
	timeline := func(t reuseTimes) string {
		var parts []string
		for _, k := range reuseCounts {
			parts = append(parts, fmt.Sprintf("k=%d %.3f ms", k, t.at[k]))
		}
		return fmt.Sprintf("staging %.3f ms; %s", t.staged, strings.Join(parts, ", "))
	}
	for _, w := range b.ways {
		t := times[w.name]
		passMs := t.at[maxReuse] - t.staged
		harness.Metric(fmt.Sprintf("reuse_rate.%s.read.%s.%s", w.name, pat.name, label), float64(size)*maxReuse/passMs/1e6, "GB/s",
			fmt.Sprintf("%s way=%s (%s): %d passes read at this rate; %s%s", base, w.name, w.what, maxReuse, timeline(t), s.noteSuffix()))
		if w.stage == nil {
			continue
		}
		harness.Metric(fmt.Sprintf("reuse_rate.%s.stage.%s.%s", w.name, pat.name, label), float64(size)/t.staged/1e6, "GB/s",
			fmt.Sprintf("%s way=%s: the staging (%s) alone%s", base, w.name, w.what, s.noteSuffix()))
		k := crossover(t, direct)
		verdict := fmt.Sprintf("from k=%d on, %s beats reading in place", k, w.name)
		if k == 0 {
			verdict = fmt.Sprintf("reading in place stays faster up to k=%d (0 means no crossover)", maxReuse)
		}
		harness.Metric(fmt.Sprintf("%s_wins_at_k.%s.%s", w.name, pat.name, label), float64(k), "reuses",
			fmt.Sprintf("%s: %s; %s: %s; direct: %s%s", base, verdict, w.name, timeline(t), timeline(direct), s.noteSuffix()))
	}
}

func log2(n uint64) uint {
	var l uint
	for n > 1 {
		n >>= 1
		l++
	}
	return l
}
