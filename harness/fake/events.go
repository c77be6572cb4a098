// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"path/filepath"
	"sync/atomic"
	"syscall"
	"unsafe"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

// event keeps two generation counters: rec counts cuEventRecord calls, done
// is the highest record whose preceding work has finished. The event is
// complete when done ≥ rec (so a never-recorded event is complete, and a
// re-record overwrites). Interprocess events keep the counters in a small
// shared file, so every process that opened the handle sees the same event.
type event struct {
	b        *Backend
	dev      int
	origin   int // GPU that records it: dev, or the exporter's for an imported event
	flags    backend.EventFlags
	counters [2]uint64 // rec, done (for in-process events)
	rec      *uint64
	done     *uint64
	ts       atomic.Int64 // completion time of the last completed record
	id       string       // interprocess events: file name under ev/
	owner    bool         // this process created the interprocess event
}

// Device is the GPU whose context owns the event.
func (e *event) Device() backend.Device { return backend.Device(e.dev) }

func (e *event) complete() bool { return atomic.LoadUint64(e.done) >= atomic.LoadUint64(e.rec) }

func (e *event) markDone(g uint64, ts int64) {
	e.ts.Store(ts)
	for {
		cur := atomic.LoadUint64(e.done)
		if cur >= g || atomic.CompareAndSwapUint64(e.done, cur, g) {
			return
		}
	}
}

// release unlinks the shared file of an interprocess event this process
// created. The mapping itself stays until the process exits: a stream of
// any process may still be polling it, and it is one page.
func (e *event) release() {
	if e.id != "" && e.owner {
		_ = syscall.Unlink(filepath.Join(e.b.state.root, "ev", e.id))
	}
}

// mapEventFile maps the counters of an interprocess event.
func (b *Backend) mapEventFile(fn, id string, create bool) (*event, error) {
	flags := syscall.O_RDWR | syscall.O_CLOEXEC
	if create {
		flags |= syscall.O_CREAT | syscall.O_EXCL
	}
	fd, err := syscall.Open(filepath.Join(b.state.root, "ev", id), flags, 0o600)
	if err != nil {
		return nil, errf(fn, cuerr.InvalidHandle, "interprocess event %s: %v", id, err)
	}
	defer syscall.Close(fd)
	if create {
		if err := syscall.Ftruncate(fd, pageSize); err != nil {
			return nil, errf(fn, cuerr.OperatingSystem, "event file: %v", err)
		}
	}
	mem, err := syscall.Mmap(fd, 0, pageSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return nil, errf(fn, cuerr.MapFailed, "event file: %v", err)
	}
	e := &event{b: b, id: id, owner: create}
	e.rec = (*uint64)(unsafe.Pointer(&mem[0]))
	e.done = (*uint64)(unsafe.Pointer(&mem[8]))
	return e, nil
}

func (b *Backend) event(fn string, ev backend.Event) (*event, error) {
	e, ok := ev.(*event)
	if !ok || e == nil || e.b != b {
		return nil, errf(fn, cuerr.InvalidHandle, "not an event of this backend")
	}
	b.mu.Lock()
	known := b.events[e]
	b.mu.Unlock()
	if !known {
		return nil, errf(fn, cuerr.InvalidHandle, "event destroyed")
	}
	return e, b.ctx(fn, backend.Device(e.dev))
}

// NewEvent is cuEventCreate. INTERPROCESS needs DISABLE_TIMING (observed:
// INVALID_VALUE otherwise).
func (b *Backend) NewEvent(d backend.Device, flags backend.EventFlags) (backend.Event, error) {
	const fn = "cuEventCreate"
	if err := b.ctx(fn, d); err != nil {
		return nil, err
	}
	all := backend.EventBlockingSync | backend.EventDisableTiming | backend.EventInterprocess
	if flags&^all != 0 {
		return nil, errf(fn, cuerr.InvalidValue, "flags 0x%x", uint32(flags))
	}
	ipc := flags&backend.EventInterprocess != 0
	if ipc && flags&backend.EventDisableTiming == 0 && !b.defects.has(dIPCEventFlagsLax) {
		return nil, errf(fn, cuerr.InvalidValue, "INTERPROCESS without DISABLE_TIMING")
	}
	var e *event
	if ipc {
		var err error
		if e, err = b.mapEventFile(fn, randomID(), true); err != nil {
			return nil, err
		}
	} else {
		e = &event{b: b}
		e.rec, e.done = &e.counters[0], &e.counters[1]
	}
	e.dev, e.origin, e.flags = int(d), int(d), flags
	b.mu.Lock()
	b.events[e] = true
	b.mu.Unlock()
	return e, nil
}

// DestroyEvent is cuEventDestroy.
func (b *Backend) DestroyEvent(ev backend.Event) error {
	const fn = "cuEventDestroy"
	e, err := b.event(fn, ev)
	if e == nil {
		return err
	}
	b.mu.Lock()
	delete(b.events, e)
	b.mu.Unlock()
	e.release()
	return err
}

// RecordEvent is cuEventRecord: the event and the stream must belong to the
// same context (documented INVALID_HANDLE).
func (b *Backend) RecordEvent(ev backend.Event, s backend.Stream) error {
	const fn = "cuEventRecord"
	e, err := b.event(fn, ev)
	if err != nil {
		return err
	}
	st, err := b.stream(fn, s)
	if err != nil {
		return err
	}
	if e.dev != st.dev {
		return errf(fn, cuerr.InvalidHandle, "event of GPU%d, stream of GPU%d", e.dev, st.dev)
	}
	g := atomic.AddUint64(e.rec, 1)
	if b.defects.has(dEventCompletesEarly) {
		e.markDone(g, st.clock())
		st.enqueue(func() {})
		return nil
	}
	st.enqueue(func() { e.markDone(g, st.clock()) })
	return nil
}

// EventQuery is cuEventQuery.
func (b *Backend) EventQuery(ev backend.Event) error {
	const fn = "cuEventQuery"
	e, err := b.event(fn, ev)
	if err != nil {
		return err
	}
	if !e.complete() {
		return errf(fn, cuerr.NotReady, "GPU%d event: record %d pending", e.dev, atomic.LoadUint64(e.rec))
	}
	// As StreamQuery: a kernel queued before the record may have faulted
	// after the context check above.
	return b.ctx(fn, backend.Device(e.dev))
}

// StreamWaitEvent is cuStreamWaitEvent: the stream waits for the event's
// latest record as of this call, whichever GPU (or process) records it.
func (b *Backend) StreamWaitEvent(s backend.Stream, ev backend.Event) error {
	const fn = "cuStreamWaitEvent"
	st, err := b.stream(fn, s)
	if err != nil {
		return err
	}
	e, ok := ev.(*event)
	if !ok || e == nil || e.b != b {
		return errf(fn, cuerr.InvalidHandle, "not an event of this backend")
	}
	if b.defects.has(dStreamWaitIgnored) && (e.dev != st.dev || e.origin != st.dev) {
		return nil
	}
	target := atomic.LoadUint64(e.rec)
	if target > 1 && b.defects.has(dStreamWaitHonoursEarlierRecord) {
		target-- // the previous capture, not the latest
	}
	if target == 0 {
		return nil
	}
	st.enqueue(func() {
		st.waitUntil(func() bool { return atomic.LoadUint64(e.done) >= target })
		if b.defects.has(dHandoffServesStaleRead) {
			st.stale.freeze()
			st.stale.keep = true
		}
	})
	return nil
}

// ElapsedTime is cuEventElapsedTime. Events of two GPUs: INVALID_HANDLE
// (observed on two H200).
func (b *Backend) ElapsedTime(start, end backend.Event) (float32, error) {
	const fn = "cuEventElapsedTime"
	s, err := b.event(fn, start)
	if err != nil {
		return 0, err
	}
	e, err := b.event(fn, end)
	if err != nil {
		return 0, err
	}
	switch {
	case s.dev != e.dev && !b.defects.has(dElapsedTimeCrossDevice):
		return 0, errf(fn, cuerr.InvalidHandle, "events of GPU%d and GPU%d", s.dev, e.dev)
	case (s.flags|e.flags)&backend.EventDisableTiming != 0:
		return 0, errf(fn, cuerr.InvalidHandle, "an event was created with DISABLE_TIMING")
	case atomic.LoadUint64(s.rec) == 0 || atomic.LoadUint64(e.rec) == 0:
		return 0, errf(fn, cuerr.InvalidHandle, "an event was never recorded")
	case !s.complete() || !e.complete():
		return 0, errf(fn, cuerr.NotReady, "an event is still pending")
	}
	return float32(e.ts.Load()-s.ts.Load()) / 1e6, nil
}
