// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuerr"
	"github.com/p2pconf/p2pconf/kernels"
)

// MaxThreads is how many logical threads of one Grid.Threads call run at
// once, each on its own goroutine. With more, thread i shares a goroutine
// with i±MaxThreads and runs after it, so a Sim whose threads wait for each
// other must not ask for more than MaxThreads threads.
const MaxThreads = 4096

// MaxActiveBlocks is cuOccupancyMaxActiveBlocksPerMultiprocessor for a
// Hopper-like SM (2048 resident threads, at most 32 CTAs).
func (b *Backend) MaxActiveBlocks(d backend.Device, k *kernels.Kernel, block int) (int, error) {
	const fn = "cuOccupancyMaxActiveBlocksPerMultiprocessor"
	if err := b.ctx(fn, d); err != nil {
		return 0, err
	}
	if k == nil || block <= 0 || block > 1024 {
		return 0, errf(fn, cuerr.InvalidValue, "block size %d", block)
	}
	return max(1, min(32, 2048/block)), nil
}

// Launch is cuLaunchKernel: arguments are checked now, the kernel's Sim runs
// when the stream reaches it. A fault poisons the GPU's context.
func (b *Backend) Launch(s backend.Stream, k *kernels.Kernel, cfg backend.LaunchConfig, args ...uint64) error {
	const fn = "cuLaunchKernel"
	st, err := b.stream(fn, s)
	if err != nil {
		return err
	}
	switch {
	case k == nil:
		return errf(fn, cuerr.InvalidValue, "no kernel")
	case k.CheckArgs(args) != nil:
		return errf(fn, cuerr.InvalidValue, "%v", k.CheckArgs(args))
	case k.Sim == nil:
		return errf(fn, cuerr.NotFound, "kernel %s has no Sim for the fake backend", k)
	case k.MinSM > b.preset.cc:
		return errf(fn, cuerr.InvalidPTX, "kernel %s needs sm_%d, GPU%d is sm_%d", k, k.MinSM, st.dev, b.preset.cc)
	case cfg.Grid.Count() == 0 || cfg.Block.Count() == 0 || cfg.Block.Count() > 1024:
		return errf(fn, cuerr.InvalidValue, "grid %v block %v", cfg.Grid, cfg.Block)
	}
	if cfg.Cooperative {
		per, _ := b.MaxActiveBlocks(backend.Device(st.dev), k, cfg.Block.Count())
		if cfg.Grid.Count() > per*b.preset.sms {
			return errf("cuLaunchCooperativeKernel", cuerr.CooperativeLaunchTooLarge,
				"%d CTAs, at most %d resident", cfg.Grid.Count(), per*b.preset.sms)
		}
	}
	args = append([]uint64(nil), args...)
	st.enqueue(func() {
		start := time.Now()
		st.stale.begin()
		if n := b.runKernelOn(st, st.dev, k, cfg, args); n > 0 {
			st.stallUntil(start.Add(slowPeerTime(n)))
		}
	})
	return nil
}

// runKernel runs a launch; it returns the bytes the kernel accessed in a
// peer GPU's memory while slow-peer-copy is injected (0 otherwise, and for
// a launch that faulted).
func (b *Backend) runKernel(dev int, k *kernels.Kernel, cfg backend.LaunchConfig, args []uint64) (peerBytes uint64) {
	return b.runKernelOn(nil, dev, k, cfg, args)
}

// runKernelOn is runKernel for a launch on stream st (nil: none).
func (b *Backend) runKernelOn(st *stream, dev int, k *kernels.Kernel, cfg backend.LaunchConfig, args []uint64) (peerBytes uint64) {
	b.enter()
	defer b.exit()
	defer b.managedKernelStart(dev)()
	g := &grid{b: b, st: st, dev: dev, k: k, gdim: cfg.Grid, bdim: cfg.Block, start: time.Now()}
	err := func() (err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("kernel %s panicked: %v", k, p)
			}
		}()
		return k.Sim(g, args)
	}()
	if f := g.fault.Load(); f != nil {
		b.poison(dev, f.Code, f.Detail)
		return 0
	}
	if err != nil {
		var ce *cuerr.Error
		if errors.As(err, &ce) && (ce.Code == cuerr.IllegalAddress || ce.Code == cuerr.MisalignedAddress) {
			b.poison(dev, ce.Code, ce.Detail)
			return 0
		}
		b.poison(dev, cuerr.LaunchFailed, fmt.Sprintf("kernel %s: %v", k, err))
		return 0
	}
	return g.peerBytes.Load()
}

// grid implements kernels.Grid for one launch.
type grid struct {
	b          *Backend
	st         *stream // the launch's stream (nil in unit tests that run a kernel directly)
	dev        int
	k          *kernels.Kernel
	gdim, bdim kernels.Dim3
	start      time.Time
	fault      atomic.Pointer[cuerr.Error]
	peerBytes  atomic.Uint64 // bytes accessed in a peer GPU's memory (counted under slow-peer-copy only)
}

func (g *grid) Shape() (grid, block kernels.Dim3) { return g.gdim, g.bdim }
func (g *grid) Device() int                       { return g.dev }
func (g *grid) Now() time.Duration {
	if g.b.defects.has(dGlobalTimerStalled) {
		return 0
	}
	return time.Since(g.start)
}
func (g *grid) Pause() { runtime.Gosched() }

// Threads runs f for logical threads 0..n-1 (see MaxThreads) and returns
// the first error, the kernel's fault first.
func (g *grid) Threads(n int, f func(t kernels.Thread) error) error {
	if n <= 0 {
		return nil
	}
	workers := min(n, MaxThreads)
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < n; i += workers {
				if err := g.runThread(i, f); err != nil {
					once.Do(func() { first = err })
				}
			}
		}(w)
	}
	wg.Wait()
	if f := g.fault.Load(); f != nil {
		return f
	}
	return first
}

func (g *grid) runThread(i int, f func(t kernels.Thread) error) (err error) {
	t := &thread{g: g, id: i}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("kernel %s thread %d panicked: %v", g.k, i, p)
		}
		t.finish()
	}()
	return f(t)
}

// Read is a bulk weak load by the launching GPU.
func (g *grid) Read(addr uint64, n int) ([]byte, error) {
	out := make([]byte, n)
	if n == 0 {
		return out, nil
	}
	r, mode, err := g.resolve(nil, addr, uint64(n), 1, false)
	if err != nil {
		return nil, err
	}
	switch mode {
	case modeNaN:
		for i := 0; i+4 <= n; i += 4 {
			binary.LittleEndian.PutUint32(out[i:], nanWord)
		}
	case modeOK:
		copy(out, r.mem[addr-r.base:])
		if g.st != nil && g.b.defects.has(dHandoffServesStaleRead) {
			g.st.stale.read(r, addr-r.base, out)
		}
	}
	return out, nil
}

// Write is a bulk weak store by the launching GPU.
func (g *grid) Write(addr uint64, p []byte) error {
	if len(p) == 0 {
		return nil
	}
	r, mode, err := g.resolve(nil, addr, uint64(len(p)), 1, true)
	if err != nil || mode != modeOK {
		return err
	}
	copy(r.mem[addr-r.base:], p)
	return nil
}

type accessMode int

const (
	modeOK      accessMode = iota
	modePhantom            // the link does not work: loads read 0, stores vanish
	modeDrop               // this store is dropped (peer-store-dropped)
	modeNaN                // this load reads NaNs (sm-peer-loads-nan)
)

// nanWord is what a load reads under sm-peer-loads-nan, in every 32-bit word.
const nanWord = 0x7FC00000

// resolve checks that the launching GPU may touch [addr, addr+n) and
// returns the region. Anything else is a fault: it is recorded for the
// launch (poisoning the context when the launch ends) and returned.
func (g *grid) resolve(t *thread, addr, n, align uint64, write bool) (*region, accessMode, error) {
	if f := g.fault.Load(); f != nil {
		return nil, 0, f
	}
	var r *region
	if t != nil {
		r = t.cache
	}
	if r == nil || r.dead.Load() || !r.contains(addr, n) {
		if r = g.b.as.find(addr); r != nil && t != nil {
			t.cache = r
		}
	}
	what := "load"
	if write {
		what = "store"
	}
	if r == nil || !r.contains(addr, n) {
		return nil, 0, g.raise(cuerr.IllegalAddress, "GPU%d %s of %d bytes at 0x%x: not mapped in this process", g.dev, what, n, addr)
	}
	if addr%align != 0 {
		return nil, 0, g.raise(cuerr.MisalignedAddress, "GPU%d %s of %d bytes at 0x%x", g.dev, what, n, addr)
	}
	d := g.dev
	switch r.kind {
	case kindAlloc:
		if d != r.phys && !g.b.access[d][r.phys].Load() {
			return nil, 0, g.raise(cuerr.IllegalAddress, "GPU%d %s at 0x%x: GPU%d's memory, peer access GPU%d→GPU%d not enabled", d, what, addr, r.phys, d, r.phys)
		}
		if d != r.phys && g.b.defects.has(dPeerEnableMissesEarlier) && g.b.allocBeforeEnable(r, d) {
			return nil, 0, g.raise(cuerr.IllegalAddress, "GPU%d %s at 0x%x: GPU%d's allocation made before peer access GPU%d→GPU%d was enabled", d, what, addr, r.phys, d, r.phys)
		}
		if d != r.phys && g.b.defects.has(dReversePeerAccessTimesOut) {
			if _, rev := g.b.ds.reverse.Load([2]int{d, r.phys}); rev {
				return nil, 0, g.raise(cuerr.LaunchTimeout, "GPU%d %s at 0x%x: GPU%d's memory, mapped only by the enable GPU%d→GPU%d", d, what, addr, r.phys, r.phys, d)
			}
		}
	case kindIPC:
		if d != r.ctx {
			return nil, 0, g.raise(cuerr.IllegalAddress, "GPU%d %s at 0x%x: IPC mapping opened in GPU%d's context", d, what, addr, r.ctx)
		}
	case kindVMM:
		need := backend.ProtRead
		if write {
			need = backend.ProtReadWrite
		}
		if f := backend.AccessFlags(r.access[d].Load()); f&need != need {
			return nil, 0, g.raise(cuerr.IllegalAddress, "GPU%d %s at 0x%x: VMM mapping grants GPU%d %s", d, what, addr, d, f)
		}
	case kindManaged:
		if write && g.b.managedStore(r, d) {
			return r, modeDrop, nil
		}
	}
	if r.phys >= 0 && r.phys != d && g.b.defects.has(dSlowPeerCopy) {
		g.peerBytes.Add(n)
	}
	switch {
	case r.phys >= 0 && r.phys != d && !g.b.pairs[d][r.phys].p2p:
		return r, modePhantom, nil
	case r.kind == kindAlloc && r.phys != d && g.b.enableTooRecent(d, r.phys):
		return r, modePhantom, nil
	case write && d == 0 && r.phys == 1 && g.b.defects.has(dPeerStoreDropped):
		return r, modeDrop, nil
	case write && r.kind == kindIPC && g.b.defects.has(dIPCImportWritesDropped):
		return r, modeDrop, nil
	case write && r.kind == kindVMM && d == 1 && r.phys == 0 && g.b.defects.has(dVMMPeerWritesDropped):
		return r, modeDrop, nil
	case write && r.kind == kindHost && d == 1 && g.b.defects.has(dHostMappedWritesDropped):
		return r, modeDrop, nil
	case !write && r.kind == kindAlloc && r.phys != d && g.b.defects.has(dPeerLoadsNaN):
		return r, modeNaN, nil
	}
	return r, modeOK, nil
}

// allocBeforeEnable says whether r, a cuMemAlloc region of another GPU,
// was made before GPU d last enabled peer access to that GPU.
func (b *Backend) allocBeforeEnable(r *region, d int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return r.born <= b.enabledAt[d][r.phys]
}

func (g *grid) raise(code cuerr.Result, format string, args ...any) error {
	e := &cuerr.Error{Func: "kernel " + g.k.String(), Code: code, Detail: fmt.Sprintf(format, args...)}
	if g.fault.CompareAndSwap(nil, e) {
		return e
	}
	return g.fault.Load()
}
