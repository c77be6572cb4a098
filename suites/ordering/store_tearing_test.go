// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package ordering_test

import (
	"context"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/kernels"
)

const (
	tearSlots     = 1024             // slots a writer keeps changing (one writer thread each)
	tearGateWait  = 5 * time.Second  // the kernels' start gate
	tearRunCap    = 5 * time.Second  // the longest a writer or reader kernel, or the host, keeps at it
	tearBound     = 1e-6             // the 95 % bound on the tearing rate a pass needs
	tearSimBound  = 1e-3             // the same on a simulated backend (the fake's loads are Go calls)
	tearReadSlack = 64               // a reader thread's reads, at most, per changed read it wants
	tearHostWait  = 30 * time.Second // bounds a host loop that waits for the kernel's end
)

// tearPlace is where a store-tearing run keeps its slots and who writes and
// reads them. A nil writer or reader GPU is the host.
type tearPlace struct {
	key            string // the variant key's stem
	writer, reader *harness.GPU
	mem            string // "writer", "reader" or "host"
}

func (t tearPlace) String() string {
	name := func(g *harness.GPU) string {
		if g == nil {
			return "the host"
		}
		return g.String()
	}
	where := "pinned host memory"
	switch t.mem {
	case "writer":
		where = name(t.writer) + "'s memory"
	case "reader":
		where = name(t.reader) + "'s memory"
	}
	return fmt.Sprintf("%s storing into %s while %s loads", name(t.writer), where, name(t.reader))
}

// tearTally is what a run counted.
type tearTally struct {
	reads, torn, changed uint64
	width                int
}

func (t tearTally) describe() string {
	return fmt.Sprintf("%d-bit: %d loads, %d of them saw a new value, %d torn", 8*t.width, t.reads, t.changed, t.torn)
}

var _ = Describe("ordering: aligned stores are never torn", func() {
	h := harness.New()
	bound := tearBound
	if harness.RunConfig().Limits().Simulated {
		bound = tearSimBound
	}
	target := uint64(math.Ceil(-math.Log(0.05) / bound))

	/*
		ID: ordering.store-tearing
		Requirement: an aligned 32-bit or 64-bit st.relaxed.sys store MUST be
		observed whole: a concurrent ld.relaxed.sys of the same width on
		another GPU, or an atomic load by the host, returns one of the values
		stored, never parts of two. Each value carries a check of its own
		parts, so a torn load shows. Checked with the words in the reader's
		memory (peer stores), in the writer's memory (peer loads) and in pinned
		host memory (writer and reader on two GPUs, or on a GPU and the host),
		until the loads that saw a new value are enough for a 95 % bound on the
		tearing rate (−ln 0.05 / those loads) of at most 10^-6 per load. The
		same with 128-bit v2.u64 stores and loads is recorded, not asserted.
		Source: PTX ISA, memory consistency model (morally strong accesses of
		one aligned size are single-copy atomic; vector accesses are not
		promised to be); observed in collective libraries that carry a flag
		and data in one 8-byte store.
		Applies to: ordered pairs with peer access towards the memory used;
		every GPU for the host placements.
	*/
	widths := []int{4, 8}
	for _, p := range harness.Pairs() {
		a, b := p.A, p.B
		for _, place := range []tearPlace{
			{key: "peer-store", writer: &a, reader: &b, mem: "reader"},
			{key: "peer-load", writer: &a, reader: &b, mem: "writer"},
			{key: "host-across-gpus", writer: &a, reader: &b, mem: "host"},
		} {
			for _, width := range widths {
				It(fmt.Sprintf("%d-bit stores of %s are seen whole", 8*width, place),
					harness.PairLabels("ordering.store-tearing", p, harness.Variant(fmt.Sprintf("%s-%d-bit", place.key, 8*width))), func(ctx SpecContext) {
						switch place.mem {
						case "reader":
							h.RequirePeerAccess(p)
							h.MustEnablePeerAccess(p)
						case "writer":
							h.RequirePeerAccess(p.Reverse())
							h.MustEnablePeerAccess(p.Reverse())
						}
						expectWhole(ctx, h, place, width, target, bound)
					}, harness.TimeoutPlus(1, 4*tearRunCap))
			}
		}
	}
	for _, g := range harness.GPUs() {
		for _, place := range []tearPlace{
			{key: "gpu-to-host", writer: &g, mem: "host"},
			{key: "host-to-gpu", reader: &g, mem: "host"},
		} {
			for _, width := range widths {
				It(fmt.Sprintf("%d-bit stores of %s are seen whole", 8*width, place),
					harness.GPULabels("ordering.store-tearing", g, harness.Variant(fmt.Sprintf("%s-%d-bit", place.key, 8*width))), func(ctx SpecContext) {
						h.RequireAttribute(g, harness.AttrCanMapHostMemory, 1)
						expectWhole(ctx, h, place, width, target, bound)
					}, harness.TimeoutPlus(1, 4*tearRunCap))
			}
		}
	}
})

// expectWhole runs the placement at width until target loads saw a new
// value and fails on any torn load or too little evidence; on 64-bit runs
// with a GPU reader it records the 128-bit run after it.
func expectWhole(ctx context.Context, h *harness.Harness, place tearPlace, width int, target uint64, bound float64) {
	GinkgoHelper()
	By(fmt.Sprintf("%s, %d-bit, until %d loads saw a new value", place, 8*width, target))
	t := runTearing(ctx, h, place, width, target)
	up := -math.Log(0.05) / float64(max(t.changed, 1))
	harness.Metric("loads that saw a new value", float64(t.changed), "instances", t.describe())
	harness.Metric("tearing_rate_bound95", up, "per instance", t.describe())
	Expect(t.torn).To(BeZero(), "%s: %d loads returned parts of two values: %s", place, t.torn, t.describe())
	Expect(t.changed).To(BeNumerically(">=", target),
		"%s: too few loads saw a new value for a 95 %% bound of %.3g on the tearing rate (bound %.3g): %s", place, bound, up, t.describe())
	if width == 8 && place.reader != nil {
		By(fmt.Sprintf("%s, 128-bit v2.u64 (recorded, not asserted)", place))
		v := runTearing(ctx, h, place, 16, target)
		harness.Finding("128-bit v2.u64 loads torn", v.torn, fmt.Sprintf("%s: %s", place, v.describe()))
	}
}

// runTearing runs one writer and one reader at width over tearSlots slots
// and returns what the reader counted.
func runTearing(ctx context.Context, h *harness.Harness, place tearPlace, width int, target uint64) tearTally {
	GinkgoHelper()
	home := place.writer
	if home == nil || place.mem == "reader" {
		home = place.reader
	}
	// The gate and the stop word live in pinned host memory, where every
	// GPU and the host reach them.
	ctl := h.HostAlloc(*home, 4096, harness.HostAllocPortable|harness.HostAllocDeviceMap)
	gate, stop := harness.HostWord32(ctl.Mem, 0), harness.HostWord32(ctl.Mem, 64)
	atomic.StoreUint32(gate, 0)
	atomic.StoreUint32(stop, 0)
	// Never leave a kernel waiting out its gate or writing until its cap.
	DeferCleanup(func() { atomic.StoreUint32(gate, 1); atomic.StoreUint32(stop, 1) })

	size := uint64(tearSlots * kernels.TearSlot)
	var slots harness.DevicePtr
	var hostSlots []byte
	init := tearInit(width)
	switch place.mem {
	case "host":
		hb := h.HostAlloc(*home, size, harness.HostAllocPortable|harness.HostAllocDeviceMap)
		slots, hostSlots = hb.Ptr, hb.Mem
		copy(hostSlots, harness.WordsToBytes(init))
	case "writer":
		slots = h.Alloc(*place.writer, size)
		h.Upload(*place.writer, slots, init)
	default:
		slots = h.Alloc(*place.reader, size)
		h.Upload(*place.reader, slots, init)
	}

	tally := tearTally{width: width}
	var ws, rs harness.Stream
	var wStatus, rStatus, counts harness.DevicePtr
	if place.writer != nil {
		w := *place.writer
		ws, wStatus = h.Stream(w), h.Alloc(w, 16)
		h.Fill(w, wStatus, 0, 4)
		h.Launch(ws, kernels.TearWrite, harness.LaunchConfig{Grid: kernels.D1(tearSlots / 256), Block: kernels.D1(256)},
			uint64(slots), tearSlots, uint64(width), uint64(ctl.Ptr+64), uint64(ctl.Ptr), uint64(wStatus),
			uint64(tearGateWait), uint64(tearRunCap))
	}
	if place.reader != nil {
		r := *place.reader
		threads := uint64(max(1, r.Info.SMCount)) * 256
		want := (target + threads - 1) / threads
		rs, rStatus, counts = h.Stream(r), h.Alloc(r, 16), h.Alloc(r, 32)
		h.Fill(r, rStatus, 0, 4)
		h.Fill(r, counts, 0, 8)
		h.Launch(rs, kernels.TearRead, harness.LaunchConfig{Grid: kernels.D1(uint32(threads / 256)), Block: kernels.D1(256)},
			uint64(slots), tearSlots, uint64(width), want, want*tearReadSlack, uint64(counts), uint64(ctl.Ptr+64),
			uint64(ctl.Ptr), uint64(rStatus), uint64(tearRunCap))
	}
	atomic.StoreUint32(gate, 1)

	switch {
	case place.reader == nil:
		tally = hostRead(hostSlots, width, target, stop)
	case place.writer == nil:
		hostWrite(hostSlots, width, stop)
	}
	if ws != nil {
		h.MustWait(ctx, ws, fmt.Sprintf("the %d-bit writer on %s", 8*width, *place.writer))
		st := h.Download(*place.writer, wStatus, 3)
		Expect(st[kernels.TearGateTimeouts]+st[kernels.TearBadWidth]).To(BeZero(),
			"the writer on %s: %d CTAs gave up at the start gate after %s, %d threads did not know width %d", *place.writer, st[0], tearGateWait, st[1], width)
	}
	if rs != nil {
		h.MustWait(ctx, rs, fmt.Sprintf("the %d-bit reader on %s", 8*width, *place.reader))
		st := h.Download(*place.reader, rStatus, 3)
		Expect(st[kernels.TearGateTimeouts]+st[kernels.TearBadWidth]).To(BeZero(),
			"the reader on %s: %d CTAs gave up at the start gate after %s, %d threads did not know width %d", *place.reader, st[0], tearGateWait, st[1], width)
		c := h.Download(*place.reader, counts, 8)
		u64 := func(i int) uint64 { return uint64(c[2*i]) | uint64(c[2*i+1])<<32 }
		tally.reads, tally.torn, tally.changed = u64(kernels.TearReads), u64(kernels.TearTorn), u64(kernels.TearChanged)
	}
	return tally
}

// tearInit is every slot holding value 0, as words.
func tearInit(width int) []uint32 {
	w := make([]uint32, tearSlots*kernels.TearSlot/4)
	for i := 0; i < tearSlots; i++ {
		lo, hi := kernels.TearValue128(0)
		if width != 16 {
			lo, hi = kernels.TearValue(width, 0), 0
		}
		w[4*i], w[4*i+1], w[4*i+2], w[4*i+3] = uint32(lo), uint32(lo>>32), uint32(hi), uint32(hi>>32)
	}
	return w
}

// hostRead loads the slots with atomic loads of width, round-robin, until
// target loads saw a new value or tearRunCap passed, then sets the stop
// word for the writer.
func hostRead(mem []byte, width int, target uint64, stop *uint32) tearTally {
	defer atomic.StoreUint32(stop, 1)
	t := tearTally{width: width}
	prev := make([]uint64, tearSlots)
	for i := range prev {
		prev[i] = kernels.TearValue(width, 0)
	}
	end := time.Now().Add(tearRunCap)
	for t.changed < target && time.Now().Before(end) {
		for i := 0; i < tearSlots; i++ {
			var v uint64
			if width == 4 {
				v = uint64(atomic.LoadUint32(harness.HostWord32(mem, i*kernels.TearSlot)))
			} else {
				v = atomic.LoadUint64(harness.HostWord64(mem, i*kernels.TearSlot))
			}
			t.reads++
			if !kernels.TearWhole(width, v) {
				t.torn++
			}
			if v != prev[i] {
				t.changed++
				prev[i] = v
			}
		}
	}
	return t
}

// hostWrite stores values k = 1, 2, ... into every slot with atomic stores
// of width until the reader's last thread sets the stop word, for at most
// tearHostWait.
func hostWrite(mem []byte, width int, stop *uint32) {
	end := time.Now().Add(tearHostWait)
	for k := uint32(1); atomic.LoadUint32(stop) == 0 && time.Now().Before(end); k++ {
		for i := 0; i < tearSlots; i++ {
			off := i * kernels.TearSlot
			switch width {
			case 4:
				atomic.StoreUint32(harness.HostWord32(mem, off), uint32(kernels.TearValue(4, k)))
			case 8:
				atomic.StoreUint64(harness.HostWord64(mem, off), kernels.TearValue(8, k))
			default:
				lo, hi := kernels.TearValue128(k)
				atomic.StoreUint64(harness.HostWord64(mem, off), lo)
				atomic.StoreUint64(harness.HostWord64(mem, off+8), hi)
			}
		}
	}
}
