// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package atomics_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/kernels"
)

const (
	iters       = 4               // ops per thread
	gateTimeout = 5 * time.Second // how long a kernel waits for the start gate
)

// side is one GPU taking part in a contention run.
type side struct {
	g           harness.GPU
	grid, block uint32
}

func (s side) threads() uint32 { return s.grid * s.block }

// sideFor is the launch shape for op on g: one CTA of 128 threads per SM
// (every SM contends); CAS loops, whose cost grows with the number of
// contenders, use a quarter of the SMs with 64 threads each.
func sideFor(g harness.GPU, op kernels.ContendOp) side {
	sms := uint32(max(1, g.Info.SMCount))
	if op.Op == kernels.OpCAS {
		return side{g: g, grid: (sms + 3) / 4, block: 64}
	}
	return side{g: g, grid: sms, block: 128}
}

// hostSide is host goroutines taking part (sync/atomic on mapped memory):
// threads virtual threads, each doing iters ops like a GPU thread.
type hostSide struct {
	goroutines int
	threads    uint32
}

// contention is one run: kernel applies op from every side at once to
// words in the memory of owner (or in host memory when hostWords is set).
type contention struct {
	op        kernels.ContendOp
	kernel    *kernels.Kernel
	owner     harness.GPU
	sides     []side
	host      *hostSide
	hostWords *harness.HostBuffer
}

// describe is "GPU0 (132×128 threads) and GPU1 (132×128 threads)".
func (c contention) describe() string {
	var parts []string
	for _, s := range c.sides {
		parts = append(parts, fmt.Sprintf("%s (%d×%d threads)", s.g, s.grid, s.block))
	}
	if c.host != nil {
		parts = append(parts, fmt.Sprintf("%d host goroutines", c.host.goroutines))
	}
	return strings.Join(parts, " and ")
}

// run launches every side behind a start gate in mapped pinned host memory,
// opens the gate, waits (bounded by ctx) and collects the words and every
// returned value. Launch, gate and wait failures fail the spec: they are
// harness errors, not observations.
func (c contention) run(ctx context.Context, h *harness.Harness) (plan, outcome, time.Duration) {
	GinkgoHelper()
	total := uint32(0)
	for _, s := range c.sides {
		total += s.threads()
	}
	if c.host != nil {
		total += c.host.threads
	}
	p := newPlan(c.op, uint64(total)*iters)
	words := c.initWords(h, p)

	gate := h.HostAlloc(c.sides[0].g, 4096, harness.HostAllocPortable|harness.HostAllocDeviceMap)
	gateWord := harness.HostWord32(gate.Mem, 0)
	atomic.StoreUint32(gateWord, 0)
	open := sync.OnceFunc(func() { atomic.StoreUint32(gateWord, 1) })
	defer open() // a failed launch must not leave the others waiting out the gate

	type launched struct {
		s           side
		tbase       uint32
		old, status harness.DevicePtr
		stream      harness.Stream
	}
	var ls []launched
	tbase := uint32(0)
	for _, s := range c.sides {
		l := launched{s: s, tbase: tbase, old: h.Alloc(s.g, uint64(s.threads())*iters*8), status: h.Alloc(s.g, 16), stream: h.Stream(s.g)}
		h.Fill(s.g, l.status, 0, 4)
		h.Launch(l.stream, c.kernel, harness.LaunchConfig{Grid: kernels.D1(s.grid), Block: kernels.D1(s.block)},
			uint64(words), p.nwords, uint64(c.op.Sel), p.a, p.b, uint64(p.mode), uint64(l.old),
			uint64(tbase), uint64(total), iters, uint64(gate.Ptr), uint64(l.status), uint64(gateTimeout))
		ls = append(ls, l)
		tbase += s.threads()
	}
	o := outcome{olds: make([]uint64, p.total), casGaveUp: map[string]uint32{}}
	start := time.Now()
	open()
	if c.host != nil {
		c.runHost(ctx, p, tbase, total, o.olds)
	}
	for _, l := range ls {
		h.MustWait(ctx, l.stream, fmt.Sprintf("atom.%s contention on %s", c.op.Name, l.s.g))
	}
	elapsed := time.Since(start)

	for _, l := range ls {
		st := h.Download(l.s.g, l.status, 3)
		Expect(st[0]).To(BeZero(), "%s: %d CTAs gave up waiting %s for the start gate", l.s.g, st[0], gateTimeout)
		Expect(st[2]).To(BeZero(), "%s: the kernel did not know operation %d (%s)", l.s.g, c.op.Sel, c.op.Name)
		o.casGaveUp[l.s.g.String()] = st[1]
		raw := h.Download(l.s.g, l.old, int(2*l.s.threads()*iters))
		for i := uint32(0); i < iters; i++ {
			for tl := uint32(0); tl < l.s.threads(); tl++ {
				j := 2 * (i*l.s.threads() + tl)
				o.olds[uint64(i)*uint64(total)+uint64(l.tbase+tl)] = uint64(raw[j]) | uint64(raw[j+1])<<32
			}
		}
	}
	o.finals = c.finals(h, p, words)
	return p, o, elapsed
}

// initWords allocates the words (or uses the host buffer) and sets every
// one to the plan's initial value.
func (c contention) initWords(h *harness.Harness, p plan) harness.DevicePtr {
	GinkgoHelper()
	if c.hostWords != nil {
		Expect(uint64(len(c.hostWords.Mem))).To(BeNumerically(">=", 8*p.nwords), "host buffer for %d words", p.nwords)
		for w := uint64(0); w < p.nwords; w++ {
			atomic.StoreUint64(harness.HostWord64(c.hostWords.Mem, 8*int(w)), p.init)
		}
		return c.hostWords.Ptr
	}
	words := h.Alloc(c.owner, 8*p.nwords)
	init := make([]uint32, 2*p.nwords)
	for w := range p.nwords {
		init[2*w], init[2*w+1] = uint32(p.init), uint32(p.init>>32)
	}
	h.Upload(c.owner, words, init)
	return words
}

func (c contention) finals(h *harness.Harness, p plan, words harness.DevicePtr) []uint64 {
	GinkgoHelper()
	out := make([]uint64, p.nwords)
	if c.hostWords != nil {
		for w := range out {
			out[w] = atomic.LoadUint64(harness.HostWord64(c.hostWords.Mem, 8*int(w)))
		}
		return out
	}
	raw := harness.WordsToBytes(h.Download(c.owner, words, int(2*p.nwords)))
	for w := range out {
		out[w] = binary.LittleEndian.Uint64(raw[8*w:])
	}
	return out
}

// runHost runs the host side's ops on the host words with sync/atomic, the
// goroutines taking the virtual threads round robin.
func (c contention) runHost(ctx context.Context, p plan, tbase, total uint32, olds []uint64) {
	var wg sync.WaitGroup
	for g := 0; g < c.host.goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := uint64(0); i < iters && ctx.Err() == nil; i++ {
				for v := uint32(g); v < c.host.threads; v += uint32(c.host.goroutines) {
					k := i*uint64(total) + uint64(tbase+v)
					olds[k] = hostApply(c.hostWords.Mem[8*(k%p.nwords):], c.op, p.operand(k))
				}
			}
		}(g)
	}
	wg.Wait()
}
