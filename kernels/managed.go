// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package kernels

import (
	"encoding/binary"
	"fmt"
	"time"
)

// Kernels of the managed suite; the PTX is kernels/managed.ptx.
var (
	// ManagedGatedFill fills mgf_dst[0..mgf_n) with PatternWord(mgf_seed, i)
	// while the launch of the other GPU (mgf_me 0 or 1) is resident too: its
	// thread 0 meets the other launch through mgf_gate (four u32 words of
	// mapped pinned host memory, zeroed by the host) before and after the
	// fill, each wait bounded by mgf_timeout_ns. mgf_status[0] is
	// GateMet when both meetings happened, GateTimedOut otherwise. Launch
	// it with one block.
	ManagedGatedFill = define("managed.ptx", "managed_gated_fill", 70, simManagedGatedFill,
		P("mgf_dst", Ptr), P("mgf_n", U64), P("mgf_seed", U32), P("mgf_gate", Ptr), P("mgf_me", U32),
		P("mgf_timeout_ns", U64), P("mgf_status", Ptr))
)

// ManagedGatedFill status words.
const (
	GateMet      uint32 = 1 // both launches were resident around both fills
	GateTimedOut uint32 = 2 // a wait for the other launch timed out
)

// simManagedGatedFill is the PTX's thread 0 (the meetings, with release
// stores and acquire loads on the gate) around a bulk weak fill.
func simManagedGatedFill(g Grid, args []uint64) error {
	dst, n, seed, gate, me, timeout, status := args[0], args[1], uint32(args[2]), args[3], args[4]&1, time.Duration(args[5]), args[6]
	met := true
	meet := func(t Thread, mine, other uint64) error {
		if err := t.Store(mine, TU32, 1, Release, Sys); err != nil {
			return err
		}
		start := g.Now()
		for {
			v, err := t.Load(other, TU32, Acquire, Sys)
			if err != nil {
				return err
			}
			if v != 0 {
				return nil
			}
			if g.Now()-start > timeout {
				met = false
				return nil
			}
			g.Pause()
		}
	}
	if err := g.Threads(1, func(t Thread) error { return meet(t, gate+4*me, gate+4*(1-me)) }); err != nil {
		return fmt.Errorf("managed_gated_fill: first meeting: %w", err)
	}
	for off := uint64(0); off < n; off += basicChunk / 4 {
		m := min(n-off, basicChunk/4)
		b := make([]byte, 4*m)
		for j := uint64(0); j < m; j++ {
			binary.LittleEndian.PutUint32(b[4*j:], PatternWord(seed, off+j))
		}
		if err := g.Write(dst+4*off, b); err != nil {
			return fmt.Errorf("managed_gated_fill: store at 0x%x: %w", dst+4*off, err)
		}
		g.Pause()
	}
	return g.Threads(1, func(t Thread) error {
		if err := meet(t, gate+8+4*me, gate+8+4*(1-me)); err != nil {
			return err
		}
		v := GateMet
		if !met {
			v = GateTimedOut
		}
		return t.Store(status, TU32, uint64(v), Relaxed, Sys)
	})
}
