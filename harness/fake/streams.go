// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

// stream is a goroutine running its queue in order. Work queued on a GPU
// whose context is poisoned is dropped, as the driver drops it.
type stream struct {
	b       *Backend
	dev     int
	mu      sync.Mutex
	cond    *sync.Cond
	queue   []func()
	pending atomic.Int64
	stopped bool        // destroyed: finish the queue, then exit
	killed  atomic.Bool // backend closed (or destroyed while waiting): exit now
	// lastDone is when the previous operation ended (wall time, ns; only
	// the stream's goroutine touches it) and adj the modelled time of its
	// copies between GPUs minus their wall time (timing.go).
	lastDone int64
	adj      atomic.Int64
	// stale is handoff-serves-stale-read's copy of what the stream's
	// kernels read.
	stale staleCopy
}

// staleCopy is what a stream's kernels read with bulk loads (Grid.Read)
// under handoff-serves-stale-read. A cuStreamWaitEvent, once its wait is
// over, freezes what the kernel before it read, and the kernels after it
// read those bytes instead of memory; any operation but a kernel or a wait
// (a copy, a memset, an event record, a prefetch) drops both.
type staleCopy struct {
	mu              sync.Mutex
	pending, frozen []staleSnap
	// keep is set by the operation the stream runs when it may keep the
	// copy (a kernel or a wait; the stream's goroutine only).
	keep bool
}

type staleSnap struct {
	r    *region
	off  uint64
	data []byte
}

// read serves out, just loaded from r at off, from the frozen copy where
// it holds those bytes, and remembers what memory held.
func (c *staleCopy) read(r *region, off uint64, out []byte) {
	mem := append([]byte(nil), out...)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.frozen {
		if s.r != r || s.off >= off+uint64(len(out)) || off >= s.off+uint64(len(s.data)) {
			continue
		}
		lo, hi := max(s.off, off), min(s.off+uint64(len(s.data)), off+uint64(len(out)))
		copy(out[lo-off:hi-off], s.data[lo-s.off:hi-s.off])
	}
	c.pending = append(c.pending, staleSnap{r, off, mem})
}

// begin starts a kernel: the copy keeps what the stream's latest kernel
// read (so it stays as small as one kernel's reads) and what the latest
// wait froze.
func (c *staleCopy) begin() {
	c.mu.Lock()
	c.pending = nil
	c.mu.Unlock()
	c.keep = true
}

// freeze ends a wait: what the stream's kernels read before it is what
// the kernels after it read.
func (c *staleCopy) freeze() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.frozen, c.pending = c.pending, nil
}

// done ends an operation: one that may not keep the copy drops it.
func (c *staleCopy) done() {
	if !c.keep {
		c.mu.Lock()
		c.frozen, c.pending = nil, nil
		c.mu.Unlock()
	}
	c.keep = false
}

// Device is the GPU whose context owns the stream.
func (s *stream) Device() backend.Device { return backend.Device(s.dev) }

func (s *stream) run() {
	for {
		s.mu.Lock()
		for len(s.queue) == 0 && !s.stopped {
			s.cond.Wait()
		}
		if len(s.queue) == 0 || s.killed.Load() {
			s.mu.Unlock()
			return
		}
		op := s.queue[0]
		s.queue[0] = nil
		s.queue = s.queue[1:]
		s.mu.Unlock()
		if s.b.devs[s.dev].poison.Load() == nil {
			op()
			s.b.noteWork(s.dev)
		}
		s.stale.done()
		s.lastDone = time.Now().UnixNano()
		s.pending.Add(-1)
	}
}

func (s *stream) enqueue(op func()) {
	s.pending.Add(1)
	s.mu.Lock()
	s.queue = append(s.queue, op)
	s.cond.Signal()
	s.mu.Unlock()
}

func (s *stream) stop() {
	s.killed.Store(true)
	s.mu.Lock()
	s.stopped = true
	s.cond.Broadcast()
	s.mu.Unlock()
}

// waitUntil polls cond until it holds or the stream is killed or destroyed.
func (s *stream) waitUntil(cond func() bool) {
	for i := 0; !cond(); i++ {
		if s.killed.Load() {
			return
		}
		s.mu.Lock()
		stopped := s.stopped
		s.mu.Unlock()
		if stopped {
			return
		}
		backoff(i)
	}
}

func backoff(i int) {
	if i < 64 {
		runtime.Gosched()
		return
	}
	time.Sleep(min(time.Duration(i)*time.Microsecond, time.Millisecond))
}

func (b *Backend) stream(fn string, s backend.Stream) (*stream, error) {
	st, ok := s.(*stream)
	if !ok || st == nil || st.b != b {
		return nil, errf(fn, cuerr.InvalidHandle, "not a stream of this backend")
	}
	if err := b.ctx(fn, backend.Device(st.dev)); err != nil {
		return nil, err
	}
	return st, nil
}

// NewStream is cuStreamCreate(NON_BLOCKING).
func (b *Backend) NewStream(d backend.Device) (backend.Stream, error) {
	const fn = "cuStreamCreate"
	if err := b.ctx(fn, d); err != nil {
		return nil, err
	}
	s := &stream{b: b, dev: int(d)}
	s.cond = sync.NewCond(&s.mu)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, errf(fn, cuerr.Deinitialized, "the backend is closed")
	}
	b.streams[s] = true
	go s.run()
	return s, nil
}

// DestroyStream is cuStreamDestroy: queued work still runs.
func (b *Backend) DestroyStream(s backend.Stream) error {
	const fn = "cuStreamDestroy"
	st, ok := s.(*stream)
	if !ok || st == nil || st.b != b {
		return errf(fn, cuerr.InvalidHandle, "not a stream of this backend")
	}
	b.mu.Lock()
	known := b.streams[st]
	delete(b.streams, st)
	b.mu.Unlock()
	if !known {
		return errf(fn, cuerr.InvalidHandle, "stream already destroyed")
	}
	st.mu.Lock()
	st.stopped = true
	st.cond.Broadcast()
	st.mu.Unlock()
	return b.ctx(fn, backend.Device(st.dev))
}

// StreamQuery is cuStreamQuery.
func (b *Backend) StreamQuery(s backend.Stream) error {
	const fn = "cuStreamQuery"
	st, err := b.stream(fn, s)
	if err != nil {
		return err
	}
	queryRace(st)
	if st.pending.Load() > 0 {
		return errf(fn, cuerr.NotReady, "GPU%d stream has %d operations pending", st.dev, st.pending.Load())
	}
	// The last operation may have faulted between the context check above
	// and its end: look again now that nothing is pending, or a faulting
	// kernel could read as done without error.
	return b.ctx(fn, backend.Device(st.dev))
}

// queryRace runs between StreamQuery's context check and its look at the
// queue; a test sets it to let the stream's last operation end there.
var queryRace = func(*stream) {}

// ownedBy says whether r is memory of device d's context, for the peer copy.
func ownedBy(r *region, d int) bool {
	switch r.kind {
	case kindAlloc, kindIPC:
		return r.ctx == d
	case kindVMM:
		return r.access[d].Load() != 0
	}
	return true
}

// copyAsync checks both ranges now (errors are returned by the call), and
// queues the copy, which resolves them again when it runs.
func (b *Backend) copyAsync(fn string, st *stream, dst uint64, dstDev int, src uint64, srcDev int, n uint64, peer bool) error {
	check := func() (*region, []byte, *region, []byte, error) {
		dr, dm, err := b.span(fn, dstDev, dst, n, true)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		sr, sm, err := b.span(fn, srcDev, src, n, false)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		if peer && (!ownedBy(dr, dstDev) || !ownedBy(sr, srcDev)) {
			return nil, nil, nil, nil, errf(fn, cuerr.InvalidValue, "pointers 0x%x/0x%x are not memory of GPU%d/GPU%d", dst, src, dstDev, srcDev)
		}
		return dr, dm, sr, sm, nil
	}
	b.enter()
	dr, _, sr, _, err := check()
	b.exit()
	if err != nil {
		return err
	}
	if b.defects.has(dPeerCopyUnordered) && dr.phys >= 0 && sr.phys >= 0 && dr.phys != sr.phys {
		// The copy runs now, ahead of what is queued before it.
		b.runCopy(st, check, n)
		return nil
	}
	st.enqueue(func() {
		start := time.Now()
		if !b.runCopy(st, check, n) {
			return
		}
		if b.defects.has(dSlowPeerCopy) {
			st.stallUntil(start.Add(slowPeerTime(n)))
		}
		b.notePeerCopy(srcDev)
		b.modelPeerTime(st, srcDev, dstDev, n)
	})
	return nil
}

// runCopy is a queued copy; it reports whether it moved bytes between two
// GPUs' memory.
func (b *Backend) runCopy(st *stream, check func() (*region, []byte, *region, []byte, error), n uint64) (peer bool) {
	b.enter()
	defer b.exit()
	dr, dm, sr, sm, err := check()
	if err != nil {
		b.poison(st.dev, cuerr.IllegalAddress, "queued copy: "+err.Error())
		return false
	}
	peer = dr.phys >= 0 && sr.phys >= 0 && dr.phys != sr.phys
	switch {
	case b.defects.has(dPeerCopyOneWayDropped) && dr.phys == 0 && sr.phys == 1:
		// the copy writes nothing
	case b.defects.has(dCopySizeCap) && peer && n > copySizeCap:
		copy(dm[:copySizeCap], sm[:copySizeCap])
	case b.defects.has(dFirstPeerCopyZeros) && peer && b.firstPeerCopy(dr.phys, sr.phys):
		clear(dm)
	case b.defects.has(dUnalignedCopyDropsTail) && dr.phys >= 0 && sr.phys >= 0 && n%4 != 0:
		copy(dm[:n-n%4], sm[:n-n%4])
	default:
		copy(dm, sm)
	}
	if b.defects.has(dPeerCopyCorrupts) && peer && n >= 4 {
		w := n / 4 / 2 * 4
		flip := (*uint32)(ptrAt(dm, w))
		atomic.StoreUint32(flip, ^atomic.LoadUint32(flip))
	}
	return peer
}

// stallUntil holds the stream until end (slow-peer-copy), in slices so
// that a stream killed by Close stops at once.
func (s *stream) stallUntil(end time.Time) {
	for !s.killed.Load() {
		left := time.Until(end)
		if left <= 0 {
			return
		}
		time.Sleep(min(left, time.Millisecond))
	}
}

// CopyAsync is cuMemcpyAsync; under UVA any two pointers of this process.
func (b *Backend) CopyAsync(s backend.Stream, dst, src backend.DevicePtr, n uint64) error {
	const fn = "cuMemcpyAsync"
	st, err := b.stream(fn, s)
	if err != nil {
		return err
	}
	return b.copyAsync(fn, st, uint64(dst), st.dev, uint64(src), st.dev, n, false)
}

// CopyPeerAsync is cuMemcpyPeerAsync: it works with or without peer access.
func (b *Backend) CopyPeerAsync(s backend.Stream, dst backend.DevicePtr, dstDev backend.Device, src backend.DevicePtr, srcDev backend.Device, n uint64) error {
	const fn = "cuMemcpyPeerAsync"
	st, err := b.stream(fn, s)
	if err != nil {
		return err
	}
	if err := b.ctx(fn, dstDev); err != nil {
		return err
	}
	if err := b.ctx(fn, srcDev); err != nil {
		return err
	}
	return b.copyAsync(fn, st, uint64(dst), int(dstDev), uint64(src), int(srcDev), n, true)
}

// Memset32Async is cuMemsetD32Async.
func (b *Backend) Memset32Async(s backend.Stream, p backend.DevicePtr, value uint32, words uint64) error {
	const fn = "cuMemsetD32Async"
	st, err := b.stream(fn, s)
	if err != nil {
		return err
	}
	if uint64(p)%4 != 0 {
		return errf(fn, cuerr.InvalidValue, "0x%x is not 4-byte aligned", uint64(p))
	}
	b.enter()
	_, _, err = b.span(fn, st.dev, uint64(p), words*4, true)
	b.exit()
	if err != nil {
		return err
	}
	st.enqueue(func() {
		b.enter()
		defer b.exit()
		_, mem, err := b.span(fn, st.dev, uint64(p), words*4, true)
		if err != nil {
			b.poison(st.dev, cuerr.IllegalAddress, "queued memset: "+err.Error())
			return
		}
		fill32(mem, value)
	})
	return nil
}
