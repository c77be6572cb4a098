// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/p2pconf/p2pconf/harness/checks"
	"github.com/p2pconf/p2pconf/harness/machine"
	"github.com/p2pconf/p2pconf/harness/report"
	"github.com/p2pconf/p2pconf/harness/schedule"
	"github.com/p2pconf/p2pconf/harness/timemodel"
)

// runFlags are p2pconf run's options. Ginkgo flags (--ginkgo.v, ...) and
// whatever follows "--" go to every suite binary; anything else is refused.
type runFlags struct {
	run, suites, filter, model, profile string
	mutants                             string
	limit                               int
	serial, dryRun, help, keep          bool
	extra                               []string
}

const runUsage = `usage: p2pconf run [--run NAME] [--suites LIST] [--label-filter EXPR] [-j N] [--serial]
                   [--mutants WHICH] [--dry-run [--model FILE] [--profile P]] [--keep]
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
  --mutants WHICH      representative (default): the pair mutants only on one
                       pair per link class and its reverse; the forbidden tests
                       run on every pair and take their power verdict from the
                       same test there; all: every pair's own mutants
  --dry-run            print the schedule and the time model's prediction; run nothing
  --model FILE         time model for --dry-run (default: the H200 figures)
  --profile P          litmus profile of the model: default or certify
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
		value := func() (string, error) {
			if hasVal {
				return val, nil
			}
			if i+1 >= len(args) {
				return "", usageErr("%s needs a value", a)
			}
			i++
			return args[i], nil
		}
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
	if err := checks.CheckFilterNames(f.filter); err != nil {
		return usageErr("%v", err)
	}
	model, err := loadModel(f.model, f.profile)
	if err != nil {
		return err
	}
	// Until the suite processes start (r.watchSignals), an interrupt or a
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
		if dir, err = runFolder(runRoot(), f.run, os.Getenv(machine.EnvReportDir), stderr); err != nil {
			return err
		}
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
	if !f.dryRun {
		release, err := holdGPUs(stderr)
		if err != nil {
			return incomplete(err)
		}
		defer release()
	}
	specs, err := listSpecs(set, cleanEnv(machine.EnvReportDir), f.filter)
	if err := errors.Join(stopped(), err); err != nil {
		return err
	}
	opt := schedule.Options{Serial: f.serial, SuiteOrder: suiteNames(set), RepresentativeMutants: f.mutants == "representative"}
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
	r := &runner{set: set, plan: plan, dir: dir, filter: f.filter, extra: f.extra, limit: f.limit,
		serial: f.serial, mutants: f.mutants, stdout: stdout, stderr: stderr,
		runID: fmt.Sprintf("%s-%s-%d", time.Now().UTC().Format("20060102T150405Z"), hostname(), os.Getpid())}
	// What the run means to run, before it runs: p2pconf report on this
	// folder expects the same suites, whatever happens to the processes.
	if err := writeRunRecord(dir, runRecord{RunID: r.runID, Suites: planSuites(plan), LabelFilter: f.filter}); err != nil {
		return incomplete(err)
	}
	pred := model.Predict(plan, f.limit)
	r.pred = pred
	fmt.Fprintf(stderr, "p2pconf run %s: %d specs, %d rounds, %d processes; the %s model predicts %s; reports in %s\n",
		r.runID, plan.Specs(), len(plan.Rounds), plan.Processes(), model.Name, seconds(pred.Seconds), dir)
	signal.Stop(early)
	if err := stopped(); err != nil {
		return err
	}
	unwatch := r.watchSignals()
	ok := r.execute()
	unwatch()
	if _, err := r.merge(); err != nil {
		fmt.Fprintf(stderr, "p2pconf run: merging the results: %v\n", err)
		ok = false
	}
	// The report judges the run as p2pconf report on the folder does (it
	// reads the suites the run meant to run from run.json).
	rerr := cmdReport([]string{dir}, stdout, stderr)
	var st statusError
	if errors.As(rerr, &st) {
		fmt.Fprintf(stderr, "p2pconf report: %v\n", st)
	}
	fmt.Fprintf(stderr, "reports in %s\n", dir)
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

// runFolder picks the run folder. An explicit folder (P2PCONF_REPORT_DIR)
// must be empty or absent: a caller that named it reads it afterwards, so
// the run refuses rather than writing elsewhere. reports/NAME under root
// that holds an earlier run gives way to NAME.2, NAME.3, ... and the run
// says so: results of two runs are never merged.
func runFolder(root, name, explicit string, stderr io.Writer) (string, error) {
	if explicit != "" {
		dir, err := filepath.Abs(explicit)
		if err != nil {
			return "", inputErr(err)
		}
		if !emptyDir(dir) {
			return "", inputErr(fmt.Errorf("report folder %s (P2PCONF_REPORT_DIR) already holds files of an earlier run; "+
				"results of two runs are never merged: give this run a fresh folder", dir))
		}
		return dir, os.MkdirAll(dir, 0o755)
	}
	if name == "" {
		name = time.Now().UTC().Format("20060102T150405Z")
	}
	base := filepath.Join(root, "reports", name)
	dir := base
	for n := 2; !emptyDir(dir); n++ {
		dir = fmt.Sprintf("%s.%d", base, n)
	}
	if dir != base {
		fmt.Fprintf(stderr, "p2pconf run: %s holds an earlier run named %s; this run writes to %s instead (results of two runs are never merged)\n",
			base, name, dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", incomplete(err)
	}
	return dir, nil
}

// emptyDir reports whether dir is absent or has no entries.
func emptyDir(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	return len(ents) == 0
}

// runner executes a plan.
type runner struct {
	set            suiteSet
	plan           schedule.Plan
	dir, runID     string
	filter         string
	extra          []string
	limit          int
	serial         bool
	mutants        string
	pred           timemodel.Prediction // of plan, for the ETA of each round
	stdout, stderr io.Writer

	rounds []report.ScheduleRound
	out    sync.Mutex // one writer of console lines at a time

	// An interrupt or termination stops the run: no process starts after
	// it, the running ones stop too, and what they wrote is merged.
	sigMu   sync.Mutex
	stopped os.Signal
	running map[*exec.Cmd]bool
}

// watchSignals stops the run on SIGINT or SIGTERM; the returned function
// stops watching.
func (r *runner) watchSignals() func() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case sig := <-ch:
				r.sigMu.Lock()
				r.stopped = sig
				// An interrupt from the terminal reaches the whole process
				// group already, and a second one would make Ginkgo skip its
				// reports; a termination reaches only this process.
				if sig == syscall.SIGTERM {
					for c := range r.running {
						_ = c.Process.Signal(sig)
					}
				}
				r.sigMu.Unlock()
				r.say("p2pconf run: %v: no further process starts; merging what ran", sig)
			case <-done:
				return
			}
		}
	}()
	return func() { signal.Stop(ch); close(done) }
}

// start starts cmd unless the run was stopped, and tracks it for signals.
func (r *runner) start(cmd *exec.Cmd) error {
	r.sigMu.Lock()
	defer r.sigMu.Unlock()
	if r.stopped != nil {
		return fmt.Errorf("not started: the run was stopped (%v)", r.stopped)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	if r.running == nil {
		r.running = map[*exec.Cmd]bool{}
	}
	r.running[cmd] = true
	return nil
}

// wait waits for a started cmd.
func (r *runner) wait(cmd *exec.Cmd) error {
	err := cmd.Wait()
	r.sigMu.Lock()
	delete(r.running, cmd)
	r.sigMu.Unlock()
	return err
}

// runCmd starts and waits for cmd.
func (r *runner) runCmd(cmd *exec.Cmd) error {
	if err := r.start(cmd); err != nil {
		return err
	}
	return r.wait(cmd)
}

// conformanceFlags are the Ginkgo flags of every suite process: never an
// empty or pending process counted as green, a trace with every failure, a
// note where a spec is slow.
var conformanceFlags = []string{"--ginkgo.fail-on-pending", "--ginkgo.fail-on-empty", "--ginkgo.trace",
	"--ginkgo.poll-progress-after=60s", "--ginkgo.timeout=2h"}

// execute runs the rounds one after another, the lanes of a round at once
// (at most limit), the processes of a lane one after another. It returns
// false when a process failed or left fewer results than it had specs.
func (r *runner) execute() bool {
	ok := true
	for i, round := range r.plan.Rounds {
		slots := len(round.Lanes)
		if r.limit > 0 && r.limit < slots {
			slots = r.limit
		}
		start := time.Now().UTC()
		left := 0.0
		for _, rt := range r.pred.Rounds[i:] {
			left += rt.Seconds
		}
		r.say("== round %s (%s): %d lanes, %d at once; the model expects %s for it, %s for the rest of the run",
			round.Name, round.Kind, len(round.Lanes), slots, seconds(r.pred.Rounds[i].Seconds), seconds(left))
		sem := make(chan struct{}, slots)
		var wg sync.WaitGroup
		var procs []report.ScheduleProcess
		var mu sync.Mutex
		for _, lane := range round.Lanes {
			// Lanes take their slot in plan order, as the time model has them.
			sem <- struct{}{}
			wg.Add(1)
			go func(lane schedule.Lane) {
				defer wg.Done()
				defer func() { <-sem }()
				for _, p := range lane.Processes {
					sp := r.runProcess(lane, p, slots > 1)
					mu.Lock()
					procs = append(procs, sp)
					if sp.ExitCode != 0 || sp.Results < sp.Specs {
						ok = false
					}
					mu.Unlock()
				}
			}(lane)
		}
		wg.Wait()
		end := time.Now().UTC()
		r.rounds = append(r.rounds, report.ScheduleRound{Name: round.Name, Kind: round.Kind, Start: &start, End: &end, Processes: procs})
	}
	return ok
}

// runProcess runs one suite process into shards/<shard>/ and returns its
// schedule entry. With others running beside it (shared), its standard
// output goes to output.log there and its standard error to the console
// with the shard before each line.
func (r *runner) runProcess(lane schedule.Lane, p schedule.Process, shared bool) (sp report.ScheduleProcess) {
	var bin suiteBinary
	for _, b := range r.set.Suites {
		if b.Name == p.Suite {
			bin = b
		}
	}
	dir := filepath.Join(r.dir, "shards", p.Shard)
	sp = report.ScheduleProcess{Shard: p.Shard, Suite: p.Suite, Lane: lane.ID, GPUs: nonNilInts(p.GPUs), Pairs: p.PairsEnv(),
		LabelFilter: andFilters(r.filter, p.Filter), Specs: len(p.Specs)}
	start := time.Now().UTC()
	sp.Start = &start
	defer func() { end := time.Now().UTC(); sp.End = &end }()
	if err := os.MkdirAll(filepath.Join(dir, "ginkgo"), 0o755); err != nil {
		r.say("[%s] %v", p.Shard, err)
		sp.ExitCode = -1
		return sp
	}
	args := append([]string(nil), conformanceFlags...)
	if sp.LabelFilter != "" {
		args = append(args, "--ginkgo.label-filter="+sp.LabelFilter)
	}
	args = append(args, "--ginkgo.json-report="+filepath.Join(dir, "ginkgo", p.Suite+".json"),
		"--ginkgo.junit-report="+filepath.Join(dir, "ginkgo", p.Suite+".junit.xml"))
	args = append(args, r.extra...)
	cmd := exec.Command(bin.Bin, args...)
	cmd.Dir = bin.Dir
	env := []string{machine.EnvReportDir, report.EnvRunID, schedule.EnvPairMutants}
	if p.GPUs != nil {
		env = append(env, machine.EnvGPUs, machine.EnvPairs)
	}
	cmd.Env = append(cleanEnv(env...), machine.EnvReportDir+"="+dir, report.EnvRunID+"="+r.runID)
	if p.GPUs != nil {
		cmd.Env = append(cmd.Env, machine.EnvGPUs+"="+p.GPUsEnv(), machine.EnvPairs+"="+p.PairsEnv())
	}
	if p.MutantsElsewhere {
		cmd.Env = append(cmd.Env, schedule.EnvPairMutants+"="+schedule.PairMutantsRepresentative)
	}
	what := fmt.Sprintf("%s: %s", p.Shard, p.Suite)
	if p.GPUs != nil {
		what += " on GPUs " + p.GPUsEnv()
	}
	if p.Filter != "" {
		what += " [" + p.Filter + "]"
	}
	r.say("== %s, %d specs", what, len(p.Specs))
	var log *os.File
	var wg sync.WaitGroup
	if shared {
		var err error
		if log, err = os.Create(filepath.Join(dir, "output.log")); err != nil {
			r.say("[%s] %v", p.Shard, err)
			sp.ExitCode = -1
			return sp
		}
		defer log.Close()
		cmd.Stdout = log
		pr, pw := io.Pipe()
		cmd.Stderr = pw
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := bufio.NewScanner(pr)
			sc.Buffer(make([]byte, 64*1024), 1024*1024)
			for sc.Scan() {
				r.say("[%s] %s", p.Shard, sc.Text())
				fmt.Fprintln(log, sc.Text())
			}
			_, _ = io.Copy(io.Discard, pr)
		}()
		err = r.runCmd(cmd)
		_ = pw.Close()
		wg.Wait()
		sp.ExitCode = processExit(err)
	} else {
		cmd.Stdout, cmd.Stderr = r.stdout, r.stderr
		sp.ExitCode = processExit(r.runCmd(cmd))
	}
	if docs, err := report.LoadRunDir(dir); err == nil {
		for _, d := range docs {
			sp.Results += len(d.Results)
		}
	}
	switch {
	case sp.ExitCode != 0:
		r.say("== %s exited %d (%d of %d results)", p.Shard, sp.ExitCode, sp.Results, sp.Specs)
	case sp.Results < sp.Specs:
		r.say("== %s left %d of its %d results", p.Shard, sp.Results, sp.Specs)
	}
	return sp
}

func processExit(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

func (r *runner) say(format string, a ...any) {
	r.out.Lock()
	defer r.out.Unlock()
	fmt.Fprintf(r.stderr, format+"\n", a...)
}

func nonNilInts(v []int) []int {
	if v == nil {
		return []int{}
	}
	return v
}

// andFilters joins two label filters with &&.
func andFilters(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return "(" + a + ") && (" + b + ")"
}

// merge joins each suite's shards into <suite>.conformance.json,
// <suite>.junit.xml and <suite>.ginkgo.json in the run folder, each with
// the schedule of the whole run, and Ginkgo's own reports of each binary
// into ginkgo/ (one suite report per process). It returns the suites
// launched, by binary name.
func (r *runner) merge() ([]string, error) {
	sched := &report.Schedule{Mode: "parallel", Limit: r.limit, Rounds: r.rounds}
	if r.serial {
		sched.Mode = "serial"
	} else if r.mutants == "representative" {
		sched.Mutants = r.mutants
	}
	var launched []string
	var errs []error
	shards := map[string][]report.Shard{} // by the suite name the documents carry
	ginkgoJSON := map[string][]string{}   // suite name -> its <suite>.ginkgo.json files
	var names []string
	for _, b := range r.set.Suites {
		var nativeJSON, nativeJUnit []string
		for _, round := range r.rounds {
			for _, p := range round.Processes {
				if p.Suite != b.Name {
					continue
				}
				dir := filepath.Join(r.dir, "shards", p.Shard)
				nativeJSON = append(nativeJSON, filepath.Join(dir, "ginkgo", b.Name+".json"))
				nativeJUnit = append(nativeJUnit, filepath.Join(dir, "ginkgo", b.Name+".junit.xml"))
				docs, err := report.LoadRunDir(dir)
				if err != nil {
					continue // the report names the suite as incomplete
				}
				for _, d := range docs {
					name := b.Name
					if len(d.Suites) > 0 {
						name = d.Suites[0].Name
					}
					if _, ok := shards[name]; !ok {
						names = append(names, name)
					}
					shards[name] = append(shards[name], report.Shard{ID: p.Shard, Doc: d})
					ginkgoJSON[name] = append(ginkgoJSON[name], filepath.Join(dir, name+report.SuiteGinkgoSuffix))
				}
			}
		}
		if len(nativeJSON) == 0 {
			continue
		}
		launched = append(launched, b.Name)
		errs = append(errs, joinGinkgoJSON(filepath.Join(r.dir, "ginkgo", b.Name+".json"), nativeJSON),
			joinJUnit(filepath.Join(r.dir, "ginkgo", b.Name+".junit.xml"), nativeJUnit))
	}
	for _, name := range names {
		doc, err := report.MergeShards(name, shards[name])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		doc.Schedule = sched
		doc.Run.ID = r.runID
		runSelection(&doc.System)
		data, err := json.MarshalIndent(doc, "", "  ")
		if err == nil {
			err = report.WriteFileAtomic(filepath.Join(r.dir, name+report.SuiteConformanceSuffix), append(data, '\n'))
		}
		if err == nil {
			err = report.WriteFileAtomic(filepath.Join(r.dir, name+report.SuiteJUnitSuffix), report.JUnit(doc))
		}
		if err == nil {
			err = joinGinkgoJSON(filepath.Join(r.dir, name+report.SuiteGinkgoSuffix), ginkgoJSON[name])
		}
		errs = append(errs, err)
	}
	return launched, errors.Join(errs...)
}

// joinGinkgoJSON writes the suite reports of Ginkgo JSON files (each an
// array of suite reports) as one array into out. Files that are missing (a
// process that died before its report) are left out.
func joinGinkgoJSON(out string, files []string) error {
	all := []json.RawMessage{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var reps []json.RawMessage
		if err := json.Unmarshal(data, &reps); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		all = append(all, reps...)
	}
	if len(all) == 0 {
		return nil
	}
	data, err := json.Marshal(all)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	return report.WriteFileAtomic(out, data)
}

// joinJUnit merges JUnit files into one <testsuites> document
// (report.MergeJUnit). Files that are missing (a process that died before
// its report) are left out; one that is not JUnit is an error naming it.
func joinJUnit(out string, files []string) error {
	var docs [][]byte
	var names []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		docs, names = append(docs, data), append(names, f)
	}
	merged, err := report.MergeJUnit(docs)
	if err != nil {
		return fmt.Errorf("%w (documents: %s)", err, strings.Join(names, ", "))
	}
	if merged == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	return report.WriteFileAtomic(out, merged)
}

// runSelection describes the run's own GPU selection in sys: each process
// recorded the subset the schedule gave it.
func runSelection(sys *report.System) {
	var sel []string
	for _, k := range []string{machine.EnvGPUs, machine.EnvPairs} {
		v := os.Getenv(k)
		if sys.Env != nil {
			delete(sys.Env, k)
			if v != "" {
				sys.Env[k] = v
			}
		}
		if v != "" {
			sel = append(sel, k+"="+v)
		}
	}
	sys.Selection = strings.Join(sel, " ")
}

// checkRunName refuses a --run value that is not one folder name (run and
// preflight both write into reports/<name>).
func checkRunName(name string) error {
	if name == "" || strings.ContainsRune(name, '/') || name == "." || name == ".." {
		return usageErr("--run %q: a run name is one folder name", name)
	}
	return nil
}
