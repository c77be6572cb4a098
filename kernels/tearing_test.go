// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package kernels

import "testing"

// Every value a tearing writer stores passes the reader's check, and a load
// made of parts of two different values (a 32-bit value's 16-bit halves, a
// 64-bit value's 32-bit halves, a 128-bit value's 64-bit halves, or single
// bytes) never does, for the values a run can come near.
func TestTornValuesNeverPassForWhole(t *testing.T) {
	mixBytes := func(x, y uint64, mask uint64) uint64 { return x&^mask | y&mask }
	for k := uint32(0); k < 1<<12; k++ {
		for _, width := range []int{4, 8} {
			if !TearWhole(width, TearValue(width, k)) {
				t.Fatalf("value %d of width %d fails the check", k, width)
			}
		}
		lo, hi := TearValue128(k)
		if !TearWhole128(lo, hi) {
			t.Fatalf("128-bit value %d fails the check", k)
		}
		for _, d := range []uint32{1, 2, 255, 256, 4095} {
			j := k + d
			a4, b4 := TearValue(4, k), TearValue(4, j)
			a8, b8 := TearValue(8, k), TearValue(8, j)
			for _, m := range []uint64{0xFFFF, 0xFF, 0xFF00, 0xFF0000} {
				if v := mixBytes(a4, b4, m); v != a4 && v != b4 && TearWhole(4, v) && (k^j)&0xFFFF != 0 {
					t.Errorf("32-bit values %d and %d torn with mask 0x%x pass as whole", k, j, m)
				}
			}
			for _, m := range []uint64{0xFFFFFFFF, 0xFF, 0xFF00000000} {
				if v := mixBytes(a8, b8, m); v != a8 && v != b8 && TearWhole(8, v) {
					t.Errorf("64-bit values %d and %d torn with mask 0x%x pass as whole", k, j, m)
				}
			}
			jlo, jhi := TearValue128(j)
			if TearWhole128(lo, jhi) || TearWhole128(jlo, hi) {
				t.Errorf("128-bit values %d and %d torn at the halves pass as whole", k, j)
			}
		}
	}
	if TearValue(4, 0) == TearValue(4, 1) || TearValue(8, 0) == TearValue(8, 1) {
		t.Error("the initial value equals the first stored one, so the first change would not show")
	}
}
