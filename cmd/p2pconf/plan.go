// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/p2pconf/p2pconf/harness/fake"
	"github.com/p2pconf/p2pconf/harness/litmus"
	"github.com/p2pconf/p2pconf/harness/machine"
	"github.com/p2pconf/p2pconf/harness/report"
	"github.com/p2pconf/p2pconf/harness/schedule"
	"github.com/p2pconf/p2pconf/harness/timemodel"
	"github.com/p2pconf/p2pconf/internal/suiterun"
)

// suiteBinary is one suite's test binary and the folder it runs in.
type suiteBinary = suiterun.Binary

// suiteSet is where the suite binaries come from and where reports go.
type suiteSet struct {
	Root   string // the bundle's folder or the module root
	Suites []suiteBinary
	// build compiles the binaries into tmp, cleanup removes them (nil for
	// a bundle).
	build   func(suites []suiteBinary, stderr io.Writer) error
	cleanup func()
	tmp     string
}

// suitesFor is how run and plan find their suite binaries: findSuites;
// tests hand it binaries built once.
var suitesFor = findSuites

// findSuites locates the suite binaries named in only (comma separated, ""
// for all): a dist bundle's (suites.txt beside the bin/ folder of this
// executable), else, in a checkout, the suite
// packages built with go test -c into a temporary folder.
func findSuites(only string, stderr io.Writer) (suiteSet, error) {
	var set suiteSet
	var err error
	if dir := bundleDir(); dir != "" {
		set, err = readBundle(dir)
	} else {
		var root string
		if root, err = moduleRoot(); err != nil {
			return set, incomplete(err)
		}
		set, err = checkoutSuites(root)
	}
	if err != nil {
		return set, incomplete(err)
	}
	if err := set.only(only); err != nil {
		return set, err
	}
	if set.build != nil {
		if err := set.build(set.Suites, stderr); err != nil {
			return set, incomplete(err)
		}
	}
	return set, nil
}

// bundleDir is the dist bundle this executable belongs to (bin/p2pconf
// beside suites.txt), "" when it runs from a checkout.
func bundleDir() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	dir := filepath.Dir(filepath.Dir(exe))
	if fileExists(filepath.Join(dir, "suites.txt")) {
		return dir
	}
	return ""
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// readBundle reads suites.txt: "<folder> <binary>" per suite, in run order.
func readBundle(dir string) (suiteSet, error) {
	f, err := os.Open(filepath.Join(dir, "suites.txt"))
	if err != nil {
		return suiteSet{}, fmt.Errorf("reading the bundle's suite list: %w", err)
	}
	defer f.Close()
	set := suiteSet{Root: dir}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 2 {
			continue
		}
		folder := filepath.Join(dir, fields[0])
		set.Suites = append(set.Suites, suiteBinary{Name: fields[1], Dir: folder, Bin: filepath.Join(folder, fields[1]+".test")})
	}
	if err := sc.Err(); err != nil {
		return set, fmt.Errorf("reading %s: %w", f.Name(), err)
	}
	if len(set.Suites) == 0 {
		return set, fmt.Errorf("%s lists no suite", f.Name())
	}
	return set, nil
}

// moduleRoot is the checkout's root: the nearest folder above the working
// directory with go.mod.
func moduleRoot() (string, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := cwd; ; d = filepath.Dir(d) {
		if fileExists(filepath.Join(d, "go.mod")) && fileExists(filepath.Join(d, "suites")) {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no suites here: run p2pconf run from a dist bundle (bin/p2pconf beside suites.txt) or a p2pconf checkout (go.mod and suites/ above %s)", cwd)
		}
	}
}

// checkoutSuites lists the suite packages of the checkout; its build
// compiles them (go test -c, as go test would) into a temporary folder.
func checkoutSuites(root string) (suiteSet, error) {
	ents, err := os.ReadDir(filepath.Join(root, "suites"))
	if err != nil {
		return suiteSet{}, fmt.Errorf("listing the suites: %w", err)
	}
	tmp, err := os.MkdirTemp("", "p2pconf-suites-")
	if err != nil {
		return suiteSet{}, fmt.Errorf("a folder for the suite binaries: %w", err)
	}
	set := suiteSet{Root: root, tmp: tmp, cleanup: func() { _ = os.RemoveAll(tmp) }}
	for _, e := range ents {
		if tests, _ := filepath.Glob(filepath.Join(root, "suites", e.Name(), "*_test.go")); e.IsDir() && len(tests) > 0 {
			set.Suites = append(set.Suites, suiteBinary{Name: e.Name(), Dir: filepath.Join(root, "suites", e.Name()),
				Bin: filepath.Join(tmp, e.Name()+".test")})
		}
	}
	if len(set.Suites) == 0 {
		set.cleanup()
		return suiteSet{}, fmt.Errorf("no suite packages with tests under %s", filepath.Join(root, "suites"))
	}
	set.build = func(suites []suiteBinary, stderr io.Writer) error { return buildSuites(root, tmp, suites, stderr) }
	return set, nil
}

// buildSuites compiles suites into tmp (suiterun.BuildAll).
func buildSuites(root, tmp string, suites []suiteBinary, stderr io.Writer) error {
	var names []string
	for _, b := range suites {
		names = append(names, b.Name)
	}
	fmt.Fprintf(stderr, "p2pconf: building %d suites (go test -c)\n", len(names))
	return suiterun.BuildAll(root, tmp, names, stderr)
}

// only keeps the suites named in list (comma separated; "" keeps all).
func (s *suiteSet) only(list string) error {
	if list == "" {
		return nil
	}
	want := map[string]bool{}
	for _, n := range strings.Split(list, ",") {
		if n = strings.TrimSpace(n); n != "" {
			want[n] = true
		}
	}
	var kept []suiteBinary
	var have []string
	for _, b := range s.Suites {
		have = append(have, b.Name)
		if want[b.Name] {
			kept = append(kept, b)
		}
	}
	if len(kept) == 0 {
		return usageErr("no suite matches -suites=%s (have: %s)", list, strings.Join(have, ","))
	}
	s.Suites = kept
	return nil
}

// listSpecs runs every suite binary with --ginkgo.dry-run and returns the
// specs the label filter selects, with their labels, in the order of
// set.Suites. env is the environment of the listing (the run's, or a fake
// preset's). The listings run at once: each is a process that opens the
// driver and builds its suite's spec tree, and one after another they
// added a process start per suite to every run.
func listSpecs(set suiteSet, env []string, filter string) ([]schedule.Spec, error) {
	tmp, err := os.MkdirTemp("", "p2pconf-list-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	specs := make([][]schedule.Spec, len(set.Suites))
	errs := make([]error, len(set.Suites))
	var wg sync.WaitGroup
	for i, b := range set.Suites {
		wg.Add(1)
		go func() {
			defer wg.Done()
			specs[i], errs[i] = listSuite(b, filepath.Join(tmp, b.Name+".json"), env, filter)
		}()
	}
	wg.Wait()
	var out []schedule.Spec
	for i := range set.Suites {
		if errs[i] != nil {
			return nil, errs[i]
		}
		out = append(out, specs[i]...)
	}
	return out, nil
}

// listSuite lists one suite binary's specs through a Ginkgo JSON report
// written to out.
func listSuite(b suiteBinary, out string, env []string, filter string) ([]schedule.Spec, error) {
	args := []string{"--ginkgo.dry-run", "--ginkgo.no-color", "--ginkgo.json-report=" + out}
	if filter != "" {
		args = append(args, "--ginkgo.label-filter="+filter)
	}
	cmd := exec.Command(b.Bin, args...)
	cmd.Dir = b.Dir
	cmd.Env = env
	msg, err := cmd.CombinedOutput()
	if err != nil && bytes.Contains(msg, []byte("Error Parsing Label Filter")) {
		return nil, usageErr("--label-filter %q: %s", filter, ginkgoComplaint(msg))
	}
	if err != nil {
		return nil, incomplete(fmt.Errorf("listing the specs of %s (%s --ginkgo.dry-run): %w\n%s", b.Name, b.Bin, err, tail(msg, 2000)))
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return nil, incomplete(fmt.Errorf("listing the specs of %s: %w", b.Name, err))
	}
	reps, err := report.DecodeGinkgoJSON(data)
	if err != nil {
		return nil, incomplete(fmt.Errorf("listing the specs of %s: %w", b.Name, err))
	}
	var specs []schedule.Spec
	for _, r := range reps {
		for _, sr := range r.SpecReports {
			if sr.LeafNodeType != "It" || sr.State == report.SpecSkipped || sr.State == report.SpecPending {
				continue
			}
			s, err := schedule.SpecFromLabels(b.Name, sr.FullText(), sr.Labels())
			if err != nil {
				return nil, incomplete(err)
			}
			specs = append(specs, s)
		}
	}
	return specs, nil
}

// ginkgoComplaint is Ginkgo's description of a configuration issue, its
// lines joined: what follows its header, without the "Learn more" link.
func ginkgoComplaint(msg []byte) string {
	var parts []string
	for _, l := range strings.Split(string(msg), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "Ginkgo detected") || strings.HasPrefix(l, "Learn more") {
			continue
		}
		parts = append(parts, l)
		if len(parts) == 3 {
			break
		}
	}
	return strings.Join(parts, " ")
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// gpusOf is every GPU the specs name, sorted.
func gpusOf(specs []schedule.Spec) []int {
	seen := map[int]bool{}
	for _, s := range specs {
		for _, g := range s.GPUs() {
			seen[g] = true
		}
	}
	var out []int
	for g := range seen {
		out = append(out, g)
	}
	sort.Ints(out)
	return out
}

// cmdPlan prints the schedule of a run and the time model's prediction,
// for this machine or a fake preset's spec list.
func cmdPlan(args []string, stdout, stderr io.Writer) error {
	fs := flags("plan", stderr)
	preset := fs.String("preset", "", "plan the spec list of this fake preset (h200x2, nvlink8, single, ...) instead of this machine's")
	modelFile := fs.String("model", "", "time model JSON (default: the built-in H200 figures)")
	profile := fs.String("profile", "", "litmus profile: default, certify or space; it decides the litmus specs listed and the time model's targets (default: $P2PCONF_LITMUS_PROFILE, else default)")
	limitText := fs.String("j", "0", "most processes at once (0: no limit)")
	serial := fs.Bool("serial", false, "plan one process per suite with every GPU, one after another")
	bothWays := fs.Bool("both-ways", false, "play both directions of a pair in one process per suite (what preflight runs)")
	mutants := fs.String("mutants", "representative", "pair mutants on one pair per link class and its reverse (representative), or on all pairs (all)")
	suites := fs.String("suites", "", "only these suites (comma separated)")
	filter := fs.String("label-filter", "", "Ginkgo label filter")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr("plan takes no arguments (got %s)", strings.Join(fs.Args(), " "))
	}
	limitValue, err := parseLimit(*limitText)
	if err != nil {
		return err
	}
	limit := &limitValue
	if *mutants != "all" && *mutants != "representative" {
		return usageErr("-mutants %q: all or representative", *mutants)
	}
	if *preset != "" {
		if err := fake.CheckPreset(*preset); err != nil {
			return usageErr("-preset %q: %v (presets: %s)", *preset, err, strings.Join(presetNames(), ", "))
		}
	}
	if err := checkSettings(); err != nil {
		return err
	}
	if err := checkFilter(*filter); err != nil {
		return usageErr("%v", err)
	}
	model, err := loadModel(*modelFile, *profile)
	if err != nil {
		return err
	}
	set, err := suitesFor(*suites, stderr)
	if set.cleanup != nil {
		defer set.cleanup()
	}
	if err != nil {
		return err
	}
	var env []string
	if *preset != "" {
		env = append(suiterun.CleanEnv(machine.EnvBackend, machine.EnvFakePreset, machine.EnvReportDir), machine.EnvBackend+"=fake", machine.EnvFakePreset+"="+*preset)
	} else {
		env = suiterun.CleanEnv(machine.EnvReportDir)
	}
	specs, err := listSpecs(set, env, *filter)
	if err != nil {
		return err
	}
	opt := schedule.Options{Serial: *serial, SuiteOrder: suiteNames(set), RepresentativeMutants: *mutants == "representative", BothWays: *bothWays}
	plan, err := schedule.Make(specs, gpusOf(specs), opt)
	if err != nil {
		return incomplete(err)
	}
	what := "this machine"
	if *preset != "" {
		what = "fake preset " + *preset
	}
	if n := len(schedule.Dropped(specs, opt)); n > 0 {
		what += fmt.Sprintf(" (%d pair litmus mutants left to the representative pairs)", n)
	}
	printPlan(stdout, what, plan, model, *limit)
	return nil
}

func presetNames() []string {
	var out []string
	for _, p := range fake.Presets() {
		out = append(out, p.Name)
	}
	return out
}

func suiteNames(set suiteSet) []string {
	var out []string
	for _, b := range set.Suites {
		out = append(out, b.Name)
	}
	return out
}

// loadModel reads the time model: file, else the built-in H200 figures,
// with the litmus profile of -profile or P2PCONF_LITMUS_PROFILE. A profile
// given as a flag becomes this process's P2PCONF_LITMUS_PROFILE, which the
// suites inherit: the profile decides which litmus specs exist (the space
// profile lists the whole generated space), not only their targets.
func loadModel(file, profile string) (timemodel.Config, error) {
	m := timemodel.H200()
	if file != "" {
		var err error
		if m, err = timemodel.Load(file); err != nil {
			return m, inputErr(err)
		}
	}
	if profile == "" {
		profile = strings.TrimSpace(os.Getenv(litmus.EnvProfile))
	}
	if profile == "" {
		return m, nil
	}
	m, err := m.WithProfile(profile)
	if err != nil {
		return m, usageErr("%v", err)
	}
	if err := os.Setenv(litmus.EnvProfile, profile); err != nil {
		return m, fmt.Errorf("setting %s: %w", litmus.EnvProfile, err)
	}
	return m, nil
}

// printPlan prints each round (its kind, how many processes run at once,
// its lanes and their suites) with the model's time, then the totals.
func printPlan(w io.Writer, what string, plan schedule.Plan, model timemodel.Config, limit int) {
	pred := model.Predict(plan, limit)
	fmt.Fprintf(w, "plan for %s: %d specs on GPUs %s, %d rounds, %d processes", what, plan.Specs(), intsText(plan.GPUs), len(plan.Rounds), plan.Processes())
	if limit > 0 {
		fmt.Fprintf(w, ", at most %d at once", limit)
	}
	fmt.Fprintf(w, "\ntime model %s, litmus profile %s\n", model.Name, model.Litmus.Profile)
	for _, rt := range pred.Rounds {
		r := rt.Round
		fmt.Fprintf(w, "  %-4s %-6s parallel %d  %8s", r.Name, r.Kind, rt.Parallel, suiterun.Seconds(rt.Seconds))
		var lanes []string
		for _, l := range r.Lanes {
			var parts []string
			for _, p := range l.Processes {
				parts = append(parts, fmt.Sprintf("%s %d", p.Suite, len(p.Specs)))
			}
			lanes = append(lanes, l.ID+" ("+strings.Join(parts, ", ")+")")
		}
		fmt.Fprintf(w, "  %s\n", strings.Join(lanes, "; "))
	}
	speedup := 1.0
	if pred.Seconds > 0 {
		speedup = pred.BusySeconds / pred.Seconds
	}
	fmt.Fprintf(w, "predicted wall time %s (one process at a time: %s; %.1fx)\n", suiterun.Seconds(pred.Seconds), suiterun.Seconds(pred.BusySeconds), speedup)
}

func intsText(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	if len(s) == 0 {
		return "(none)"
	}
	return strings.Join(s, ",")
}
