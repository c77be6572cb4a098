// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cudabackend

import (
	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuda"
	"github.com/p2pconf/p2pconf/harness/cuenum"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

// stream is a backend.Stream: a CUstream of one device's primary context.
type stream struct {
	dev backend.Device
	s   cuda.Stream
}

func (s *stream) Device() backend.Device { return s.dev }

// event is a backend.Event: a CUevent of one device's primary context (for
// an imported IPC event, the context it was opened in).
type event struct {
	dev backend.Device
	e   cuda.Event
}

func (e *event) Device() backend.Device { return e.dev }

func streamOf(s backend.Stream, fn string) (*stream, error) {
	if st, ok := s.(*stream); ok && st != nil {
		return st, nil
	}
	return nil, cuerr.New(fn, cuerr.InvalidHandle, "not a stream of the cuda backend")
}

func eventOf(e backend.Event, fn string) (*event, error) {
	if ev, ok := e.(*event); ok && ev != nil {
		return ev, nil
	}
	return nil, cuerr.New(fn, cuerr.InvalidHandle, "not an event of the cuda backend")
}

// onStream runs f in the context of s's device.
func (b *Backend) onStream(s backend.Stream, fn string, f func(drv *cuda.Driver, st *stream) error) error {
	st, err := streamOf(s, fn)
	if err != nil {
		return err
	}
	return b.in(st.dev, fn, func(drv *cuda.Driver) error { return f(drv, st) })
}

// onEvent runs f in the context of e's device.
func (b *Backend) onEvent(e backend.Event, fn string, f func(drv *cuda.Driver, ev *event) error) error {
	ev, err := eventOf(e, fn)
	if err != nil {
		return err
	}
	return b.in(ev.dev, fn, func(drv *cuda.Driver) error { return f(drv, ev) })
}

// NewStream wraps cuStreamCreate(CU_STREAM_NON_BLOCKING) in d's context.
func (b *Backend) NewStream(d backend.Device) (backend.Stream, error) {
	st := &stream{dev: d}
	err := b.in(d, "cuStreamCreate", func(drv *cuda.Driver) (err error) {
		st.s, err = drv.CreateStream(cuenum.StreamNonBlocking)
		return err
	})
	if err != nil {
		return nil, err
	}
	return st, nil
}

// DestroyStream wraps cuStreamDestroy_v2.
func (b *Backend) DestroyStream(s backend.Stream) error {
	return b.onStream(s, "cuStreamDestroy", func(drv *cuda.Driver, st *stream) error { return drv.DestroyStream(st.s) })
}

// StreamQuery wraps cuStreamQuery: nil when done, an error matching
// cuerr.NotReady while work is pending, any other error as the driver gave it.
func (b *Backend) StreamQuery(s backend.Stream) error {
	return b.onStream(s, "cuStreamQuery", func(drv *cuda.Driver, st *stream) error {
		done, err := drv.QueryStream(st.s)
		return notReady("cuStreamQuery", done, err)
	})
}

// NewEvent wraps cuEventCreate in d's context.
func (b *Backend) NewEvent(d backend.Device, flags backend.EventFlags) (backend.Event, error) {
	ev := &event{dev: d}
	err := b.in(d, "cuEventCreate", func(drv *cuda.Driver) (err error) {
		ev.e, err = drv.CreateEvent(flags)
		return err
	})
	if err != nil {
		return nil, err
	}
	return ev, nil
}

// DestroyEvent wraps cuEventDestroy_v2.
func (b *Backend) DestroyEvent(e backend.Event) error {
	return b.onEvent(e, "cuEventDestroy", func(drv *cuda.Driver, ev *event) error { return drv.DestroyEvent(ev.e) })
}

// RecordEvent wraps cuEventRecord(e, s) in s's context. An event of another
// device is passed on: the driver's answer (INVALID_HANDLE) is what a spec
// checks.
func (b *Backend) RecordEvent(e backend.Event, s backend.Stream) error {
	ev, err := eventOf(e, "cuEventRecord")
	if err != nil {
		return err
	}
	return b.onStream(s, "cuEventRecord", func(drv *cuda.Driver, st *stream) error { return drv.RecordEvent(ev.e, st.s) })
}

// EventQuery wraps cuEventQuery (nil, NotReady, or an error).
func (b *Backend) EventQuery(e backend.Event) error {
	return b.onEvent(e, "cuEventQuery", func(drv *cuda.Driver, ev *event) error {
		done, err := drv.QueryEvent(ev.e)
		return notReady("cuEventQuery", done, err)
	})
}

// notReady turns the binding's (done, err) back into the driver's result:
// NOT_READY is an error here because the interface says so.
func notReady(fn string, done bool, err error) error {
	if err == nil && !done {
		return cuerr.Check(fn, cuerr.NotReady)
	}
	return err
}

// StreamWaitEvent wraps cuStreamWaitEvent(s, e, 0) in s's context; e may
// belong to another device.
func (b *Backend) StreamWaitEvent(s backend.Stream, e backend.Event) error {
	ev, err := eventOf(e, "cuStreamWaitEvent")
	if err != nil {
		return err
	}
	return b.onStream(s, "cuStreamWaitEvent", func(drv *cuda.Driver, st *stream) error { return drv.StreamWaitEvent(st.s, ev.e) })
}

// ElapsedTime wraps cuEventElapsedTime in start's context, in milliseconds.
func (b *Backend) ElapsedTime(start, end backend.Event) (ms float32, err error) {
	last, err := eventOf(end, "cuEventElapsedTime")
	if err != nil {
		return 0, err
	}
	err = b.onEvent(start, "cuEventElapsedTime", func(drv *cuda.Driver, first *event) (err error) {
		ms, err = drv.ElapsedTime(first.e, last.e)
		return err
	})
	return ms, err
}

// CopyAsync wraps cuMemcpyAsync in s's context.
func (b *Backend) CopyAsync(s backend.Stream, dst, src backend.DevicePtr, n uint64) error {
	return b.onStream(s, "cuMemcpyAsync", func(drv *cuda.Driver, st *stream) error {
		return drv.MemcpyAsync(cuda.DevicePtr(dst), cuda.DevicePtr(src), n, st.s)
	})
}

// CopyPeerAsync wraps cuMemcpyPeerAsync with both devices' primary
// contexts, issued in s's context.
func (b *Backend) CopyPeerAsync(s backend.Stream, dst backend.DevicePtr, dstDev backend.Device, src backend.DevicePtr, srcDev backend.Device, n uint64) error {
	dc, err := b.ctx(dstDev, "cuMemcpyPeerAsync")
	if err != nil {
		return err
	}
	sc, err := b.ctx(srcDev, "cuMemcpyPeerAsync")
	if err != nil {
		return err
	}
	return b.onStream(s, "cuMemcpyPeerAsync", func(drv *cuda.Driver, st *stream) error {
		return drv.MemcpyPeerAsync(cuda.DevicePtr(dst), dc, cuda.DevicePtr(src), sc, n, st.s)
	})
}

// Memset32Async wraps cuMemsetD32Async in s's context.
func (b *Backend) Memset32Async(s backend.Stream, p backend.DevicePtr, value uint32, words uint64) error {
	return b.onStream(s, "cuMemsetD32Async", func(drv *cuda.Driver, st *stream) error {
		return drv.MemsetD32Async(cuda.DevicePtr(p), value, words, st.s)
	})
}
