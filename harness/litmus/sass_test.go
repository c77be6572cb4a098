// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"strings"
	"testing"
)

// TestAblatedPTX: with no role left out the compile check's kernel is the
// kernel the suite runs; leaving a role out removes exactly its litmus
// instructions.
func TestAblatedPTX(t *testing.T) {
	for _, tt := range Catalogue() {
		full := tt.Kernel().PTX
		if got := tt.AblatedPTX(-1); got != full {
			t.Fatalf("%s: AblatedPTX(-1) differs from the kernel's PTX", tt.Name())
		}
		for r := range tt.Threads {
			less := tt.AblatedPTX(r)
			for _, op := range tt.Threads[r] {
				in := instruction(op)
				if strings.Count(less, in) >= strings.Count(full, in) {
					t.Errorf("%s without T%d still has every %s", tt.Name(), r, in)
				}
			}
		}
	}
	coww := findTest(t, "CoWW st.volatile")
	if n := coww.RoleMemoryOps(0); n != 2 {
		t.Errorf("CoWW st.volatile: %d memory ops in T0, want 2", n)
	}
	// Every copy of T0's two stores in the kernel (one per code path of the
	// testing environment) is what the compiled code must keep.
	if n, in := coww.RolePTXMemoryOps(0), strings.Count(coww.Kernel().PTX, "\tst.volatile.global.u32 ["); n != in || n < 2 || n%2 != 0 {
		t.Errorf("CoWW st.volatile: %d global memory instructions of T0 in the PTX, %d st.volatile there", n, in)
	}
	for _, tt := range Catalogue() {
		for r := range tt.Threads {
			if ptx, ops := tt.RolePTXMemoryOps(r), tt.RoleMemoryOps(r); ptx < ops {
				t.Errorf("%s T%d: %d global memory instructions in the PTX for %d operations", tt.Name(), r, ptx, ops)
			}
		}
	}
	if n := findTest(t, "MP F.sc.sys+rlx.sys").RoleMemoryOps(0); n != 2 { // fences access no memory
		t.Errorf("MP with fences: %d memory ops in T0, want 2", n)
	}
}

// TestOpAblatedPTX: leaving out one access removes its instruction from
// every code path and nothing else: over a role's accesses the counts add
// up to the role's, and each access has one per path.
func TestOpAblatedPTX(t *testing.T) {
	for _, tt := range Catalogue() {
		for r, th := range tt.Threads {
			sum, paths := 0, -1
			for oi, op := range th {
				if op.Kind == Fence {
					if got := tt.OpAblatedPTX(r, oi); got != tt.Kernel().PTX {
						t.Errorf("%s T%d op %d: leaving out a fence changed the PTX", tt.Name(), r, oi)
					}
					continue
				}
				n := tt.OpPTXMemoryOps(r, oi)
				if n < 1 || paths >= 0 && n != paths {
					t.Errorf("%s T%d op %d (%s): %d instructions, other accesses of the role %d", tt.Name(), r, oi, OpText(tt, r, oi), n, paths)
				}
				paths = n
				sum += n
			}
			if want := tt.RolePTXMemoryOps(r); sum != want {
				t.Errorf("%s T%d: its accesses have %d instructions, the role %d", tt.Name(), r, sum, want)
			}
		}
	}
}
