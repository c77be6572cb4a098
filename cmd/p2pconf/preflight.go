// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/p2pconf/p2pconf/harness/machine"
	"github.com/p2pconf/p2pconf/harness/preflight"
	"github.com/p2pconf/p2pconf/harness/report"
)

const preflightUsage = `usage: p2pconf preflight [--run NAME] [--verdict FILE] [--textfile DIR] [--features FILE]
                         [--features-expiry D] [--suites LIST] [-j N] [GINKGO FLAGS...]
       p2pconf preflight --dry-run [--preset NAME] [-j N]
       p2pconf preflight status [--max-age D] [--reason] PATH

Runs the preflight profile: the suites' own checks that a node that has just
come up must pass (data-path probes on every ordered pair: a kernel store
read back by the owner, verified peer copies, a .sys flag handoff while both
kernels run, native peer atomics, each direction enabled alone, claims
against behaviour; and the machine: Xid events, fabric, links against the
topology's claim, error counters, copy bandwidth against the link's floor).
The run writes the same reports as p2pconf run into reports/NAME (default
preflight-<UTC time>) plus verdict.json: PASS, WARN, FAIL or UNKNOWN per
GPU, per pair and for the node, each with a recommended action, the likely
cause of a failing pair and the NCCL setting that avoids it. It prints the
verdict and one line per target that did not pass.

  --run NAME            run folder reports/NAME (P2PCONF_REPORT_DIR names one instead)
  --verdict FILE        also write the verdict to FILE (a fixed path for the doors)
  --textfile DIR        write DIR/p2pconf.prom for node_exporter's textfile collector
  --features FILE       write Node Feature Discovery labels to FILE (in features.d)
  --features-expiry D   let NFD drop the labels D after the run (e.g. 2h; default: never)
  --suites LIST         run only these suites of the profile (the verdict lists the others
                        as left out and speaks only for the checks that ran)
  -j N                  at most N suite processes at once
  --dry-run             print the profile's schedule and the time model's prediction
  --preset NAME         with --dry-run: for the GPUs of a fake preset (nvlink8, h200x2, ...)
  GINKGO FLAGS          passed to every suite binary

status prints one line about the verdict in PATH (verdict.json or its run
folder) and exits 0 for PASS or WARN, 1 for FAIL, 2 for UNKNOWN, a missing
verdict or one older than --max-age (Node Problem Detector's convention);
with --reason it prints the Slurm drain reason "p2pconf: <target> <check>".

Exit status of a preflight run: 0 PASS or WARN, 1 FAIL, 2 usage error,
3 UNKNOWN (the run could not judge the node).
`

type preflightFlags struct {
	run, verdict, textfile, features, suites, preset string
	expiry                                           time.Duration
	limit                                            int
	dryRun, help                                     bool
	extra                                            []string
}

func parsePreflightFlags(args []string) (preflightFlags, error) {
	var f preflightFlags
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			return f, usageErr("unexpected argument %q", a)
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		value := func() (string, error) { return flagValue(args, &i, val, hasVal) }
		var err error
		switch name {
		case "run":
			f.run, err = value()
			if err == nil {
				err = checkRunName(f.run)
			}
		case "verdict":
			f.verdict, err = value()
		case "textfile":
			f.textfile, err = value()
		case "features":
			f.features, err = value()
		case "features-expiry":
			var v string
			if v, err = value(); err == nil {
				if f.expiry, err = time.ParseDuration(v); err != nil || f.expiry <= 0 {
					err = usageErr("--features-expiry %q: want a positive duration such as 2h", v)
				}
			}
		case "suites":
			f.suites, err = value()
		case "preset":
			f.preset, err = value()
		case "j", "jobs":
			var v string
			if v, err = value(); err == nil {
				if f.limit, err = strconv.Atoi(v); err != nil || f.limit < 0 {
					err = usageErr("-j %q: want a number of processes (0: no limit)", v)
				}
			}
		case "dry-run":
			f.dryRun = true
		case "h", "help":
			f.help = true
		default:
			if strings.HasPrefix(name, "ginkgo.") {
				f.extra = append(f.extra, a)
				continue
			}
			err = usageErr("unknown flag %s", a)
		}
		if err != nil {
			return f, err
		}
	}
	if f.preset != "" && !f.dryRun {
		return f, usageErr("--preset plans a fake preset's GPUs and needs --dry-run")
	}
	return f, nil
}

// profileSuites is the profile's suites, narrowed to those named in only.
func profileSuites(only string) ([]string, error) {
	all := preflight.Suites()
	if only == "" {
		return all, nil
	}
	in := map[string]bool{}
	for _, s := range all {
		in[s] = true
	}
	var out []string
	for _, s := range strings.Split(only, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if !in[s] {
			return nil, usageErr("--suites: %q is not a suite of the preflight profile (%s)", s, strings.Join(all, ","))
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, usageErr("--suites %q names no suite", only)
	}
	return out, nil
}

func cmdPreflight(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "status" {
		return cmdPreflightStatus(args[1:], stdout, stderr)
	}
	f, err := parsePreflightFlags(args)
	if err != nil {
		return err
	}
	if f.help {
		fmt.Fprint(stdout, preflightUsage)
		return nil
	}
	if _, err := profileSuites(f.suites); err != nil {
		return err
	}
	// The suites meant to run are judged (one without results is UNKNOWN);
	// those narrowed away with --suites are listed as left out.
	suites, _ := profileSuites(f.suites)
	if f.dryRun {
		plan := []string{"-both-ways", "-suites", strings.Join(suites, ","), "-label-filter", preflight.Filter()}
		if f.preset != "" {
			plan = append(plan, "-preset", f.preset)
		}
		if f.limit > 0 {
			plan = append(plan, "-j", strconv.Itoa(f.limit))
		}
		return cmdPlan(plan, stdout, stderr)
	}
	dir, restore, err := preflightFolder(f.run, stderr)
	if err != nil {
		return err
	}
	defer restore()
	runArgs := []string{"--both-ways", "--suites", strings.Join(suites, ","), "--label-filter", preflight.Filter()}
	if f.limit > 0 {
		runArgs = append(runArgs, "-j", strconv.Itoa(f.limit))
	}
	runArgs = append(runArgs, f.extra...)
	start := time.Now()
	// The run's own console report goes to standard error: standard output
	// is the verdict.
	runErr := cmdRun(runArgs, stderr, stderr)
	var st statusError
	if errors.As(runErr, &st) && st.code == exitUsage {
		return runErr
	}
	var v preflight.Verdict
	doc, err := report.ReadDocument(filepath.Join(dir, report.ConformanceFile))
	if err != nil {
		v = unknownVerdict(dir, start, fmt.Sprintf("the run left no report to judge (%v; run: %v)", err, runErr))
	} else {
		root := "/"
		if doc.System.IsFake() {
			root = "" // the fake's GPUs have no sysfs of their own
		}
		opt := preflight.Options{Suites: suites, SysfsRoot: root, RunDir: dir, Unavailable: unavailable(suites)}
		if rec, ok, err := readRunRecord(dir); err == nil && ok {
			opt.GPUs = rec.GPUs
		}
		v = preflight.Judge(doc, opt)
	}
	if err := writeVerdict(dir, f, v); err != nil {
		return incomplete(err)
	}
	printPreflight(stdout, v)
	fmt.Fprintf(stderr, "p2pconf preflight: %s in %.1f s; verdict in %s\n", v.Verdict, time.Since(start).Seconds(), filepath.Join(dir, preflight.VerdictFile))
	switch v.Verdict {
	case preflight.Pass, preflight.Warn:
		return nil
	case preflight.Fail:
		return exitError(exitFailure)
	}
	return exitError(exitIncomplete)
}

// preflightFolder picks the run folder and names it to p2pconf run through
// P2PCONF_REPORT_DIR (unless the caller did), so the verdict is read from
// where the run wrote.
func preflightFolder(name string, stderr io.Writer) (string, func(), error) {
	if explicit := os.Getenv(machine.EnvReportDir); explicit != "" {
		dir, err := filepath.Abs(explicit)
		return dir, func() {}, err
	}
	if name == "" {
		name = "preflight-" + time.Now().UTC().Format("20060102T150405Z")
	}
	dir, err := runFolder(runRoot(), name, "", stderr)
	if err != nil {
		return "", nil, err
	}
	if err := os.Setenv(machine.EnvReportDir, dir); err != nil {
		return "", nil, incomplete(err)
	}
	// The folder preflight made goes again when the run left nothing in it
	// (it stopped before its first suite).
	return dir, func() { _ = os.Unsetenv(machine.EnvReportDir); _ = os.Remove(dir) }, nil
}

// unavailable lists the suites of want that the dist bundle this command
// belongs to does not ship (none from a checkout, which has them all).
func unavailable(want []string) []string {
	dir := bundleDir()
	if dir == "" {
		return nil
	}
	set, err := readBundle(dir)
	if err != nil {
		return want
	}
	have := map[string]bool{}
	for _, b := range set.Suites {
		have[b.Name] = true
	}
	var out []string
	for _, s := range want {
		if !have[s] {
			out = append(out, s)
		}
	}
	return out
}

// unknownVerdict is the verdict of a run that left nothing to judge.
func unknownVerdict(dir string, start time.Time, why string) preflight.Verdict {
	end := time.Now().UTC()
	s := start.UTC()
	v := preflight.Verdict{Schema: preflight.Schema, Verdict: preflight.Unknown, Host: hostname(), Start: &s, End: &end,
		Duration: end.Sub(s).Seconds(), RunDir: dir,
		Node:   []preflight.Outcome{{Check: "run", Verdict: preflight.Unknown, Reason: why}},
		Action: "read the run's output: the suites did not run (a GPU held by another run, a driver that does not load, a missing bundle)"}
	v.Tool.Version, v.Tool.Commit = report.ToolVersion()
	v.First = &preflight.Problem{Target: "node", Check: "run", Status: preflight.Unknown, Reason: why}
	v.Summary = "UNKNOWN: node run: " + firstLine(why)
	return v
}

func writeVerdict(dir string, f preflightFlags, v preflight.Verdict) error {
	if err := preflight.Write(filepath.Join(dir, preflight.VerdictFile), v); err != nil {
		return err
	}
	if f.verdict != "" {
		if err := preflight.Write(f.verdict, v); err != nil {
			return err
		}
	}
	if f.textfile != "" {
		if _, err := preflight.WriteTextfile(f.textfile, v); err != nil {
			return err
		}
	}
	if f.features != "" {
		if err := preflight.WriteFeatures(f.features, v, f.expiry); err != nil {
			return err
		}
	}
	return nil
}

// printPreflight prints the node's verdict, then each GPU and pair that did
// not pass with its failing checks, causes, action and NCCL setting.
func printPreflight(w io.Writer, v preflight.Verdict) {
	fmt.Fprintf(w, "p2pconf preflight %s on %s (%s): %s\n", v.Verdict, v.Host, v.Backend, v.Summary)
	if len(v.LeftOut) > 0 {
		fmt.Fprintf(w, "  suites left out (--suites): %s\n", strings.Join(v.LeftOut, ","))
	}
	for _, o := range v.Node {
		fmt.Fprintf(w, "  node %s: %s: %s\n", o.Verdict, o.Check, o.Reason)
	}
	for _, set := range [][]preflight.Target{v.GPUs, v.Pairs} {
		for _, t := range set {
			if t.Verdict == preflight.Pass {
				continue
			}
			fmt.Fprintf(w, "  %s %s\n", t.Name, t.Verdict)
			for _, o := range t.Checks {
				if o.Verdict != preflight.Pass {
					fmt.Fprintf(w, "    %s %s: %s\n", o.Verdict, o.Check, o.Reason)
					if o.Repro != "" {
						fmt.Fprintf(w, "      reproduce: %s\n", o.Repro)
					}
				}
			}
			for _, c := range t.Causes {
				fmt.Fprintf(w, "    likely cause (%s): %s\n      fix: %s\n", c.Rule, c.Finding, c.Fix)
			}
			fmt.Fprintf(w, "    action: %s\n", t.Action)
			if t.NCCL != nil {
				fmt.Fprintf(w, "    NCCL: %s (%s)\n", t.NCCL.Setting, t.NCCL.Why)
			}
		}
	}
	if v.Verdict != preflight.Pass {
		fmt.Fprintf(w, "action: %s\n", v.Action)
	}
}

func cmdPreflightStatus(args []string, stdout, stderr io.Writer) error {
	fs := flags("preflight status", stderr)
	maxAge := fs.Duration("max-age", 0, "a verdict older than this is UNKNOWN (0: any age)")
	reason := fs.Bool("reason", false, "print the Slurm drain reason (p2pconf: <pair or GPU> <check>) instead of the status line")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErr("preflight status needs one verdict file or run folder")
	}
	v, err := preflight.Read(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stdout, "p2pconf UNKNOWN: no verdict: %v\n", err)
		return exitError(preflight.ExitUnknown)
	}
	code, line := preflight.StatusLine(v, time.Now(), *maxAge)
	if *reason {
		line = preflight.DrainReason(v)
	}
	fmt.Fprintln(stdout, line)
	if code != 0 {
		return exitError(code)
	}
	return nil
}
