// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cudabackend

import (
	"errors"
	"fmt"
	"math"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuda"
	"github.com/p2pconf/p2pconf/harness/cuerr"
	"github.com/p2pconf/p2pconf/kernels"
)

// moduleKey names a loaded module: modules belong to one context, so the
// same PTX is loaded once per device.
type moduleKey struct {
	dev    backend.Device
	module string
}

// module is a loaded module and the functions looked up in it so far.
type module struct {
	m     cuda.Module
	funcs map[string]cuda.Function
}

// Launch enqueues k on s, loading k's module into s's device first if this
// is the device's first launch from that module.
func (b *Backend) Launch(s backend.Stream, k *kernels.Kernel, cfg backend.LaunchConfig, args ...uint64) error {
	fn := "cuLaunchKernel"
	if cfg.Cooperative {
		fn = "cuLaunchCooperativeKernel"
	}
	if err := k.CheckArgs(args); err != nil {
		return cuerr.New(fn, cuerr.InvalidValue, err.Error())
	}
	vals, err := marshal(k, args)
	if err != nil {
		return cuerr.New(fn, cuerr.InvalidValue, err.Error())
	}
	return b.onStream(s, fn, func(drv *cuda.Driver, st *stream) error {
		f, err := b.function(drv, st.dev, k)
		if err != nil {
			return err
		}
		lc := cuda.LaunchConfig{Grid: dim(cfg.Grid), Block: dim(cfg.Block), SharedMemBytes: cfg.SharedMem, Stream: st.s}
		if cfg.Cooperative {
			return drv.LaunchCooperativeKernel(f, lc, vals...)
		}
		return drv.LaunchKernel(f, lc, vals...)
	})
}

// MaxActiveBlocks wraps cuOccupancyMaxActiveBlocksPerMultiprocessor for k
// with block threads and no dynamic shared memory, in d's context.
func (b *Backend) MaxActiveBlocks(d backend.Device, k *kernels.Kernel, block int) (n int, err error) {
	err = b.in(d, "cuOccupancyMaxActiveBlocksPerMultiprocessor", func(drv *cuda.Driver) error {
		f, err := b.function(drv, d, k)
		if err != nil {
			return err
		}
		n, err = drv.MaxActiveBlocksPerSM(f, block, 0)
		return err
	})
	return n, err
}

func dim(d kernels.Dim3) cuda.Dim3 { return cuda.Dim3{X: d.X, Y: d.Y, Z: d.Z} }

// marshal narrows each uint64 bit pattern to its parameter's kind, as the
// binding's typed arguments; the binding then copies them into C memory.
func marshal(k *kernels.Kernel, args []uint64) ([]any, error) {
	vals := make([]any, len(args))
	for i, a := range args {
		switch kind := k.Params[i].Kind; kind {
		case kernels.Ptr:
			vals[i] = cuda.DevicePtr(a)
		case kernels.U64:
			vals[i] = a
		case kernels.U32:
			vals[i] = uint32(a)
		case kernels.F32:
			vals[i] = math.Float32frombits(uint32(a))
		case kernels.F64:
			vals[i] = math.Float64frombits(a)
		default:
			return nil, fmt.Errorf("kernel %s parameter %d (%s) has unknown kind %d", k, i, k.Params[i].Name, kind)
		}
	}
	return vals, nil
}

// function returns k's CUfunction in dev's context (current when called),
// loading the module on first use. Loading holds the cache lock, so two
// goroutines never JIT the same module twice.
func (b *Backend) function(drv *cuda.Driver, dev backend.Device, k *kernels.Kernel) (cuda.Function, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	key := moduleKey{dev, k.Module}
	m := b.modules[key]
	if m == nil {
		level := -1 // the driver's default
		if k.JIT.Lowered {
			level = k.JIT.Level
		}
		cm, _, err := drv.LoadModuleLevel(k.PTX, level)
		if err != nil {
			return cuda.Function{}, fmt.Errorf("loading PTX module %s on device %d: %w", k.Module, dev, err)
		}
		m = &module{m: cm, funcs: map[string]cuda.Function{}}
		b.modules[key] = m
	}
	if f, ok := m.funcs[k.Entry]; ok {
		return f, nil
	}
	f, err := drv.Function(m.m, k.Entry)
	if err != nil {
		return cuda.Function{}, fmt.Errorf("kernel %s on device %d: %w", k, dev, err)
	}
	m.funcs[k.Entry] = f
	return f, nil
}

// unloadModules unloads every cached module in its device's context.
func (b *Backend) unloadModules() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	var errs []error
	b.ctxMu.Lock()
	defer b.ctxMu.Unlock()
	for key, m := range b.modules {
		// A module exists only in a context that was retained to load it.
		err := b.ctxs[key.dev].Do(func() error { return b.drv.UnloadModule(m.m) })
		if err != nil {
			errs = append(errs, fmt.Errorf("unloading module %s on device %d: %w", key.module, key.dev, err))
		}
		delete(b.modules, key)
	}
	return errors.Join(errs...)
}
