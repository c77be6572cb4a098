// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package kernels

import (
	"encoding/binary"
	"fmt"
)

// Kernels of bandwidth.copy-vs-direct; the PTX is kernels/reuse.ptx.
var (
	// Reduce adds the sum (mod 2^32) of the bwr_n = 2^(bwr_rows_log2 +
	// bwr_cols_log2) words at bwr_src to bwr_out[0], reading them
	// contiguously (bwr_cols_log2 = 0) or in a strided walk (ReduceWord
	// gives the order). Each warp adds its sum with one relaxed .gpu
	// red.add; launch it with whole warps and preset bwr_out[0].
	Reduce = define("reuse.ptx", "bw_reduce", 70, simReduce,
		P("bwr_src", Ptr), P("bwr_n", U64), P("bwr_rows_log2", U32), P("bwr_cols_log2", U32), P("bwr_out", Ptr))
)

// ReduceWord is the word Reduce's logical index i reads: a column-major walk
// over a row-major matrix of 2^rowsLog2 rows and 2^colsLog2 columns.
func ReduceWord(i uint64, rowsLog2, colsLog2 uint) uint64 {
	return (i&(1<<rowsLog2-1))<<colsLog2 | i>>rowsLog2
}

// PatternSum is the sum (mod 2^32) of words [0, n) of the seeded pattern:
// what Reduce adds for a buffer that Fill wrote with seed.
func PatternSum(seed uint32, n uint64) uint32 {
	var s uint32
	for i := uint64(0); i < n; i++ {
		s += PatternWord(seed, i)
	}
	return s
}

// simReduce reads every word once with bulk weak loads (the order of the
// walk does not change the sum) and adds the sum with one relaxed .gpu
// atomic add, as one warp of the PTX would.
func simReduce(g Grid, args []uint64) error {
	src, n, out := args[0], args[1], args[4]
	if n != 1<<(args[2]+args[3]) {
		return fmt.Errorf("bw_reduce: n=%d is not 2^(%d+%d)", n, args[2], args[3])
	}
	var sum uint32
	for off := uint64(0); off < n; off += basicChunk / 4 {
		m := min(n-off, basicChunk/4)
		b, err := g.Read(src+4*off, int(4*m))
		if err != nil {
			return fmt.Errorf("bw_reduce: load at 0x%x: %w", src+4*off, err)
		}
		for j := uint64(0); j < m; j++ {
			sum += binary.LittleEndian.Uint32(b[4*j:])
		}
		g.Pause()
	}
	return g.Threads(1, func(t Thread) error {
		_, err := t.Atomic(OpAdd, out, TU32, uint64(sum), 0, Relaxed, GPU)
		return err
	})
}
