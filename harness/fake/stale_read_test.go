// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"testing"
	"time"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/kernels"
)

// kBulkCopy: one thread copies n words from src to dst with the grid's
// bulk weak load and store (as kernels.Verify reads).
var kBulkCopy = testKernel("bulk_copy", func(g kernels.Grid, a []uint64) error {
	return g.Threads(1, func(kernels.Thread) error {
		p, err := g.Read(a[1], int(4*a[2]))
		if err != nil {
			return err
		}
		return g.Write(a[0], p)
	})
}, pDst, pSrc, pU32)

// kReadAcquireRead: one thread loads src[0] (relaxed), sets flag[1]
// (relaxed), polls flag[0] with ld.acquire until it is non-zero (bounded),
// loads src[0] again and stores it into dst[0].
var kReadAcquireRead = testKernel("read_acquire_read", func(g kernels.Grid, a []uint64) error {
	return g.Threads(1, func(t kernels.Thread) error {
		if _, err := t.Load(a[1], kernels.TU32, kernels.Relaxed, kernels.Sys); err != nil {
			return err
		}
		if err := t.Store(a[2]+4, kernels.TU32, 1, kernels.Relaxed, kernels.Sys); err != nil {
			return err
		}
		for i := 0; i < 1<<24; i++ {
			f, err := t.Load(a[2], kernels.TU32, kernels.Acquire, kernels.Sys)
			if err != nil || f != 0 {
				break
			}
			g.Pause()
		}
		v, err := t.Load(a[1], kernels.TU32, kernels.Relaxed, kernels.Sys)
		if err != nil {
			return err
		}
		return t.Store(a[0], kernels.TU32, v, kernels.Relaxed, kernels.Sys)
	})
}, pDst, pSrc, pPtr)

// The probe of handoff-serves-stale-read (TestEachDefectShowsAlone): a
// stream of GPU1 reads GPU0's buffer, the buffer is rewritten, and the
// stream waits on an event of GPU0 and reads it again: the second read must
// see the new words.
func init() {
	symptoms["handoff-serves-stale-read"] = func(t *testing.T, b *Backend) bool {
		src, _ := b.Alloc(0, 256)
		pre, _ := b.Alloc(1, 256)
		out, _ := b.Alloc(1, 256)
		fillWords(t, b, 0, src, 4, func(int) uint32 { return 1 })
		must(t, b.EnablePeerAccess(1, 0))
		s0, err := b.NewStream(0)
		must(t, err)
		s1, err := b.NewStream(1)
		must(t, err)
		ev, err := b.NewEvent(0, backend.EventDisableTiming)
		must(t, err)
		one := backend.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(1)}
		must(t, b.Launch(s1, kBulkCopy, one, uint64(pre), uint64(src), 4))
		must(t, wait(t, b, s1))
		fillWords(t, b, 0, src, 4, func(int) uint32 { return 2 })
		must(t, b.RecordEvent(ev, s0))
		must(t, b.StreamWaitEvent(s1, ev))
		must(t, b.Launch(s1, kBulkCopy, one, uint64(out), uint64(src), 4))
		must(t, wait(t, b, s1))
		must(t, wait(t, b, s0))
		return words(t, b, 1, out, 4)[3] != 2
	}
}

// A kernel thread's read before its acquire serves its read after it
// under the defect, and never on a clean backend.
func TestHandoffServesStaleRead(t *testing.T) {
	for _, defect := range []bool{false, true} {
		var ds []string
		if defect {
			ds = []string{"handoff-serves-stale-read"}
		}
		b := open(t, "h200x2", ds...)
		src, _ := b.Alloc(0, 256)
		flag, _ := b.Alloc(0, 256)
		out, _ := b.Alloc(0, 256)
		fillWords(t, b, 0, src, 1, func(int) uint32 { return 1 })
		fillWords(t, b, 0, flag, 2, func(int) uint32 { return 0 })
		s, err := b.NewStream(0)
		must(t, err)
		must(t, b.Launch(s, kReadAcquireRead, backend.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(1)}, uint64(out), uint64(src), uint64(flag)))
		// Once the kernel has read the data and spins on the flag, set the
		// data, then the flag, with kernel stores of another stream (the
		// producer).
		deadline := time.Now().Add(10 * time.Second)
		for words(t, b, 0, flag, 2)[1] == 0 {
			if time.Now().After(deadline) {
				t.Fatal("the reader did not read the data within 10 s")
			}
			time.Sleep(100 * time.Microsecond)
		}
		p, err := b.NewStream(0)
		must(t, err)
		must(t, b.Launch(p, kStore, backend.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(1)}, uint64(src), 2, 1))
		must(t, wait(t, b, p))
		must(t, b.Launch(p, kStore, backend.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(1)}, uint64(flag), 1, 1))
		must(t, wait(t, b, p))
		must(t, wait(t, b, s))
		want := uint32(2)
		if defect {
			want = 1 // the read before the acquire, served again
		}
		if got := words(t, b, 0, out, 1)[0]; got != want {
			t.Errorf("defect injected %v: the read after the acquire returned %d, want %d", defect, got, want)
		}
	}
}
