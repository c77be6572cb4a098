// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/p2pconf/p2pconf/harness/report"
)

// cmdReport renders run folders: one folder in place (or into -o), several
// folders of one host merged into -o, several hosts as a fleet view in -o.
func cmdReport(args []string, stdout, stderr io.Writer) (err error) {
	fs := flags("report", stderr)
	out := fs.String("o", "", "write the rendered files into this folder (needed with several folders)")
	printMD := fs.Bool("print", false, "also print matrix.md (or fleet.md) to standard output")
	failOnEmpty := fs.Bool("fail-on-empty", false, "exit 1 when the runs hold no result (a label filter that matched nothing)")
	if err := parse(fs, args); err != nil {
		return err
	}
	dirs := fs.Args()
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
			return fmt.Errorf("%s: %w", d, err)
		}
		if !st.IsDir() && *out == "" {
			return usageErr("%s is a file; give its run folder, or -o OUT to render it elsewhere", d)
		}
		ds, err := report.LoadInput(d)
		if err != nil {
			return err
		}
		docs = append(docs, ds...)
	}
	if *failOnEmpty {
		defer func() {
			if err == nil && total(docs) == 0 {
				fmt.Fprintln(stderr, "p2pconf report: no results: no spec ran (check the label filter)")
				err = exitError(1)
			}
		}()
	}
	hosts := report.ByHost(docs)
	if len(hosts) > 1 && *out != "" {
		if err := report.WriteFleet(*out, hosts); err != nil {
			return err
		}
		for _, h := range hosts {
			fmt.Fprintf(stdout, "%s: %s\n", orUnknown(h.Name), summaryLine(h.Doc))
		}
		fmt.Fprintf(stdout, "fleet view of %d hosts in %s\n", len(hosts), filepath.Join(*out, report.FleetHTMLFile))
		return maybePrint(*printMD, stdout, filepath.Join(*out, report.FleetMDFile))
	}
	target := *out
	var doc report.Document
	if target == "" {
		// Re-render in place from the per-suite files, under the folder's lock.
		target = dirs[0]
		doc, err = report.RenderDir(target)
	} else {
		doc = report.Merge(docs)
		err = report.WriteMerged(target, doc)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s [%s]: %s\n", orUnknown(doc.System.Host), doc.System.Backend, summaryLine(doc))
	fmt.Fprintf(stdout, "wrote %s, %s, %s, %s in %s\n", report.ConformanceFile, report.JUnitFile, report.MatrixMDFile, report.MatrixHTMLFile, target)
	return maybePrint(*printMD, stdout, filepath.Join(target, report.MatrixMDFile))
}

func total(docs []report.Document) int {
	n := 0
	for _, d := range docs {
		n += len(d.Results)
	}
	return n
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

// cmdDiff compares two runs; a regression exits 1.
func cmdDiff(args []string, stdout, stderr io.Writer) error {
	fs := flags("diff", stderr)
	asJSON := fs.Bool("json", false, "print the comparison as JSON")
	strict := fs.Bool("strict", false, "also fail on checks newly failing that did not pass before, and on passes now skipped")
	threshold := fs.Float64("metric-threshold", 0.1, "relative metric change worth reporting (0.1 = 10%)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return usageErr("diff needs two runs, OLD and NEW (got %d arguments)", fs.NArg())
	}
	if *threshold <= 0 {
		return usageErr("-metric-threshold must be positive (got %g)", *threshold)
	}
	var sides [2][]report.Document
	for i, p := range fs.Args() {
		docs, err := report.LoadInput(p)
		if err != nil {
			return err
		}
		sides[i] = docs
	}
	d := report.Diff(sides[0], sides[1], report.DiffOptions{MetricThreshold: *threshold, Strict: *strict})
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(d); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "p2pconf diff %s %s\n%s", fs.Arg(0), fs.Arg(1), d.Text())
	}
	if d.Regressions > 0 {
		return exitError(1)
	}
	return nil
}
