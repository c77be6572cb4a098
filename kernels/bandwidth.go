// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package kernels

import "fmt"

// Kernels of the bandwidth suite; the PTX is kernels/bandwidth.ptx.
var (
	// BWCopy copies bwc_n16 16-byte vectors from bwc_src to bwc_dst with a
	// grid-stride loop of ld.global.v4.u32 / st.global.v4.u32, four vectors
	// in flight per thread. Any launch shape covers the whole range. Either
	// pointer may belong to a peer GPU or be mapped pinned host memory.
	BWCopy = define("bandwidth.ptx", "bw_copy_v4", 70, simBWCopy,
		P("bwc_dst", Ptr), P("bwc_src", Ptr), P("bwc_n16", U64))

	// PointerChase follows a chain of elements ChaseStride bytes apart at
	// chase_base, each holding the 64-bit index of the next (masked with
	// chase_mask, so the chase never leaves the table), from element
	// chase_start for min(chase_hops, ChaseMaxHops) hops with ld.global.cg
	// (one thread; launch it with grid 1, block 1). It then writes the index
	// it ended on to chase_out[0] and the %globaltimer nanoseconds the loop
	// took to chase_out[1] (two u64 words).
	PointerChase = define("bandwidth.ptx", "bw_chase", 70, simPointerChase,
		P("chase_base", Ptr), P("chase_mask", U64), P("chase_start", U64), P("chase_hops", U64), P("chase_out", Ptr))
)

// ChaseStride is the distance between PointerChase's elements: one element
// per 128-byte L2 line.
const ChaseStride = 128

// ChaseMaxHops bounds PointerChase whatever the host asks (the PTX's min).
const ChaseMaxHops = 1 << 24

// simChunk bounds the bytes the copy simulation holds at once.
const simChunk = 1 << 20

// simBWCopy moves the bytes as bulk weak accesses of the launching GPU, which
// is what the grid-stride loop of weak vector loads and stores amounts to:
// every vector is copied exactly once, in no particular order.
func simBWCopy(g Grid, args []uint64) error {
	dst, src, n16 := args[0], args[1], args[2]
	total := n16 * 16
	for off := uint64(0); off < total; off += simChunk {
		n := min(total-off, simChunk)
		b, err := g.Read(src+off, int(n))
		if err != nil {
			return fmt.Errorf("bw_copy_v4: load at 0x%x: %w", src+off, err)
		}
		if err := g.Write(dst+off, b); err != nil {
			return fmt.Errorf("bw_copy_v4: store at 0x%x: %w", dst+off, err)
		}
		g.Pause()
	}
	return nil
}

// simPointerChase is one thread doing dependent weak 64-bit loads (.cg is a
// cache hint, not a memory order), then two weak stores.
func simPointerChase(g Grid, args []uint64) error {
	base, mask, idx, hops, out := args[0], args[1], args[2], min(args[3], ChaseMaxHops), args[4]
	return g.Threads(1, func(t Thread) error {
		t0 := g.Now()
		for i := uint64(0); i < hops; i++ {
			addr := base + (idx&mask)*ChaseStride
			next, err := t.Load(addr, TU64, Weak, GPU)
			if err != nil {
				return fmt.Errorf("bw_chase: hop %d at 0x%x: %w", i, addr, err)
			}
			idx = next
		}
		ns := uint64((g.Now() - t0).Nanoseconds())
		if err := t.Store(out, TU64, idx, Weak, GPU); err != nil {
			return err
		}
		return t.Store(out+8, TU64, ns, Weak, GPU)
	})
}
