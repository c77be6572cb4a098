// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/p2pconf/p2pconf/harness/machine"
	"github.com/p2pconf/p2pconf/harness/report"
	"github.com/p2pconf/p2pconf/harness/schedule"
	"github.com/p2pconf/p2pconf/internal/suiterun"
)

// runFlags are p2pconf run's options. Ginkgo flags (--ginkgo.v, ...) and
// whatever follows "--" go to every suite binary; anything else is refused.
type runFlags struct {
	run, suites, filter, model, profile string
	knownDeviations                     string
	mutants                             string
	limit                               int
	serial, dryRun, help, keep          bool
	bothWays                            bool
	extra                               []string
}

const runUsage = `usage: p2pconf run [--run NAME] [--suites LIST] [--label-filter EXPR] [-j N] [--serial]
                   [--both-ways] [--mutants WHICH] [--dry-run [--model FILE] [--profile P]] [--keep]
                   [--known-deviations FILE]
                   [--ginkgo.FLAG...] [-- SUITE FLAGS...]

Runs the suites on this machine's GPUs, several processes at once on
disjoint GPUs: first, alone on the machine, the bandwidth suite (its sweeps
measure the path) and every machine-wide spec; then every per-GPU spec, one
process per GPU, all GPUs at once; then the ordered pairs in rounds of
disjoint pairs (8 GPUs: 14 rounds of 4); then three-GPU placements. Every
process writes into shards/<shard>/ of the run folder; at the end the
results are merged into the run folder, with a schedule section saying
which processes ran together.

  --run NAME           run folder reports/NAME (default: UTC time); when it
                       holds an earlier run, NAME.2 (NAME.3, ...) is used and
                       the run says so
  --suites LIST        only these suites (comma separated; default: all)
  --label-filter EXPR  Ginkgo label filter, e.g. 'id:access.peer-copy && pair:0-1'
  -j N                 at most N processes at once (default: no limit)
  --serial             one process per suite with every GPU, one after another
  --both-ways          play both directions of a pair in one process per suite
                       (8 GPUs: 7 pair rounds, half the process starts; what
                       preflight runs)
  --mutants WHICH      representative (default): the pair mutants only on one
                       pair per link class and its reverse; the forbidden tests
                       run on every pair and take their power verdict from the
                       same test there; all: every pair's own mutants
  --dry-run            print the schedule and the time model's prediction; run nothing
  --model FILE         time model for --dry-run (default: the H200 figures)
  --profile P          litmus profile: default, certify or space (the whole
                       generated litmus space); sets P2PCONF_LITMUS_PROFILE
  --known-deviations FILE
                       accept the failures this file names by check, variant,
                       driver range and cause (docs/known-deviations.md): they
                       stay failures in every report, with their notes, and the
                       summary says how many were accepted; a run whose only
                       failures are accepted exits 0; entries that accepted
                       nothing are warned about
  --keep               keep the suite binaries built from a checkout (their
                       folder is named at the end); by default it is removed
  --ginkgo.FLAG        passed to every suite binary, e.g. --ginkgo.v or
                       --ginkgo.seed=5 (a value after =); so is everything
                       after --; any other flag is refused

P2PCONF_REPORT_DIR names the run folder instead of --run; it must be empty
or absent (results of two runs are never merged). Other P2PCONF_* variables
work as with go test. Every flag and setting is checked before anything is
built or run. The folder's run.json records the suites the run meant to
run, which p2pconf report then expects.

`

// parseLimit reads -j: a number of processes, 0 for no limit.
func parseLimit(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, usageErr("-j %q: want a number of processes (0: no limit)", v)
	}
	return n, nil
}

func parseRunFlags(args []string) (runFlags, error) {
	f := runFlags{mutants: "representative"}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") {
			return f, usageErr("unexpected argument %q (run takes flags only; suite flags go after --)", a)
		}
		if a == "--" {
			f.extra = append(f.extra, args[i+1:]...)
			break
		}
		value := func() (string, error) { return flagValue(args, &i, val, hasVal) }
		var err error
		switch name {
		case "run":
			f.run, err = value()
			if err == nil {
				err = checkRunName(f.run)
			}
		case "suites":
			f.suites, err = value()
		case "label-filter", "ginkgo.label-filter":
			f.filter, err = value()
		case "model":
			f.model, err = value()
		case "profile":
			f.profile, err = value()
		case "known-deviations":
			f.knownDeviations, err = value()
		case "mutants":
			f.mutants, err = value()
			if err == nil && f.mutants != "all" && f.mutants != "representative" {
				err = usageErr("--mutants %q: all or representative", f.mutants)
			}
		case "j", "jobs":
			var v string
			if v, err = value(); err == nil {
				f.limit, err = parseLimit(v)
			}
		case "serial":
			f.serial = true
		case "both-ways":
			f.bothWays = true
		case "dry-run":
			f.dryRun = true
		case "keep":
			f.keep = true
		case "h", "help":
			f.help = true
		default:
			if !strings.HasPrefix(name, "ginkgo.") {
				return f, usageErr("flag provided but not defined: %s", a)
			}
			f.extra = append(f.extra, a)
		}
		if err != nil {
			return f, err
		}
	}
	return f, nil
}

// cmdRun runs the suites as the schedule plans them and renders the report.
// Every flag and setting is checked first: bad input exits 2 before a
// suite is built, a folder made or a GPU locked.
func cmdRun(args []string, stdout, stderr io.Writer) error {
	started := false // a suite process was started: the folder is the run's
	f, err := parseRunFlags(args)
	if err != nil {
		return err
	}
	if f.help {
		fmt.Fprint(stdout, runUsage+exitText("run"))
		return nil
	}
	if err := checkSettings(); err != nil {
		return err
	}
	if err := checkFilter(f.filter); err != nil {
		return usageErr("%v", err)
	}
	model, err := loadModel(f.model, f.profile)
	if err != nil {
		return err
	}
	if _, err := loadDeviations(f.knownDeviations); err != nil {
		return err
	}
	// Until the suite processes start (r.Watch), an interrupt or a
	// termination stops the build or the listing and returns here, so that
	// the binaries' temporary folder is removed (the processes of the
	// build share the terminal's interrupt and stop with it).
	early := make(chan os.Signal, 1)
	signal.Notify(early, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(early)
	stopped := func() error {
		select {
		case sig := <-early:
			return incomplete(fmt.Errorf("%v before any suite ran", sig))
		default:
			return nil
		}
	}
	// The run folder first: a name taken by an earlier run is refused (or
	// renamed) before anything is built or run.
	var dir string
	if !f.dryRun {
		explicit := os.Getenv(machine.EnvReportDir)
		_, statErr := os.Stat(explicit)
		kept := explicit != "" && statErr == nil // the caller's folder: emptied, never removed
		if dir, err = runFolder(runRoot(), f.run, explicit, stderr); err != nil {
			return err
		}
		// A run that stops before its first suite leaves no folder behind
		// (nor its run.json): an empty report reads as a run that happened.
		defer func() {
			if !started {
				unmakeRunFolder(dir, kept)
			}
		}()
	}
	// The driver (or the fake) before anything is built: a machine without
	// a GPU stops here in seconds, and the GPUs are this run's from now on.
	if !f.dryRun {
		release, err := holdGPUs(stderr)
		if err != nil {
			return incomplete(err)
		}
		defer release()
	}
	set, err := suitesFor(f.suites, stderr)
	if set.cleanup != nil {
		if f.keep {
			defer func() { fmt.Fprintf(stderr, "p2pconf run: --keep: the suite binaries are in %s\n", set.tmp) }()
		} else {
			defer set.cleanup()
		}
	}
	if err := errors.Join(stopped(), err); err != nil {
		return err
	}
	specs, err := listSpecs(set, suiterun.CleanEnv(machine.EnvReportDir), f.filter)
	if err := errors.Join(stopped(), err); err != nil {
		return err
	}
	opt := schedule.Options{Serial: f.serial, SuiteOrder: suiteNames(set), RepresentativeMutants: f.mutants == "representative", BothWays: f.bothWays}
	plan, err := schedule.Make(specs, gpusOf(specs), opt)
	if err != nil {
		return incomplete(err)
	}
	if plan.Specs() == 0 {
		return usageErr("the label filter %q selects no spec in suites %s", f.filter, strings.Join(suiteNames(set), ","))
	}
	if f.dryRun {
		printPlan(stdout, "this machine", plan, model, f.limit)
		return nil
	}
	if n := len(schedule.Dropped(specs, opt)); n > 0 {
		fmt.Fprintf(stderr, "p2pconf run: --mutants representative: %d pair litmus mutants left to their link class's representative pairs\n", n)
	}
	r := &suiterun.Executor{Suites: set.Suites, Plan: plan, Dir: dir, Filter: f.filter, Extra: f.extra, Limit: f.limit,
		Serial: f.serial, Mutants: f.mutants, Stdout: stdout, Stderr: stderr,
		RunID: fmt.Sprintf("%s-%s-%d", time.Now().UTC().Format("20060102T150405Z"), hostname(), os.Getpid())}
	// What the run means to run, before it runs: p2pconf report on this
	// folder expects the same suites, whatever happens to the processes.
	if err := writeRunRecord(dir, runRecord{RunID: r.RunID, Suites: planSuites(plan), LabelFilter: f.filter, GPUs: plan.GPUs}); err != nil {
		return incomplete(err)
	}
	pred := model.Predict(plan, f.limit)
	r.Pred = pred
	fmt.Fprintf(stderr, "p2pconf run %s: %d specs, %d rounds, %d processes; the %s model predicts %s; reports in %s\n",
		r.RunID, plan.Specs(), len(plan.Rounds), plan.Processes(), model.Name, suiterun.Seconds(pred.Seconds), dir)
	signal.Stop(early)
	if err := stopped(); err != nil {
		return err
	}
	started = true
	unwatch := r.Watch()
	ok := r.Execute()
	unwatch()
	if _, err := r.Merge(); err != nil {
		fmt.Fprintf(stderr, "p2pconf run: merging the results: %v\n", err)
		ok = false
	}
	// The report judges the run as p2pconf report on the folder does (it
	// reads the suites the run meant to run from run.json).
	reportArgs := []string{dir}
	if f.knownDeviations != "" {
		reportArgs = []string{"-known-deviations", f.knownDeviations, dir}
	}
	rerr := cmdReport(reportArgs, stdout, stderr)
	var st statusError
	if errors.As(rerr, &st) {
		fmt.Fprintf(stderr, "p2pconf report: %v\n", st)
	}
	fmt.Fprintf(stderr, "reports in %s\n", dir)
	if !ok && rerr == nil && acceptedIn(dir) > 0 && r.FailedOnlyBySpecs() {
		// The processes exited 1 for the failures the known-deviations
		// file accepted, and left every result: the report's verdict holds.
		ok = true
	}
	return runStatus(ok, rerr)
}

// runStatus is run's exit status from whether every process ran cleanly
// and the report's verdict: the verdict's (a failure wins), else 3 when a
// process failed or left fewer results than specs although every result
// it left conforms.
func runStatus(processesOK bool, verdict error) error {
	var code exitError
	switch {
	case verdict == nil && processesOK:
		return nil
	case errors.As(verdict, &code):
		return code
	case verdict != nil:
		return exitError(exitIncomplete)
	}
	return exitError(exitIncomplete)
}

// acceptedIn is the number of accepted failures in the run folder's merged
// conformance.json (0 when it cannot be read).
func acceptedIn(dir string) int {
	docs, err := report.LoadInput(filepath.Join(dir, report.ConformanceFile))
	n := 0
	if err == nil {
		for _, d := range docs {
			n += report.AcceptedCount(d)
		}
	}
	return n
}

// runRoot is the folder reports/ is under: the dist bundle's, else the
// checkout's root, else the working directory.
func runRoot() string {
	if d := bundleDir(); d != "" {
		return d
	}
	if d, err := moduleRoot(); err == nil {
		return d
	}
	d, _ := os.Getwd()
	return d
}

func hostname() string {
	h, _ := os.Hostname()
	if h == "" {
		h = "host"
	}
	return h
}

// runFolder picks the run folder (suiterun.RunFolder): a folder named that
// cannot take the run is bad input, one that cannot be made under reports/
// leaves the run incomplete.
func runFolder(root, name, explicit string, stderr io.Writer) (string, error) {
	dir, err := suiterun.RunFolder(root, name, explicit, stderr)
	var taken *suiterun.ReportDirError
	switch {
	case errors.As(err, &taken):
		return "", inputErr(err)
	case err != nil && explicit == "":
		return "", incomplete(err)
	}
	return dir, err
}

// unmakeRunFolder removes what a run that never started a suite left in
// dir: its run record, then the folder itself when it is empty and the run
// made it (kept: the caller named it and it was there before).
func unmakeRunFolder(dir string, kept bool) {
	_ = os.Remove(filepath.Join(dir, runRecordFile))
	if !kept {
		_ = os.Remove(dir) // only an empty folder goes
	}
}

// processExit is a finished process's exit code (suiterun.ProcessExit).
func processExit(err error) int { return suiterun.ProcessExit(err) }

// checkRunName refuses a --run value that is not one folder name (run and
// preflight both write into reports/<name>).
func checkRunName(name string) error {
	if name == "" || strings.ContainsRune(name, '/') || name == "." || name == ".." {
		return usageErr("--run %q: a run name is one folder name", name)
	}
	return nil
}

// flagValue is the value of the long flag args[*i] (run's and preflight's
// hand-parsed flags): what follows "=" in it, else the next argument, which
// it consumes by advancing *i.
func flagValue(args []string, i *int, val string, hasVal bool) (string, error) {
	if hasVal {
		return val, nil
	}
	a := args[*i]
	if *i+1 >= len(args) {
		return "", usageErr("%s needs a value", a)
	}
	*i++
	return args[*i], nil
}
