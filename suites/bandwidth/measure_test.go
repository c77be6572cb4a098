// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package bandwidth

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gmeasure"

	"github.com/p2pconf/p2pconf/harness"
	bw "github.com/p2pconf/p2pconf/harness/bandwidth"
	"github.com/p2pconf/p2pconf/kernels"
)

// lane is one stream of transfers: one direction of a measurement. Its two
// events belong to the stream's device, so ElapsedTime never mixes devices.
type lane struct {
	label      string // "GPU0→GPU1"
	stream     harness.Stream
	start, end harness.Event
	src, dst   *buffer
	// enqueue puts one transfer of n bytes from src to dst on stream.
	enqueue func(n uint64)
}

// bench measures one method and direction on one target at every size.
type bench struct {
	s         *session
	method    string  // "ce" (copy engine) or "sm" (kernel)
	direction string  // "uni", "bidir", "read", "write", "local", "h2d", ...
	what      string  // the operation, for messages: "cuMemcpyPeerAsync GPU0→GPU1"
	counted   string  // "one-way" or "read+write"
	factor    float64 // bytes counted per byte copied (2 for read+write)
	lanes     []*lane
	hold      holdKernel
	exp       *gmeasure.Experiment
	// submissionBound is set when the host could not enqueue a batch within
	// the hold, so a batch's time may include gaps of the host's making.
	submissionBound bool
}

// sizeResult is the outcome at one size: the median over the timed batches
// of the total rate (sum of the lanes' bytes over the slowest lane's time).
type sizeResult struct {
	size                uint64
	batch, reps         int
	median, min, max    float64 // GB/s
	stddev              float64
	laneMedian          []float64 // per lane, GB/s
	laneLabels          []string
	submissionBoundNote bool
}

func (s *session) bench(method, direction, what string) *bench {
	b := &bench{s: s, method: method, direction: direction, what: what, counted: "one-way", factor: 1}
	b.exp = gmeasure.NewExperiment(fmt.Sprintf("bandwidth %s %s on %s", method, direction, s.targetName))
	return b
}

// countReadWrite makes the bench count every byte twice (read and written),
// as device-local copies are usually quoted against memory bandwidth.
func (b *bench) countReadWrite() { b.counted, b.factor = "read+write", 2 }

// addLane adds a direction; the first lane's device runs the hold kernel.
func (b *bench) addLane(label string, st harness.Stream, src, dst *buffer, enqueue func(l *lane, n uint64)) {
	GinkgoHelper()
	g := b.s.gpuOf(st.Device())
	l := &lane{label: label, stream: st, src: src, dst: dst,
		start: b.s.h.Event(g, harness.EventDefault), end: b.s.h.Event(g, harness.EventDefault)}
	l.enqueue = func(n uint64) { enqueue(l, n) }
	b.lanes = append(b.lanes, l)
	if len(b.lanes) == 1 {
		b.hold = b.s.newHold(g)
	}
}

// run fills the sources once, then per size: poisons the destinations, runs
// one warm-up batch and the timed batches, and verifies every destination.
func (b *bench) run() []sizeResult {
	GinkgoHelper()
	s := b.s
	for i, l := range b.lanes {
		By(fmt.Sprintf("filling the source of %s (%s) with a seeded pattern", l.label, l.src.where))
		s.fill(l.src, s.max/4, s.seed(i))
	}
	var out []sizeResult
	for _, size := range s.sizes {
		out = append(out, b.runSize(size))
	}
	AddReportEntry(b.exp.Name, b.exp, ReportEntryVisibilityFailureOrVerbose)
	return out
}

func (b *bench) runSize(size uint64) sizeResult {
	GinkgoHelper()
	s, label := b.s, bw.SizeLabel(size)
	batch, reps := s.batchFor(size), s.repsFor(size)
	for i, l := range b.lanes {
		s.fill(l.dst, size/4, s.seed(i)^poisonMask)
	}
	By(fmt.Sprintf("timing %s, %s × %d per batch, 1 warm-up + %d batches", b.what, label, batch, reps))
	b.submissionBound = false
	b.timeBatch(size, batch, false) // warm-up: first touch, module load, clocks
	r := sizeResult{size: size, batch: batch, reps: reps}
	for range reps {
		ms := b.timeBatch(size, batch, true)
		var slowest float64
		for i, l := range b.lanes {
			slowest = max(slowest, ms[i])
			if len(b.lanes) > 1 {
				b.exp.RecordValue(label+" "+l.label, gbps(size*uint64(batch), ms[i], b.factor), gmeasure.Units("GB/s"), gmeasure.Precision(1))
			}
		}
		total := gbps(size*uint64(batch*len(b.lanes)), slowest, b.factor)
		b.exp.RecordValue(label, total, gmeasure.Units("GB/s"), gmeasure.Precision(1))
	}
	st := b.exp.GetStats(label)
	r.median, r.min, r.max = st.ValueFor(gmeasure.StatMedian), st.ValueFor(gmeasure.StatMin), st.ValueFor(gmeasure.StatMax)
	r.stddev = st.ValueFor(gmeasure.StatStdDev)
	for _, l := range b.lanes {
		if len(b.lanes) > 1 {
			r.laneLabels = append(r.laneLabels, l.label)
			r.laneMedian = append(r.laneMedian, b.exp.GetStats(label+" "+l.label).ValueFor(gmeasure.StatMedian))
		}
	}
	r.submissionBoundNote = b.submissionBound
	for i, l := range b.lanes {
		s.verify(l.dst, size/4, s.seed(i), fmt.Sprintf("%s after %d batches of %d × %s by %s (%s)", l.dst.where, reps+1, batch, label, b.what, l.label))
	}
	return r
}

// gbps is bytes×factor per ms, in GB/s (1e9 bytes per second).
func gbps(bytes uint64, ms, factor float64) float64 { return float64(bytes) * factor / ms / 1e6 }

// timeBatch times one batch of transfers on every lane at once and returns
// each lane's elapsed milliseconds. The first lane's stream is held by a
// delay kernel while the host enqueues, and the other lanes wait on the
// first lane's start event, so all lanes start together and the events time
// the GPUs' work, not the host's submissions. With adapt, a hold that ended
// before the host finished enqueueing is lengthened and the batch repeated
// (three times at most; then the figure is marked submission-bound). The
// warm-up does not adapt: its first launches include module loading.
func (b *bench) timeBatch(size uint64, batch int, adapt bool) []float64 {
	GinkgoHelper()
	s, l0 := b.s, b.lanes[0]
	for attempt := 0; ; attempt++ {
		b.hold.launch(l0.stream)
		s.h.RecordEvent(l0.start, l0.stream)
		for _, l := range b.lanes[1:] {
			s.h.StreamWaitEvent(l.stream, l0.start)
			s.h.RecordEvent(l.start, l.stream)
		}
		t0 := time.Now()
		for range batch {
			for _, l := range b.lanes {
				l.enqueue(size)
			}
		}
		for _, l := range b.lanes {
			s.h.RecordEvent(l.end, l.stream)
		}
		enqueued := time.Since(t0)
		for _, l := range b.lanes {
			s.h.MustWaitEvent(s.ctx, l.end, fmt.Sprintf("%s × %d for %s", bw.SizeLabel(size), batch, l.label))
		}
		if !adapt || !b.hold.tooShort(enqueued) {
			return b.elapsed(size, batch)
		}
		if attempt == 3 {
			b.submissionBound = true
			return b.elapsed(size, batch)
		}
	}
}

func (b *bench) elapsed(size uint64, batch int) []float64 {
	GinkgoHelper()
	ms := make([]float64, len(b.lanes))
	for i, l := range b.lanes {
		t := b.s.h.ElapsedTime(l.start, l.end)
		Expect(t).To(BeNumerically(">", 0), "cuEventElapsedTime for %d × %s of %s (%s) is not a positive time", batch, bw.SizeLabel(size), b.what, l.label)
		ms[i] = float64(t)
	}
	return ms
}

// holdKernel is kernels.Delay on one GPU, launched before the start event.
type holdKernel struct {
	s      *session
	status harness.DevicePtr
	ns     uint64
}

func (s *session) newHold(g harness.GPU) holdKernel {
	GinkgoHelper()
	return holdKernel{s: s, status: s.h.Alloc(g, 8), ns: uint64(200 * time.Microsecond)}
}

func (k *holdKernel) launch(st harness.Stream) {
	GinkgoHelper()
	k.s.h.Launch(st, kernels.Delay, harness.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(1)}, k.ns, uint64(k.status))
}

// maxHold bounds the hold kernel's delay.
const maxHold = uint64(100 * time.Millisecond)

// tooShort reports a hold that ended before the host finished enqueueing,
// with a 25 % margin for the kernel's own launch latency, and lengthens it
// for the next batch (up to maxHold).
func (k *holdKernel) tooShort(enqueued time.Duration) bool {
	if time.Duration(k.ns) >= enqueued*5/4 {
		return false
	}
	k.ns = min(2*max(k.ns, uint64(enqueued)), maxHold)
	return true
}
