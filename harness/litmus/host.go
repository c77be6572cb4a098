// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/kernels"
)

// hostMem finds the Go view of mapped pinned host memory by address.
type hostMem []*backend.HostBuffer

func (h hostMem) word(addr uint64) *uint32 {
	for _, b := range h {
		if addr >= uint64(b.Ptr) && addr+4 <= uint64(b.Ptr)+uint64(len(b.Mem)) && addr%4 == 0 {
			return (*uint32)(unsafe.Pointer(&b.Mem[addr-uint64(b.Ptr)]))
		}
	}
	panic(fmt.Sprintf("litmus: host thread touches 0x%x, which is not in pinned host memory", addr))
}

// hostParty is one host goroutine playing the host's threads for the
// instances worker, worker+workers, ... Every access is sync/atomic, which
// is sequentially consistent in Go: the host side always orders as strongly
// as it can, so a mutant weakens only the GPU side (docs/litmus.md, G
// host↔GPU: both sides must order).
type hostParty struct {
	t               *Test
	a               launchArgs // the same arguments a GPU party gets
	mem             hostMem
	worker, workers uint32
	timeout         time.Duration
	stop            *atomic.Bool // set when the run is abandoned (a GPU failed, the spec timed out)
	private         uint32       // target of the read-modify-write that stands in for a fence
}

// run plays every iteration of the launch. How it ended is in its control
// record (status 0 when it completed), where the runner reads every party's.
func (h *hostParty) run() {
	if !h.wait(func() bool { return atomic.LoadUint32(h.mem.word(h.a.ctl)) != 0 }, nil) {
		h.fail(statusGate, 0)
		return
	}
	n := h.a.n
	for k := uint32(0); k < h.a.iters; k++ {
		p := newPerm(h.a.seed, k, n)
		for q := uint32(0); q < h.a.nroles; q++ {
			r := h.a.role(q)
			for s := h.worker; s < n; s += h.workers {
				h.role(r, p.instance(r, s, n), k&1, p)
			}
		}
		if st := h.barrier(k); st != statusOK {
			return
		}
	}
}

func (h *hostParty) mine() uint64 { return h.a.ctl + ctlStride*uint64(1+h.a.party) }

func (h *hostParty) role(r int, i, set uint32, p perm) {
	regs := map[int]uint32{}
	ops := h.t.Threads[r]
	_ = runProgram(ops, func(k int, op Op) (uint32, error) {
		if k > 0 && writes(op) && writes(ops[k-1]) && op.Loc == ops[k-1].Loc {
			// Two writes of one location (CoWW): give the GPU's reader a
			// moment to see the first, which two back-to-back host
			// stores leave it almost never.
			runtime.Gosched()
		}
		return h.access(op, i, set, p, regs), nil
	}, runtime.Gosched)
	for reg, v := range regs {
		atomic.StoreUint32(h.mem.word(regAddr(h.a.regs, max(h.t.Regs(), 1), reg, set, i, h.a.n)), v)
	}
}

// access performs one operation of instance i once and returns the value
// it read (a fence is a read-modify-write of a private word).
func (h *hostParty) access(op Op, i, set uint32, p perm, regs map[int]uint32) uint32 {
	if op.Kind == Fence {
		atomic.AddUint32(&h.private, 1)
		return 0
	}
	w := h.mem.word(locAddr(h.a.locs[op.Loc], p, op.Loc, set, i, h.a.n, h.a.stride))
	v := hostOp(op, w, regs)
	if op.Reg != NoReg {
		regs[op.Reg] = v
	}
	return v
}

// writes reports whether op writes its location.
func writes(op Op) bool { return op.Kind == Store || op.Kind == RMW }

// hostOp performs one access with sync/atomic and returns the value read.
func hostOp(op Op, w *uint32, regs map[int]uint32) uint32 {
	switch {
	case op.Kind == Load:
		return atomic.LoadUint32(w)
	case op.Kind == Store:
		v := op.Val
		if op.Src != NoReg {
			v += regs[op.Src]
		}
		atomic.StoreUint32(w, v)
		return 0
	case op.Atom == kernels.OpAdd:
		return atomic.AddUint32(w, op.Val) - op.Val
	case op.Atom == kernels.OpOr:
		return atomic.OrUint32(w, op.Val)
	case op.Atom == kernels.OpExch:
		return atomic.SwapUint32(w, op.Val)
	}
	for {
		old := atomic.LoadUint32(w)
		if old != op.Cmp || atomic.CompareAndSwapUint32(w, old, op.Val) {
			return old
		}
	}
}

// barrier publishes the iteration and waits for every party's.
func (h *hostParty) barrier(k uint32) uint32 {
	atomic.StoreUint32(h.mem.word(h.mine()+ctlEpoch), k+1)
	for q := uint64(0); q < uint64(h.a.parties); q++ {
		rec := h.a.ctl + ctlStride*(1+q)
		other := false
		ok := h.wait(func() bool { return atomic.LoadUint32(h.mem.word(rec+ctlEpoch)) >= k+1 },
			func() bool { other = atomic.LoadUint32(h.mem.word(rec+ctlStatus)) != 0; return other })
		switch {
		case other:
			return h.fail(statusOther, k)
		case !ok:
			return h.fail(statusParties, k)
		}
	}
	return statusOK
}

// wait polls done until it holds, stop holds, or the timeout passes.
func (h *hostParty) wait(done, stop func() bool) bool {
	deadline := time.Now().Add(h.timeout)
	for !done() {
		if (stop != nil && stop()) || h.stop.Load() || time.Now().After(deadline) {
			return false
		}
		runtime.Gosched()
	}
	return true
}

func (h *hostParty) fail(status, k uint32) uint32 {
	atomic.StoreUint32(h.mem.word(h.mine()+ctlIter), k)
	atomic.StoreUint32(h.mem.word(h.mine()+ctlStatus), status)
	return status
}
