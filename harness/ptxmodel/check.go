// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package ptxmodel

import (
	"fmt"
	"sort"
)

// Result is the model's answer for a program and its condition.
type Result struct {
	Program *Program
	// Holds says whether the condition, with its quantifier, holds: for
	// exists, some consistent execution satisfies its expression; for
	// ~exists, none does; for forall, every one does.
	Holds bool
	// Reachable says whether some consistent execution satisfies the
	// expression: the outcome it describes is allowed.
	Reachable bool
	// Executions and Satisfying count the consistent executions (with a
	// final state the expression can be judged on) and those that satisfy
	// the expression.
	Executions, Satisfying int
	// Witness is a consistent execution that satisfies the expression.
	Witness *Execution
	// Counterexample is, for forall, a consistent execution that does not.
	Counterexample *Execution
	// Forbidden says, when no consistent execution satisfies the
	// expression, why: the axioms that the closest candidate satisfying it
	// breaks (fewest broken), or a single Violation with Axiom
	// AxiomCandidates when no candidate produces those values at all.
	Forbidden []Violation
	// Races lists the data races of the consistent executions. A program
	// with a mixed-size race is outside the model (Undefined).
	Races []Race
}

// Undefined reports whether the program has a mixed-size data race: "the
// axioms in the memory consistency model do not apply if a PTX program
// contains one or more mixed-size data-races" (PTX ISA, Limitations on
// Mixed-size Data-races). Uniform-size races are inside the model.
func (r *Result) Undefined() bool {
	for _, x := range r.Races {
		if x.MixedSize {
			return true
		}
	}
	return false
}

// Verdict is "allowed" or "forbidden" for the condition's expression: the
// word litmus tables use for the outcome a test is about.
func (r *Result) Verdict() string {
	if r.Reachable {
		return "allowed"
	}
	return "forbidden"
}

// Check runs the model exhaustively over p's candidate executions.
func Check(p *Program) (*Result, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	expr := p.Cond.Expr
	if expr == nil {
		expr = And{}
	}
	res := &Result{Program: p}
	var best *candidate
	races := map[string]Race{}
	explore(p, func(c *candidate) bool {
		if c.states == nil {
			if best == nil {
				best = c // thin air: an explanation only
			}
			return true
		}
		if c.consistent() {
			for _, r := range c.x.races() {
				races[fmt.Sprintf("%v-%v", r.A, r.B)] = r
			}
		}
		for _, s := range c.states {
			sat := expr.eval(s)
			switch {
			case c.consistent():
				res.Executions++
				if sat {
					res.Satisfying++
					if res.Witness == nil {
						res.Witness = c.x.execution(s)
					}
				} else if res.Counterexample == nil {
					res.Counterexample = c.x.execution(s)
				}
			case sat && (best == nil || best.states == nil || len(c.violations) < len(best.violations)):
				best = c
			}
		}
		return true
	})
	res.Reachable = res.Satisfying > 0
	switch p.Cond.Quantifier {
	case Exists:
		res.Holds = res.Reachable
	case NotExists:
		res.Holds = !res.Reachable
	case Forall:
		res.Holds = res.Satisfying == res.Executions
	}
	if p.Cond.Quantifier != Forall {
		res.Counterexample = nil
	}
	if !res.Reachable {
		switch {
		case best == nil:
			res.Forbidden = []Violation{{Axiom: AxiomCandidates, Detail: "no candidate execution produces these values"}}
		case best.states == nil:
			res.Forbidden = onlyThinAir(best.violations)
		default:
			res.Forbidden = best.violations
		}
	}
	keys := make([]string, 0, len(races))
	for k := range races {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		res.Races = append(res.Races, races[k])
	}
	return res, nil
}

// Outcome is a final state the model allows, projected on chosen values,
// with an execution that produces it.
type Outcome struct {
	Values  []int64
	Witness *Execution
}

// Outcomes lists every final state the model allows, projected on the
// given values (registers and locations), each once, with a witness; a
// state it does not list is forbidden.
func Outcomes(p *Program, of []Value) ([]Outcome, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	for _, v := range of {
		if err := v.validate(p); err != nil {
			return nil, err
		}
	}
	var out []Outcome
	seen := map[string]bool{}
	explore(p, func(c *candidate) bool {
		if !c.consistent() {
			return true
		}
		for _, s := range c.states {
			vals := make([]int64, len(of))
			for i, v := range of {
				vals[i] = v.of(s)
			}
			if k := fmt.Sprint(vals); !seen[k] {
				seen[k] = true
				out = append(out, Outcome{Values: vals, Witness: c.x.execution(s)})
			}
		}
		return true
	})
	return out, nil
}

// onlyThinAir is the explanation of an outcome no candidate reaches but
// through values out of thin air: its No-Thin-Air violation.
func onlyThinAir(vs []Violation) []Violation {
	for _, v := range vs {
		if v.Axiom == AxiomNoThinAir {
			return []Violation{v}
		}
	}
	return []Violation{{Axiom: AxiomNoThinAir, Detail: "the values come only from a value that depends on itself"}}
}
