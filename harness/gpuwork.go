// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"context"
	"errors"
	"fmt"

	. "github.com/onsi/ginkgo/v2"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/kernels"
)

// verifyResultBytes is kernels.Verify's result: the mismatch count and the
// first bad word index, two words.
const verifyResultBytes = 8

// GPUWork runs the basic kernels on one GPU, for specs and helper roles
// alike: a stream and a two-word result buffer for kernels.Verify, made once
// so that nothing is allocated between two readings of free device memory
// (the lifetime specs of ipc and vmm compare those readings exactly). Data
// is written with kernels.Fill and presets with Memset32Async on the same
// stream, never with the synchronous copies of the legacy stream, which a
// non-blocking stream does not wait for.
//
// A spec takes one from the fixture ((*Harness).GPUWork), which releases it
// after the spec; a helper role, which has no fixture, makes one with
// NewGPUWork and releases it with Close.
type GPUWork struct {
	b      backend.Backend
	dev    backend.Device
	stream backend.Stream
	result backend.DevicePtr
	owned  bool // made by NewGPUWork: Close releases stream and result
}

// Verdict is what kernels.Verify found. The JSON form travels in helper
// roles' replies.
type Verdict struct {
	Mismatches uint32 `json:"mismatches"`
	First      uint32 `json:"first"` // first bad word, 0xFFFFFFFF when none
}

// String says how many words differ and where the first one is (its word
// index and byte offset, as Mismatch does).
func (v Verdict) String() string {
	if v.Mismatches == 0 {
		return "every word matches"
	}
	return fmt.Sprintf("%d words differ, the first at word %d (byte offset 0x%x)", v.Mismatches, v.First, 4*uint64(v.First))
}

// NewGPUWork makes the stream and result buffer on dev with the backend
// directly, for helper roles; Close releases them.
func NewGPUWork(b backend.Backend, dev backend.Device) (*GPUWork, error) {
	s, err := b.NewStream(dev)
	if err != nil {
		return nil, fmt.Errorf("create a stream on GPU%d: %w", int(dev), err)
	}
	r, err := b.Alloc(dev, verifyResultBytes)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("allocate a result buffer on GPU%d: %w", int(dev), err), b.DestroyStream(s))
	}
	return &GPUWork{b: b, dev: dev, stream: s, result: r, owned: true}, nil
}

// GPUWork is a GPUWork on g whose stream and result buffer the fixture
// releases after the spec (the stream is drained first, like every stream
// of the fixture).
func (h *Harness) GPUWork(g GPU) *GPUWork {
	GinkgoHelper()
	return &GPUWork{b: h.b, dev: g.Ordinal, stream: h.Stream(g), result: h.Alloc(g, verifyResultBytes)}
}

// Close releases the stream and result buffer of a GPUWork made by
// NewGPUWork. On one from the fixture it does nothing: the fixture releases
// those.
func (w *GPUWork) Close() error {
	if !w.owned {
		return nil
	}
	return errors.Join(w.b.Free(w.dev, w.result), w.b.DestroyStream(w.stream))
}

// Device is the GPU the work runs on.
func (w *GPUWork) Device() backend.Device { return w.dev }

// Stream is the stream the work is queued on, for a spec that queues more
// (an event wait, a memset) in order with it.
func (w *GPUWork) Stream() backend.Stream { return w.stream }

// LaunchShape covers n words with a grid-stride launch of the basic kernels:
// 256 threads a block, at least 1 and at most 1024 blocks (the kernels loop
// over what the grid does not cover).
func LaunchShape(n uint64) backend.LaunchConfig {
	const block = 256
	grid := (n + block - 1) / block
	grid = max(1, min(grid, 1024))
	return backend.LaunchConfig{Grid: kernels.D1(uint32(grid)), Block: kernels.D1(block)}
}

// Run launches k over n words on the work's stream and waits for it; a
// fault in the kernel comes back as the error.
func (w *GPUWork) Run(ctx context.Context, step string, k *kernels.Kernel, n uint64, args ...uint64) error {
	if err := w.b.Launch(w.stream, k, LaunchShape(n), args...); err != nil {
		return fmt.Errorf("%s: launch %s on GPU%d: %w", step, k, int(w.dev), err)
	}
	return w.Wait(ctx, step)
}

// Wait polls the work's stream until what is queued on it is done, bounded
// by ctx; a fault comes back as the error.
func (w *GPUWork) Wait(ctx context.Context, step string) error {
	return WaitStream(ctx, w.b, w.stream, fmt.Sprintf("%s (stream of GPU%d)", step, int(w.dev)))
}

// WaitStream polls s until what is queued on it is done, bounded by ctx; a
// fault comes back as the error. It is (*Harness).Wait for code without a
// fixture (helper roles); step names the wait in the error as it stands.
func WaitStream(ctx context.Context, b backend.Backend, s backend.Stream, step string) error {
	return WaitFor(ctx, step, func() (bool, error) { return queryDone(b.StreamQuery(s)) })
}

// Fill writes kernels.PatternWord(seed, i) into n words at p.
func (w *GPUWork) Fill(ctx context.Context, p backend.DevicePtr, n uint64, seed uint32) error {
	return w.Run(ctx, "fill", kernels.Fill, n, uint64(p), n, uint64(seed))
}

// Verify checks n words at p against kernels.PatternWord(seed, i) with a
// kernel, so that memory only this GPU can reach (a peer's, an imported
// mapping) is checked without a copy. The result buffer is preset on the
// work's stream, in order with the kernel.
func (w *GPUWork) Verify(ctx context.Context, p backend.DevicePtr, n uint64, seed uint32) (Verdict, error) {
	if err := w.b.Memset32Async(w.stream, w.result, 0, 1); err != nil {
		return Verdict{}, fmt.Errorf("preset the verify result on GPU%d: %w", int(w.dev), err)
	}
	if err := w.b.Memset32Async(w.stream, w.result+4, 0xFFFFFFFF, 1); err != nil {
		return Verdict{}, fmt.Errorf("preset the verify result on GPU%d: %w", int(w.dev), err)
	}
	if err := w.Run(ctx, "verify", kernels.Verify, n, uint64(p), n, uint64(seed), uint64(w.result)); err != nil {
		return Verdict{}, err
	}
	b := make([]byte, verifyResultBytes)
	if err := w.b.CopyFromDevice(w.dev, b, w.result); err != nil {
		return Verdict{}, fmt.Errorf("read the verify result on GPU%d: %w", int(w.dev), err)
	}
	r := BytesToWords(b)
	return Verdict{Mismatches: r[0], First: r[1]}, nil
}
