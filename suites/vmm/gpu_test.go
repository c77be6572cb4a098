// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package vmm_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuerr"
	"github.com/p2pconf/p2pconf/kernels"
)

// gpuWork runs the basic kernels on one GPU for specs and helper roles
// alike: a stream and a two-word result buffer for kernels.Verify, made once
// so that nothing is allocated between two readings of free device memory.
// Data is written with kernels.Fill and presets with Memset32Async on the
// same stream, never with the synchronous copies of the legacy stream, which
// a non-blocking stream does not wait for.
type gpuWork struct {
	b      backend.Backend
	dev    backend.Device
	stream backend.Stream
	result backend.DevicePtr
}

// verdict is what kernels.Verify found.
type verdict struct {
	Mismatches uint32 `json:"mismatches"`
	First      uint32 `json:"first"` // first bad word, 0xFFFFFFFF when none
}

func (v verdict) String() string {
	if v.Mismatches == 0 {
		return "every word matches"
	}
	return fmt.Sprintf("%d words differ, the first at word %d", v.Mismatches, v.First)
}

// newGPUWork makes the stream and result buffer with the backend directly
// (helper roles); close releases them.
func newGPUWork(b backend.Backend, dev backend.Device) (*gpuWork, error) {
	s, err := b.NewStream(dev)
	if err != nil {
		return nil, fmt.Errorf("create a stream on GPU%d: %w", int(dev), err)
	}
	r, err := b.Alloc(dev, 8)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("allocate a result buffer on GPU%d: %w", int(dev), err), b.DestroyStream(s))
	}
	return &gpuWork{b: b, dev: dev, stream: s, result: r}, nil
}

func (w *gpuWork) close() error {
	return errors.Join(w.b.Free(w.dev, w.result), w.b.DestroyStream(w.stream))
}

// shape covers n words with a grid-stride launch.
func shape(n uint64) backend.LaunchConfig {
	const block = 256
	grid := (n + block - 1) / block
	grid = max(1, min(grid, 1024))
	return backend.LaunchConfig{Grid: kernels.D1(uint32(grid)), Block: kernels.D1(block)}
}

// run launches k over n words and waits for the stream; a fault in the
// kernel comes back as the error.
func (w *gpuWork) run(ctx context.Context, step string, k *kernels.Kernel, n uint64, args ...uint64) error {
	if err := w.b.Launch(w.stream, k, shape(n), args...); err != nil {
		return fmt.Errorf("%s: launch %s on GPU%d: %w", step, k, int(w.dev), err)
	}
	return w.wait(ctx, step)
}

func (w *gpuWork) wait(ctx context.Context, step string) error {
	return harness.WaitFor(ctx, fmt.Sprintf("%s (stream of GPU%d)", step, int(w.dev)), func() (bool, error) {
		switch err := w.b.StreamQuery(w.stream); {
		case err == nil:
			return true, nil
		case errors.Is(err, cuerr.NotReady):
			return false, nil
		default:
			return false, err
		}
	})
}

// fill writes kernels.PatternWord(seed, i) into n words at p.
func (w *gpuWork) fill(ctx context.Context, p backend.DevicePtr, n uint64, seed uint32) error {
	return w.run(ctx, "fill", kernels.Fill, n, uint64(p), n, uint64(seed))
}

// verify checks n words at p against kernels.PatternWord(seed, i).
func (w *gpuWork) verify(ctx context.Context, p backend.DevicePtr, n uint64, seed uint32) (verdict, error) {
	if err := w.b.Memset32Async(w.stream, w.result, 0, 1); err != nil {
		return verdict{}, fmt.Errorf("preset the verify result on GPU%d: %w", int(w.dev), err)
	}
	if err := w.b.Memset32Async(w.stream, w.result+4, 0xFFFFFFFF, 1); err != nil {
		return verdict{}, fmt.Errorf("preset the verify result on GPU%d: %w", int(w.dev), err)
	}
	if err := w.run(ctx, "verify", kernels.Verify, n, uint64(p), n, uint64(seed), uint64(w.result)); err != nil {
		return verdict{}, err
	}
	b := make([]byte, 8)
	if err := w.b.CopyFromDevice(w.dev, b, w.result); err != nil {
		return verdict{}, fmt.Errorf("read the verify result on GPU%d: %w", int(w.dev), err)
	}
	r := harness.BytesToWords(b)
	return verdict{Mismatches: r[0], First: r[1]}, nil
}
