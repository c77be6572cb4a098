// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package settings is the one place every P2PCONF_* variable is declared
// and checked. A bad setting is the caller's mistake, never a verdict on the
// GPUs: Validate checks every declared variable at once, before any spec
// tree is built, any suite is compiled or any GPU is touched, and a suite
// binary or p2pconf command that gets an error prints it (one line per
// setting: the variable, the value and the accepted form) and exits 2
// without writing a result.
//
// Each package declares the settings it reads, next to the code that reads
// them, in a package-level var:
//
//	var _ = settings.Declare(settings.Setting{Name: EnvWait, Form: "a Go duration such as 30s or 10m", Default: "0", Check: settings.Duration(0)})
//
// Adding a setting is that one declaration. The declaring package must be
// free of Ginkgo so that cmd/p2pconf, which validates before it builds the
// suites, links it: package harness/suitesettings holds the declarations of
// the variables only the suites read (their parsing stays in package
// harness, held to the same answers by a test). A test of this package
// fails when a P2PCONF_* name in the project's Go code has no declaration.
package settings

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
)

// Prefix starts every setting's name.
const Prefix = "P2PCONF_"

// Setting is one declared variable.
type Setting struct {
	// Name is the variable, P2PCONF_....
	Name string
	// Form is the accepted form, completing "want ...": "a positive Go
	// duration such as 90s".
	Form string
	// Default is the value the code uses when the variable is unset, as the
	// docs/usage.md writes it ("" when there is none to write). A doc test holds
	// docs/usage.md's defaults equal to these.
	Default string
	// Check accepts or refuses a value (surrounding spaces trimmed, never
	// empty: an empty variable is unset). Its error says why, in a few
	// words; the Error around it adds the name, the value and the form.
	// Nil accepts every value.
	Check func(v string) error
	// Internal marks a variable p2pconf sets for its own child processes
	// (or a deployment script passes along): checked like the others, not
	// a user's setting.
	Internal bool
}

var (
	mu       sync.Mutex
	declared = map[string]Setting{}
)

// Declare adds settings to the registry and returns true (so that a
// package can declare in a var). A name declared twice, or without the
// prefix or a form, is a bug of the declaring package: it panics at init.
func Declare(ss ...Setting) bool {
	mu.Lock()
	defer mu.Unlock()
	for _, s := range ss {
		if !strings.HasPrefix(s.Name, Prefix) || s.Form == "" {
			panic(fmt.Sprintf("settings: %q needs the %s prefix and a form", s.Name, Prefix))
		}
		if _, dup := declared[s.Name]; dup {
			panic(fmt.Sprintf("settings: %s is declared twice", s.Name))
		}
		declared[s.Name] = s
	}
	return true
}

// Lookup returns the declaration of name.
func Lookup(name string) (Setting, bool) {
	mu.Lock()
	defer mu.Unlock()
	s, ok := declared[name]
	return s, ok
}

// All lists every declared setting, sorted by name.
func All() []Setting {
	mu.Lock()
	defer mu.Unlock()
	out := make([]Setting, 0, len(declared))
	for _, s := range declared {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Error is one bad setting.
type Error struct {
	Name, Value string
	// Why is what is wrong with the value, Form what would be accepted.
	Why, Form string
}

func (e *Error) Error() string {
	if e.Why == "" {
		return fmt.Sprintf("%s=%q: want %s", e.Name, e.Value, e.Form)
	}
	return fmt.Sprintf("%s=%q: %s; want %s", e.Name, e.Value, e.Why, e.Form)
}

// Errorf is an Error about setting name with value v, for checks that need
// more than the value (a GPU the machine does not have): it exits 2 like
// the others.
func Errorf(name, v, form, format string, a ...any) *Error {
	return &Error{Name: name, Value: v, Form: form, Why: fmt.Sprintf(format, a...)}
}

// Errors is every bad setting Validate found, one line each.
type Errors []*Error

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// IsSetting reports whether err is (or wraps) a bad setting: the caller's
// mistake, exit 2.
func IsSetting(err error) bool {
	var e *Error
	var es Errors
	return errors.As(err, &e) || errors.As(err, &es)
}

// Check checks one value of setting name; an undeclared name is an error.
func Check(name, value string) error {
	s, ok := Lookup(name)
	if !ok {
		return &Error{Name: name, Value: value, Why: "not a p2pconf setting", Form: "one of the settings in docs/usage.md"}
	}
	v := strings.TrimSpace(value)
	if v == "" || s.Check == nil {
		return nil
	}
	if err := s.Check(v); err != nil {
		return &Error{Name: name, Value: value, Why: err.Error(), Form: s.Form}
	}
	return nil
}

// Validate checks every declared setting getenv returns a value for and
// returns an Errors of the bad ones (nil when all are good).
func Validate(getenv func(string) string) error {
	var bad Errors
	for _, s := range All() {
		if err := Check(s.Name, getenv(s.Name)); err != nil {
			bad = append(bad, err.(*Error))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return bad
}

// ValidateEnv is Validate of the process environment.
func ValidateEnv() error { return Validate(os.Getenv) }

// Unknown lists the P2PCONF_* names in environ (KEY=VALUE entries) that no
// package declared but that are a near miss of a declared one (at most two
// edits), each with the name it resembles: a typo such as
// P2PCONF_BW_MAXSIZE would otherwise be ignored without a word. Other
// undeclared names are the deployment scripts' own (P2PCONF_RUN,
// P2PCONF_NODES, ...) and pass.
func Unknown(environ []string) []string {
	var out []string
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(k, Prefix) {
			continue
		}
		if _, ok := Lookup(k); ok {
			continue
		}
		if near := nearest(k); near != "" {
			out = append(out, k+" is not a p2pconf setting (did you mean "+near+"?)")
		}
	}
	sort.Strings(out)
	return out
}

// nearest is the declared name closest to k by edit distance, if it is
// close (at most 2 edits).
func nearest(k string) string {
	best, bestD := "", 3
	for _, s := range All() {
		if d := distance(k, s.Name); d < bestD {
			best, bestD = s.Name, d
		}
	}
	return best
}

func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
