// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/p2pconf/p2pconf/harness/report"
)

// cmdReport renders run folders: one folder in place (or into -o), several
// folders of one host merged into -o, several hosts as a fleet view in -o.
// Its exit status judges the run (see the usage text): every host's merged
// results against the suites it was meant to run.
func cmdReport(args []string, stdout, stderr io.Writer) error {
	fs := flags("report", stderr)
	out := fs.String("o", "", "write the rendered files into this folder (needed with several folders)")
	printMD := fs.Bool("print", false, "also print matrix.md (or fleet.md) to standard output")
	suiteList := fs.String("suites", "", "the suites the run was meant to run, comma separated (default: those the folder's run.json names, else all of "+strings.Join(report.KnownSuites(), ",")+")")
	// Accepted so scripts that pass it keep working; a run without results
	// always exits 3, so the flag changes nothing.
	fs.Bool("fail-on-empty", true, "no effect: a run without results always exits 3")
	knownFile := fs.String("known-deviations", "", knownDeviationsHelp)
	if err := parse(fs, args); err != nil {
		return err
	}
	known, err := loadDeviations(*knownFile)
	if err != nil {
		return err
	}
	// Every path below marks the accepted failures afresh (and clears any
	// a document read back carries): nothing is accepted that this
	// invocation's file does not name.
	applied := false
	accept := func(d *report.Document) { report.AcceptKnown(d, known); applied = true }
	defer func() {
		if applied {
			warnUnused(stderr, "report", known)
		}
	}()
	expected, err := expectedSuites(*suiteList)
	if err != nil {
		return err
	}
	dirs := fs.Args()
	if *suiteList == "" && len(dirs) > 0 {
		if recorded, err := recordedSuites(dirs); err != nil {
			return inputErr(err)
		} else if recorded != nil {
			expected = recorded
		}
	}
	if len(dirs) == 0 {
		return usageErr("report needs a run folder, e.g. p2pconf report reports/20260301T100000Z")
	}
	if len(dirs) > 1 && *out == "" {
		return usageErr("several run folders need -o OUT for the merged or fleet view")
	}
	var docs []report.Document
	for _, d := range dirs {
		st, err := os.Stat(d)
		if err != nil {
			return inputErr(err)
		}
		if !st.IsDir() && *out == "" {
			return usageErr("%s is a file; give its run folder, or -o OUT to render it elsewhere", d)
		}
		ds, err := report.LoadInput(d)
		if err != nil {
			if isFile(d) {
				return inputErr(err)
			}
			return incomplete(err)
		}
		docs = append(docs, ds...)
	}
	if err := checkSuiteNames(expected, docs); err != nil {
		return err
	}
	hosts := report.ByHost(docs)
	if len(hosts) > 1 && *out != "" {
		for i := range hosts {
			accept(&hosts[i].Doc)
		}
		if err := report.WriteFleet(*out, hosts); err != nil {
			return incomplete(err)
		}
		var verdicts []report.Verdict
		for _, h := range hosts {
			fmt.Fprintf(stdout, "%s: %s\n", orUnknown(h.Name), summaryLine(h.Doc))
			v := report.Judge(h.Doc, expected)
			printVerdict(stdout, orUnknown(h.Name)+": ", v)
			verdicts = append(verdicts, v)
		}
		fmt.Fprintf(stdout, "fleet view of %d hosts in %s\n", len(hosts), filepath.Join(*out, report.FleetHTMLFile))
		if err := maybePrint(*printMD, stdout, filepath.Join(*out, report.FleetMDFile)); err != nil {
			return incomplete(err)
		}
		return verdictStatus(verdicts...)
	}
	target := *out
	var doc report.Document
	if target == "" {
		// Re-render in place from the per-suite files, under the folder's lock.
		target = dirs[0]
		doc, err = report.RenderDirWith(target, accept)
	} else {
		doc = report.Merge(docs)
		accept(&doc)
		err = report.WriteMerged(target, doc)
	}
	if err != nil {
		return incomplete(err)
	}
	fmt.Fprintf(stdout, "%s [%s]: %s\n", orUnknown(doc.System.Host), doc.System.Backend, summaryLine(doc))
	fmt.Fprintf(stdout, "wrote %s, %s, %s, %s in %s\n", report.ConformanceFile, report.JUnitFile, report.MatrixMDFile, report.MatrixHTMLFile, target)
	v := report.Judge(doc, expected)
	printVerdict(stdout, "", v)
	if err := maybePrint(*printMD, stdout, filepath.Join(target, report.MatrixMDFile)); err != nil {
		return incomplete(err)
	}
	return verdictStatus(v)
}

// expectedSuites reads -suites: empty or "all" is every known suite. Other
// names are taken as given (a suite name or its binary's), so a bundle with
// other suites than this p2pconf knows can name them.
func expectedSuites(list string) ([]string, error) {
	if list == "" || list == "all" {
		return report.KnownSuites(), nil
	}
	var out []string
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, usageErr("-suites %q names no suite", list)
	}
	return out, nil
}

// recordedSuites is the union of the suites the run records of dirs name
// (run.json, written by p2pconf run); nil when one of them has none.
func recordedSuites(dirs []string) ([]string, error) {
	var out []string
	for _, d := range dirs {
		r, ok, err := readRunRecord(d)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, nil
		}
		for _, s := range r.Suites {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out, nil
}

// checkSuiteNames refuses a -suites name that is neither a suite p2pconf
// knows nor one whose results are in docs: "acess" is a typo, not a suite
// that did not run.
func checkSuiteNames(names []string, docs []report.Document) error {
	have := map[string]bool{}
	for _, s := range report.KnownSuites() {
		have[s] = true
	}
	for _, d := range docs {
		for _, s := range d.Suites {
			have[s.Name] = true
			if len(s.Args) > 0 {
				have[strings.TrimSuffix(filepath.Base(s.Args[0]), ".test")] = true
			}
		}
	}
	for _, n := range names {
		if !have[n] {
			return usageErr("-suites: no suite %q (known: %s)", n, strings.Join(report.KnownSuites(), ","))
		}
	}
	return nil
}

// printVerdict prints the line a CI log shows under the counts.
func printVerdict(w io.Writer, prefix string, v report.Verdict) {
	if len(v.Failed) > 0 {
		fmt.Fprintf(w, "%sconformance failure: %d check result(s) failed or timed out\n", prefix, len(v.Failed))
	}
	if len(v.Accepted) > 0 {
		fmt.Fprintf(w, "%s%s accepted as known deviations: %s\n", prefix, plural(len(v.Accepted), "failure"), acceptedList(v.Accepted))
		for _, r := range v.Accepted {
			fmt.Fprintf(w, "%s  fail %s: %s\n", prefix, r.Key(), r.ReasonLine())
		}
	}
	for _, r := range v.Failed {
		if c := r.CauseLine(); c != "" {
			fmt.Fprintf(w, "%s  %s: %s\n", prefix, r.Key(), c)
		}
	}
	for _, why := range v.Incomplete {
		fmt.Fprintf(w, "%sincomplete: %s\n", prefix, why)
	}
	switch {
	case len(v.Failed) > 0 || len(v.Incomplete) > 0:
	case len(v.Accepted) > 0:
		fmt.Fprintf(w, "%sall conform but the %s accepted as known deviations\n", prefix, plural(len(v.Accepted), "failure"))
	default:
		fmt.Fprintf(w, "%sall conform\n", prefix)
	}
}

// acceptedList names the accepted failures' checks and variants, in the
// order of the verdict, each once: what the summary line says was let pass.
func acceptedList(rs []report.Result) string {
	var names []string
	for _, r := range rs {
		n := r.Check
		if r.Variant != "" {
			n += " (" + r.Variant + ")"
		}
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ")
}

// verdictStatus is the exit status of one or more hosts' verdicts: a
// conformance failure anywhere wins, so a retry on 3 never hides one.
func verdictStatus(vs ...report.Verdict) error {
	code := exitOK
	for _, v := range vs {
		switch {
		case len(v.Failed) > 0:
			code = exitFailure
		case len(v.Incomplete) > 0 && code == exitOK:
			code = exitIncomplete
		}
	}
	if code == exitOK {
		return nil
	}
	return exitError(code)
}

func summaryLine(d report.Document) string {
	s := d.Summary
	return fmt.Sprintf("%d pass, %d fail, %d skip, %d timeout, %d error", s.Pass, s.Fail, s.Skip, s.Timeout, s.Error)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown host"
	}
	return s
}

func maybePrint(enabled bool, stdout io.Writer, path string) error {
	if !enabled {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "\n%s", data)
	return err
}
