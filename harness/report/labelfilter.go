// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"fmt"
	"regexp"
	"strings"
)

// matchesLabelFilter evaluates a Ginkgo label filter (--label-filter) on a
// spec's labels. Ginkgo reports a spec the filter left out as skipped
// without a message, just like one the suite never reached after stopping
// early; only the filter tells the two apart, and the report reads Ginkgo's
// JSON without Ginkgo, so it evaluates the filter itself. The language:
// labels (case-insensitive), /regular expressions/, !, && and || (or ","),
// parentheses, and set expressions on key:value labels
// ("gpu: containsAny {0,1}", with containsAll, consistsOf, isSubsetOf and
// isEmpty). An empty filter matches every spec.
func matchesLabelFilter(filter string, labels []string) (bool, error) {
	if strings.TrimSpace(filter) == "" {
		return true, nil
	}
	p := &filterParser{in: []rune(filter)}
	expr, err := p.or()
	if err == nil && p.peek() != 0 {
		err = p.errorf("unexpected %q", string(p.peek()))
	}
	if err != nil {
		return false, fmt.Errorf("label filter %q: %w", filter, err)
	}
	return expr(labels), nil
}

type labelMatch func(labels []string) bool

// filterParser reads the filter by recursive descent: || binds loosest,
// then &&, then !.
type filterParser struct {
	in  []rune
	pos int
}

func (p *filterParser) errorf(format string, args ...any) error {
	return fmt.Errorf("at %d: %s", p.pos, fmt.Sprintf(format, args...))
}

// peek skips spaces and returns the next rune, 0 at the end.
func (p *filterParser) peek() rune {
	for p.pos < len(p.in) && p.in[p.pos] == ' ' {
		p.pos++
	}
	if p.pos >= len(p.in) {
		return 0
	}
	return p.in[p.pos]
}

// until returns the text up to the first rune of stop (or the end).
func (p *filterParser) until(stop string) string {
	start := p.pos
	for p.pos < len(p.in) && !strings.ContainsRune(stop, p.in[p.pos]) {
		p.pos++
	}
	return string(p.in[start:p.pos])
}

func (p *filterParser) or() (labelMatch, error) {
	left, err := p.and()
	for err == nil {
		switch p.peek() {
		case ',':
			p.pos++
		case '|':
			if p.pos+1 >= len(p.in) || p.in[p.pos+1] != '|' {
				return nil, p.errorf("'|' is not an operator; '||' is")
			}
			p.pos += 2
		default:
			return left, nil
		}
		var right labelMatch
		if right, err = p.and(); err == nil {
			l := left
			left = func(labels []string) bool { return l(labels) || right(labels) }
		}
	}
	return nil, err
}

func (p *filterParser) and() (labelMatch, error) {
	left, err := p.not()
	for err == nil && p.peek() == '&' {
		if p.pos+1 >= len(p.in) || p.in[p.pos+1] != '&' {
			return nil, p.errorf("'&' is not an operator; '&&' is")
		}
		p.pos += 2
		var right labelMatch
		if right, err = p.not(); err == nil {
			l := left
			left = func(labels []string) bool { return l(labels) && right(labels) }
		}
	}
	return left, err
}

func (p *filterParser) not() (labelMatch, error) {
	if p.peek() != '!' {
		return p.operand()
	}
	p.pos++
	inner, err := p.not()
	if err != nil {
		return nil, err
	}
	return func(labels []string) bool { return !inner(labels) }, nil
}

func (p *filterParser) operand() (labelMatch, error) {
	switch c := p.peek(); c {
	case 0:
		return nil, p.errorf("the filter ends where a label is expected")
	case '(':
		p.pos++
		inner, err := p.or()
		if err != nil {
			return nil, err
		}
		if p.peek() != ')' {
			return nil, p.errorf("missing ')'")
		}
		p.pos++
		return inner, nil
	case '/':
		p.pos++
		expr := p.until("/")
		p.pos++ // the closing slash
		re, err := regexp.Compile(expr)
		if err != nil {
			return nil, p.errorf("regular expression: %v", err)
		}
		return func(labels []string) bool {
			for _, l := range labels {
				if re.MatchString(l) {
					return true
				}
			}
			return false
		}, nil
	case ')', '&', '|', ',':
		return nil, p.errorf("unexpected %q where a label is expected", string(c))
	}
	label := p.until("&|!,()/:")
	if p.pos < len(p.in) && p.in[p.pos] == ':' {
		// "key: op args" is a set expression; "key:value" a plain label.
		if p.pos+1 < len(p.in) && p.in[p.pos+1] == ' ' {
			p.pos++
			return p.setExpression(strings.TrimSpace(label))
		}
		label += p.until("&|!,()/")
	}
	want := strings.ToLower(strings.TrimSpace(label))
	return func(labels []string) bool {
		for _, l := range labels {
			if strings.ToLower(l) == want {
				return true
			}
		}
		return false
	}, nil
}

// setExpression reads "op {v1, v2}" (or "op v1") after "key: ".
func (p *filterParser) setExpression(key string) (labelMatch, error) {
	if key == "" {
		return nil, p.errorf("set expression without a key")
	}
	p.peek()
	op := strings.ToLower(p.until(" )"))
	var arg string
	if p.peek() == '{' {
		p.pos++
		arg = p.until("}")
		if p.pos >= len(p.in) {
			return nil, p.errorf("missing '}'")
		}
		p.pos++
	} else if p.pos < len(p.in) {
		arg = strings.TrimSpace(p.until("&|!,()/"))
	}
	if op == "isempty" {
		if arg != "" {
			return nil, p.errorf("isEmpty takes no values")
		}
		return func(labels []string) bool { return len(labelSet(key, labels)) == 0 }, nil
	}
	var values []string
	for _, v := range strings.Split(arg, ",") {
		v = strings.ToLower(strings.TrimSpace(v))
		if v == "" || strings.ContainsAny(v, "&|!,()/") {
			return nil, p.errorf("bad value %q in set expression", v)
		}
		values = append(values, v)
	}
	has := func(set map[string]bool, v string) bool { return set[v] }
	switch op {
	case "containsany":
		return func(labels []string) bool {
			set := labelSet(key, labels)
			for _, v := range values {
				if has(set, v) {
					return true
				}
			}
			return false
		}, nil
	case "containsall":
		return func(labels []string) bool {
			set := labelSet(key, labels)
			for _, v := range values {
				if !has(set, v) {
					return false
				}
			}
			return true
		}, nil
	case "consistsof":
		return func(labels []string) bool {
			set := labelSet(key, labels)
			for _, v := range values {
				if !has(set, v) {
					return false
				}
			}
			return len(set) == len(values)
		}, nil
	case "issubsetof":
		return func(labels []string) bool {
			allowed := map[string]bool{}
			for _, v := range values {
				allowed[v] = true
			}
			for v := range labelSet(key, labels) {
				if !allowed[v] {
					return false
				}
			}
			return true
		}, nil
	}
	return nil, p.errorf("unknown set operation %q", op)
}

// labelSet is the values of the spec's key:value labels with that key,
// compared case-insensitively.
func labelSet(key string, labels []string) map[string]bool {
	key = strings.ToLower(strings.TrimSpace(key))
	set := map[string]bool{}
	for _, l := range labels {
		k, v, ok := strings.Cut(l, ":")
		if ok && strings.ToLower(strings.TrimSpace(k)) == key {
			set[strings.ToLower(strings.TrimSpace(v))] = true
		}
	}
	return set
}
