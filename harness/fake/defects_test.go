// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"testing"
	"time"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/kernels"
)

// symptoms: for each defect, a probe that reports whether the wrong
// behaviour shows. Each probe runs on the defect's preset twice: clean (it
// must not show) and with the defect alone (it must).
var symptoms = map[string]func(t *testing.T, b *Backend) bool{
	"peer-enable-both-ways": func(t *testing.T, b *Backend) bool {
		buf0, _ := b.Alloc(0, 256)
		must(t, b.EnablePeerAccess(0, 1))
		return launch(t, b, 1, kStore, uint64(buf0), 1, 1) == nil
	},
	"peer-store-dropped": func(t *testing.T, b *Backend) bool {
		buf1, _ := b.Alloc(1, 256)
		must(t, b.EnablePeerAccess(0, 1))
		must(t, launch(t, b, 0, kStore, uint64(buf1), 5, 64))
		return words(t, b, 1, buf1, 64)[10] != 15
	},
	"peer-copy-corrupts": func(t *testing.T, b *Backend) bool {
		src, _ := b.Alloc(0, 4096)
		dst, _ := b.Alloc(1, 4096)
		fillWords(t, b, 0, src, 1024, func(i int) uint32 { return uint32(i) })
		s, _ := b.NewStream(1)
		must(t, b.CopyPeerAsync(s, dst, 1, src, 0, 4096))
		must(t, wait(t, b, s))
		for i, w := range words(t, b, 1, dst, 1024) {
			if w != uint32(i) {
				return true
			}
		}
		return false
	},
	"can-access-peer-lies": func(t *testing.T, b *Backend) bool {
		if ok, _ := b.CanAccessPeer(0, 1); !ok {
			return false
		}
		buf1, _ := b.Alloc(1, 256)
		must(t, b.EnablePeerAccess(0, 1))
		must(t, launch(t, b, 0, kStore, uint64(buf1), 5, 64))
		return words(t, b, 1, buf1, 1)[0] != 5
	},
	"peer-disable-ignored": func(t *testing.T, b *Backend) bool {
		buf1, _ := b.Alloc(1, 256)
		must(t, b.EnablePeerAccess(0, 1))
		must(t, b.DisablePeerAccess(0, 1))
		return launch(t, b, 0, kStore, uint64(buf1), 1, 1) == nil
	},
	"self-peer-allowed": func(t *testing.T, b *Backend) bool {
		ok, _ := b.CanAccessPeer(1, 1)
		return ok
	},
	"pointer-owner-wrong": func(t *testing.T, b *Backend) bool {
		p, _ := b.Alloc(1, 256)
		ord, _ := b.PointerAttribute(1, backend.PointerDeviceOrdinal, p)
		return ord != 1
	},
	"atomics-lose-updates": func(t *testing.T, b *Backend) bool {
		ctr, _ := b.Alloc(0, 64)
		must(t, b.EnablePeerAccess(1, 0))
		must(t, launch(t, b, 1, kAdd, uint64(ctr), 32, 100))
		return words(t, b, 0, ctr, 1)[0] != 3200
	},
	"host-atomics-lose-updates": func(t *testing.T, b *Backend) bool {
		h, err := b.HostAlloc(0, 64, backend.HostAllocDeviceMap)
		must(t, err)
		must(t, launch(t, b, 0, kAdd, uint64(h.Ptr), 32, 100))
		return leU32(h.Mem) != 3200
	},
	"atomic-caps-overstate": func(t *testing.T, b *Backend) bool {
		caps, err := b.P2PAtomicCapabilities(backend.AllAtomicOperations(), 0, 2)
		must(t, err)
		return caps[0] != 0
	},
	"stream-wait-ignored": func(t *testing.T, b *Backend) bool {
		got, _ := handoff(t, b, false)
		return got[0] != 9
	},
	"event-completes-early": func(t *testing.T, b *Backend) bool {
		_, pending := handoff(t, b, false)
		return !pending
	},
	"release-not-ordered": func(t *testing.T, b *Backend) bool { return runMP(t, b) != 0 },
	"elapsed-time-cross-device": func(t *testing.T, b *Backend) bool {
		s0, _ := b.NewStream(0)
		s1, _ := b.NewStream(1)
		e0, _ := b.NewEvent(0, backend.EventDefault)
		e1, _ := b.NewEvent(1, backend.EventDefault)
		must(t, b.RecordEvent(e0, s0))
		must(t, b.RecordEvent(e1, s1))
		must(t, wait(t, b, s0))
		must(t, wait(t, b, s1))
		_, err := b.ElapsedTime(e0, e1)
		return err == nil
	},
	"ipc-close-frees-exporter": func(t *testing.T, b *Backend) bool {
		imp := openIn(t, b.StateDir(), b.preset.name, b.defectNames...)
		p, _ := exported(t, b, 0)
		h, _ := b.IPCGetMemHandle(0, p)
		q, err := imp.IPCOpenMemHandle(0, h)
		must(t, err)
		must(t, imp.IPCCloseMemHandle(0, q))
		return words(t, b, 0, p, 1)[0] != 1000
	},
	"ipc-same-process-open": func(t *testing.T, b *Backend) bool {
		p, _ := exported(t, b, 0)
		h, _ := b.IPCGetMemHandle(0, p)
		_, err := b.IPCOpenMemHandle(0, h)
		return err == nil
	},
	"ipc-event-flags-lax": func(t *testing.T, b *Backend) bool {
		_, err := b.NewEvent(0, backend.EventInterprocess)
		return err == nil
	},
	"vmm-access-before-set": func(t *testing.T, b *Backend) bool {
		_, p := mapped(t, b, 0, 0, nil)
		f, _ := b.MemGetAccess(0, 1, p)
		return f != backend.ProtNone || launch(t, b, 1, kStore, uint64(p), 1, 1) == nil
	},
	"vmm-release-frees-mapped": func(t *testing.T, b *Backend) bool {
		h, p := mapped(t, b, 0, 0, []backend.Access{{Device: 0, Flags: backend.ProtReadWrite}})
		fillWords(t, b, 0, p, 4, func(int) uint32 { return 7 })
		must(t, b.MemRelease(0, h))
		return words(t, b, 0, p, 1)[0] != 7
	},
	"vmm-granularity-lax": func(t *testing.T, b *Backend) bool {
		_, err := b.MemCreate(0, gran+4096, backend.AllocProp{Device: 0})
		return err == nil
	},
	"slow-peer-copy": func(t *testing.T, b *Backend) bool {
		p := newSlowPeerBufs(t, b)
		return eventTime(t, b, 0, func(s backend.Stream) error {
			return b.CopyPeerAsync(s, p.dst1, 1, p.src0, 0, slowPeerBytes)
		}) >= slowPeerMs
	},
	"free-leaks": func(t *testing.T, b *Backend) bool {
		base, _, _ := b.MemInfo(0)
		p, _ := b.Alloc(0, 1<<20)
		must(t, b.Free(0, p))
		free, _, _ := b.MemInfo(0)
		return free != base
	},
	"peer-enable-misses-earlier-allocs": func(t *testing.T, b *Backend) bool {
		before, _ := b.Alloc(1, 256)
		must(t, b.EnablePeerAccess(0, 1))
		after, _ := b.Alloc(1, 256)
		must(t, launch(t, b, 0, kStore, uint64(after), 1, 1))
		return launch(t, b, 0, kStore, uint64(before), 1, 1) != nil
	},
	"atomics-u64-lose-updates": func(t *testing.T, b *Backend) bool {
		ctr, _ := b.Alloc(0, 64)
		must(t, b.EnablePeerAccess(1, 0))
		must(t, launch(t, b, 1, kAdd, uint64(ctr), 32, 100))
		if words(t, b, 0, ctr, 1)[0] != 3200 {
			t.Error("32-bit atomics lost updates too")
		}
		must(t, launch(t, b, 1, kAdd64, uint64(ctr+8), 32, 100))
		return words(t, b, 0, ctr, 3)[2] != 3200
	},
	"peer-copy-one-way-dropped": func(t *testing.T, b *Backend) bool {
		b0, _ := b.Alloc(0, 256)
		b1, _ := b.Alloc(1, 256)
		fillWords(t, b, 0, b0, 64, func(i int) uint32 { return 5 })
		fillWords(t, b, 1, b1, 64, func(i int) uint32 { return 7 })
		s, _ := b.NewStream(0)
		must(t, b.CopyPeerAsync(s, b1+128, 1, b0, 0, 128))
		must(t, b.CopyPeerAsync(s, b0+128, 0, b1, 1, 128))
		must(t, wait(t, b, s))
		if words(t, b, 1, b1, 64)[32] != 5 {
			t.Error("the GPU0→GPU1 copy was dropped too")
		}
		return words(t, b, 0, b0, 64)[32] != 7
	},
	"ipc-import-writes-dropped": func(t *testing.T, b *Backend) bool {
		imp := openIn(t, b.StateDir(), b.preset.name, b.defectNames...)
		p, _ := exported(t, b, 0)
		h, _ := b.IPCGetMemHandle(0, p)
		q, err := imp.IPCOpenMemHandle(0, h)
		must(t, err)
		must(t, launch(t, imp, 0, kStore, uint64(q), 5, 4))
		return words(t, b, 0, p, 1)[0] != 5
	},
	"vmm-peer-writes-dropped": func(t *testing.T, b *Backend) bool {
		_, p := mapped(t, b, 0, 0, []backend.Access{{Device: 0, Flags: backend.ProtReadWrite}, {Device: 1, Flags: backend.ProtReadWrite}})
		must(t, launch(t, b, 1, kStore, uint64(p), 5, 4))
		return words(t, b, 0, p, 1)[0] != 5
	},
	"host-mapped-writes-dropped": func(t *testing.T, b *Backend) bool {
		h, err := b.HostAlloc(0, 64, backend.HostAllocDeviceMap|backend.HostAllocPortable)
		must(t, err)
		must(t, launch(t, b, 0, kStore, uint64(h.Ptr), 5, 1))
		if leU32(h.Mem) != 5 {
			t.Error("GPU0's store into pinned host memory was dropped too")
		}
		must(t, launch(t, b, 1, kStore, uint64(h.Ptr), 9, 1))
		return leU32(h.Mem) != 9
	},
	"copy-size-cap": func(t *testing.T, b *Backend) bool {
		// The words just before and just after the cap, and the last one.
		const n = copySizeCap + 4096 + 12
		src, _ := b.Alloc(0, n)
		dst, _ := b.Alloc(1, n)
		must(t, b.Memset32(0, src, 0x01020304, n/4))
		must(t, b.Memset32(1, dst, 0xDEADBEEF, n/4))
		s, _ := b.NewStream(0)
		must(t, b.CopyPeerAsync(s, dst, 1, src, 0, n))
		must(t, wait(t, b, s))
		below := words(t, b, 1, dst+copySizeCap-4, 1)[0]
		above := words(t, b, 1, dst+copySizeCap, 1)[0]
		last := words(t, b, 1, dst+n-4, 1)[0]
		if below != 0x01020304 {
			t.Fatalf("the word below the cap holds 0x%x: even the capped copy should move it", below)
		}
		return above != 0x01020304 || last != 0x01020304
	},
	"same-address-loads-reordered": func(t *testing.T, b *Backend) bool {
		const n = 200
		p, _ := b.Alloc(0, 4*(n+2))
		must(t, b.Memset32(0, p, 0, n+2))
		must(t, launch(t, b, 0, kCoRR, uint64(p), n))
		return words(t, b, 0, p+4*(n+1), 1)[0] != 0
	},
	"same-address-stores-reordered": func(t *testing.T, b *Backend) bool {
		p, _ := b.Alloc(0, 4)
		must(t, launch(t, b, 0, kStoreTwice, uint64(p)))
		return words(t, b, 0, p, 1)[0] != 2
	},
	"first-of-two-stores-lost": func(t *testing.T, b *Backend) bool {
		p, _ := b.Alloc(0, 8)
		must(t, b.Memset32(0, p, 0, 2))
		must(t, launch(t, b, 0, kStoreThenExch, uint64(p)))
		return words(t, b, 0, p+4, 1)[0] != 1
	},
	"non-atomic-add": func(t *testing.T, b *Backend) bool {
		p, _ := b.Alloc(0, 4)
		must(t, b.Memset32(0, p, 0, 1))
		must(t, launch(t, b, 0, kAdd, uint64(p), 8, 200))
		return words(t, b, 0, p, 1)[0] != 8*200
	},
}

// kStoreTwice: one thread stores 1, then 2, into *p with st.relaxed.gpu.
var kStoreTwice = testKernel("store_twice", func(g kernels.Grid, a []uint64) error {
	return g.Threads(1, func(t kernels.Thread) error {
		if err := t.Store(a[0], kernels.TU32, 1, kernels.Relaxed, kernels.GPU); err != nil {
			return err
		}
		return t.Store(a[0], kernels.TU32, 2, kernels.Relaxed, kernels.GPU)
	})
}, pPtr)

// kStoreThenExch: one thread stores 1 into p[0] with st.relaxed.gpu, then
// exchanges 2 into it with atom.exch.relaxed.gpu and stores the old value
// it read (1 unless the store was lost) into p[1].
var kStoreThenExch = testKernel("store_then_exch", func(g kernels.Grid, a []uint64) error {
	return g.Threads(1, func(t kernels.Thread) error {
		if err := t.Store(a[0], kernels.TU32, 1, kernels.Relaxed, kernels.GPU); err != nil {
			return err
		}
		old, err := t.Atomic(kernels.OpExch, a[0], kernels.TU32, 2, 0, kernels.Relaxed, kernels.GPU)
		if err != nil {
			return err
		}
		return t.Store(a[0]+4, kernels.TU32, old, kernels.Weak, kernels.GPU)
	})
}, pPtr)

// kCoRR: CoRR n times, words p[1..n] starting at 0. Thread 0 announces
// round i in p[0], then reads p[i] twice with ld.relaxed.gpu; thread 1
// stores 1 into p[i] as soon as it sees round i announced. Thread 0 sets
// p[n+1] when a round read 1, then 0 (the second load older than the
// first), and p[0] to n+1 at the end.
var kCoRR = testKernel("corr", func(g kernels.Grid, a []uint64) error {
	p, n := a[0], a[1]
	word := func(i uint64) uint64 { return p + 4*i }
	return g.Threads(2, func(t kernels.Thread) error {
		if t.ID() == 1 {
			deadline := g.Now() + 5*time.Second
			for last := uint64(0); last <= n && g.Now() < deadline; g.Pause() {
				v, err := t.Load(word(0), kernels.TU32, kernels.Acquire, kernels.GPU)
				if err != nil {
					return err
				}
				if v != last && v >= 1 && v <= n {
					if err := t.Store(word(v), kernels.TU32, 1, kernels.Weak, kernels.GPU); err != nil {
						return err
					}
				}
				last = v
			}
			return nil
		}
		for i := uint64(1); i <= n+1; i++ {
			if err := t.Store(word(0), kernels.TU32, i, kernels.Release, kernels.GPU); err != nil || i > n {
				return err
			}
			r0, err := t.Load(word(i), kernels.TU32, kernels.Relaxed, kernels.GPU)
			if err != nil {
				return err
			}
			r1, err := t.Load(word(i), kernels.TU32, kernels.Relaxed, kernels.GPU)
			if err != nil {
				return err
			}
			if r0 == 1 && r1 == 0 {
				if err := t.Store(word(n+1), kernels.TU32, 1, kernels.Weak, kernels.GPU); err != nil {
					return err
				}
			}
		}
		return nil
	})
}, pPtr, pU32)

// kAdd64: n threads each add 1 to the 64-bit *p iters times with atom.add.sys.
var kAdd64 = testKernel("add64", func(g kernels.Grid, a []uint64) error {
	return g.Threads(int(a[1]), func(t kernels.Thread) error {
		for i := uint64(0); i < a[2]; i++ {
			if _, err := t.Atomic(kernels.OpAdd, a[0], kernels.TU64, 1, 0, kernels.Relaxed, kernels.Sys); err != nil {
				return err
			}
		}
		return nil
	})
}, pPtr, pU32, kernels.Param{Name: "iters", Kind: kernels.U32})

func TestEachDefectShowsAlone(t *testing.T) {
	for _, d := range Defects() {
		probe, ok := symptoms[d.Name]
		if !ok {
			t.Errorf("defect %s has no probe", d.Name)
			continue
		}
		t.Run(d.Name, func(t *testing.T) {
			if probe(t, open(t, d.Preset)) {
				t.Errorf("clean %s shows the symptom of %s", d.Preset, d.Name)
			}
			if !probe(t, open(t, d.Preset, d.Name)) {
				t.Errorf("%s on %s: the symptom does not show", d.Name, d.Preset)
			}
		})
	}
}
