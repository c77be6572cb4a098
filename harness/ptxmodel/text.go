// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package ptxmodel

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/p2pconf/p2pconf/kernels"
)

// The PTX litmus text format of herd and Dat3M, the subset the model
// judges:
//
//	PTX MP
//	"an optional comment"
//	{ x=0; y=0; P1:r1=0; }
//	 P0@cta 0,gpu 0       | P1@cta 1,gpu 0        ;
//	 st.weak x, 1         | ld.acquire.gpu r1, y  ;
//	 st.release.gpu y, 1  | ld.weak r2, x         ;
//	exists (P1:r1 == 1 /\ P1:r2 == 0)
//
// Threads are columns; a thread is placed with "@cta C,gpu G", or
// "@host" for a host thread (an extension of this project: its operations
// are at system scope). Instructions: ld, st, atom, red and fence with
// .weak, .relaxed, .acquire, .release, .acq_rel, .sc (fences) or .volatile
// (relaxed at system scope) and a scope .cta, .gpu or .sys; an optional
// .global state space and a type (.u32, .s32, .b32 for 4 bytes, .u64,
// .s64, .b64 for 8); atom and red with .add, .sub (an add of the negated
// constant), .and, .or, .xor, .min, .max, .exch and .cas (atom only:
// "atom.sem.scope.cas r, x, compared, new"); local register operations
// "ld r, v" (a move) and add, sub, mul, div, and, or, xor "op r, a, b".
// The condition is exists, ~exists or forall over comparisons (== or =,
// !=) of registers ("P1:r1" or "1:r1"), locations and constants, joined
// by /\, \/ and ~ with parentheses. Everything else — barriers, branches
// and labels, proxies and proxy fences, mmio, locations and filter
// clauses — is refused with the line it is on.

// ParseError is a refusal of the parser: the file, the line and why.
type ParseError struct {
	File string
	Line int
	Msg  string
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

type parser struct {
	file  string
	lines []string
	at    int // index of the next line
	p     *Program
	locs  map[string]int
	regs  []map[string]int
	// pendingRegs are the initial values of registers, declared before
	// the threads that own them.
	pendingRegs []pendingReg
}

func (ps *parser) fail(line int, format string, args ...any) error {
	return &ParseError{File: ps.file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// Parse reads one litmus test in the PTX litmus text format.
func Parse(name string, r io.Reader) (*Program, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	ps := &parser{file: name, locs: map[string]int{}}
	for sc.Scan() {
		ps.lines = append(ps.lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{File: name, Msg: err.Error()}
	}
	return ps.parse()
}

// next returns the next line that is not blank, with its number (1-based),
// or "" and 0 at the end.
func (ps *parser) next() (string, int) {
	for ps.at < len(ps.lines) {
		l := strings.TrimSpace(ps.lines[ps.at])
		ps.at++
		if l != "" && !strings.HasPrefix(l, "//") {
			return l, ps.at
		}
	}
	return "", 0
}

func (ps *parser) parse() (*Program, error) {
	head, n := ps.next()
	f := strings.Fields(head)
	if len(f) < 2 || f[0] != "PTX" {
		return nil, ps.fail(n, "the first line must be \"PTX NAME\" (found %q): only PTX litmus tests are judged", head)
	}
	ps.p = &Program{Name: f[1]}
	if err := ps.parseInit(); err != nil {
		return nil, err
	}
	if err := ps.parseThreads(); err != nil {
		return nil, err
	}
	if err := ps.parseCondition(); err != nil {
		return nil, err
	}
	return ps.p, ps.p.Validate()
}

// parseInit skips what stands between the name and the { ... } block
// (comments, quoted or not, as herd and Dat3M allow) and reads the block
// of initial values.
func (ps *parser) parseInit() error {
	var block strings.Builder
	start := 0
	for {
		l, n := ps.next()
		if n == 0 {
			return ps.fail(0, "no initial-state block { ... }")
		}
		if start == 0 {
			if !strings.HasPrefix(l, "{") {
				continue
			}
			start = n
		}
		block.WriteString(l + "\n")
		if strings.Contains(l, "}") {
			break
		}
	}
	body := strings.TrimSpace(block.String())
	body = strings.TrimSuffix(strings.TrimPrefix(body, "{"), "}")
	for _, decl := range strings.FieldsFunc(body, func(r rune) bool { return r == ';' || r == '\n' }) {
		decl = strings.TrimSpace(decl)
		if decl == "" {
			continue
		}
		if strings.Contains(decl, " aliases ") {
			return ps.fail(start, "%q: proxies and aliases are not judged by the model", decl)
		}
		lhs, rhs, ok := strings.Cut(decl, "=")
		if !ok {
			return ps.fail(start, "initial value %q: expected name=value", decl)
		}
		lhs, rhs = strings.TrimSpace(lhs), strings.TrimSpace(rhs)
		v, err := strconv.ParseInt(rhs, 0, 64)
		if err != nil {
			return ps.fail(start, "initial value of %s: %q is not an integer (locations holding addresses are not judged)", lhs, rhs)
		}
		if th, reg, ok := strings.Cut(lhs, ":"); ok {
			ps.pendingRegs = append(ps.pendingRegs, pendingReg{th, reg, v, start})
			continue
		}
		if !ident.MatchString(lhs) {
			return ps.fail(start, "initial value: %q is not a location name", lhs)
		}
		ps.loc(lhs).Init = v
	}
	return nil
}

var ident = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// loc returns the location named name, declaring it on first use.
func (ps *parser) loc(name string) *Loc {
	if i, ok := ps.locs[name]; ok {
		return &ps.p.Locs[i]
	}
	ps.locs[name] = len(ps.p.Locs)
	ps.p.Locs = append(ps.p.Locs, Loc{Name: name})
	return &ps.p.Locs[len(ps.p.Locs)-1]
}

// reg returns the index of thread t's register name, declaring it on first use.
func (ps *parser) reg(t int, name string) int {
	if i, ok := ps.regs[t][name]; ok {
		return i
	}
	th := &ps.p.Threads[t]
	ps.regs[t][name] = len(th.Regs)
	th.Regs = append(th.Regs, Reg{Name: name})
	return len(th.Regs) - 1
}

var placeRE = regexp.MustCompile(`^P(\d+)\s*@\s*(?:cta\s*(\d+)\s*,\s*gpu\s*(\d+)|(host))$`)

// parseThreads reads the header row of thread placements and the rows of
// instructions, up to the condition.
func (ps *parser) parseThreads() error {
	head, n := ps.next()
	cols := splitRow(head)
	if cols == nil {
		return ps.fail(n, "expected the row of threads \"P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\" (found %q)", head)
	}
	for i, c := range cols {
		m := placeRE.FindStringSubmatch(c)
		if m == nil {
			return ps.fail(n, "thread %q: expected Pn@cta C,gpu G or Pn@host", c)
		}
		if id, _ := strconv.Atoi(m[1]); id != i {
			return ps.fail(n, "thread %q is column %d: threads are P0, P1, ... in order", c, i)
		}
		th := Thread{Name: "P" + m[1]}
		if m[4] != "" {
			th.Place.Host = true
		} else {
			th.Place.CTA, _ = strconv.Atoi(m[2])
			th.Place.GPU, _ = strconv.Atoi(m[3])
		}
		ps.p.Threads = append(ps.p.Threads, th)
		ps.regs = append(ps.regs, map[string]int{})
	}
	for _, pr := range ps.pendingRegs {
		t, ok := threadIndex(pr.thread)
		if !ok || t >= len(ps.p.Threads) {
			return ps.fail(pr.line, "initial value of %s:%s: no thread %s", pr.thread, pr.reg, pr.thread)
		}
		ps.p.Threads[t].Regs[ps.reg(t, pr.reg)].Init = pr.value
	}
	for {
		save := ps.at
		l, n := ps.next()
		if n == 0 {
			return ps.fail(0, "no condition (exists, ~exists or forall)")
		}
		if !strings.Contains(l, ";") && !strings.Contains(l, "|") {
			ps.at = save
			return nil
		}
		row := splitRow(l)
		if len(row) > len(cols) {
			return ps.fail(n, "%d instructions in a row of %d threads", len(row), len(cols))
		}
		for t, ins := range row {
			if ins == "" {
				continue
			}
			op, err := ps.instruction(t, ins)
			if err != nil {
				return ps.fail(n, "%s: %v", ps.p.Threads[t].Name, err)
			}
			ps.p.Threads[t].Ops = append(ps.p.Threads[t].Ops, op)
		}
	}
}

type pendingReg struct {
	thread, reg string
	value       int64
	line        int
}

func threadIndex(s string) (int, bool) {
	i, err := strconv.Atoi(strings.TrimPrefix(s, "P"))
	return i, err == nil && i >= 0
}

// splitRow splits "a | b | c ;" into its cells, or returns nil.
func splitRow(l string) []string {
	l = strings.TrimSpace(l)
	if !strings.HasSuffix(l, ";") {
		return nil
	}
	cells := strings.Split(strings.TrimSuffix(l, ";"), "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

var (
	sems = map[string]kernels.Sem{"weak": kernels.Weak, "relaxed": kernels.Relaxed, "acquire": kernels.Acquire,
		"release": kernels.Release, "acq_rel": kernels.AcqRel, "sc": kernels.SC}
	scopes  = map[string]kernels.Scope{"cta": kernels.CTA, "gpu": kernels.GPU, "sys": kernels.Sys}
	atoms   = map[string]kernels.AtomOp{"add": kernels.OpAdd, "and": kernels.OpAnd, "or": kernels.OpOr, "xor": kernels.OpXor, "min": kernels.OpMin, "max": kernels.OpMax, "exch": kernels.OpExch, "cas": kernels.OpCAS}
	locals  = map[string]LocalOp{"add": LocalAdd, "sub": LocalSub, "mul": LocalMul, "div": LocalDiv, "and": LocalAnd, "or": LocalOr, "xor": LocalXor}
	sizes   = map[string]int{"u32": 4, "s32": 4, "b32": 4, "u64": 8, "s64": 8, "b64": 8}
	refused = map[string]string{"bar": "barriers", "barrier": "barriers", "membar": "membar (write fence.sc)", "goto": "branches",
		"beq": "branches", "bne": "branches", "bge": "branches", "ble": "branches", "bgt": "branches", "blt": "branches", "bra": "branches"}
)

// instruction parses one instruction of thread t.
func (ps *parser) instruction(t int, ins string) (Op, error) {
	mnemonic, rest, _ := strings.Cut(ins, " ")
	args := splitArgs(rest)
	parts := strings.Split(mnemonic, ".")
	if why, ok := refused[parts[0]]; ok {
		return Op{}, fmt.Errorf("%q: %s are not judged by the model", ins, why)
	}
	if strings.HasSuffix(parts[0], ":") {
		return Op{}, fmt.Errorf("%q: labels and branches are not judged by the model", ins)
	}
	if op, ok := locals[parts[0]]; ok && len(parts) == 1 {
		if len(args) != 3 {
			return Op{}, fmt.Errorf("%q: expected %s r, a, b", ins, parts[0])
		}
		return ps.localOp(t, op, args)
	}
	op := Op{Reg: NoReg, Val: Const(0), Cmp: Const(0)}
	switch parts[0] {
	case "ld":
		op.Kind = Load
	case "st":
		op.Kind = Store
	case "atom":
		op.Kind = RMW
	case "red":
		op.Kind, op.Reduction = RMW, true
	case "fence":
		op.Kind = Fence
	default:
		return Op{}, fmt.Errorf("%q: unknown instruction %q", ins, parts[0])
	}
	if op.Kind == Load && len(parts) == 1 {
		// "ld r, v": a register move
		if len(args) != 2 {
			return Op{}, fmt.Errorf("%q: expected ld r, v", ins)
		}
		return ps.localOp(t, LocalMov, []string{args[0], args[1], "0"})
	}
	negate, err := ps.qualifiers(&op, ins, parts[1:])
	if err != nil {
		return Op{}, err
	}
	return op, ps.operands(t, &op, ins, args, negate)
}

// qualifiers reads .sem, .scope, .global, the type and the atomic
// operation; negate is true for .sub, an add of the negated operand.
func (ps *parser) qualifiers(op *Op, ins string, qs []string) (negate bool, err error) {
	semSeen, scopeSeen, sub := false, false, false
	for _, q := range qs {
		switch {
		case q == "volatile" && !semSeen:
			op.Sem, op.Scope, semSeen, scopeSeen = kernels.Relaxed, kernels.Sys, true, true
		case sems[q] != 0 || q == "weak":
			if semSeen {
				return false, fmt.Errorf("%q: two memory orders", ins)
			}
			op.Sem, semSeen = sems[q], true
		case scopes[q] != 0 || q == "cta":
			if scopeSeen {
				return false, fmt.Errorf("%q: two scopes", ins)
			}
			op.Scope, scopeSeen = scopes[q], true
		case q == "global":
		case sizes[q] != 0:
			op.Size = sizes[q]
		case op.Kind == RMW && q == "sub":
			op.Atom, sub = kernels.OpAdd, true
		case op.Kind == RMW && atomKnown(q):
			op.Atom = atoms[q]
		case q == "proxy" || q == "mmio" || q == "shared" || q == "nc":
			return false, fmt.Errorf("%q: .%s is not judged by the model", ins, q)
		default:
			return false, fmt.Errorf("%q: unknown qualifier .%s", ins, q)
		}
	}
	if !semSeen {
		if op.Kind != Load && op.Kind != Store {
			return false, fmt.Errorf("%q: a memory order is required (.relaxed, .acquire, ...)", ins)
		}
		op.Sem = kernels.Weak
	}
	if op.Sem != kernels.Weak && !scopeSeen {
		return false, fmt.Errorf("%q: a strong operation needs a scope (.cta, .gpu or .sys)", ins)
	}
	if op.Kind == RMW && op.Atom == kernels.OpAdd && !sub && !hasQualifier(qs, "add") {
		return false, fmt.Errorf("%q: an atomic operation (.add, .exch, .cas, ...) is required", ins)
	}
	return sub, nil
}

func atomKnown(q string) bool { _, ok := atoms[q]; return ok }

func hasQualifier(qs []string, q string) bool {
	for _, x := range qs {
		if x == q {
			return true
		}
	}
	return false
}

// operands reads an operation's registers, location and values.
func (ps *parser) operands(t int, op *Op, ins string, args []string, negate bool) error {
	want := map[Kind]int{Load: 2, Store: 2, Fence: 0}[op.Kind]
	if op.Kind == RMW {
		want = 3
		if op.Reduction {
			want = 2
		}
		if op.Atom == kernels.OpCAS {
			want = 4
		}
	}
	if len(args) != want {
		return fmt.Errorf("%q: %d operands, expected %d", ins, len(args), want)
	}
	locArg := func(s string) error {
		if !ident.MatchString(s) || isRegister(s) {
			return fmt.Errorf("%q: %q is not a location", ins, s)
		}
		ps.loc(s)
		op.Loc = ps.locs[s]
		return nil
	}
	var err error
	switch op.Kind {
	case Load:
		op.Reg = ps.reg(t, args[0])
		err = locArg(args[1])
	case Store:
		if err = locArg(args[0]); err == nil {
			op.Val, err = ps.operand(t, args[1])
		}
	case RMW:
		if !op.Reduction {
			op.Reg = ps.reg(t, args[0])
			args = args[1:]
		}
		if err = locArg(args[0]); err != nil {
			return err
		}
		if op.Atom == kernels.OpCAS {
			if op.Cmp, err = ps.operand(t, args[1]); err != nil {
				return err
			}
			args = args[1:]
		}
		op.Val, err = ps.operand(t, args[1])
		if err == nil && negate {
			if op.Val.IsReg {
				return fmt.Errorf("%q: .sub of a register is not judged (PTX has no atom.sub; write an add)", ins)
			}
			op.Val.Const = -op.Val.Const
		}
	}
	return err
}

func (ps *parser) localOp(t int, o LocalOp, args []string) (Op, error) {
	op := Op{Kind: Local, Local: o, Reg: NoReg}
	var err error
	if op.Val, err = ps.operand(t, args[1]); err != nil {
		return op, err
	}
	if op.Cmp, err = ps.operand(t, args[2]); err != nil {
		return op, err
	}
	if !isRegister(args[0]) {
		return op, fmt.Errorf("%q is not a register", args[0])
	}
	op.Reg = ps.reg(t, args[0])
	return op, nil
}

var registerRE = regexp.MustCompile(`^%?r[A-Za-z0-9_]*$`)

func isRegister(s string) bool { return registerRE.MatchString(s) }

// operand is a constant or a register of thread t.
func (ps *parser) operand(t int, s string) (Operand, error) {
	if v, err := strconv.ParseInt(s, 0, 64); err == nil {
		return Const(v), nil
	}
	if isRegister(s) {
		return RegOp(ps.reg(t, s)), nil
	}
	return Operand{}, fmt.Errorf("%q is neither a constant nor a register", s)
}

func splitArgs(s string) []string {
	var out []string
	for _, a := range strings.Split(s, ",") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}
