// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package ptxmodel

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// parseCondition reads the final condition: the rest of the file.
func (ps *parser) parseCondition() error {
	first := 0
	var text strings.Builder
	for {
		l, n := ps.next()
		if n == 0 {
			break
		}
		if first == 0 {
			first = n
		}
		text.WriteString(l + " ")
	}
	s := strings.TrimSpace(text.String())
	for _, word := range []string{"locations", "filter"} {
		if strings.HasPrefix(s, word) {
			return ps.fail(first, "a %s clause is not judged by the model", word)
		}
	}
	q := Exists
	switch {
	case strings.HasPrefix(s, "~exists"), strings.HasPrefix(s, "~ exists"):
		q, s = NotExists, strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(s, "~"), " "), "exists")
	case strings.HasPrefix(s, "exists"):
		s = strings.TrimPrefix(s, "exists")
	case strings.HasPrefix(s, "forall"):
		q, s = Forall, strings.TrimPrefix(s, "forall")
	default:
		return ps.fail(first, "expected the condition: exists, ~exists or forall (found %q)", s)
	}
	toks, err := tokenize(colonSpace.ReplaceAllString(s, ":"))
	if err != nil {
		return ps.fail(first, "condition: %v", err)
	}
	cp := &condParser{ps: ps, toks: toks}
	e, err := cp.or()
	if err == nil && cp.at < len(cp.toks) {
		err = fmt.Errorf("unexpected %q", cp.toks[cp.at])
	}
	if err != nil {
		return ps.fail(first, "condition: %v", err)
	}
	ps.p.Cond = Condition{Quantifier: q, Expr: e}
	return nil
}

// colonSpace is the space Dat3M's tests allow around a register's colon
// ("P3: r0").
var colonSpace = regexp.MustCompile(`\s*:\s*`)

var condToken = regexp.MustCompile(`^\s*(/\\|\\/|==|!=|=|~|\(|\)|[A-Za-z0-9_%:-]+)`)

func tokenize(s string) ([]string, error) {
	var out []string
	for strings.TrimSpace(s) != "" {
		m := condToken.FindStringSubmatch(s)
		if m == nil {
			return nil, fmt.Errorf("cannot read %q", strings.TrimSpace(s))
		}
		out = append(out, m[1])
		s = s[len(m[0]):]
	}
	return out, nil
}

type condParser struct {
	ps   *parser
	toks []string
	at   int
}

func (cp *condParser) peek() string {
	if cp.at < len(cp.toks) {
		return cp.toks[cp.at]
	}
	return ""
}

func (cp *condParser) or() (Expr, error) {
	var terms Or
	for {
		e, err := cp.and()
		if err != nil {
			return nil, err
		}
		terms = append(terms, e)
		if cp.peek() != `\/` {
			break
		}
		cp.at++
	}
	if len(terms) == 1 {
		return terms[0], nil
	}
	return terms, nil
}

func (cp *condParser) and() (Expr, error) {
	var terms And
	for {
		e, err := cp.unary()
		if err != nil {
			return nil, err
		}
		terms = append(terms, e)
		if cp.peek() != `/\` {
			break
		}
		cp.at++
	}
	if len(terms) == 1 {
		return terms[0], nil
	}
	return terms, nil
}

func (cp *condParser) unary() (Expr, error) {
	switch cp.peek() {
	case "~":
		cp.at++
		e, err := cp.unary()
		return Not{e}, err
	case "(":
		cp.at++
		e, err := cp.or()
		if err != nil {
			return nil, err
		}
		if cp.peek() != ")" {
			return nil, fmt.Errorf("missing )")
		}
		cp.at++
		return e, nil
	case "true":
		cp.at++
		return And{}, nil
	case "false":
		cp.at++
		return Or{}, nil
	}
	a, err := cp.value()
	if err != nil {
		return nil, err
	}
	op := cp.peek()
	if op != "==" && op != "=" && op != "!=" {
		return nil, fmt.Errorf("expected ==, = or != after %q", cp.toks[cp.at-1])
	}
	cp.at++
	b, err := cp.value()
	return Cmp{A: a, B: b, Not: op == "!="}, err
}

// value reads a register ("P1:r1", "1:r1"), a location or a constant.
func (cp *condParser) value() (Value, error) {
	t := cp.peek()
	if t == "" {
		return Value{}, fmt.Errorf("unexpected end")
	}
	cp.at++
	if v, err := strconv.ParseInt(t, 0, 64); err == nil {
		return Value{Kind: ConstValue, Const: v}, nil
	}
	if th, reg, ok := strings.Cut(t, ":"); ok {
		ti, ok := threadIndex(th)
		if !ok || ti >= len(cp.ps.p.Threads) {
			return Value{}, fmt.Errorf("%q: no thread %s", t, th)
		}
		r, ok := cp.ps.regs[ti][reg]
		if !ok {
			return Value{}, fmt.Errorf("%q: thread %s has no register %s", t, th, reg)
		}
		return Value{Kind: RegValue, Thread: ti, Reg: r}, nil
	}
	l, ok := cp.ps.locs[t]
	if !ok {
		return Value{}, fmt.Errorf("%q is no location of the test", t)
	}
	return Value{Kind: LocValue, Loc: l}, nil
}

// Format writes p in the litmus text format Parse reads.
func Format(w io.Writer, p *Program) error {
	var b strings.Builder
	fmt.Fprintf(&b, "PTX %s\n{\n", p.Name)
	for _, l := range p.Locs {
		fmt.Fprintf(&b, "%s=%d;\n", l.Name, l.Init)
	}
	for _, th := range p.Threads {
		for _, r := range th.Regs {
			fmt.Fprintf(&b, "%s:%s=%d;\n", th.Name, r.Name, r.Init)
		}
	}
	b.WriteString("}\n")
	rows := 0
	for _, th := range p.Threads {
		rows = max(rows, len(th.Ops))
	}
	cells := make([][]string, rows+1)
	for t, th := range p.Threads {
		where := "host"
		if !th.Place.Host {
			where = fmt.Sprintf("cta %d,gpu %d", th.Place.CTA, th.Place.GPU)
		}
		cells[0] = append(cells[0], th.Name+"@"+where)
		for r := 0; r < rows; r++ {
			text := ""
			if r < len(th.Ops) {
				text = p.OpText(t, r)
			}
			cells[r+1] = append(cells[r+1], text)
		}
	}
	width := make([]int, len(p.Threads))
	for _, row := range cells {
		for i, c := range row {
			width[i] = max(width[i], len(c))
		}
	}
	for _, row := range cells {
		padded := make([]string, len(row))
		for i, c := range row {
			padded[i] = fmt.Sprintf("%-*s", width[i], c)
		}
		b.WriteString(" " + strings.Join(padded, " | ") + " ;\n")
	}
	b.WriteString(p.CondText() + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}
