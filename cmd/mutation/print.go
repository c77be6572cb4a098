// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
)

// printResults writes the per-defect report, the specs that alone catch a
// defect and the score, and returns the exit status: 1 when a declared
// catcher missed in some run or the harness failed, else 0.
func printResults(stdout, stderr io.Writer, results []outcome) int {
	caught, missedCatchers, harnessErrors := 0, 0, 0
	for _, o := range results {
		verdict := "MISSED"
		switch {
		case o.err != nil:
			verdict = "ERROR"
			harnessErrors++
		case o.note != "":
			verdict = "not tried"
		case o.caught():
			verdict = "caught"
			caught++
		}
		fmt.Fprintf(stdout, "%s (%s on %s): %s in %d/%d run(s)\n", o.defect.Name, o.defect.Suite, o.preset, verdict,
			caughtRuns(o), len(o.runs))
		fmt.Fprintf(stdout, "  expected: %s\n", strings.Join(o.defect.Catchers, ", "))
		if len(o.suites) > 0 {
			fmt.Fprintf(stdout, "  injected into: %s\n", strings.Join(o.suites, ", "))
		}
		if o.note != "" {
			fmt.Fprintf(stdout, "  %s\n", o.note)
		}
		if o.err != nil {
			fmt.Fprintf(stdout, "  error: %s\n", firstLine(o.err.Error()))
		}
		if len(o.badCatchers) > 0 {
			fmt.Fprintf(stdout, "  not passing without the defect, so no evidence: %s\n", strings.Join(o.badCatchers, ", "))
		}
		for _, r := range o.runs {
			fmt.Fprintf(stdout, "  seed %d: %s\n", r.seed, describeRun(r))
		}
		m := o.misses()
		if o.err == nil && o.note == "" {
			missedCatchers += len(m)
		}
		if len(m) == 0 {
			fmt.Fprintln(stdout, "  misses: none")
		} else {
			fmt.Fprintf(stdout, "  misses: %s\n", strings.Join(m, ", "))
		}
	}
	if sole := soleCatchers(results); len(sole) > 0 {
		fmt.Fprintln(stdout, "\nonly catcher of a defect (the defect goes unseen without this check):")
		for _, line := range sole {
			fmt.Fprintln(stdout, "  "+line)
		}
	}
	shown := map[string]bool{}
	for _, o := range results {
		errs := []error{o.err}
		for _, r := range o.runs {
			errs = append(errs, r.err)
		}
		for _, err := range errs {
			if err != nil && !shown[err.Error()] {
				shown[err.Error()] = true
				fmt.Fprintf(stderr, "\n%s: %v\n", o.defect.Name, err)
				harnessErrors++
			}
		}
	}
	fmt.Fprintf(stdout, "\nmutation score %d/%d (defects caught by a declared catcher on its own assertion in every run)\n",
		caught, len(results))
	if missedCatchers > 0 {
		fmt.Fprintf(stdout, "%d declared catcher(s) missed in some run\n", missedCatchers)
	}
	if harnessErrors > 0 {
		fmt.Fprintf(stderr, "mutation: %d run(s) failed in the harness (see above)\n", harnessErrors)
	}
	if harnessErrors > 0 || missedCatchers > 0 {
		return 1
	}
	return 0
}

func caughtRuns(o outcome) int {
	n := 0
	for _, r := range o.runs {
		if r.err == nil && len(r.caught) > 0 {
			n++
		}
	}
	return n
}

// describeRun is one run's line: the declared catchers that caught the
// defect, then every other new failure with its cause.
func describeRun(r runVerdict) string {
	if r.err != nil {
		return "ERROR " + firstLine(r.err.Error())
	}
	parts := []string{"caught by none"}
	if len(r.caught) > 0 {
		parts[0] = "caught by " + strings.Join(r.caught, ", ")
	}
	if len(r.also) > 0 {
		parts = append(parts, "also caught by: "+strings.Join(groupByID(r.also), ", "))
	}
	if len(r.other) > 0 {
		byCause := map[string][]specResult{}
		var causes []string
		for _, s := range r.other {
			c := s.cause()
			if _, ok := byCause[c]; !ok {
				causes = append(causes, c)
			}
			byCause[c] = append(byCause[c], s)
		}
		sort.Strings(causes)
		for _, c := range causes {
			parts = append(parts, fmt.Sprintf("also failed (%s, not counted): %s", c, strings.Join(groupByID(byCause[c]), ", ")))
		}
	}
	if len(r.crashed) > 0 {
		parts = append(parts, "failed as a whole: "+strings.Join(r.crashed, ", "))
	}
	return strings.Join(parts, "; ")
}

// soleCatchers lists the checks that are the only one, of every suite the
// defect was injected into, to catch some defect on their own assertion in
// its runs ("access.uva-owner is the only catcher of pointer-owner-wrong").
func soleCatchers(results []outcome) []string {
	var out []string
	for _, o := range results {
		var who []string
		for _, r := range o.runs {
			ids := slices.Clone(r.caught)
			for _, s := range r.also {
				ids = append(ids, s.ID)
			}
			for _, c := range ids {
				if !slices.Contains(who, c) {
					who = append(who, c)
				}
			}
		}
		if len(who) == 1 {
			out = append(out, fmt.Sprintf("%s is the only catcher of %s", who[0], o.defect.Name))
		}
	}
	sort.Strings(out)
	return out
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
