// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/p2pconf/p2pconf/harness/report"
)

// cmdDiff compares two runs. Its exit status gates CI (see the usage text):
// 1 on a regression, 3 when results of OLD are missing from NEW (a suite or
// host that did not run, or an absence nothing else explains), 2 when the runs are not comparable (different
// backends or GPU sets) and -allow-mismatch was not given.
func cmdDiff(args []string, stdout, stderr io.Writer) error {
	fs := flags("diff", stderr)
	asJSON := fs.Bool("json", false, "print the comparison as JSON")
	strict := fs.Bool("strict", false, "also fail on checks newly failing that did not pass before, and on passes now skipped")
	allow := fs.Bool("allow-mismatch", false, "compare runs of different backends (driver and fake) or different GPU sets")
	threshold := fs.Float64("metric-threshold", 0.1, "relative metric change worth reporting (0.1 = 10%)")
	knownFile := fs.String("known-deviations", "", knownDeviationsHelp)
	if err := parse(fs, args); err != nil {
		return err
	}
	known, err := loadDeviations(*knownFile)
	if err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return usageErr("diff needs two runs, OLD and NEW (got %s)", plural(fs.NArg(), "argument"))
	}
	if *threshold <= 0 {
		return usageErr("-metric-threshold must be positive (got %g)", *threshold)
	}
	// One run given twice (A A, or A ./A, or a link to A) compares nothing:
	// "no regressions" would be a pass for a slip.
	if a, err := os.Stat(fs.Arg(0)); err == nil {
		if b, err := os.Stat(fs.Arg(1)); err == nil && os.SameFile(a, b) {
			return usageErr("%s and %s are the same run; diff compares two different runs, OLD and NEW", fs.Arg(0), fs.Arg(1))
		}
	}
	var sides [2][]report.Document
	for i, p := range fs.Args() {
		docs, err := report.LoadInput(p)
		if err != nil {
			if isNotExist(err) || isFile(p) {
				return inputErr(err) // a path or a file that is not a result: the caller's
			}
			return incomplete(err)
		}
		sides[i] = docs
	}
	// Only this invocation's file accepts anything in NEW: the marks it
	// carries are replaced. OLD keeps its own: a failure OLD accepted only
	// through a known deviation is a regression when NEW fails it without
	// one, so an entry that expires or is removed fails the gate again.
	for j := range sides[1] {
		report.AcceptKnown(&sides[1][j], known)
	}
	defer warnUnused(stderr, "diff", known)
	d := report.Diff(sides[0], sides[1], report.DiffOptions{MetricThreshold: *threshold, Strict: *strict, AllowMismatch: *allow})
	if len(d.Mismatches) > 0 {
		return statusError{code: exitUsage, err: fmt.Errorf("%s and %s are not comparable: %s; pass -allow-mismatch to compare them anyway",
			fs.Arg(0), fs.Arg(1), strings.Join(d.Mismatches, "; "))}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(d); err != nil {
			return incomplete(err)
		}
	} else {
		fmt.Fprintf(stdout, "p2pconf diff %s %s\n%s", fs.Arg(0), fs.Arg(1), d.Text())
	}
	switch {
	case d.Regressions > 0:
		return exitError(exitFailure)
	case d.Incomplete > 0:
		return exitError(exitIncomplete)
	}
	return nil
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
