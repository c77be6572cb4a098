// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package ptxmodel

import (
	"fmt"
	"strings"
)

// Expr is a boolean formula over the final state: registers of threads,
// final values of locations and constants.
type Expr interface {
	eval(s *State) bool
	validate(p *Program) error
	text(p *Program) string
}

// State is the final state of an execution: every thread's registers and
// every location's final value.
type State struct {
	Regs [][]int64 // by thread, by register
	Mem  []int64   // by location
}

// Value is a term of a comparison: a register of a thread, the final value
// of a location, or a constant.
type Value struct {
	Kind   ValueKind
	Thread int // RegValue
	Reg    int // RegValue
	Loc    int // LocValue
	Const  int64
}

// ValueKind says what a Value is.
type ValueKind int

// Value kinds.
const (
	RegValue ValueKind = iota
	LocValue
	ConstValue
)

func (v Value) of(s *State) int64 {
	switch v.Kind {
	case RegValue:
		return s.Regs[v.Thread][v.Reg]
	case LocValue:
		return s.Mem[v.Loc]
	}
	return v.Const
}

func (v Value) validate(p *Program) error {
	switch v.Kind {
	case RegValue:
		if v.Thread < 0 || v.Thread >= len(p.Threads) || v.Reg < 0 || v.Reg >= len(p.Threads[v.Thread].Regs) {
			return fmt.Errorf("%s: the condition names a register that no thread has", p.Name)
		}
	case LocValue:
		if v.Loc < 0 || v.Loc >= len(p.Locs) {
			return fmt.Errorf("%s: the condition names a location that does not exist", p.Name)
		}
	}
	return nil
}

func (v Value) text(p *Program) string {
	switch v.Kind {
	case RegValue:
		return fmt.Sprintf("%s:%s", p.Threads[v.Thread].Name, p.Threads[v.Thread].Regs[v.Reg].Name)
	case LocValue:
		return p.Locs[v.Loc].Name
	}
	return fmt.Sprint(v.Const)
}

// Cmp compares two values: A == B, or A != B when Not.
type Cmp struct {
	A, B Value
	Not  bool
}

func (c Cmp) eval(s *State) bool { return (c.A.of(s) == c.B.of(s)) != c.Not }

func (c Cmp) validate(p *Program) error {
	if err := c.A.validate(p); err != nil {
		return err
	}
	return c.B.validate(p)
}

func (c Cmp) text(p *Program) string {
	op := "=="
	if c.Not {
		op = "!="
	}
	return c.A.text(p) + " " + op + " " + c.B.text(p)
}

// And holds when every term holds (true when empty).
type And []Expr

func (a And) eval(s *State) bool {
	for _, e := range a {
		if !e.eval(s) {
			return false
		}
	}
	return true
}

func (a And) validate(p *Program) error { return validateAll(p, a) }

func (a And) text(p *Program) string {
	if len(a) == 0 {
		return "true"
	}
	return joinText(p, a, " /\\ ")
}

// Or holds when some term holds (false when empty).
type Or []Expr

func (o Or) eval(s *State) bool {
	for _, e := range o {
		if e.eval(s) {
			return true
		}
	}
	return false
}

func (o Or) validate(p *Program) error { return validateAll(p, o) }

func (o Or) text(p *Program) string {
	if len(o) == 0 {
		return "false"
	}
	return joinText(p, o, " \\/ ")
}

// Not negates a formula.
type Not struct{ E Expr }

func (n Not) eval(s *State) bool        { return !n.E.eval(s) }
func (n Not) validate(p *Program) error { return n.E.validate(p) }
func (n Not) text(p *Program) string    { return "~(" + n.E.text(p) + ")" }

func validateAll(p *Program, es []Expr) error {
	for _, e := range es {
		if err := e.validate(p); err != nil {
			return err
		}
	}
	return nil
}

func joinText(p *Program, es []Expr, sep string) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.text(p)
		if _, ok := e.(Cmp); !ok {
			parts[i] = "(" + parts[i] + ")"
		}
	}
	return strings.Join(parts, sep)
}

// CondText renders the condition as litmus text: "exists (P1:r1 == 1 /\ P1:r2 == 0)".
func (p *Program) CondText() string {
	if p.Cond.Expr == nil {
		return p.Cond.Quantifier.String() + " (true)"
	}
	return p.Cond.Quantifier.String() + " (" + p.Cond.Expr.text(p) + ")"
}
