// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import "strings"

// The compile check (cmd/litmus-sass, `make litmus-sass`): the driver's JIT
// may merge or drop memory operations of a litmus thread (ptxas 13.0 keeps
// one of two st.relaxed of one address), and then a forbidden test checks
// nothing. The check compiles each test's kernel as the driver does, and
// the same kernel with one role's litmus operations left out; the global
// memory instructions the two differ by are what the driver kept of that
// role, to be held against the role's PTX.

// AblatedPTX is the PTX of t's kernel with the litmus operations of thread
// role left out (everything else, the register write-back included, stays).
func (t *Test) AblatedPTX(role int) string {
	g := &ptxGen{t: t, m: t.Model(), entry: t.Kernel().Entry, ablate: role + 1}
	return g.module()
}

// RolePTXMemoryOps counts the global memory instructions the generated
// kernel holds for thread role: those the kernel loses when the role is left
// out (AblatedPTX). A role's operations can appear in more than one code
// path (the testing environment's every-role section beside the per-item
// loop), so this is at least RoleMemoryOps, and it is what the compiled code
// must keep: counting the operations once would let a compiler that merged
// two stores in each path pass.
func (t *Test) RolePTXMemoryOps(role int) int {
	return globalMemoryInstructions(t.Kernel().PTX) - globalMemoryInstructions(t.AblatedPTX(role))
}

// globalMemoryInstructions counts the PTX lines that load, store or perform
// an RMW on global memory, predicated or not.
func globalMemoryInstructions(ptx string) int {
	n := 0
	for _, line := range strings.Split(ptx, "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && strings.HasPrefix(f[0], "@") {
			f = f[1:]
		}
		if len(f) == 0 {
			continue
		}
		op := f[0]
		if (strings.HasPrefix(op, "ld.") || strings.HasPrefix(op, "st.") || strings.HasPrefix(op, "atom.") || strings.HasPrefix(op, "red.")) &&
			strings.Contains(op, ".global") {
			n++
		}
	}
	return n
}

// RoleMemoryOps counts the global memory instructions of thread role's PTX:
// its loads, stores and RMWs (a poll is one instruction in a loop; fences
// access no memory).
func (t *Test) RoleMemoryOps(role int) int {
	n := 0
	for _, op := range t.Threads[role] {
		if op.Kind != Fence {
			n++
		}
	}
	return n
}

// OpAblatedPTX is the PTX of t's kernel with operation op of thread role
// left out in every code path that holds it: a load or RMW reads the clock
// in its place, a store is gone. What the compiled kernel loses against the
// whole kernel is what the driver kept of that one access (package
// litmussass), so a merged access shows as a count, per access.
func (t *Test) OpAblatedPTX(role, op int) string {
	g := &ptxGen{t: t, m: t.Model(), entry: t.Kernel().Entry, skipRole: role + 1, skipOp: op}
	return g.module()
}

// OpPTXMemoryOps counts the global memory instructions the kernel holds for
// operation op of thread role: one per code path that plays the role, a
// poll's loop counted once (the compiler unrolls it).
func (t *Test) OpPTXMemoryOps(role, op int) int {
	return globalMemoryInstructions(t.Kernel().PTX) - globalMemoryInstructions(t.OpAblatedPTX(role, op))
}

// OpText is operation op of thread role as PTX-like text with its location
// ("ld.weak.global.u32 x").
func OpText(t *Test, role, op int) string {
	return opText(t.Threads[role][op], t)
}

// PollOf is the index of the polling read whose loop holds operation op of
// thread role (Op.InPoll), or -1 when op is not read inside a poll loop.
func PollOf(t *Test, role, op int) int {
	th := t.Threads[role]
	for i := range th {
		if n := pollBody(th, i); n > 0 && op > i && op <= i+n {
			return i
		}
	}
	return -1
}

// Loops reports whether op repeats in a poll loop (a single-shot read does
// not).
func (op Op) Loops() bool { return op.loops() }
