// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"strings"
	"sync/atomic"
	"testing"
)

func TestHostWordsAreAlignedAndInRange(t *testing.T) {
	mem := make([]byte, 64) // Go aligns a 64-byte allocation to 8 bytes at least
	atomic.StoreUint64(HostWord64(mem, 8), 0x0102030405060708)
	if got := atomic.LoadUint32(HostWord32(mem, 8)); got != 0x05060708 {
		t.Fatalf("the low word of the 64-bit word at 8 reads %#x", got)
	}
	for _, tc := range []struct {
		what string
		call func()
		want string
	}{
		{"unaligned 32-bit", func() { HostWord32(mem, 2) }, "not aligned"},
		{"unaligned 64-bit", func() { HostWord64(mem, 4) }, "not aligned"},
		{"past the end", func() { HostWord32(mem, 62) }, "offset 62 of 64 bytes"},
		{"negative", func() { HostWord64(mem, -8) }, "offset -8"},
	} {
		func() {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, tc.want) {
					t.Errorf("%s: panic %v, want one saying %q", tc.what, r, tc.want)
				}
			}()
			tc.call()
		}()
	}
}
