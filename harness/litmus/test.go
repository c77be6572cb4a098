// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"fmt"
	"sort"
	"strings"

	"github.com/p2pconf/p2pconf/kernels"
)

// OpKind is what a litmus operation does.
type OpKind int

// Operation kinds.
const (
	Load  OpKind = iota // ld: read a location into a register
	Store               // st: write a constant (or a register plus a constant)
	RMW                 // atom: read-modify-write, old value into a register
	Fence               // fence.acq_rel / fence.sc
)

// NoReg marks an operation without a register.
const NoReg = -1

// Op is one memory operation of a litmus thread, with PTX semantics.
type Op struct {
	Kind  OpKind
	Loc   int           // location index (Load, Store, RMW)
	Sem   kernels.Sem   // Weak, Relaxed, Acquire, Release, AcqRel; SC for fences
	Scope kernels.Scope // CTA, GPU or Sys (ignored for Weak)
	Atom  kernels.AtomOp
	Val   uint32 // Store: value (added to Src when Src != NoReg); RMW: operand b; CAS: the new value
	Cmp   uint32 // CAS: the value compared with
	Reg   int    // Load/RMW: register receiving the value read, or NoReg
	Src   int    // Store: register whose value is added to Val, or NoReg
	// Poll repeats a Load or RMW (a bounded number of times) until it reads
	// Until; the register keeps the last value read.
	Poll  bool
	Until uint32
	// Once makes a Poll read only once (the single-shot forms): the
	// register holds that one value, and the instance counts whether it was
	// the awaited one (FlagSeen), as for a poll that gave up.
	Once bool
	// InPoll puts a Load (or a Fence before one) inside the loop of the
	// poll right before it: every iteration performs the flag access, then
	// this operation, in program order and with no dependency on the value
	// the flag access read; the loop exits after the iteration whose flag
	// access read Until, and the register keeps that iteration's value. A
	// data load after the loop would sit behind the loop's exit branch, a
	// control dependency on the flag that the GPU honours, so a polled
	// relaxed mutant could never show its weak outcome and a broken acquire
	// would go unseen (docs/litmus.md, "The reader's poll loop"). Stores
	// stay after the loop: a store in the loop would be made many times.
	InPoll bool
	// Volatile emits ld.volatile / st.volatile: under the PTX memory model
	// the same as ld.relaxed.sys / st.relaxed.sys (Sem Relaxed, Scope Sys,
	// which the model, the Sim and the host side use), and the compiler
	// keeps every volatile access, so two stores of one address in one
	// thread stay two stores (docs/litmus.md, "Tests the compiler cannot
	// collapse").
	Volatile bool
	// Size is the bytes the access reads or writes: 0 or 4 (the engine's
	// 32-bit words) or 8. Two accesses of one location with different
	// sizes, by different threads, one of them a write, are a mixed-size
	// race, outside the PTX memory model's axioms (Test.Validate).
	Size int
}

// Verdict is what the PTX memory model says about a test's outcome.
type Verdict int

// Verdicts.
const (
	// Forbidden: observing the outcome is a conformance failure.
	Forbidden Verdict = iota
	// Allowed: the outcome may be observed; the test runs as a mutant whose
	// weak outcome shows that its forbidden siblings could have failed.
	Allowed
)

func (v Verdict) String() string {
	if v == Forbidden {
		return "forbidden"
	}
	return "allowed"
}

// Where is a set of placement kinds a test runs in.
type Where uint8

// Placement kinds a test may run in (see placement.go).
const (
	InCTAs   Where = 1 << iota // threads in different CTAs of one GPU
	InPair                     // threads on two GPUs, over peer memory
	InHost                     // GPU threads and host threads (see Test.Host)
	InTriple                   // threads on three GPUs, over peer memory
)

// Test is one litmus test variant.
type Test struct {
	Family  string            // "MP", "SB", ...
	Variant string            // "rel.sys/acq.sys"
	Locs    []string          // location names, by index
	Threads [][]Op            // the threads' programs
	Finals  []int             // locations whose final value is part of the outcome
	Target  map[string]uint32 // the outcome the test is about ("r0": 1, "x": 1)
	// Verdict is what the catalogue's authors expect where every scope
	// covers the threads the test synchronises. It decides nothing: the
	// verdict of every case is the PTX memory model's (Placement.Verdict),
	// and a unit test holds the model to these expectations.
	Verdict Verdict
	Where   Where
	// Host lists the host placements as one letter per thread: G runs on
	// the GPU, H on a host thread ("GH": thread 0 on the GPU, 1 on the host).
	Host []string
	// Symmetric tests look the same with the threads swapped (SB, LB): on a
	// pair they run with the locations on one GPU only, since the reverse
	// pair covers the other home.
	Symmetric bool
	// Source cites the family of docs/litmus.md or the paper.
	Source string
	// Generated says which shape, variant and scopes a generated test was
	// made of (Shape.Test); nil for the catalogue's hand-written tests.
	Generated *Generated
}

// Name is "MP rel.sys/acq.sys".
func (t *Test) Name() string { return t.Family + " " + t.Variant }

// Regs is the number of registers the test uses.
func (t *Test) Regs() int {
	n := 0
	for _, th := range t.Threads {
		for _, op := range th {
			if op.Reg >= n {
				n = op.Reg + 1
			}
		}
	}
	return n
}

// TargetText renders the target outcome as "r0=1 ∧ r1=0".
func (t *Test) TargetText() string {
	keys := make([]string, 0, len(t.Target))
	for k := range t.Target {
		keys = append(keys, k)
	}
	obs := t.Observations()
	order := map[string]int{}
	for i, o := range obs {
		order[o.Name] = i
	}
	sort.Slice(keys, func(i, j int) bool { return order[keys[i]] < order[keys[j]] })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, t.Target[k])
	}
	return strings.Join(parts, " ∧ ")
}

// Validate checks that the test can be judged and generated: PTX-valid
// semantics for each kind, registers written once, locations and finals in
// range, a target that names observations, no mixed-size race (the one
// kind of program the PTX memory model does not judge: its axioms hold for
// programs whose races are all uniform-size, PTX ISA "Memory Consistency
// Model", "Mixed-size Data-races"), and 32-bit accesses only (the engine's
// locations are 32-bit words). A data race of uniform size, such as a weak
// load in a poll loop while another thread stores the location, is
// judged: the model's verdict stands for it.
func (t *Test) Validate() error {
	if len(t.Threads) < 1 || len(t.Threads) > maxRoles {
		return fmt.Errorf("%s: %d threads (1..%d)", t.Name(), len(t.Threads), maxRoles)
	}
	if len(t.Locs) < 1 || len(t.Locs) > maxLocs {
		return fmt.Errorf("%s: %d locations (1..%d)", t.Name(), len(t.Locs), maxLocs)
	}
	written := map[int]bool{}
	for ti, th := range t.Threads {
		for oi, op := range th {
			if err := op.validate(len(t.Locs), written); err != nil {
				return fmt.Errorf("%s: thread %d op %d: %w", t.Name(), ti, oi, err)
			}
			if op.InPoll && (oi == 0 || !th[oi-1].InPoll && !th[oi-1].loops()) {
				return fmt.Errorf("%s: thread %d op %d: an operation in a poll loop must follow a polling read or another operation in its loop", t.Name(), ti, oi)
			}
		}
	}
	if err := t.validateSizes(); err != nil {
		return err
	}
	for _, l := range t.Finals {
		if l < 0 || l >= len(t.Locs) {
			return fmt.Errorf("%s: final location %d out of range", t.Name(), l)
		}
	}
	names := map[string]bool{}
	for _, o := range t.Observations() {
		names[o.Name] = true
	}
	if len(t.Target) == 0 {
		return fmt.Errorf("%s: no target outcome", t.Name())
	}
	for k := range t.Target {
		if !names[k] {
			return fmt.Errorf("%s: target names %q, which is not an observation", t.Name(), k)
		}
	}
	for _, h := range t.Host {
		if len(h) != len(t.Threads) || strings.Trim(h, "GH") != "" || !strings.Contains(h, "G") || !strings.Contains(h, "H") {
			return fmt.Errorf("%s: host placement %q: one G or H per thread, at least one of each", t.Name(), h)
		}
	}
	return nil
}

func (op Op) validate(locs int, written map[int]bool) error {
	if op.Kind != Fence && (op.Loc < 0 || op.Loc >= locs) {
		return fmt.Errorf("location %d out of range", op.Loc)
	}
	if op.Reg != NoReg {
		if op.Kind == Store || op.Kind == Fence || op.Reg < 0 {
			return fmt.Errorf("register %d on a %v", op.Reg, op.Kind)
		}
		if written[op.Reg] {
			return fmt.Errorf("register r%d written twice", op.Reg)
		}
		written[op.Reg] = true
	}
	if op.Src != NoReg && (op.Kind != Store || !written[op.Src]) {
		return fmt.Errorf("source register r%d must be written earlier, by a load of the same thread", op.Src)
	}
	if op.Poll && op.Kind != Load && op.Kind != RMW {
		return fmt.Errorf("only loads and RMWs poll")
	}
	if op.Once && !op.Poll {
		return fmt.Errorf("only a poll reads once")
	}
	if op.InPoll && (op.Kind != Load && op.Kind != Fence || op.Poll) {
		return fmt.Errorf("only a load or a fence that does not poll itself runs inside a poll loop")
	}
	if op.Volatile && (op.Kind != Load && op.Kind != Store || op.Sem != kernels.Relaxed || op.Scope != kernels.Sys) {
		return fmt.Errorf("volatile: a load or store with relaxed.sys semantics only (ld.volatile is ld.relaxed.sys)")
	}
	switch op.Kind {
	case Load:
		if op.Sem != kernels.Weak && op.Sem != kernels.Relaxed && op.Sem != kernels.Acquire {
			return fmt.Errorf("ld.%s does not exist", op.Sem)
		}
	case Store:
		if op.Sem != kernels.Weak && op.Sem != kernels.Relaxed && op.Sem != kernels.Release {
			return fmt.Errorf("st.%s does not exist", op.Sem)
		}
	case RMW:
		if op.Sem == kernels.Weak || op.Sem == kernels.SC {
			return fmt.Errorf("atom.%s does not exist", op.Sem)
		}
		switch op.Atom {
		case kernels.OpAdd, kernels.OpExch, kernels.OpCAS, kernels.OpOr:
		default:
			return fmt.Errorf("atom.%s is not supported by the litmus generator", op.Atom)
		}
	case Fence:
		if op.Sem != kernels.SC && op.Sem != kernels.AcqRel {
			return fmt.Errorf("fence.%s: PTX 7.0 has fence.sc and fence.acq_rel only", op.Sem)
		}
	}
	return nil
}

// loops reports whether op is a polling read that repeats in a loop (a
// single-shot read does not).
func (op Op) loops() bool { return op.Poll && !op.Once }

// pollBody is the number of operations after th[i] that run inside its
// poll loop (Op.InPoll): 0 for an operation that does not loop, or a loop
// of the flag access alone.
func pollBody(th []Op, i int) int {
	if !th[i].loops() {
		return 0
	}
	n := 0
	for i+1+n < len(th) && th[i+1+n].InPoll {
		n++
	}
	return n
}

// runProgram performs a thread's operations in program order through do,
// which performs operation k once and returns the value it read. A polling
// read repeats, with the operations of its loop (Op.InPoll) after it in
// each round, until it reads Until or has read pollCap times; between runs
// before each later round. The Sim and the host threads play their roles
// with it, as the PTX does (ptxGen.thread).
func runProgram(ops []Op, do func(k int, op Op) (uint32, error), between func()) error {
	for k := 0; k < len(ops); k++ {
		body := ops[k : k+1+pollBody(ops, k)]
		for round := 1; ; round++ {
			var flag uint32
			for b, op := range body {
				v, err := do(k+b, op)
				if err != nil {
					return err
				}
				if b == 0 {
					flag = v
				}
			}
			if !body[0].loops() || flag == body[0].Until || round >= pollCap {
				break
			}
			between()
		}
		k += len(body) - 1
	}
	return nil
}

// pollForms describes how each thread of t waits, for comparing shapes: per
// thread, per poll, "once" (a single read), "loop" (a loop of the flag
// access alone: what follows depends on the flag through the loop's exit
// branch) or "loop+data" (operations read inside the loop). A mutant whose
// readers wait differently from a forbidden test's does not show what the
// forbidden test could see, so it gives no power to it.
func (t *Test) pollForms() string {
	var b strings.Builder
	for ti, th := range t.Threads {
		fmt.Fprintf(&b, "T%d:", ti)
		for i, op := range th {
			switch {
			case op.Poll && op.Once:
				b.WriteString(" once")
			case op.loops() && pollBody(th, i) > 0:
				b.WriteString(" loop+data")
			case op.loops():
				b.WriteString(" loop")
			}
		}
		b.WriteString(";")
	}
	return b.String()
}

func (k OpKind) String() string {
	return [...]string{"load", "store", "rmw", "fence"}[k]
}

// size is the bytes op accesses (Op.Size; 0 means 4).
func (op Op) size() int {
	if op.Size == 0 {
		return 4
	}
	return op.Size
}

// validateSizes refuses a mixed-size race, which the PTX memory model does
// not judge: two accesses of one location by different threads with
// different sizes, one of them a write (the model's own check,
// ptxmodel.Result.Undefined, finds one only in an execution; refusing
// the program before it runs keeps every verdict a judged one). Then it
// refuses what the engine cannot run: an access of other than 4 bytes.
func (t *Test) validateSizes() error {
	for ti, th := range t.Threads {
		for oi, op := range th {
			if op.Kind == Fence {
				continue
			}
			if s := op.size(); s != 4 && s != 8 {
				return fmt.Errorf("%s: thread %d op %d: an access of %d bytes (4 or 8)", t.Name(), ti, oi, s)
			}
			for tj := ti + 1; tj < len(t.Threads); tj++ {
				for oj, o := range t.Threads[tj] {
					if o.Kind != Fence && o.Loc == op.Loc && o.size() != op.size() && (op.Kind != Load || o.Kind != Load) {
						return fmt.Errorf("%s: thread %d op %d (%d bytes) and thread %d op %d (%d bytes) race on %s with different sizes: a mixed-size race, which the PTX memory model does not judge",
							t.Name(), ti, oi, op.size(), tj, oj, o.size(), t.Locs[op.Loc])
					}
				}
			}
		}
	}
	for ti, th := range t.Threads {
		for oi, op := range th {
			if op.Kind != Fence && op.size() != 4 {
				return fmt.Errorf("%s: thread %d op %d: a %d-byte access; the engine's locations are 32-bit words", t.Name(), ti, oi, op.size())
			}
		}
	}
	return nil
}

// strongSys reports whether op is a relaxed-or-stronger access at system
// scope (ld.volatile and st.volatile are relaxed.sys): morally strong with
// any other such access, whichever GPU or host thread makes it.
func (op Op) strongSys() bool {
	return op.Volatile || op.Sem != kernels.Weak && op.Scope == kernels.Sys
}
