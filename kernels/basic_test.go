// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package kernels

import "testing"

// TestPatternWordByHand pins PatternWord to values worked out by hand from
// the formula written in basic.ptx, so the Go twin cannot drift from the
// PTX. PatternWord(1, 2):
//
//	lo32(2)*0x9E3779B9          = 0x3C6EF372; hi32 = 0; ^ seed 1 = 0x3C6EF373
//	x ^= x>>16                  = 0x3C6ECF1D
//	x *= 0x7FEB352D (mod 2^32)  = 0x12FA6919
//	x ^= x>>15                  = 0x12FA4CED
//	x *= 0x846CA68B (mod 2^32)  = 0x43C572AF
//	x ^= x>>16                  = 0x43C5316A
func TestPatternWordByHand(t *testing.T) {
	cases := []struct {
		seed uint32
		i    uint64
		want uint32
		why  string
	}{
		{1, 2, 0x43C5316A, "the worked example above"},
		{0x12345678, 1<<32 + 5, 0x605B17FE, "hi32(i) takes part (0x85EBCA6B)"},
		{7, 1000003, 0x68EE6B7B, "an index past 2^20"},
		{0, 0, 0x00000001, "the hash of 0 is 0, turned into 1: never zero"},
		{0xF4CAFE66, 0, 0xDEADBEEE, "0xF4CAFE66 hashes to the poison 0xDEADBEEF, turned into 0xDEADBEEE"},
	}
	for _, c := range cases {
		if got := PatternWord(c.seed, c.i); got != c.want {
			t.Errorf("PatternWord(0x%x, %d) = 0x%08X, want 0x%08X (%s)", c.seed, c.i, got, c.want, c.why)
		}
	}
}

func TestPatternNeverZeroOrPoison(t *testing.T) {
	for _, seed := range []uint32{0, 1, 0xDEADBEEF, 0xF4CAFE66} {
		for i, w := range Pattern(seed, 1<<16) {
			if w == 0 || w == 0xDEADBEEF {
				t.Fatalf("PatternWord(0x%x, %d) = 0x%08X", seed, i, w)
			}
		}
	}
}

func TestReduceWordVisitsEveryWordOnce(t *testing.T) {
	for _, c := range []struct{ rows, cols uint }{{6, 0}, {3, 3}, {0, 4}} {
		n := uint64(1) << (c.rows + c.cols)
		seen := make([]bool, n)
		for i := uint64(0); i < n; i++ {
			w := ReduceWord(i, c.rows, c.cols)
			if w >= n || seen[w] {
				t.Fatalf("rows 2^%d, cols 2^%d: index %d reads word %d twice or out of range", c.rows, c.cols, i, w)
			}
			seen[w] = true
		}
		if c.cols == 0 && ReduceWord(5, c.rows, 0) != 5 {
			t.Errorf("the contiguous walk reads word %d for index 5", ReduceWord(5, c.rows, 0))
		}
	}
	if got := ReduceWord(1, 10, 3); got != 8 {
		t.Errorf("strided: index 1 reads word %d, want 8 (the next row)", got)
	}
}
