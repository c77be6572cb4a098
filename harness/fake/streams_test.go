// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"testing"
	"time"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuerr"
	"github.com/p2pconf/p2pconf/kernels"
)

var one = backend.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(32)}

// handoff runs the ordering.cross-device-event-handoff shape: a slow
// producer on GPU0 writes GPU0's buffer and records ready; a GPU1 stream
// waits on it (unless skipWait) and copies the buffer to GPU1. It returns
// the words GPU1 received and whether the event was pending right after
// the record call.
func handoff(t *testing.T, b *Backend, skipWait bool) (got []uint32, pendingAtRecord bool) {
	t.Helper()
	src, err := b.Alloc(0, 256)
	must(t, err)
	dst, err := b.Alloc(1, 256)
	must(t, err)
	s0, err := b.NewStream(0)
	must(t, err)
	s1, err := b.NewStream(1)
	must(t, err)
	ready, err := b.NewEvent(0, backend.EventDisableTiming)
	must(t, err)
	must(t, b.Launch(s0, kSlowStore, one, uint64(src), 9, 64, 100))
	must(t, b.RecordEvent(ready, s0))
	pendingAtRecord = b.EventQuery(ready) != nil
	if !skipWait {
		must(t, b.StreamWaitEvent(s1, ready))
	}
	must(t, b.CopyPeerAsync(s1, dst, 1, src, 0, 256))
	must(t, wait(t, b, s1))
	must(t, wait(t, b, s0))
	return words(t, b, 1, dst, 64), pendingAtRecord
}

func TestStreamWaitEventOrdersAcrossDevices(t *testing.T) {
	b := open(t, "h200x2")
	got, pending := handoff(t, b, false)
	if got[0] != 9 || got[63] != 9 {
		t.Errorf("GPU1 got %d…%d, want 9 (the wait did not order the copy)", got[0], got[63])
	}
	if !pending {
		t.Error("the event was complete before the slow producer finished")
	}
	got, _ = handoff(t, b, true)
	if got[0] != 0 {
		t.Errorf("without the wait GPU1 got %d; the mutant must see stale data", got[0])
	}
}

func TestSubmissionIsNotCompletion(t *testing.T) {
	b := open(t, "single")
	p, err := b.Alloc(0, 64)
	must(t, err)
	s, err := b.NewStream(0)
	must(t, err)
	e, err := b.NewEvent(0, backend.EventDefault)
	must(t, err)
	must(t, b.EventQuery(e)) // never recorded: complete
	start, err := b.NewEvent(0, backend.EventDefault)
	must(t, err)
	must(t, b.RecordEvent(start, s))
	must(t, b.Launch(s, kSlowStore, one, uint64(p), 1, 1, 50))
	must(t, b.Memset32Async(s, p, 3, 16))
	must(t, b.RecordEvent(e, s))
	wantCode(t, b.EventQuery(e), cuerr.NotReady, "event after a slow kernel")
	wantCode(t, b.StreamQuery(s), cuerr.NotReady, "stream with a slow kernel")
	_, err = b.ElapsedTime(start, e)
	wantCode(t, err, cuerr.NotReady, "elapsed time of a pending event")
	must(t, wait(t, b, s))
	must(t, b.EventQuery(e))
	ms, err := b.ElapsedTime(start, e)
	must(t, err)
	if ms < 40 {
		t.Errorf("elapsed %.1f ms around a 50 ms kernel", ms)
	}
	if w := words(t, b, 0, p, 16); w[0] != 3 || w[15] != 3 {
		t.Errorf("memset after the kernel: %v", w)
	}
}

func TestElapsedTimeRules(t *testing.T) {
	b := open(t, "h200x2")
	s0, _ := b.NewStream(0)
	s1, _ := b.NewStream(1)
	e0, _ := b.NewEvent(0, backend.EventDefault)
	e1, _ := b.NewEvent(1, backend.EventDefault)
	nt, _ := b.NewEvent(0, backend.EventDisableTiming)
	must(t, b.RecordEvent(e0, s0))
	must(t, b.RecordEvent(e1, s1))
	must(t, b.RecordEvent(nt, s0))
	wantCode(t, b.RecordEvent(e0, s1), cuerr.InvalidHandle, "event of GPU0 on a stream of GPU1")
	must(t, wait(t, b, s0))
	must(t, wait(t, b, s1))
	_, err := b.ElapsedTime(e0, e1)
	wantCode(t, err, cuerr.InvalidHandle, "events of two GPUs")
	_, err = b.ElapsedTime(e0, nt)
	wantCode(t, err, cuerr.InvalidHandle, "DISABLE_TIMING event")
	must(t, b.DestroyEvent(e0))
	wantCode(t, b.EventQuery(e0), cuerr.InvalidHandle, "destroyed event")
}

// TestConcurrentKernelsProgress: a poller on GPU1 waits for a flag in GPU0's
// memory that a kernel on GPU0, launched after it, sets.
func TestConcurrentKernelsProgress(t *testing.T) {
	b := open(t, "h200x2")
	must(t, b.EnablePeerAccess(1, 0))
	flag, _ := b.Alloc(0, 64)
	status, _ := b.Alloc(1, 64)
	s0, _ := b.NewStream(0)
	s1, _ := b.NewStream(1)
	must(t, b.Launch(s1, kPoll, one, uint64(flag), 1, uint64(status)))
	must(t, b.Launch(s0, kSlowStore, one, uint64(flag), 1, 1, 20))
	must(t, wait(t, b, s1))
	if w := words(t, b, 1, status, 1); w[0] != 1 {
		t.Errorf("poller status %d, want 1 (saw the flag)", w[0])
	}
}

func TestAtomicsAreExact(t *testing.T) {
	b := open(t, "h200x2")
	must(t, b.EnablePeerAccess(1, 0))
	ctr, _ := b.Alloc(0, 64)
	must(t, b.Memset32(0, ctr, 0, 1))
	s0, _ := b.NewStream(0)
	s1, _ := b.NewStream(1)
	must(t, b.Launch(s0, kAdd, one, uint64(ctr), 64, 500))
	must(t, b.Launch(s1, kAdd, one, uint64(ctr), 64, 500))
	must(t, wait(t, b, s0))
	must(t, wait(t, b, s1))
	if w := words(t, b, 0, ctr, 1); w[0] != 2*64*500 {
		t.Errorf("counter %d, want %d", w[0], 2*64*500)
	}
}

func TestAtomicOps(t *testing.T) {
	cases := []struct {
		op      kernels.AtomOp
		ty      kernels.Type
		old, b  uint64
		want    uint64
		written bool
	}{
		{kernels.OpAdd, kernels.TU32, 0xffffffff, 2, 1, true},
		{kernels.OpMin, kernels.TS32, 5, 0xffffffff, 0xffffffff, true},
		{kernels.OpMin, kernels.TU32, 5, 0xffffffff, 5, true},
		{kernels.OpMax, kernels.TS64, 1, 1 << 63, 1, true},
		{kernels.OpInc, kernels.TU32, 7, 7, 0, true},
		{kernels.OpInc, kernels.TU32, 3, 7, 4, true},
		{kernels.OpDec, kernels.TU32, 0, 7, 7, true},
		{kernels.OpDec, kernels.TU32, 3, 7, 2, true},
		{kernels.OpXor, kernels.TU64, 0xf0, 0xff, 0x0f, true},
		{kernels.OpCAS, kernels.TU32, 3, 4, 3, false},
		{kernels.OpAdd, kernels.TF32, 0x3fc00000, 0x3fc00000, 0x40400000, true}, // 1.5+1.5
	}
	for _, c := range cases {
		got, w := apply(c.op, c.ty, c.old, c.b, 9)
		if got != c.want && w || w != c.written {
			t.Errorf("%s.%s(%#x, %#x) = %#x, %v; want %#x, %v", c.op, c.ty, c.old, c.b, got, w, c.want, c.written)
		}
	}
	if checkAtom(kernels.OpInc, kernels.TU64) == nil || checkAtom(kernels.OpAnd, kernels.TF32) == nil {
		t.Error("invalid PTX atomics accepted")
	}
}

func TestMessagePassingIsOrdered(t *testing.T) {
	b := open(t, "single")
	stale := runMP(t, b)
	if stale != 0 {
		t.Errorf("release/acquire message passing saw %d stale words", stale)
	}
}

func runMP(t *testing.T, b *Backend) uint32 {
	t.Helper()
	data, _ := b.Alloc(0, 4096)
	flag, _ := b.Alloc(0, 64)
	out, _ := b.Alloc(0, 64)
	must(t, b.Memset32(0, data, 0, 1024))
	must(t, b.Memset32(0, flag, 0, 1))
	must(t, launch(t, b, 0, kMP, uint64(data), uint64(flag), uint64(out), 1024))
	return words(t, b, 0, out, 1)[0]
}

// kHandshake: thread 0 stores arrived=1 (relaxed) and waits for ack; thread
// 1 waits for arrived and stores ack=1. *out is 1 when thread 0 got the ack.
var kHandshake = testKernel("handshake", func(g kernels.Grid, a []uint64) error {
	arrived, ack, out := a[0], a[0]+4, a[1]
	poll := func(t kernels.Thread, addr uint64) (bool, error) {
		for g.Now() < 5*time.Second {
			v, err := t.Load(addr, kernels.TU32, kernels.Relaxed, kernels.Sys)
			if err != nil || v == 1 {
				return v == 1, err
			}
			g.Pause()
		}
		return false, nil
	}
	return g.Threads(2, func(t kernels.Thread) error {
		if t.ID() == 1 {
			if _, err := poll(t, arrived); err != nil {
				return err
			}
			return t.Store(ack, kernels.TU32, 1, kernels.Release, kernels.Sys)
		}
		if err := t.Store(arrived, kernels.TU32, 1, kernels.Relaxed, kernels.Sys); err != nil {
			return err
		}
		ok, err := poll(t, ack)
		if err != nil {
			return err
		}
		return t.Store(out, kernels.TU32, uint64(boolInt(ok)), kernels.Relaxed, kernels.Sys)
	})
}, pPtr, kernels.Param{Name: "out", Kind: kernels.Ptr})

// TestStoreBufferDrainsWhileSpinning: under release-not-ordered a thread's
// relaxed store still becomes visible while the thread spins, so handshakes
// (start barriers) finish instead of timing out.
func TestStoreBufferDrainsWhileSpinning(t *testing.T) {
	b := open(t, "single", "release-not-ordered")
	flags, _ := b.Alloc(0, 64)
	out, _ := b.Alloc(0, 64)
	must(t, b.Memset32(0, flags, 0, 2))
	must(t, launch(t, b, 0, kHandshake, uint64(flags), uint64(out)))
	if w := words(t, b, 0, out, 1); w[0] != 1 {
		t.Errorf("handshake result %d, want 1 (the spinning thread saw the other's store)", w[0])
	}
}
