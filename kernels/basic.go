// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package kernels

import (
	"encoding/binary"
	"fmt"
	"time"
)

// Basic kernels every suite uses; the PTX is kernels/basic.ptx. Pointers are
// generic addresses: the launching GPU's memory, a peer's (after peer
// access), IPC and VMM mappings and mapped pinned host memory all work.
// Every data kernel uses a grid-stride loop, so any launch shape covers the
// whole range.
var (
	// Fill writes word i of fill_dst[0..fill_n) = PatternWord(fill_seed, i)
	// with plain stores.
	Fill = define("basic.ptx", "fill", 70, simFill,
		P("fill_dst", Ptr), P("fill_n", U64), P("fill_seed", U32))

	// Verify counts the words of verify_src[0..verify_n) that differ from
	// PatternWord(verify_seed, i): result[0] += mismatches, result[1] =
	// min(result[1], first bad index) (atom.add / atom.min, relaxed, .gpu
	// scope). The host presets result (two u32 words) to {0, 0xFFFFFFFF};
	// indices ≥ 0xFFFFFFFF are reported as 0xFFFFFFFE.
	Verify = define("basic.ptx", "verify", 70, simVerify,
		P("verify_src", Ptr), P("verify_n", U64), P("verify_seed", U32), P("verify_result", Ptr))

	// Transform sets transform_dst[i] = transform_src[i] + transform_add for
	// i < transform_n with plain loads and stores (add 0 copies). Either
	// pointer may be a peer's memory.
	Transform = define("basic.ptx", "transform", 70, simTransform,
		P("transform_dst", Ptr), P("transform_src", Ptr), P("transform_n", U64), P("transform_add", U32))

	// Delay spins on %globaltimer for delay_ns nanoseconds, then writes 1 to
	// delay_status[0] (st.relaxed.sys); if its iteration cap (delay_ns+1024
	// rounds) is hit first it writes DelayCapped instead. Launch it with
	// one thread.
	Delay = define("basic.ptx", "delay", 70, simDelay,
		P("delay_ns", U64), P("delay_status", Ptr))

	// Empty does nothing: a launch that proves a context still works.
	Empty = define("basic.ptx", "empty", 70, simEmpty)
)

// Delay status words.
const (
	DelayElapsed uint32 = 1 // the time passed
	DelayCapped  uint32 = 2 // the iteration cap was hit first
)

// basicChunk bounds the bytes a simulation holds at once.
const basicChunk = 1 << 20

// PatternWord is word i of the seeded pattern that Fill writes and Verify
// checks: the Go twin of the PTX hash in basic.ptx. It is never 0 and never
// 0xDEADBEEF (the harness's poison), so neither cleared nor poisoned memory
// can pass for it.
func PatternWord(seed uint32, i uint64) uint32 {
	x := uint32(i)*0x9E3779B9 ^ uint32(i>>32)*0x85EBCA6B ^ seed
	x ^= x >> 16
	x *= 0x7FEB352D
	x ^= x >> 15
	x *= 0x846CA68B
	x ^= x >> 16
	if x == 0 || x == 0xDEADBEEF {
		x ^= 1
	}
	return x
}

// Pattern returns words [0, n) of the seeded pattern.
func Pattern(seed uint32, n int) []uint32 {
	w := make([]uint32, n)
	for i := range w {
		w[i] = PatternWord(seed, uint64(i))
	}
	return w
}

// simFill is the grid-stride loop of plain stores as one bulk weak store
// per chunk: every word is written exactly once, in no particular order.
func simFill(g Grid, args []uint64) error {
	dst, n, seed := args[0], args[1], uint32(args[2])
	for off := uint64(0); off < n; off += basicChunk / 4 {
		m := min(n-off, basicChunk/4)
		b := make([]byte, 4*m)
		for j := uint64(0); j < m; j++ {
			binary.LittleEndian.PutUint32(b[4*j:], PatternWord(seed, off+j))
		}
		if err := g.Write(dst+4*off, b); err != nil {
			return fmt.Errorf("fill: store at 0x%x: %w", dst+4*off, err)
		}
		g.Pause()
	}
	return nil
}

// simVerify reads the words with bulk weak loads, then reports as the PTX
// does: one relaxed .gpu atom.add and atom.min, only when something differs.
func simVerify(g Grid, args []uint64) error {
	src, n, seed, result := args[0], args[1], uint32(args[2]), args[3]
	var bad uint64
	first := uint64(0xFFFFFFFF)
	for off := uint64(0); off < n; off += basicChunk / 4 {
		m := min(n-off, basicChunk/4)
		b, err := g.Read(src+4*off, int(4*m))
		if err != nil {
			return fmt.Errorf("verify: load at 0x%x: %w", src+4*off, err)
		}
		for j := uint64(0); j < m; j++ {
			if binary.LittleEndian.Uint32(b[4*j:]) != PatternWord(seed, off+j) {
				bad++
				first = min(first, off+j)
			}
		}
		g.Pause()
	}
	if bad == 0 {
		return nil
	}
	first = min(first, 0xFFFFFFFE)
	return g.Threads(1, func(t Thread) error {
		if _, err := t.Atomic(OpAdd, result, TU32, bad, 0, Relaxed, GPU); err != nil {
			return fmt.Errorf("verify: atom.add at 0x%x: %w", result, err)
		}
		if _, err := t.Atomic(OpMin, result+4, TU32, first, 0, Relaxed, GPU); err != nil {
			return fmt.Errorf("verify: atom.min at 0x%x: %w", result+4, err)
		}
		return nil
	})
}

// simTransform is the grid-stride loop of plain loads and stores as bulk
// weak accesses per chunk.
func simTransform(g Grid, args []uint64) error {
	dst, src, n, add := args[0], args[1], args[2], uint32(args[3])
	for off := uint64(0); off < n; off += basicChunk / 4 {
		m := min(n-off, basicChunk/4)
		b, err := g.Read(src+4*off, int(4*m))
		if err != nil {
			return fmt.Errorf("transform: load at 0x%x: %w", src+4*off, err)
		}
		for j := uint64(0); j < m; j++ {
			binary.LittleEndian.PutUint32(b[4*j:], binary.LittleEndian.Uint32(b[4*j:])+add)
		}
		if err := g.Write(dst+4*off, b); err != nil {
			return fmt.Errorf("transform: store at 0x%x: %w", dst+4*off, err)
		}
		g.Pause()
	}
	return nil
}

// simDelay spins on the launch clock with the same cap as the PTX, then
// writes the status with a relaxed system-scope store.
func simDelay(g Grid, args []uint64) error {
	ns, status := args[0], args[1]
	return g.Threads(1, func(t Thread) error {
		end := g.Now() + time.Duration(ns)
		v := DelayElapsed
		for rounds := uint64(1); g.Now() < end; rounds++ {
			if rounds >= ns+1024 {
				v = DelayCapped
				break
			}
			g.Pause()
		}
		return t.Store(status, TU32, uint64(v), Relaxed, Sys)
	})
}

func simEmpty(g Grid, args []uint64) error { return nil }
