// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package deviations reads a file of known deviations: failures a user has
// looked at, understood and decided to accept for a while (a compiler that
// merges a load, a hardware erratum with a ticket open). A gate has to keep
// working on a machine that shows such a finding without hiding it, so an
// entry never turns a failure into a pass: the result stays "fail" in every
// report, carrying the entry's note, and only the exit status of p2pconf
// run, report and diff treats a run whose every failure is accepted as
// passing. Nothing is accepted that the file does not name: an entry names
// the check, a glob over its variant keys, a range of driver versions and
// the cause the suite found, and it may expire.
//
// The format (docs/known-deviations.md) is made to be written by hand:
//
//	# ptxas merges the weak load of x across ld.acquire (vendor ticket 123)
//	check:   ordering.litmus
//	variant: *weak-x-in-loop*
//	driver:  580.x
//	cause:   compiler
//	note:    ptxas merges a weak load across ld.acquire in an unrolled poll loop
//	ref:     https://example.org/tickets/123
//	expires: 2027-06-30
//
// An entry begins at its check: line and runs to the next one. Blank lines
// and lines starting with # are ignored. check, variant, driver, cause and
// note are required; ref and expires are optional.
package deviations

import (
	"bufio"
	"bytes"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Causes an entry can name: what the suite found made a forbidden outcome
// show (the result's cause), or any of them.
const (
	CauseCompiler = "compiler"
	CauseHardware = "hardware"
	CauseAny      = "any"
)

// Entry is one known deviation.
type Entry struct {
	// File and Line locate the entry's check: line, for messages.
	File string
	Line int
	// Check is a catalogue ID, e.g. "ordering.litmus".
	Check string
	// Variant is a glob (path.Match syntax) over the result's variant key;
	// "*" matches every variant, the empty one too.
	Variant string
	// Driver is the driver version range as written; driver its parsed form.
	Driver string
	driver driverRange
	// Cause is compiler, hardware or any.
	Cause string
	// Note says what the deviation is; every report prints it with the
	// failure it accepts.
	Note string
	// Ref is an optional URL (a vendor ticket, an issue).
	Ref string
	// Expires is the last day (UTC) the entry accepts anything; zero when
	// it does not expire.
	Expires time.Time
}

// Where is "file:line" of the entry.
func (e *Entry) Where() string { return fmt.Sprintf("%s:%d", e.File, e.Line) }

// Describe is the entry in one line: check, variant, driver, cause.
func (e *Entry) Describe() string {
	return fmt.Sprintf("%s %s driver %s cause %s (%s)", e.Check, e.Variant, e.Driver, e.Cause, e.Where())
}

// Text is what a report prints beside an accepted failure: the note, the
// reference and where the entry is.
func (e *Entry) Text() string {
	s := e.Note
	if e.Ref != "" {
		s += " (" + e.Ref + ")"
	}
	return s + " [" + filepath.Base(e.File) + ":" + strconv.Itoa(e.Line) + "]"
}

// Set is the entries of one file, and which of them matched a result.
type Set struct {
	File    string
	Entries []*Entry
	// Now is the time expiry is judged at; zero means time.Now().
	Now  time.Time
	used map[*Entry]int
}

// Error is a bad file: where and what.
type Error struct {
	File string
	Line int // 0 for the file as a whole
	Msg  string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// Load reads and parses a file. knownCheck, when not nil, says whether a
// check ID is in the catalogue: an entry naming another is refused, since
// a typo would otherwise accept nothing and say so only as a warning.
func Load(file string, knownCheck func(string) bool) (*Set, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, &Error{File: file, Msg: "cannot read the known-deviations file: " + err.Error()}
	}
	return Parse(file, data, knownCheck)
}

var keys = map[string]bool{"check": true, "variant": true, "driver": true, "cause": true, "note": true, "ref": true, "expires": true}

// Parse parses the text of a known-deviations file named file.
func Parse(file string, data []byte, knownCheck func(string) bool) (*Set, error) {
	s := &Set{File: file, used: map[*Entry]int{}}
	var cur *Entry
	seen := map[string]int{}
	bad := func(line int, format string, args ...any) error {
		return &Error{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	finish := func() error {
		if cur == nil {
			return nil
		}
		for _, k := range []string{"variant", "driver", "cause", "note"} {
			if seen[k] == 0 {
				return bad(cur.Line, "the entry for %s has no %s: line (every entry names check, variant, driver, cause and note)", cur.Check, k)
			}
		}
		s.Entries = append(s.Entries, cur)
		return nil
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if !ok || !keys[key] {
			return nil, bad(n, "want key: value with key check, variant, driver, cause, note, ref or expires; got %q", line)
		}
		if val == "" {
			return nil, bad(n, "%s: has no value", key)
		}
		if key == "check" {
			if err := finish(); err != nil {
				return nil, err
			}
			if knownCheck != nil && !knownCheck(val) {
				return nil, bad(n, "check %q is not in the catalogue (docs/checks.md lists the IDs)", val)
			}
			cur = &Entry{File: file, Line: n, Check: val}
			seen = map[string]int{"check": n}
			continue
		}
		if cur == nil {
			return nil, bad(n, "%s: before any check: line (an entry begins with check:)", key)
		}
		if at := seen[key]; at != 0 {
			return nil, bad(n, "%s: given twice in the entry for %s (first on line %d)", key, cur.Check, at)
		}
		seen[key] = n
		switch key {
		case "variant":
			if _, err := path.Match(val, ""); err != nil {
				return nil, bad(n, "variant %q is not a glob: %v", val, err)
			}
			cur.Variant = val
		case "driver":
			r, err := parseRange(val)
			if err != nil {
				return nil, bad(n, "driver %q: %v", val, err)
			}
			cur.Driver, cur.driver = val, r
		case "cause":
			if val != CauseCompiler && val != CauseHardware && val != CauseAny {
				return nil, bad(n, "cause %q: want compiler, hardware or any", val)
			}
			cur.Cause = val
		case "note":
			cur.Note = val
		case "ref":
			u, err := url.Parse(val)
			if err != nil || u.Scheme == "" || u.Host == "" {
				return nil, bad(n, "ref %q is not an absolute URL", val)
			}
			cur.Ref = val
		case "expires":
			t, err := time.Parse("2006-01-02", val)
			if err != nil {
				return nil, bad(n, "expires %q: want a date, YYYY-MM-DD", val)
			}
			cur.Expires = t
		}
	}
	if err := sc.Err(); err != nil {
		return nil, bad(n+1, "%v", err)
	}
	if err := finish(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Set) now() time.Time {
	if s.Now.IsZero() {
		return time.Now()
	}
	return s.Now
}

// Expired reports whether e accepts nothing any more: its expires: day
// (UTC) is over.
func (s *Set) Expired(e *Entry) bool {
	return !e.Expires.IsZero() && !s.now().UTC().Before(e.Expires.AddDate(0, 0, 1))
}

// Match returns the first entry that accepts a failure of check with the
// variant key variant on driver version driver (NVML's, e.g. "580.159.04")
// whose cause the suite found to be cause ("" when it found none), and
// counts it as used. A nil Set matches nothing.
func (s *Set) Match(check, variant, driver, cause string) (*Entry, bool) {
	if s == nil {
		return nil, false
	}
	for _, e := range s.Entries {
		if e.Check != check || s.Expired(e) {
			continue
		}
		if ok, _ := path.Match(e.Variant, variant); !ok {
			continue
		}
		if !e.driver.contains(driver) {
			continue
		}
		if e.Cause != CauseAny && e.Cause != cause {
			continue
		}
		s.used[e]++
		return e, true
	}
	return nil, false
}

// Uses is how many results e accepted.
func (s *Set) Uses(e *Entry) int { return s.used[e] }

// Reset forgets what matched (before the Set is applied again).
func (s *Set) Reset() {
	if s != nil {
		s.used = map[*Entry]int{}
	}
}

// Unused are the warnings for entries that accepted nothing: expired ones
// say so, the others that no failure matched. An unused entry is not an
// error: the deviation may be fixed, or the check did not run.
func (s *Set) Unused() []string {
	if s == nil {
		return nil
	}
	var out []string
	for _, e := range s.Entries {
		switch {
		case s.used[e] > 0:
		case s.Expired(e):
			out = append(out, fmt.Sprintf("%s expired on %s and accepted nothing", e.Describe(), e.Expires.Format("2006-01-02")))
		default:
			out = append(out, fmt.Sprintf("%s matched no failure", e.Describe()))
		}
	}
	return out
}

// driverRange is every term of a driver: value, all of which must hold.
type driverRange struct {
	any   bool
	terms []versionTerm
}

// versionTerm is one term: op is "=" for a prefix pattern (580, 580.x,
// 580.159.04), else one of >=, >, <=, <.
type versionTerm struct {
	op string
	v  []int
}

// parseRange reads a driver range: "*" (any driver, an unknown one too),
// or terms separated by commas or spaces, all of which must hold: a
// version or version prefix (580, 580.x, 580.159.x, 580.159.04: the
// driver's version begins with these numbers), or a comparison (>=575.51,
// <590; missing numbers count as 0).
func parseRange(s string) (driverRange, error) {
	if s == "*" || s == "any" {
		return driverRange{any: true}, nil
	}
	var r driverRange
	for _, f := range strings.FieldsFunc(s, func(c rune) bool { return c == ',' || c == ' ' || c == '\t' }) {
		t := versionTerm{op: "="}
		for _, op := range []string{">=", "<=", ">", "<"} {
			if strings.HasPrefix(f, op) {
				t.op, f = op, strings.TrimSpace(f[len(op):])
				break
			}
		}
		parts := strings.Split(f, ".")
		for i, p := range parts {
			if p == "x" || p == "*" {
				if t.op != "=" || i != len(parts)-1 || i == 0 {
					return r, fmt.Errorf("%q: x stands only for the last number of a version prefix, e.g. 580.x", f)
				}
				break
			}
			n, err := strconv.Atoi(p)
			if err != nil || n < 0 {
				return r, fmt.Errorf("%q: want a version such as 580, 580.x, 580.159.04, >=575.51 or <590", f)
			}
			t.v = append(t.v, n)
		}
		if len(t.v) == 0 {
			return r, fmt.Errorf("%q: want a version", f)
		}
		r.terms = append(r.terms, t)
	}
	if len(r.terms) == 0 {
		return r, fmt.Errorf("want a version range, e.g. 580.x or >=575.51, <590 (or * for any driver)")
	}
	return r, nil
}

// parseVersion reads NVML's driver version; ok false for "" or anything
// that is not dot-separated numbers (a range never matches that).
func parseVersion(s string) ([]int, bool) {
	if s == "" {
		return nil, false
	}
	var v []int
	for _, p := range strings.Split(s, ".") {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return nil, false
		}
		v = append(v, n)
	}
	return v, true
}

func (r driverRange) contains(driver string) bool {
	if r.any {
		return true
	}
	v, ok := parseVersion(driver)
	if !ok {
		return false
	}
	for _, t := range r.terms {
		if !t.holds(v) {
			return false
		}
	}
	return true
}

func (t versionTerm) holds(v []int) bool {
	if t.op == "=" {
		if len(v) < len(t.v) {
			return false
		}
		for i := range t.v {
			if v[i] != t.v[i] {
				return false
			}
		}
		return true
	}
	c := compare(v, t.v)
	switch t.op {
	case ">=":
		return c >= 0
	case ">":
		return c > 0
	case "<=":
		return c <= 0
	}
	return c < 0
}

func compare(a, b []int) int {
	for i := 0; i < len(a) || i < len(b); i++ {
		x, y := 0, 0
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}
