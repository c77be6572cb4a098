// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package kernels

import "testing"

// TestCASWant: the oracle of CASProbe compares the whole word of the case's
// width, keeps a 32-bit case's guard, and the records round-trip.
func TestCASWant(t *testing.T) {
	for _, tc := range []struct {
		c    CASCase
		want CASResult
	}{
		{CASCase{Width: 64, Init: 1<<32 | 5, Expected: 1<<32 | 5, New: 7}, CASResult{1<<32 | 5, 7}},
		{CASCase{Width: 64, Init: 1<<32 | 5, Expected: 2<<32 | 5, New: 7}, CASResult{1<<32 | 5, 1<<32 | 5}},
		{CASCase{Width: 64, Init: 1<<32 | 5, Expected: 1<<32 | 4, New: 7}, CASResult{1<<32 | 5, 1<<32 | 5}},
		{CASCase{Width: 32, Init: 0x10005, Expected: 0x20005, New: 7, Guard: 9}, CASResult{0x10005, 9<<32 | 0x10005}},
		// A 32-bit case ignores the high 32 bits of its values.
		{CASCase{Width: 32, Init: 3<<32 | 0x10005, Expected: 0x10005, New: 1<<40 | 7, Guard: 9}, CASResult{0x10005, 9<<32 | 7}},
	} {
		if got := tc.c.Want(); got != tc.want {
			t.Errorf("%+v: want %+v, oracle says %+v", tc.c, tc.want, got)
		}
	}
	cases := []CASCase{{Width: 32, Init: 1, Expected: 2, New: 3, Guard: 4}, {Width: 64, Init: 5 << 40, Expected: 6, New: 7}}
	b := EncodeCASCases(cases)
	if len(b) != 2*CASCaseBytes || b[24] != 32 || b[28] != 4 || b[CASCaseBytes+5] != 5 {
		t.Errorf("encoded % x", b)
	}
	out := make([]byte, 2*CASOutBytes)
	out[0], out[CASOutBytes+8] = 1, 2
	if r := DecodeCASResults(out, 2); r[0] != (CASResult{1, 0}) || r[1] != (CASResult{0, 2}) {
		t.Errorf("decoded %+v", r)
	}
}
