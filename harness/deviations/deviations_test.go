// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package deviations

import (
	"os"
	"strings"
	"testing"
	"time"
)

const finding = `# the project's finding (docs/known-deviations.md)
check:   ordering.litmus
variant: *weak-x-in-loop*
driver:  580.x
cause:   compiler
note:    ptxas merges a weak load across ld.acquire in an unrolled poll loop
ref:     https://example.org/tickets/1

check: access.peer-copy
variant: *
driver: >=575.51, <590
cause: any
note: a copy engine erratum
expires: 2027-01-31
`

func known(id string) bool { return id == "ordering.litmus" || id == "access.peer-copy" }

func TestParseAndMatch(t *testing.T) {
	s, err := Parse("kd.txt", []byte(finding), known)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Entries) != 2 || s.Entries[0].Line != 2 || s.Entries[1].Line != 9 {
		t.Fatalf("entries: %+v", s.Entries)
	}
	s.Now = time.Date(2027, 1, 31, 23, 0, 0, 0, time.UTC)
	cases := []struct {
		check, variant, driver, cause string
		want                          int // entry index, -1 none
	}{
		{"ordering.litmus", "mp-rel-sys-weak-x-in-loop-cta", "580.159.04", "compiler", 0},
		{"ordering.litmus", "mp-rel-sys-weak-x-in-loop-cta", "580", "compiler", 0},
		{"ordering.litmus", "mp-rel-sys-weak-x-in-loop-cta", "590.12", "compiler", -1}, // driver outside
		{"ordering.litmus", "mp-rel-sys-weak-x-in-loop-cta", "5800.1", "compiler", -1},
		{"ordering.litmus", "mp-rel-sys-weak-x-in-loop-cta", "", "compiler", -1},           // driver unknown
		{"ordering.litmus", "mp-rel-sys-weak-x-in-loop-cta", "580.159.04", "hardware", -1}, // cause mismatch
		{"ordering.litmus", "mp-rel-sys-weak-x-in-loop-cta", "580.159.04", "", -1},         // no cause found
		{"ordering.litmus", "mp-rel-sys-x-after-loop", "580.159.04", "compiler", -1},       // variant
		{"ordering.flag-handoff-sys", "weak-x-in-loop", "580.159.04", "compiler", -1},      // check
		{"access.peer-copy", "", "575.51", "", 1},
		{"access.peer-copy", "4-kib", "589.99.99", "hardware", 1},
		{"access.peer-copy", "4-kib", "575.50.9", "hardware", -1},
		{"access.peer-copy", "4-kib", "590", "hardware", -1},
	}
	for _, c := range cases {
		e, ok := s.Match(c.check, c.variant, c.driver, c.cause)
		switch {
		case c.want < 0 && ok:
			t.Errorf("%+v matched %s", c, e.Where())
		case c.want >= 0 && (!ok || e != s.Entries[c.want]):
			t.Errorf("%+v: want entry %d, got %v %v", c, c.want, e, ok)
		}
	}
	if u := s.Unused(); len(u) != 0 {
		t.Errorf("unused: %v", u)
	}
	if got := s.Entries[0].Text(); got != "ptxas merges a weak load across ld.acquire in an unrolled poll loop (https://example.org/tickets/1) [kd.txt:2]" {
		t.Errorf("text %q", got)
	}
	// The day after its expiry an entry accepts nothing, and says so.
	s.Reset()
	s.Now = time.Date(2027, 2, 1, 0, 0, 0, 0, time.UTC)
	if _, ok := s.Match("access.peer-copy", "", "580.1", "hardware"); ok {
		t.Error("an expired entry matched")
	}
	u := s.Unused()
	if len(u) != 2 || !strings.Contains(u[1], "expired on 2027-01-31") || !strings.Contains(u[0], "matched no failure") ||
		!strings.Contains(u[0], "kd.txt:2") {
		t.Errorf("unused: %q", u)
	}
	var none *Set
	if _, ok := none.Match("ordering.litmus", "", "580", "compiler"); ok || none.Unused() != nil {
		t.Error("a nil set matched")
	}
}

func TestParseErrorsNameTheLine(t *testing.T) {
	entry := "check: ordering.litmus\nvariant: *\ndriver: 580.x\ncause: compiler\nnote: n\n"
	cases := []struct{ text, want string }{
		{"variant: *\n", "kd:1: variant: before any check: line"},
		{"check: ordering.litmus\nvariant: *\n", "kd:1: the entry for ordering.litmus has no driver: line"},
		{"check: no.such\n", `kd:1: check "no.such" is not in the catalogue`},
		{entry + "colour: red\n", `kd:6: want key: value`},
		{entry + "just words\n", `kd:6: want key: value`},
		{entry + "note: again\n", "kd:6: note: given twice in the entry for ordering.litmus (first on line 5)"},
		{strings.Replace(entry, "variant: *", "variant: [x", 1), `kd:2: variant "[x" is not a glob`},
		{strings.Replace(entry, "580.x", "5x0", 1), `kd:3: driver "5x0"`},
		{strings.Replace(entry, "580.x", "x", 1), `kd:3: driver "x"`},
		{strings.Replace(entry, "580.x", "580.x.1", 1), `kd:3: driver "580.x.1"`},
		{strings.Replace(entry, "580.x", ">=580.x", 1), `kd:3: driver ">=580.x"`},
		{strings.Replace(entry, "compiler", "ptxas", 1), `kd:4: cause "ptxas": want compiler, hardware or any`},
		{entry + "ref: ticket 12\n", `kd:6: ref "ticket 12" is not an absolute URL`},
		{entry + "expires: next year\n", `kd:6: expires "next year": want a date`},
		{entry + "ref:\n", `kd:6: ref: has no value`},
	}
	for _, c := range cases {
		_, err := Parse("kd", []byte(c.text), known)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.text, err, c.want)
		}
	}
	if s, err := Parse("kd", []byte("# nothing accepted yet\n\n"), known); err != nil || len(s.Entries) != 0 {
		t.Errorf("a file of comments: %v", err)
	}
	if _, err := Load("/nonexistent/kd", known); err == nil || !strings.Contains(err.Error(), "/nonexistent/kd: cannot read") {
		t.Errorf("a missing file: %v", err)
	}
}

// TestTheDocumentedExampleParses: the example of docs/known-deviations.md
// is a file this package reads, and it accepts what the text says.
func TestTheDocumentedExampleParses(t *testing.T) {
	data, err := os.ReadFile("../../docs/known-deviations.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "```text\n")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("docs/known-deviations.md has no text block")
	}
	s, err := Parse("known-deviations.txt", []byte(block), known)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Entries) != 1 {
		t.Fatalf("%d entries", len(s.Entries))
	}
	for _, c := range []struct {
		variant, driver, cause string
		want                   bool
	}{
		{"mp-rel-sys-acq-sys-weak-x-in-loop-cta", "580.159.04", "compiler", true},
		{"mp-rel-sys-acq-sys-weak-x-in-loop-cta", "590.1", "compiler", false},
		{"mp-rel-sys-acq-sys-weak-x-in-loop-cta", "580.159.04", "hardware", false},
		{"mp-rel-sys-acq-sys", "580.159.04", "compiler", false},
	} {
		if _, ok := s.Match("ordering.litmus", c.variant, c.driver, c.cause); ok != c.want {
			t.Errorf("%+v: matched %v", c, ok)
		}
	}
}
