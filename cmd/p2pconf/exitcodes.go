// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// exitRow is one line of the exit-status table: what code means when
// command exits with it. The table is the one source of every exit status
// p2pconf documents: the global usage, each command's --help, docs/usage.md's
// "Exit status" section and dist/run.sh's header are rendered from it (a
// test holds the last two equal), and a test runs one case per row.
type exitRow struct {
	Command string
	Code    int
	Meaning string
}

var (
	exitMu   sync.Mutex
	exitRows []exitRow
	// exitOrder is the order of the commands in the rendered table.
	exitOrder []string
)

// registerExits adds rows to the table (a command's file declares its own
// in a package-level var: `var _ = registerExits(...)`) and returns true.
func registerExits(rows ...exitRow) bool { //nolint:unparam // its callers are package-level var initialisers, which need a value
	exitMu.Lock()
	defer exitMu.Unlock()
	for _, r := range rows {
		for _, have := range exitRows {
			if have.Command == r.Command && have.Code == r.Code {
				panic(fmt.Sprintf("exit status %d of %s declared twice", r.Code, r.Command))
			}
		}
		if !containsString(exitOrder, r.Command) {
			exitOrder = append(exitOrder, r.Command)
		}
		exitRows = append(exitRows, r)
	}
	return true
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// exitsOf is the rows of command, by code.
func exitsOf(command string) []exitRow {
	exitMu.Lock()
	defer exitMu.Unlock()
	var out []exitRow
	for _, r := range exitRows {
		if r.Command == command {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Code < out[j].Code })
	return out
}

// exitCommands lists the commands of the table in declaration order.
func exitCommands() []string {
	exitMu.Lock()
	defer exitMu.Unlock()
	return append([]string(nil), exitOrder...)
}

// exitText renders the rows of command for a usage text: "exit status:"
// and one indented, wrapped entry per code.
func exitText(command string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "exit status of %s:\n", command)
	for _, r := range exitsOf(command) {
		lines := wrap(r.Meaning, 72)
		fmt.Fprintf(&b, "  %d  %s\n", r.Code, lines[0])
		for _, l := range lines[1:] {
			fmt.Fprintf(&b, "     %s\n", l)
		}
	}
	return b.String()
}

// exitMarkdown renders the whole table as docs/usage.md carries it.
func exitMarkdown() string {
	var b strings.Builder
	b.WriteString("| command | exit | meaning |\n|---|---|---|\n")
	for _, c := range exitCommands() {
		for _, r := range exitsOf(c) {
			fmt.Fprintf(&b, "| `%s` | %d | %s |\n", c, r.Code, strings.ReplaceAll(r.Meaning, "|", `\|`))
		}
	}
	return b.String()
}

func wrap(s string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = w
			continue
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}

// usageMeaning is the meaning of exit 2, with a command's own cases.
func usageMeaning(more string) string {
	return "bad input, found before any GPU work and writing nothing: a bad flag, argument or setting (P2PCONF_*)" + more
}

var _ = registerExits(
	exitRow{"run", exitOK, "every selected suite ran and every check conformed (passed, or skipped for a reason the catalogue names), or failed and --known-deviations accepts it (it is still reported as a failure, with its note)"},
	exitRow{"run", exitFailure, "a conformance failure: a check failed or timed out; wins over 3"},
	exitRow{"run", exitUsage, "bad input, found before any GPU work and writing no result: a bad flag or setting (P2PCONF_*), a label filter that does not parse or names a check or suite the catalogue lacks, a --known-deviations file that cannot be read or has a bad entry (named by file:line), or a report folder that cannot be used, all found before any suite is built; or a label filter that selects no spec"},
	exitRow{"run", exitIncomplete, "incomplete run or harness error: the driver (or the fake) could not be opened, found before any suite is built; a suite did not run or stopped early, a result has status error, a suite process failed, or the suites could not be built or listed"},

	exitRow{"report", exitOK, "all conform: every check of every suite the run meant to run passed or was skipped, or failed and -known-deviations accepts it (still reported as a failure, with its note)"},
	exitRow{"report", exitFailure, "a conformance failure: a check failed or timed out; wins over 3"},
	exitRow{"report", exitUsage, usageMeaning(", a folder that does not exist, -suites naming a suite that is neither known nor in the folder, or a -known-deviations file that cannot be read or has a bad entry")},
	exitRow{"report", exitIncomplete, "incomplete run or harness error: a suite the run meant to run (run.json in the folder, else -suites, else all) did not run or stopped early, a result has status error or a suite setup failed, no result at all, or the files could not be read or written"},

	exitRow{"diff", exitOK, "no regression and nothing missing"},
	exitRow{"diff", exitFailure, "a regression: a check that passed in OLD fails in NEW and no -known-deviations entry accepts it; wins over 3"},
	exitRow{"diff", exitUsage, usageMeaning(", a -known-deviations file that cannot be read or has a bad entry, or runs of different backends or GPU sets without -allow-mismatch")},
	exitRow{"diff", exitIncomplete, "results of OLD missing from NEW (listed apart: their suite or host did not run, or nothing explains it), or the files could not be read"},

	exitRow{"plan", exitOK, "the plan was printed"},
	exitRow{"plan", exitUsage, usageMeaning(", -j below 0 or an unknown -preset")},
	exitRow{"plan", exitIncomplete, "the suites could not be built or listed"},

	exitRow{"topo", exitOK, "every claim was read"},
	exitRow{"topo", exitFailure, "a claim could not be read (NVML or cuDeviceCanAccessPeer gave no answer): could not tell is never not supported"},
	exitRow{"topo", exitUsage, usageMeaning(", or the machine could not be opened (no driver)")},

	exitRow{"repro", exitOK, "the reproducers were written"},
	exitRow{"repro", exitUsage, usageMeaning(", a check not in the catalogue or without a reproducer, or a GPU or pair this machine does not have")},
	exitRow{"repro", exitIncomplete, "the reproducers could not be written"},

	exitRow{"ticket", exitOK, "the ticket was written"},
	exitRow{"ticket", exitUsage, usageMeaning(", or a run folder that does not exist")},
	exitRow{"ticket", exitIncomplete, "the run folder holds no readable results, or the ticket could not be written"},

	exitRow{"version", exitOK, "the version was printed"},
	exitRow{"version", exitUsage, "bad input: an argument"},

	exitRow{"run.sh", exitOK, "as p2pconf run, which it runs (and for --help)"},
	exitRow{"run.sh", exitFailure, "as p2pconf run: a conformance failure"},
	exitRow{"run.sh", exitUsage, "as p2pconf run: bad input"},
	exitRow{"run.sh", exitIncomplete, "as p2pconf run: an incomplete run or harness error"},

	exitRow{"suite binary", exitOK, "go test ./suites/NAME or the compiled NAME.test: every spec passed or was skipped for a reason the catalogue names"},
	exitRow{"suite binary", exitFailure, "a spec failed (Ginkgo's status); the ginkgo command exits 1 for any suite that did not pass, whatever its binary's status"},
	exitRow{"suite binary", exitUsage, "bad input, found before the spec tree is built and writing no result: a bad setting (P2PCONF_*), a label filter that does not parse or names a check or suite the catalogue lacks, or ginkgo -p (one suite's specs at once on the same GPUs)"},

	exitRow{"make conformance", exitOK, "as p2pconf run: every check conformed"},
	exitRow{"make conformance", exitUsage, "anything else: make exits 2 for every failed command, so the line before it, \"make conformance: p2pconf run exited N (...)\", gives p2pconf run's own status (1, 2 or 3); CI that gates on the status runs p2pconf run or run.sh itself"},
)
