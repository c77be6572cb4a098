// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/p2pconf/p2pconf/harness/checks"
)

// checkFilter judges a label filter before anything is built: first its
// syntax, in the grammar of Ginkgo's label filters (a filter that does not
// parse would otherwise surface from the first suite, after the build),
// then the check IDs and suites it names (checks.CheckFilterNames). The
// command does not link Ginkgo (internal/layout), so the syntax is checked
// here; it refuses only what Ginkgo cannot parse either: an operator
// without an operand, unbalanced parentheses, a key with a colon and no
// value or set operation (what it cannot tell, it leaves to Ginkgo).
func checkFilter(filter string) error {
	if err := parseFilter(filter); err != nil {
		return fmt.Errorf("label filter %q does not parse: %v", filter, err)
	}
	return checks.CheckFilterNames(filter)
}

// setOperations are the operations of Ginkgo's label sets ("key:
// consistsOf {a, b}"), in lower case: Ginkgo takes them in any case.
var setOperations = map[string]bool{"containsany": true, "containsall": true, "consistsof": true, "issubsetof": true, "isempty": true}

// filterParser is a recursive descent over the filter's tokens: or :=
// and {("||" | ",") and}; and := unary {"&&" unary}; unary := "!" unary |
// "(" or ")" | label | /regexp/ | key: operation [{set}].
type filterParser struct {
	toks []string
	i    int
}

func parseFilter(filter string) error {
	toks, err := filterTokens(filter)
	if err != nil || len(toks) == 0 {
		return err
	}
	p := &filterParser{toks: toks}
	if err := p.or(); err != nil {
		return err
	}
	if p.i < len(p.toks) {
		return fmt.Errorf("unexpected %q", p.toks[p.i])
	}
	return nil
}

func (p *filterParser) peek() string {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	return ""
}

func (p *filterParser) or() error {
	if err := p.and(); err != nil {
		return err
	}
	for p.peek() == "||" || p.peek() == "," {
		p.i++
		if err := p.and(); err != nil {
			return err
		}
	}
	return nil
}

func (p *filterParser) and() error {
	if err := p.unary(); err != nil {
		return err
	}
	for p.peek() == "&&" {
		p.i++
		if err := p.unary(); err != nil {
			return err
		}
	}
	return nil
}

func (p *filterParser) unary() error {
	t := p.peek()
	p.i++
	switch {
	case t == "":
		return errors.New("it ends where a label is wanted")
	case t == "!":
		return p.unary()
	case t == "(":
		if err := p.or(); err != nil {
			return err
		}
		if p.peek() != ")" {
			return errors.New("a parenthesis is not closed")
		}
		p.i++
		return nil
	case t == ")" || t == "&&" || t == "||" || t == ",":
		return fmt.Errorf("%q where a label is wanted", t)
	case strings.HasSuffix(t, ":"):
		// key: operation {set}, or key: isempty.
		op := strings.ToLower(p.peek())
		if !setOperations[op] {
			return fmt.Errorf("%q has no value and no set operation after the colon", t)
		}
		p.i++
		if op != "isempty" {
			if !strings.HasPrefix(p.peek(), "{") {
				return fmt.Errorf("%s %s needs a set such as {a, b}", t, op)
			}
			p.i++
		}
		return nil
	}
	return nil // a label, a /regexp/ or a set
}

// filterTokens splits a filter into operators, parentheses, /regexps/,
// {sets} and labels.
func filterTokens(s string) ([]string, error) {
	var toks []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			i++
		case strings.HasPrefix(s[i:], "&&") || strings.HasPrefix(s[i:], "||"):
			toks = append(toks, s[i:i+2])
			i += 2
		case c == '&' || c == '|':
			return nil, fmt.Errorf("a lone %q (write %c%c)", c, c, c)
		case c == '!' || c == '(' || c == ')' || c == ',':
			toks = append(toks, string(c))
			i++
		case c == '/' || c == '{':
			end := byte('/')
			if c == '{' {
				end = '}'
			}
			j := strings.IndexByte(s[i+1:], end)
			if j < 0 {
				j = len(s) - i - 2 // Ginkgo reads an open one to the end
			}
			toks = append(toks, s[i:i+j+2])
			i += j + 2
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \t\n&|!(),/{}", rune(s[j])) {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		}
	}
	return toks, nil
}
