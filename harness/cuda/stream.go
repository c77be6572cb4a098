// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cuda

/*
#include "shim.h"

static inline CUresult p2pc_cuStreamCreate(uintptr_t fn, uintptr_t *s, unsigned int flags) {
	return ((CUresult (*)(CUstream *, unsigned int))fn)((CUstream *)s, flags);
}
static inline CUresult p2pc_cuStreamHandle(uintptr_t fn, uintptr_t s) {
	return ((CUresult (*)(CUstream))fn)((CUstream)s);
}
static inline CUresult p2pc_cuStreamWaitEvent(uintptr_t fn, uintptr_t s, uintptr_t ev, unsigned int flags) {
	return ((CUresult (*)(CUstream, CUevent, unsigned int))fn)((CUstream)s, (CUevent)ev, flags);
}
static inline CUresult p2pc_cuEventCreate(uintptr_t fn, uintptr_t *ev, unsigned int flags) {
	return ((CUresult (*)(CUevent *, unsigned int))fn)((CUevent *)ev, flags);
}
static inline CUresult p2pc_cuEventRecord(uintptr_t fn, uintptr_t ev, uintptr_t s) {
	return ((CUresult (*)(CUevent, CUstream))fn)((CUevent)ev, (CUstream)s);
}
static inline CUresult p2pc_cuEventHandle(uintptr_t fn, uintptr_t ev) {
	return ((CUresult (*)(CUevent))fn)((CUevent)ev);
}
static inline CUresult p2pc_cuEventElapsedTime(uintptr_t fn, float *ms, uintptr_t start, uintptr_t end) {
	return ((CUresult (*)(float *, CUevent, CUevent))fn)(ms, (CUevent)start, (CUevent)end);
}
*/
import "C"

import (
	"github.com/p2pconf/p2pconf/harness/cuenum"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

// Stream is a CUstream. The zero Stream is the NULL (default) stream, with
// legacy semantics because entry points are resolved with
// CU_GET_PROC_ADDRESS_DEFAULT.
type Stream struct{ h C.uintptr_t }

// Event is a CUevent.
type Event struct{ h C.uintptr_t }

// CreateStream creates a stream in the current context; wraps
// cuStreamCreate. Needs a current context.
func (d *Driver) CreateStream(flags cuenum.StreamFlags) (Stream, error) {
	fn, err := d.proc(cuStreamCreate)
	if err != nil {
		return Stream{}, err
	}
	var s Stream
	r := C.p2pc_cuStreamCreate(fn, &s.h, C.uint(flags))
	return s, cuStreamCreate.check(r)
}

// DestroyStream destroys s once its work is done; wraps cuStreamDestroy_v2.
// Needs a current context.
func (d *Driver) DestroyStream(s Stream) error { return d.streamCall(cuStreamDestroy, s) }

// QueryStream reports whether all work on s has completed; wraps
// cuStreamQuery. CUDA_ERROR_NOT_READY becomes (false, nil); any other code
// (e.g. a sticky ILLEGAL_ADDRESS) is an error. Needs a current context.
func (d *Driver) QueryStream(s Stream) (bool, error) { return done(d.streamCall(cuStreamQuery, s)) }

// SyncStream blocks until s is idle; wraps cuStreamSynchronize. Needs a
// current context. It cannot be interrupted: specs poll QueryStream or
// QueryEvent against a deadline instead.
func (d *Driver) SyncStream(s Stream) error { return d.streamCall(cuStreamSynchronize, s) }

func (d *Driver) streamCall(e entry, s Stream) error {
	fn, err := d.proc(e)
	if err != nil {
		return err
	}
	return e.check(C.p2pc_cuStreamHandle(fn, s.h))
}

// StreamWaitEvent makes later work on s wait for ev, which may belong to
// another context or device (the cross-GPU ordering primitive); wraps
// cuStreamWaitEvent with flags 0. Needs a current context.
func (d *Driver) StreamWaitEvent(s Stream, ev Event) error {
	fn, err := d.proc(cuStreamWaitEvent)
	if err != nil {
		return err
	}
	return cuStreamWaitEvent.check(C.p2pc_cuStreamWaitEvent(fn, s.h, ev.h, 0))
}

// CreateEvent creates an event in the current context; wraps cuEventCreate.
// Needs a current context.
func (d *Driver) CreateEvent(flags cuenum.EventFlags) (Event, error) {
	fn, err := d.proc(cuEventCreate)
	if err != nil {
		return Event{}, err
	}
	var ev Event
	r := C.p2pc_cuEventCreate(fn, &ev.h, C.uint(flags))
	return ev, cuEventCreate.check(r)
}

// RecordEvent captures the work submitted to s so far into ev; wraps
// cuEventRecord. ev and s must belong to the same context. Needs a current
// context.
func (d *Driver) RecordEvent(ev Event, s Stream) error {
	fn, err := d.proc(cuEventRecord)
	if err != nil {
		return err
	}
	return cuEventRecord.check(C.p2pc_cuEventRecord(fn, ev.h, s.h))
}

// QueryEvent reports whether the work captured by ev has completed (a
// never-recorded event counts as complete); wraps cuEventQuery.
// CUDA_ERROR_NOT_READY becomes (false, nil). Needs a current context.
func (d *Driver) QueryEvent(ev Event) (bool, error) { return done(d.eventCall(cuEventQuery, ev)) }

// SyncEvent blocks until ev completes; wraps cuEventSynchronize. Needs a
// current context; uninterruptible, as SyncStream.
func (d *Driver) SyncEvent(ev Event) error { return d.eventCall(cuEventSynchronize, ev) }

// DestroyEvent destroys ev; wraps cuEventDestroy_v2. Needs a current context.
func (d *Driver) DestroyEvent(ev Event) error { return d.eventCall(cuEventDestroy, ev) }

func (d *Driver) eventCall(e entry, ev Event) error {
	fn, err := d.proc(e)
	if err != nil {
		return err
	}
	return e.check(C.p2pc_cuEventHandle(fn, ev.h))
}

// ElapsedTime is the time in milliseconds between two completed timing
// events, as the driver reports it; wraps the v1 cuEventElapsedTime, which,
// unlike the 13.0 header's _v2, still reports errors of pending work. Events
// of two devices fail (observed: 400 INVALID_HANDLE). Needs a current
// context. Resolution is about 0.5 µs.
func (d *Driver) ElapsedTime(start, end Event) (float32, error) {
	fn, err := d.proc(cuEventElapsedTime)
	if err != nil {
		return 0, err
	}
	var ms C.float
	r := C.p2pc_cuEventElapsedTime(fn, &ms, start.h, end.h)
	return float32(ms), cuEventElapsedTime.check(r)
}

// done maps a query result: nil is done, NOT_READY is pending, else an error.
func done(err error) (bool, error) {
	if err == nil {
		return true, nil
	}
	if code, _ := cuerr.Code(err); code == cuerr.NotReady {
		return false, nil
	}
	return false, err
}
