// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Command mutation measures the suite's power on the fake backend: for each
// injectable driver defect it runs the owning suite on the defect's preset
// with that defect alone, and reports which specs failed that pass without
// it. A defect is caught when at least one such spec fails. A defect that
// only a gated run can catch (slow-peer-copy: figures, not errors) is
// injected with P2PCONF_BASELINE set to the clean run's conformance.json and
// a wide tolerance (GateTolerance). The last line is the mutation score,
// caught/injected.
//
//	go run ./cmd/mutation [-defects a,b] [-suites access,ipc] [-preset mixed] [-v] [-keep]
//
// The score is a number to read, not a gate: the exit status is non-zero
// only when the harness itself failed (a suite that does not compile, a run
// that wrote no report). A suite package that does not exist yet counts its
// defects as not caught.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/p2pconf/p2pconf/harness/fake"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// outcome is the verdict for one defect.
type outcome struct {
	defect fake.DefectInfo
	preset string
	caught bool
	failed []specResult
	note   string
	err    error
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mutation", flag.ContinueOnError)
	fs.SetOutput(stderr)
	defects := fs.String("defects", "", "comma list of defects to inject (default: all of them)")
	suites := fs.String("suites", "", "comma list of owning suites to cover (default: all)")
	preset := fs.String("preset", "", "inject every defect on this preset instead of its own")
	timeout := fs.Duration("timeout", 10*time.Minute, "time limit for one suite run")
	verbose := fs.Bool("v", false, "show the suites' output")
	keep := fs.Bool("keep", false, "keep the work directory with every run's report and log")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	selected, err := selectDefects(*defects, *suites)
	if err != nil {
		fmt.Fprintln(stderr, "mutation:", err)
		return 2
	}
	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintln(stderr, "mutation:", err)
		return 2
	}
	work, err := os.MkdirTemp("", "p2pconf-mutation-")
	if err != nil {
		fmt.Fprintln(stderr, "mutation:", err)
		return 2
	}
	if *keep {
		fmt.Fprintln(stderr, "mutation: reports and logs in", work)
	} else {
		defer os.RemoveAll(work)
	}
	m := newMutator(root, work, *timeout, *verbose, stderr)
	var results []outcome
	for _, d := range selected {
		p := d.Preset
		if *preset != "" {
			p = *preset
		}
		results = append(results, m.try(d, p))
	}
	return printResults(stdout, stderr, results)
}

// selectDefects filters fake.Defects() by name and by owning suite.
func selectDefects(names, suites string) ([]fake.DefectInfo, error) {
	all := fake.Defects()
	want := map[string]bool{}
	if names != "" {
		list, err := fake.ParseDefects(names)
		if err != nil {
			return nil, err
		}
		for _, n := range list {
			want[n] = true
		}
	}
	inSuite := map[string]bool{}
	for _, s := range strings.Split(suites, ",") {
		if s = strings.TrimSpace(s); s != "" {
			inSuite[s] = true
		}
	}
	var out []fake.DefectInfo
	for _, d := range all {
		if (len(want) == 0 || want[d.Name]) && (len(inSuite) == 0 || inSuite[d.Suite]) {
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no defect matches -defects=%q -suites=%q", names, suites)
	}
	return out, nil
}

// try injects one defect and compares with the clean baseline.
func (m *mutator) try(d fake.DefectInfo, preset string) outcome {
	o := outcome{defect: d, preset: preset}
	base, err := m.baseline(d.Suite, preset)
	if errors.Is(err, errNotBuilt) {
		o.note = "suite " + d.Suite + " not built yet"
		return o
	}
	if err != nil {
		o.err = err
		return o
	}
	var gate []string
	if d.Gated() {
		if gate, err = m.gateEnv(d.Suite, preset); err != nil {
			o.err = err
			return o
		}
	}
	got, err := m.run(d.Suite, preset, d.Name, gate...)
	if err != nil {
		o.err = err
		return o
	}
	o.failed = newFailures(base, got)
	o.caught = len(o.failed) > 0
	switch {
	case o.caught:
	case got.SuiteFailure != "":
		o.note = "suite failed as a whole: " + got.SuiteFailure
	case base.Passed == 0:
		o.note = fmt.Sprintf("no spec of %s passes on %s without the defect (%d skipped)", d.Suite, preset, base.Skipped)
	default:
		o.note = "every spec that passes without the defect still passes"
	}
	return o
}

func printResults(stdout, stderr io.Writer, results []outcome) int {
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "DEFECT\tSUITE\tPRESET\tRESULT\tFAILED SPECS")
	caught, harnessErrors := 0, 0
	for _, o := range results {
		verdict, detail := "not caught", o.note
		switch {
		case o.err != nil:
			verdict, detail = "ERROR", firstLine(o.err.Error())
			harnessErrors++
		case o.caught:
			verdict, detail = "caught", strings.Join(groupByID(o.failed), ", ")
			caught++
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", o.defect.Name, o.defect.Suite, o.preset, verdict, detail)
	}
	_ = tw.Flush()
	shown := map[string]bool{}
	for _, o := range results {
		if o.err != nil && !shown[o.err.Error()] {
			shown[o.err.Error()] = true
			fmt.Fprintf(stderr, "\n%s: %v\n", o.defect.Name, o.err)
		}
	}
	fmt.Fprintf(stdout, "\nmutation score %d/%d\n", caught, len(results))
	if harnessErrors > 0 {
		fmt.Fprintf(stderr, "mutation: %d run(s) failed in the harness (see above)\n", harnessErrors)
		return 1
	}
	return 0
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
