// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// exitDocs are the copies of the table: the file, the markers around the
// copy, and how the copy is rendered.
var exitDocs = []struct {
	path, begin, end string
	render           func() string
}{
	{"../../docs/usage.md", "<!-- exit-table:begin -->\n", "<!-- exit-table:end -->", exitMarkdown},
	{"../../dist/run.sh", "# exit-table:begin\n", "# exit-table:end", func() string {
		var b strings.Builder
		for _, l := range strings.Split(strings.TrimSuffix(exitText("run.sh"), "\n"), "\n") {
			b.WriteString(strings.TrimRight("# "+l, " ") + "\n")
		}
		return b.String()
	}},
}

// TestExitTableCopiesEqualTheSource: README's table and run.sh's header
// are the table of exitcodes.go (go test ./cmd/p2pconf -run
// TestExitTableCopies -update rewrites them).
func TestExitTableCopiesEqualTheSource(t *testing.T) {
	for _, d := range exitDocs {
		data, err := os.ReadFile(d.path)
		if err != nil {
			t.Fatal(err)
		}
		s := string(data)
		i, j := strings.Index(s, d.begin), strings.Index(s, d.end)
		if i < 0 || j < i {
			t.Fatalf("%s: no %q ... %q markers", d.path, d.begin, d.end)
		}
		want := d.render()
		if got := s[i+len(d.begin) : j]; got != want {
			if *update {
				if err := os.WriteFile(d.path, []byte(s[:i+len(d.begin)]+want+s[j:]), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			t.Errorf("%s: the exit table differs from exitcodes.go; rerun with -update\n got:\n%s\nwant:\n%s", filepath.Base(d.path), got, want)
		}
	}
}

// TestEveryHelpPrintsItsExitStatuses: each command's --help ends with its
// rows of the table, and the table covers every command.
func TestEveryHelpPrintsItsExitStatuses(t *testing.T) {
	for _, c := range exitCommands() {
		if c == "run.sh" || c == "make conformance" || c == "suite binary" {
			continue // not p2pconf commands: docs/usage.md and run.sh carry their rows
		}
		code, out, errOut := p2pconf(t, append(strings.Fields(c), "--help")...) // "litmus check" is two words
		if code != 0 || !strings.Contains(out+errOut, exitText(c)) {
			t.Errorf("p2pconf %s --help (exit %d) lacks its exit table:\n%s%s", c, code, out, errOut)
		}
		if commandUsage(c) == "" {
			t.Errorf("the usage text has no entry for %s", c)
		}
	}
	for _, c := range []string{"run", "plan", "topo", "report", "diff", "repro", "ticket", "version"} {
		if len(exitsOf(c)) == 0 {
			t.Errorf("the exit table has no row for %s", c)
		}
	}
}
