// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"encoding/binary"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuerr"
	"github.com/p2pconf/p2pconf/kernels"
)

func TestMain(m *testing.M) {
	if role := os.Getenv(envRole); role != "" {
		os.Exit(runRole(role))
	}
	os.Exit(m.Run())
}

// open builds a backend on its own state directory (closed at cleanup).
func open(t *testing.T, preset string, defects ...string) *Backend {
	t.Helper()
	return openIn(t, t.TempDir(), preset, defects...)
}

func openIn(t *testing.T, dir, preset string, defects ...string) *Backend {
	t.Helper()
	b, err := Open(preset, defects, WithStateDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantCode(t *testing.T, err error, code cuerr.Result, what string) {
	t.Helper()
	if !errors.Is(err, code) {
		t.Fatalf("%s: got %v, want %s", what, err, code)
	}
}

// wait polls the stream as the harness does, with a deadline.
func wait(t *testing.T, b *Backend, s backend.Stream) error {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		err := b.StreamQuery(s)
		if !errors.Is(err, cuerr.NotReady) {
			return err
		}
		if time.Now().After(deadline) {
			t.Fatal("stream did not finish in 20s")
		}
		time.Sleep(100 * time.Microsecond)
	}
}

func words(t *testing.T, b *Backend, d backend.Device, p backend.DevicePtr, n int) []uint32 {
	t.Helper()
	buf := make([]byte, 4*n)
	must(t, b.CopyFromDevice(d, buf, p))
	out := make([]uint32, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(buf[4*i:])
	}
	return out
}

func fillWords(t *testing.T, b *Backend, d backend.Device, p backend.DevicePtr, n int, f func(i int) uint32) {
	t.Helper()
	buf := make([]byte, 4*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint32(buf[4*i:], f(i))
	}
	must(t, b.CopyToDevice(d, p, buf))
}

func launch(t *testing.T, b *Backend, d backend.Device, k *kernels.Kernel, args ...uint64) error {
	t.Helper()
	s, err := b.NewStream(d)
	must(t, err)
	// A launch that faulted on purpose leaves the stream poisoned, and its
	// release then reports that fault again: not this helper's concern.
	defer func() { _ = b.DestroyStream(s) }()
	must(t, b.Launch(s, k, backend.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(32)}, args...))
	return wait(t, b, s)
}

func testKernel(name string, sim kernels.SimFunc, params ...kernels.Param) *kernels.Kernel {
	return &kernels.Kernel{Entry: name, Module: "fake_test", Params: params, Sim: sim}
}

var (
	pPtr = kernels.Param{Name: "p", Kind: kernels.Ptr}
	pDst = kernels.Param{Name: "dst", Kind: kernels.Ptr}
	pSrc = kernels.Param{Name: "src", Kind: kernels.Ptr}
	pU32 = kernels.Param{Name: "n", Kind: kernels.U32}
	pV32 = kernels.Param{Name: "v", Kind: kernels.U32}
)

// kStore: thread i stores v+i into p[i], i < n.
var kStore = testKernel("store", func(g kernels.Grid, a []uint64) error {
	return g.Threads(int(a[2]), func(t kernels.Thread) error {
		return t.Store(a[0]+4*uint64(t.ID()), kernels.TU32, a[1]+uint64(t.ID()), kernels.Weak, kernels.GPU)
	})
}, pPtr, pV32, pU32)

// kCopy: dst[i] = src[i] + 1 with loads and stores of one thread each.
var kCopy = testKernel("copy", func(g kernels.Grid, a []uint64) error {
	return g.Threads(int(a[2]), func(t kernels.Thread) error {
		v, err := t.Load(a[1]+4*uint64(t.ID()), kernels.TU32, kernels.Weak, kernels.GPU)
		if err != nil {
			return err
		}
		return t.Store(a[0]+4*uint64(t.ID()), kernels.TU32, v+1, kernels.Weak, kernels.GPU)
	})
}, pDst, pSrc, pU32)

// kAdd: n threads each add 1 to *p iters times with atom.add.sys.
var kAdd = testKernel("add", func(g kernels.Grid, a []uint64) error {
	return g.Threads(int(a[1]), func(t kernels.Thread) error {
		for i := uint64(0); i < a[2]; i++ {
			if _, err := t.Atomic(kernels.OpAdd, a[0], kernels.TU32, 1, 0, kernels.Relaxed, kernels.Sys); err != nil {
				return err
			}
		}
		return nil
	})
}, pPtr, pU32, kernels.Param{Name: "iters", Kind: kernels.U32})

// kSlowStore spins for ms milliseconds (pausing), then stores v into p[0..n).
var kSlowStore = testKernel("slow_store", func(g kernels.Grid, a []uint64) error {
	for g.Now() < time.Duration(a[3])*time.Millisecond {
		g.Pause()
	}
	return g.Threads(int(a[2]), func(t kernels.Thread) error {
		return t.Store(a[0]+4*uint64(t.ID()), kernels.TU32, a[1], kernels.Weak, kernels.Sys)
	})
}, pPtr, pV32, pU32, kernels.Param{Name: "ms", Kind: kernels.U32})

// kPoll waits (bounded, 5 s) until *flag == v, then stores 1 (seen) or 2
// (timed out) into *status.
var kPoll = testKernel("poll", func(g kernels.Grid, a []uint64) error {
	return g.Threads(1, func(t kernels.Thread) error {
		status := uint64(2)
		for g.Now() < 5*time.Second {
			v, err := t.Load(a[0], kernels.TU32, kernels.Acquire, kernels.Sys)
			if err != nil {
				return err
			}
			if v == a[1] {
				status = 1
				break
			}
			g.Pause()
		}
		return t.Store(a[2], kernels.TU32, status, kernels.Relaxed, kernels.Sys)
	})
}, kernels.Param{Name: "flag", Kind: kernels.Ptr}, pV32, kernels.Param{Name: "status", Kind: kernels.Ptr})

// kMP: thread 0 writes n data words (weak) then flag=1 with st.release.sys;
// thread 1 polls the flag with ld.acquire.sys and counts stale data words
// into *out. Both in one launch, so they run concurrently.
var kMP = testKernel("mp", func(g kernels.Grid, a []uint64) error {
	data, flag, out, n := a[0], a[1], a[2], a[3]
	return g.Threads(2, func(t kernels.Thread) error {
		if t.ID() == 0 {
			for i := uint64(0); i < n; i++ {
				if err := t.Store(data+4*i, kernels.TU32, 1, kernels.Weak, kernels.Sys); err != nil {
					return err
				}
			}
			return t.Store(flag, kernels.TU32, 1, kernels.Release, kernels.Sys)
		}
		for g.Now() < 5*time.Second {
			v, err := t.Load(flag, kernels.TU32, kernels.Acquire, kernels.Sys)
			if err != nil {
				return err
			}
			if v == 1 {
				break
			}
			g.Pause()
		}
		stale := uint64(0)
		for i := uint64(0); i < n; i++ {
			v, err := t.Load(data+4*i, kernels.TU32, kernels.Weak, kernels.Sys)
			if err != nil {
				return err
			}
			if v != 1 {
				stale++
			}
		}
		return t.Store(out, kernels.TU32, stale, kernels.Relaxed, kernels.Sys)
	})
}, pDst, kernels.Param{Name: "flag", Kind: kernels.Ptr}, kernels.Param{Name: "out", Kind: kernels.Ptr}, pU32)
