// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"errors"
	"testing"
	"time"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuerr"
	"github.com/p2pconf/p2pconf/kernels"
)

// kFaultLate: spins for a moment, then stores to an address no allocation
// holds, so the fault lands while the caller keeps querying the stream.
var kFaultLate = testKernel("fault_late", func(g kernels.Grid, a []uint64) error {
	return g.Threads(1, func(t kernels.Thread) error {
		time.Sleep(time.Duration(a[0]))
		return t.Store(0xdead0000, kernels.TU32, 1, kernels.Weak, kernels.GPU)
	})
}, pU32)

// TestFaultNeverReadsAsDone: a query that races with the end of a faulting
// kernel reports the fault, never "done without error" (found as a rare
// failure of vmm.read-only-access under load: the stream's context was
// checked before the kernel faulted, its pending count after). The first
// query lets the kernel end between the two looks (queryRace); every
// query of the stream and of an event recorded behind the kernel, from
// the first that is not NOT_READY, must be the sticky 700.
func TestFaultNeverReadsAsDone(t *testing.T) {
	d := backend.Device(0)
	raced := 0
	queryRace = func(st *stream) {
		for st.pending.Load() > 0 {
			time.Sleep(10 * time.Microsecond)
		}
		raced++
	}
	defer func() { queryRace = func(*stream) {} }()
	for i := range 10 {
		b := open(t, "single")
		s, err := b.NewStream(d)
		must(t, err)
		ev, err := b.NewEvent(d, backend.EventDisableTiming)
		must(t, err)
		must(t, b.Launch(s, kFaultLate, backend.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(1)}, uint64(i%20)*uint64(time.Microsecond)))
		must(t, b.RecordEvent(ev, s))
		deadline := time.Now().Add(10 * time.Second)
		err = b.StreamQuery(s)
		for errors.Is(err, cuerr.NotReady) {
			if time.Now().After(deadline) {
				t.Fatal("the faulting kernel did not end in 10 s")
			}
			err = b.StreamQuery(s)
		}
		if !errors.Is(err, cuerr.IllegalAddress) {
			t.Fatalf("launch %d: cuStreamQuery after a faulting kernel = %v, want the fault (700)", i, err)
		}
		if err := b.EventQuery(ev); !errors.Is(err, cuerr.IllegalAddress) {
			t.Fatalf("launch %d: cuEventQuery of an event behind a faulting kernel = %v, want the fault (700)", i, err)
		}
	}
	if raced == 0 {
		t.Fatal("no query met the kernel's end between its two looks: the race was not tried")
	}
}
