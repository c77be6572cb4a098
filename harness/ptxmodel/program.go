// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package ptxmodel

import (
	"fmt"
	"strings"

	"github.com/p2pconf/p2pconf/kernels"
)

// Program is a litmus program: locations with initial values, threads of
// PTX memory operations placed on GPUs, CTAs or the host, and a condition
// on the final state.
type Program struct {
	Name    string
	Locs    []Loc
	Threads []Thread
	Cond    Condition
}

// Loc is a memory location: a name, its initial value and its size in
// bytes (4 unless an access says otherwise; two locations never overlap).
type Loc struct {
	Name string
	Init int64
}

// Place is where a thread runs. Threads of one GPU and CTA share the CTA
// scope, threads of one GPU the GPU scope; a host thread is only in the
// system scope. The warp is not a scope (PTX ISA, "Scope").
type Place struct {
	Host bool
	GPU  int
	CTA  int
}

func (p Place) String() string {
	if p.Host {
		return "host"
	}
	return fmt.Sprintf("cta %d, gpu %d", p.CTA, p.GPU)
}

// Includes reports whether scope s of a thread at p includes a thread at q.
func (p Place) Includes(s kernels.Scope, q Place) bool {
	switch {
	case s == kernels.Sys:
		return true
	case p.Host || q.Host:
		// a host thread is in no GPU's scope, and its own operations are
		// at system scope (Program.Validate)
		return false
	case s == kernels.GPU:
		return p.GPU == q.GPU
	}
	return p.GPU == q.GPU && p.CTA == q.CTA
}

// Thread is one thread's program.
type Thread struct {
	Name  string // "P0"
	Place Place
	Regs  []Reg // registers, by index: names and initial values
	Ops   []Op
}

// Reg is a register of a thread.
type Reg struct {
	Name string
	Init int64
}

// Kind is what an operation does.
type Kind int

// Operation kinds.
const (
	Load  Kind = iota // ld: a register gets the location's value
	Store             // st: the location gets a value
	RMW               // atom: read-modify-write, the old value into a register
	Fence             // fence.sc, fence.acq_rel (fence.acquire, fence.release)
	Local             // a register gets a value computed from registers and constants
)

var kindNames = [...]string{"ld", "st", "atom", "fence", "local"}

func (k Kind) String() string { return kindNames[k] }

// LocalOp is the arithmetic of a Local operation.
type LocalOp int

// Local operations ("mov" is "ld r, v" in the litmus text).
const (
	LocalMov LocalOp = iota
	LocalAdd
	LocalSub
	LocalMul
	LocalDiv
	LocalAnd
	LocalOr
	LocalXor
)

var localNames = [...]string{"mov", "add", "sub", "mul", "div", "and", "or", "xor"}

func (o LocalOp) String() string { return localNames[o] }

// Operand is a constant or a thread's register; the zero Operand is the
// constant 0.
type Operand struct {
	IsReg bool
	Reg   int // register index, when IsReg
	Const int64
}

// NoReg marks an operation that writes no register.
const NoReg = -1

// Const is a constant operand.
func Const(v int64) Operand { return Operand{Const: v} }

// RegOp is a register operand.
func RegOp(r int) Operand { return Operand{IsReg: true, Reg: r} }

// Op is one operation of a thread.
type Op struct {
	Kind  Kind
	Sem   kernels.Sem   // Weak, Relaxed, Acquire, Release, AcqRel; SC for fence.sc
	Scope kernels.Scope // ignored for weak accesses
	Loc   int           // location index (Load, Store, RMW)
	Size  int           // bytes accessed: 4 or 8 (0 means 4)
	Reg   int           // Load, RMW, Local: register written, or NoReg
	// Val is the value a Store writes, an RMW's operand (CAS: the new
	// value), or a Local operation's first operand.
	Val Operand
	// Cmp is a CAS's compared value, or a Local operation's second operand.
	Cmp   Operand
	Atom  kernels.AtomOp // RMW
	Local LocalOp        // Local
	// Reduction marks a red instruction: an RMW without a result, whose
	// read is no acquire pattern (PTX ISA, "Release and Acquire Patterns").
	Reduction bool
}

// size is the access size in bytes.
func (op Op) size() int {
	if op.Size == 0 {
		return 4
	}
	return op.Size
}

// strong reports whether the operation is strong: a fence, or a memory
// operation with .relaxed, .acquire, .release, .acq_rel or .volatile
// (volatile is relaxed at system scope in the model).
func (op Op) strong() bool { return op.Kind == Fence || op.Sem != kernels.Weak }

// Condition is the litmus test's final condition.
type Condition struct {
	Quantifier Quantifier
	Expr       Expr
}

// Quantifier says how the condition's expression is judged over the
// consistent executions.
type Quantifier int

// Quantifiers of the litmus format.
const (
	Exists    Quantifier = iota // some consistent execution satisfies it
	NotExists                   // ~exists: none does
	Forall                      // every one does
)

var quantifierNames = [...]string{"exists", "~exists", "forall"}

func (q Quantifier) String() string { return quantifierNames[q] }

// Validate checks that the program is one the model can judge: threads on
// the host use system scope, operations name locations and registers that
// exist, RMWs use operations the model evaluates, and the condition names
// registers and locations of the program. It does not reject data races:
// the model reports them (Result.Races), and judges every program whose
// races are uniform-size.
func (p *Program) Validate() error {
	if len(p.Threads) == 0 {
		return fmt.Errorf("%s: no threads", p.Name)
	}
	if len(p.Locs) == 0 {
		return fmt.Errorf("%s: no locations", p.Name)
	}
	for ti, th := range p.Threads {
		for oi, op := range th.Ops {
			if err := p.validateOp(th, op); err != nil {
				return fmt.Errorf("%s: %s op %d (%s): %w", p.Name, th.Name, oi, p.OpText(ti, oi), err)
			}
		}
	}
	return p.Cond.Expr.validate(p)
}

func (p *Program) validateOp(th Thread, op Op) error {
	regOK := func(o Operand) bool { return !o.IsReg || o.Reg >= 0 && o.Reg < len(th.Regs) }
	if op.Kind != Fence && op.Kind != Local && (op.Loc < 0 || op.Loc >= len(p.Locs)) {
		return fmt.Errorf("location %d out of range", op.Loc)
	}
	if op.Reg != NoReg && (op.Reg < 0 || op.Reg >= len(th.Regs)) {
		return fmt.Errorf("register %d out of range", op.Reg)
	}
	if !regOK(op.Val) || !regOK(op.Cmp) {
		return fmt.Errorf("operand register out of range")
	}
	if op.Size != 0 && op.Size != 4 && op.Size != 8 {
		return fmt.Errorf("access size %d bytes (4 or 8)", op.Size)
	}
	if th.Place.Host && op.Kind != Local && op.Sem != kernels.Weak && op.Scope != kernels.Sys {
		return fmt.Errorf("a host thread is only in the system scope: .%s names a GPU's threads", op.Scope)
	}
	switch op.Kind {
	case Load:
		if op.Sem != kernels.Weak && op.Sem != kernels.Relaxed && op.Sem != kernels.Acquire {
			return fmt.Errorf("ld.%s does not exist", op.Sem)
		}
		if op.Reg == NoReg {
			return fmt.Errorf("a load needs a register")
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
		case kernels.OpAdd, kernels.OpAnd, kernels.OpOr, kernels.OpXor, kernels.OpExch, kernels.OpCAS, kernels.OpMin, kernels.OpMax:
		default:
			return fmt.Errorf("atom.%s is not evaluated by the model", op.Atom)
		}
	case Fence:
		if op.Sem == kernels.Weak || op.Sem == kernels.Relaxed {
			return fmt.Errorf("fence.%s does not exist", op.Sem)
		}
	case Local:
		if op.Reg == NoReg {
			return fmt.Errorf("a local operation needs a register")
		}
	}
	return nil
}

// OpText renders operation oi of thread ti as litmus text ("ld.acquire.sys r1, y").
func (p *Program) OpText(ti, oi int) string {
	th := p.Threads[ti]
	op := th.Ops[oi]
	reg := func(r int) string {
		if r >= 0 && r < len(th.Regs) {
			return th.Regs[r].Name
		}
		return fmt.Sprintf("r?%d", r)
	}
	val := func(o Operand) string {
		if o.IsReg {
			return reg(o.Reg)
		}
		return fmt.Sprint(o.Const)
	}
	loc := func() string {
		if op.Loc >= 0 && op.Loc < len(p.Locs) {
			return p.Locs[op.Loc].Name
		}
		return "?"
	}
	q := semScope(op)
	switch op.Kind {
	case Load:
		return fmt.Sprintf("ld%s %s, %s", q, reg(op.Reg), loc())
	case Store:
		return fmt.Sprintf("st%s %s, %s", q, loc(), val(op.Val))
	case RMW:
		if op.Reduction {
			return fmt.Sprintf("red%s.%s %s, %s", q, op.Atom, loc(), val(op.Val))
		}
		if op.Atom == kernels.OpCAS {
			return fmt.Sprintf("atom%s.cas %s, %s, %s, %s", q, reg(op.Reg), loc(), val(op.Cmp), val(op.Val))
		}
		return fmt.Sprintf("atom%s.%s %s, %s, %s", q, op.Atom, reg(op.Reg), loc(), val(op.Val))
	case Fence:
		return "fence" + q
	}
	if op.Local == LocalMov {
		return fmt.Sprintf("ld %s, %s", reg(op.Reg), val(op.Val))
	}
	return fmt.Sprintf("%s %s, %s, %s", op.Local, reg(op.Reg), val(op.Val), val(op.Cmp))
}

// semScope is ".acquire.sys", ".weak" or ".sc.gpu" for an operation.
func semScope(op Op) string {
	ty := ""
	if op.Size == 8 {
		ty = ".b64"
	}
	if op.Sem == kernels.Weak {
		return ".weak" + ty
	}
	return "." + op.Sem.String() + "." + op.Scope.String() + ty
}

// String renders the program as litmus text (Format).
func (p *Program) String() string {
	var b strings.Builder
	_ = Format(&b, p)
	return b.String()
}
