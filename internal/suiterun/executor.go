// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package suiterun

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
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/p2pconf/p2pconf/harness/machine"
	"github.com/p2pconf/p2pconf/harness/report"
	"github.com/p2pconf/p2pconf/harness/schedule"
	"github.com/p2pconf/p2pconf/harness/timemodel"
)

// Binary is one suite's test binary and the folder it runs in (its
// package folder, where its testdata/ is, as go test runs it).
type Binary struct {
	Name string // the binary's name without .test: access, ipc, ...
	Dir  string
	Bin  string
}

// Executor runs a schedule's plan: its rounds one after another, the lanes
// of a round at once, each process into shards/<shard>/ of the run folder,
// and merges what they wrote (Merge). It stops on SIGINT or SIGTERM (Watch):
// no process starts after it, and the running ones stop too.
type Executor struct {
	Suites         []Binary
	Plan           schedule.Plan
	Dir, RunID     string
	Filter         string   // the run's label filter, joined with each process's
	Extra          []string // flags for every suite binary
	Limit          int      // most processes at once, 0 for no limit
	Serial         bool
	Mutants        string               // all or representative
	Pred           timemodel.Prediction // of Plan, for the ETA of each round
	Stdout, Stderr io.Writer

	rounds []report.ScheduleRound
	out    sync.Mutex // one writer of console lines at a time

	// An interrupt or termination stops the run: no process starts after
	// it, the running ones stop too, and what they wrote is merged.
	sigMu   sync.Mutex
	stopped os.Signal
	running map[*exec.Cmd]bool
}

// Watch stops the run on SIGINT or SIGTERM; the returned function
// stops watching.
func (r *Executor) Watch() func() {
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
func (r *Executor) start(cmd *exec.Cmd) error {
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
func (r *Executor) wait(cmd *exec.Cmd) error {
	err := cmd.Wait()
	r.sigMu.Lock()
	delete(r.running, cmd)
	r.sigMu.Unlock()
	return err
}

// runCmd starts and waits for cmd.
func (r *Executor) runCmd(cmd *exec.Cmd) error {
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

// Execute runs the rounds one after another, the lanes of a round at once
// (at most limit), the processes of a lane one after another. It returns
// false when a process failed or left fewer results than it had specs.
func (r *Executor) Execute() bool {
	ok := true
	for i, round := range r.Plan.Rounds {
		slots := len(round.Lanes)
		if r.Limit > 0 && r.Limit < slots {
			slots = r.Limit
		}
		start := time.Now().UTC()
		left := 0.0
		for _, rt := range r.Pred.Rounds[i:] {
			left += rt.Seconds
		}
		r.say("== round %s (%s): %d lanes, %d at once; the model expects %s for it, %s for the rest of the run",
			round.Name, round.Kind, len(round.Lanes), slots, Seconds(r.Pred.Rounds[i].Seconds), Seconds(left))
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

// FailedOnlyBySpecs reports whether every process that did not end
// cleanly exited 1, Ginkgo's status for a failed spec, and left a result
// for each of its specs: what went wrong is then all in the results, which
// the report judges. p2pconf run uses it when a known-deviations file
// accepted every failure, so that the processes those failures made exit
// 1 do not turn the run incomplete.
func (r *Executor) FailedOnlyBySpecs() bool {
	for _, round := range r.rounds {
		for _, p := range round.Processes {
			if p.Results < p.Specs || (p.ExitCode != 0 && p.ExitCode != 1) {
				return false
			}
		}
	}
	return true
}

// runProcess runs one suite process into shards/<shard>/ and returns its
// schedule entry. With others running beside it (shared), its standard
// output goes to output.log there and its standard error to the console
// with the shard before each line.
func (r *Executor) runProcess(lane schedule.Lane, p schedule.Process, shared bool) (sp report.ScheduleProcess) {
	var bin Binary
	for _, b := range r.Suites {
		if b.Name == p.Suite {
			bin = b
		}
	}
	dir := filepath.Join(r.Dir, "shards", p.Shard)
	sp = report.ScheduleProcess{Shard: p.Shard, Suite: p.Suite, Lane: lane.ID, GPUs: nonNilInts(p.GPUs), Pairs: p.PairsEnv(),
		LabelFilter: andFilters(r.Filter, p.Filter), Specs: len(p.Specs)}
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
	args = append(args, r.Extra...)
	cmd := exec.Command(bin.Bin, args...)
	cmd.Dir = bin.Dir
	env := []string{machine.EnvReportDir, report.EnvRunID, schedule.EnvPairMutants}
	if p.GPUs != nil {
		env = append(env, machine.EnvGPUs, machine.EnvPairs)
	}
	cmd.Env = append(CleanEnv(env...), machine.EnvReportDir+"="+dir, report.EnvRunID+"="+r.RunID)
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
		sp.ExitCode = ProcessExit(err)
	} else {
		cmd.Stdout, cmd.Stderr = r.Stdout, r.Stderr
		sp.ExitCode = ProcessExit(r.runCmd(cmd))
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

// ProcessExit is a finished process's exit code: 0, its own, or -1 when
// it could not run or was killed by a signal.
func ProcessExit(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

func (r *Executor) say(format string, a ...any) {
	r.out.Lock()
	defer r.out.Unlock()
	fmt.Fprintf(r.Stderr, format+"\n", a...)
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

// Merge joins each suite's shards into <suite>.conformance.json,
// <suite>.junit.xml and <suite>.ginkgo.json in the run folder, each with
// the schedule of the whole run, and Ginkgo's own reports of each binary
// into ginkgo/ (one suite report per process). It returns the suites
// launched, by binary name.
func (r *Executor) Merge() ([]string, error) {
	sched := &report.Schedule{Mode: "parallel", Limit: r.Limit, Rounds: r.rounds}
	if r.Serial {
		sched.Mode = "serial"
	} else if r.Mutants == "representative" {
		sched.Mutants = r.Mutants
	}
	var launched []string
	var errs []error
	shards := map[string][]report.Shard{} // by the suite name the documents carry
	ginkgoJSON := map[string][]string{}   // suite name -> its <suite>.ginkgo.json files
	var names []string
	for _, b := range r.Suites {
		var nativeJSON, nativeJUnit []string
		for _, round := range r.rounds {
			for _, p := range round.Processes {
				if p.Suite != b.Name {
					continue
				}
				dir := filepath.Join(r.Dir, "shards", p.Shard)
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
		errs = append(errs, joinGinkgoJSON(filepath.Join(r.Dir, "ginkgo", b.Name+".json"), nativeJSON),
			joinJUnit(filepath.Join(r.Dir, "ginkgo", b.Name+".junit.xml"), nativeJUnit))
	}
	for _, name := range names {
		doc, err := report.MergeShards(name, shards[name])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		doc.Schedule = sched
		doc.Run.ID = r.RunID
		runSelection(&doc.System)
		data, err := json.MarshalIndent(doc, "", "  ")
		if err == nil {
			err = report.WriteFileAtomic(filepath.Join(r.Dir, name+report.SuiteConformanceSuffix), append(data, '\n'))
		}
		if err == nil {
			err = report.WriteFileAtomic(filepath.Join(r.Dir, name+report.SuiteJUnitSuffix), report.JUnit(doc))
		}
		if err == nil {
			err = joinGinkgoJSON(filepath.Join(r.Dir, name+report.SuiteGinkgoSuffix), ginkgoJSON[name])
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

// CleanEnv is os.Environ without the variables drop (those the runner sets
// per process).
func CleanEnv(drop ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		keep := true
		for _, d := range drop {
			if strings.HasPrefix(kv, d+"=") {
				keep = false
			}
		}
		if keep {
			out = append(out, kv)
		}
	}
	return out
}

// Seconds says a duration in seconds as the run's messages do: 1m2.3s.
func Seconds(s float64) string {
	return (time.Duration(s * float64(time.Second))).Round(100 * time.Millisecond).String()
}
