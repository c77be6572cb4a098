// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

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
	g.header()
	g.prologue()
	g.gate()
	g.iterationStart()
	g.roles()
	g.stress()
	g.barrier()
	g.collect()
	g.flush()
	g.line("}")
	return g.b.String()
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

// OpText is an operation as the compile check prints it: its PTX
// instruction and location, "st.volatile.global.u32 x".
func OpText(op Op, t *Test) string { return opText(op, t) }
