// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Command mutation measures the suites' power on the fake backend: for each
// injectable driver defect it runs every suite (-into narrows them) on the
// defect's preset with that defect alone, each in a fresh process, several
// times with fixed Ginkgo seeds (so each run's spec order is known and the
// run can be repeated), and checks that the defect's declared catchers
// (fake.DefectInfo.Catchers) fail.
//
// A spec catches a defect only when, passing without the defect, it fails
// on its own assertion, or its body passes and a release it registered
// (DeferCleanup) fails with a driver call's error (cuCtxDisablePeerAccess:
// CUDA_ERROR_...): the driver refused to release what the check used. A
// panic, a failure in a setup node, any other cleanup failure, a timeout,
// a context poisoned by an earlier fault, or a helper process that failed
// in a step other than its check (proc.Session.CheckStep) proves nothing
// about the check and does not count. A run catches the
// defect when a declared catcher caught it; a defect is caught when every
// run caught it; a declared catcher misses when it did not catch the defect
// in some run. The report lists, per defect, the expected catchers, per run
// the declared catchers that caught it, every other spec, of any suite,
// that caught it too ("also caught by") and the failures that do not count,
// then the checks that are the only catcher of a defect, and ends with the
// mutation score, caught/injected.
//
// The full run (`make mutation`: every defect into every suite, three seeds)
// takes hours on a two-core machine; `make mutation-fast` injects a few
// defects once each into their owning suite only, in a few minutes.
//
// A defect that only a gated run can catch (slow-peer-copy: figures, not
// errors) is injected with P2PCONF_BASELINE set to the clean run's
// conformance.json and a wide tolerance (GateTolerance).
//
//	go run ./cmd/mutation [-runs 3] [-seed 1] [-fast] [-defects a,b] [-suites access,ipc] [-into access,ipc|own] [-v] [-keep]
//
// The exit status is 1 when a declared catcher missed in any run or the
// harness itself failed (a suite that does not compile, a run that wrote no
// report), so the run gates (`make mutation-fast` in `make test`).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/p2pconf/p2pconf/harness/fake"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// defaultSeed is Ginkgo's random seed for the clean runs and each defect's
// first run.
const defaultSeed = 1

// fastDefects is the subset `make mutation-fast` injects, once each: one
// defect of each kind the access and vmm suites guard (data, mapping,
// permission, argument checks), all caught by deterministic checks, on two
// suites that build and run in a minute or two on a small machine.
var fastDefects = []string{
	"peer-store-dropped",
	"peer-copy-one-way-dropped",
	"peer-enable-misses-earlier-allocs",
	"vmm-peer-writes-dropped",
	"vmm-granularity-lax",
}

// runVerdict is what one seeded run of one defect, over every suite it was
// injected into, showed.
type runVerdict struct {
	seed   int64
	caught []string     // declared catchers that failed on their own assertion
	also   []specResult // undeclared specs that failed on their own assertion: they catch it too
	other  []specResult // other new failures, for causes that do not count
	// crashed names the suites that failed as a whole (SpecialSuiteFailureReasons).
	crashed []string
	err     error
}

// outcome is the verdict for one defect over all its runs.
type outcome struct {
	defect fake.DefectInfo
	preset string
	suites []string // the suites the defect was injected into
	runs   []runVerdict
	// badCatchers are declared catchers that fail or do not run without
	// the defect: their failure under the defect proves nothing.
	badCatchers []string
	note        string // why the defect could not be tried (a suite not built yet)
	err         error
}

// caught reports whether every run caught the defect.
func (o outcome) caught() bool {
	if o.err != nil || len(o.runs) == 0 {
		return false
	}
	for _, r := range o.runs {
		if r.err != nil || len(r.caught) == 0 {
			return false
		}
	}
	return true
}

// misses lists, per declared catcher that missed in some run, the seeds of
// those runs ("access.peer-copy (seeds 2 3)").
func (o outcome) misses() []string {
	var out []string
	for _, c := range o.defect.Catchers {
		var seeds []string
		for _, r := range o.runs {
			if r.err != nil || !slices.Contains(r.caught, c) {
				seeds = append(seeds, fmt.Sprint(r.seed))
			}
		}
		if len(o.runs) == 0 {
			seeds = append(seeds, "no run")
		}
		if len(seeds) > 0 {
			out = append(out, fmt.Sprintf("%s (seeds %s)", c, strings.Join(seeds, " ")))
		}
	}
	return out
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mutation", flag.ContinueOnError)
	fs.SetOutput(stderr)
	defects := fs.String("defects", "", "comma list of defects to inject (default: all of them)")
	suites := fs.String("suites", "", "comma list of owning suites to cover (default: all)")
	into := fs.String("into", "", "comma list of suites to inject each defect into, or \"own\" for the defect's own suite (default: every suite; with -fast, its own)")
	runs := fs.Int("runs", 3, "seeded runs per defect")
	seed := fs.Int64("seed", defaultSeed, "Ginkgo seed of the clean runs and each defect's first run (run i uses seed+i)")
	fast := fs.Bool("fast", false, "inject only the fast subset, once each (what make test runs)")
	timeout := fs.Duration("timeout", 10*time.Minute, "time limit for one suite run")
	verbose := fs.Bool("v", false, "show the suites' output")
	keep := fs.Bool("keep", false, "keep the work directory with every run's report and log")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *fast {
		if *defects == "" {
			*defects = strings.Join(fastDefects, ",")
		}
		*runs = 1
	}
	if *runs < 1 {
		fmt.Fprintln(stderr, "mutation: -runs must be at least 1")
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
	m.seed = *seed
	targets := splitList(*into)
	if *into == "own" {
		targets = nil
	} else if len(targets) == 0 && !*fast {
		if targets, err = allSuites(root); err != nil {
			fmt.Fprintln(stderr, "mutation:", err)
			return 2
		}
	}
	start := time.Now()
	var results []outcome
	for _, d := range selected {
		in := targets
		if len(in) == 0 {
			in = []string{d.Suite}
		}
		results = append(results, m.try(d, d.Preset, *runs, in...))
	}
	code := printResults(stdout, stderr, results)
	fmt.Fprintf(stdout, "%d defect(s), %d run(s) each, seeds from %d, in %s\n", len(results), *runs, *seed,
		time.Since(start).Round(time.Second))
	return code
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
	for _, s := range splitList(suites) {
		inSuite[s] = true
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

// try injects one defect into each suite of into (the owning suite when
// into is empty) in runs seeded runs, and judges each run against the clean
// baselines and the defect's declared catchers.
func (m *mutator) try(d fake.DefectInfo, preset string, runs int, into ...string) outcome {
	if len(into) == 0 {
		into = []string{d.Suite}
	}
	o := outcome{defect: d, preset: preset}
	if len(d.Catchers) == 0 {
		o.err = fmt.Errorf("defect %s declares no catcher", d.Name)
		return o
	}
	bases := map[string]runSummary{}
	for _, suite := range into {
		base, err := m.baseline(suite, preset)
		if errors.Is(err, errNotBuilt) {
			if suite == d.Suite {
				o.note = "suite " + d.Suite + " not built yet"
				return o
			}
			continue
		}
		if err != nil {
			o.err = err
			return o
		}
		bases[suite] = base
		o.suites = append(o.suites, suite)
	}
	var all runSummary
	for _, suite := range o.suites {
		all.Specs = append(all.Specs, bases[suite].Specs...)
	}
	o.badCatchers = unprovenCatchers(all, d.Catchers)
	for i := 0; i < runs; i++ {
		seed := m.seed + int64(i)
		v := runVerdict{seed: seed}
		var failed []specResult
		for _, suite := range o.suites {
			var gate []string
			if d.Gated() && suite == d.Suite {
				var err error
				if gate, err = m.gateEnv(suite, preset); err != nil {
					v.err = err
					break
				}
			}
			got, err := m.run(suite, preset, d.Name, seed, gate...)
			if err != nil {
				v.err = err
				break
			}
			if got.SuiteFailure != "" {
				v.crashed = append(v.crashed, suite)
			}
			failed = append(failed, newFailures(bases[suite], got)...)
		}
		if v.err == nil {
			v.caught, v.other = judge(failed, d.Catchers, o.badCatchers)
			v.also, v.other = splitOwn(v.other)
		}
		o.runs = append(o.runs, v)
		verdict := "missed"
		if len(v.caught) > 0 {
			verdict = "caught by " + strings.Join(v.caught, ", ")
		}
		if v.err != nil {
			verdict = "error"
		}
		fmt.Fprintf(m.log, "%s on %s into %s, seed %d: %s\n", d.Name, preset, strings.Join(o.suites, ","), seed, verdict)
	}
	return o
}

// splitOwn separates the failures on a spec's own assertion from the rest.
func splitOwn(failed []specResult) (own, rest []specResult) {
	for _, s := range failed {
		if s.counts() {
			own = append(own, s)
		} else {
			rest = append(rest, s)
		}
	}
	return own, rest
}

// splitList splits a comma list, dropping empty entries.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// allSuites lists the suites under root/suites that have test files.
func allSuites(root string) ([]string, error) {
	dirs, err := os.ReadDir(filepath.Join(root, "suites"))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, d := range dirs {
		if tests, _ := filepath.Glob(filepath.Join(root, "suites", d.Name(), "*_test.go")); d.IsDir() && len(tests) > 0 {
			out = append(out, d.Name())
		}
	}
	return out, nil
}

// unprovenCatchers lists the declared catchers that did not pass in the
// clean run: a check that fails (or never runs) without the defect cannot
// show that it catches it.
func unprovenCatchers(base runSummary, catchers []string) []string {
	passed, failed := map[string]bool{}, map[string]bool{}
	for _, s := range base.Specs {
		switch {
		case s.failed():
			failed[s.ID] = true
		case s.State.String() == "passed":
			passed[s.ID] = true
		}
	}
	var out []string
	for _, c := range catchers {
		if !passed[c] || failed[c] {
			out = append(out, c)
		}
	}
	return out
}

// judge splits a run's new failures into the declared catchers that failed
// on their own assertion and everything else.
func judge(failed []specResult, catchers, unproven []string) (caught []string, other []specResult) {
	for _, s := range failed {
		if slices.Contains(catchers, s.ID) && !slices.Contains(unproven, s.ID) && s.counts() {
			if !slices.Contains(caught, s.ID) {
				caught = append(caught, s.ID)
			}
			continue
		}
		other = append(other, s)
	}
	slices.Sort(caught)
	return caught, other
}
