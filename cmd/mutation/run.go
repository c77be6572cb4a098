// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/p2pconf/p2pconf/harness/bandwidth"
	"github.com/p2pconf/p2pconf/harness/fake"
	"github.com/p2pconf/p2pconf/harness/machine"
	"github.com/p2pconf/p2pconf/harness/report"
	"github.com/p2pconf/p2pconf/internal/suiterun"
)

// errNotBuilt marks a suite whose package does not exist yet: its defects
// count as not caught, and that is not a harness error.
var errNotBuilt = errors.New("not built yet")

// mutator builds each suite's test binary once and runs it on the fake
// backend, with and without defects, keeping reports and logs in work.
type mutator struct {
	root, work string
	timeout    time.Duration
	verbose    bool
	log        io.Writer
	binaries   map[string]string
	buildErrs  map[string]error
	baselines  map[string]runSummary
	baseErrs   map[string]error
	// seed is Ginkgo's random seed of the clean runs and of a defect's
	// first run; run i uses seed+i, so every run's spec order is fixed.
	seed int64
}

func newMutator(root, work string, timeout time.Duration, verbose bool, log io.Writer) *mutator {
	return &mutator{root: root, work: work, timeout: timeout, verbose: verbose, log: log, seed: defaultSeed,
		binaries: map[string]string{}, buildErrs: map[string]error{},
		baselines: map[string]runSummary{}, baseErrs: map[string]error{}}
}

// moduleRoot finds the directory of p2pconf's go.mod from the working
// directory upwards, so `go run ./cmd/mutation` works from anywhere inside.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.Contains(string(b), "module github.com/p2pconf/p2pconf") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("not inside the p2pconf module (no go.mod naming github.com/p2pconf/p2pconf above the working directory)")
		}
		dir = parent
	}
}

// binary returns the suite's test binary, building it on first use.
func (m *mutator) binary(suite string) (string, error) {
	if bin, ok := m.binaries[suite]; ok {
		return bin, m.buildErrs[suite]
	}
	bin, err := m.build(suite)
	m.binaries[suite], m.buildErrs[suite] = bin, err
	return bin, err
}

func (m *mutator) build(suite string) (string, error) {
	dir := filepath.Join(m.root, "suites", suite)
	tests, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if len(tests) == 0 {
		return "", errNotBuilt
	}
	fmt.Fprintf(m.log, "building suites/%s\n", suite)
	return suiterun.Build(m.root, m.work, suite)
}

// baseline is the suite's run on preset without defects.
func (m *mutator) baseline(suite, preset string) (runSummary, error) {
	k := suite + "/" + preset
	if s, ok := m.baselines[k]; ok || m.baseErrs[k] != nil {
		return s, m.baseErrs[k]
	}
	s, err := m.run(suite, preset, "", m.seed)
	m.baselines[k], m.baseErrs[k] = s, err
	if err == nil {
		fmt.Fprintf(m.log, "baseline %s on %s: %d passed, %d skipped, %d failed%s\n", suite, preset,
			s.Passed, s.Skipped, s.Failed, listFailures(failures(s)))
	}
	return s, err
}

func listFailures(f []specResult) string {
	if len(f) == 0 {
		return ""
	}
	return " (" + strings.Join(groupByID(f), ", ") + ")"
}

// runName names a run's files in the work directory.
func runName(suite, preset, defect string, seed int64) string {
	name := suite + "-" + preset
	if defect != "" {
		name += "-" + defect + "-seed" + strconv.FormatInt(seed, 10)
	}
	return name
}

// reportDir is the run's P2PCONF_REPORT_DIR.
func (m *mutator) reportDir(suite, preset, defect string, seed int64) string {
	return filepath.Join(m.work, "reports", runName(suite, preset, defect, seed))
}

// GateTolerance is the bandwidth gate's tolerance (P2PCONF_BW_TOLERANCE,
// percent) in a gated run: the fake's figures vary from run to run by up to
// half on a loaded machine, and a gated defect cuts them to a tenth or less.
const GateTolerance = "75"

// gateEnv gates a defect's run against the clean run of the same suite on
// the same preset (fake.DefectInfo.Gated): P2PCONF_BASELINE is that run's
// conformance.json.
func (m *mutator) gateEnv(suite, preset string) ([]string, error) {
	base := filepath.Join(m.reportDir(suite, preset, "", m.seed), report.ConformanceFile)
	if _, err := os.Stat(base); err != nil {
		return nil, fmt.Errorf("the clean run of suites/%s on %s left no report to gate against: %w", suite, preset, err)
	}
	return []string{bandwidth.EnvBaseline + "=" + base, bandwidth.EnvTolerance + "=" + GateTolerance}, nil
}

// run runs the suite's binary once, in a fresh process, on the fake backend
// with preset and (if not empty) defect, Ginkgo's random seed fixed to seed,
// plus the variables in extra, and reads its Ginkgo JSON report. Failing
// specs are the point; only a run without a readable report is an error.
func (m *mutator) run(suite, preset, defect string, seed int64, extra ...string) (runSummary, error) {
	bin, err := m.binary(suite)
	if err != nil {
		return runSummary{}, err
	}
	name := runName(suite, preset, defect, seed)
	ginkgoJSON := filepath.Join(m.work, name+".json")
	logPath := filepath.Join(m.work, name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return runSummary{}, err
	}
	defer logFile.Close()
	ctx, cancel := context.WithTimeout(context.Background(), m.timeout+time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-test.count=1", "-test.timeout="+(m.timeout+30*time.Second).String(),
		"-ginkgo.timeout="+m.timeout.String(), "-ginkgo.no-color", "-ginkgo.json-report="+ginkgoJSON,
		"-ginkgo.seed="+strconv.FormatInt(seed, 10))
	cmd.Dir = filepath.Join(m.root, "suites", suite)
	cmd.Env = append(suiteEnv(preset, defect, m.reportDir(suite, preset, defect, seed), filepath.Join(m.work, "state", name)), extra...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if m.verbose {
		cmd.Stdout = io.MultiWriter(logFile, m.log)
		cmd.Stderr = cmd.Stdout
	}
	// With -v the output goes through a pipe; a helper process the suite
	// left behind could hold it open after the suite exits or is killed.
	// Bound the wait for it.
	cmd.WaitDelay = 30 * time.Second
	start := time.Now()
	runErr := cmd.Run()
	sum, err := readReport(ginkgoJSON)
	if err != nil && runErr == nil && os.IsNotExist(err) {
		// The package exists but runs no Ginkgo suite yet (go test said
		// "no tests to run"): a suite still being written.
		return runSummary{}, errNotBuilt
	}
	if err != nil {
		return runSummary{}, fmt.Errorf("suites/%s on %s%s (seed %d) wrote no usable report (%v; exit: %v); its output is in %s",
			suite, preset, plusDefect(defect), seed, err, runErr, logPath)
	}
	if m.verbose {
		fmt.Fprintf(m.log, "ran suites/%s on %s%s in %s\n", suite, preset, plusDefect(defect), time.Since(start).Round(time.Millisecond))
	}
	return sum, nil
}

func plusDefect(d string) string {
	if d == "" {
		return ""
	}
	return "+" + d
}

// suiteEnv is this process's environment with the fake selected. Every run
// gets its own state directory (its own machine) inside the work directory,
// out of reach of anything that tidies the shared temporary directory, and
// the suite's report files go there too, not into the repository. A
// bandwidth baseline of the caller's is dropped: only gated runs get one.
func suiteEnv(preset, defect, reportDir, stateDir string) []string {
	drop := map[string]bool{machine.EnvBackend: true, fake.EnvPreset: true, fake.EnvDefects: true,
		fake.EnvState: true, machine.EnvReportDir: true, bandwidth.EnvBaseline: true, bandwidth.EnvTolerance: true}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !drop[k] {
			env = append(env, kv)
		}
	}
	return append(env, machine.EnvBackend+"=fake", fake.EnvPreset+"="+preset, fake.EnvDefects+"="+defect,
		machine.EnvReportDir+"="+reportDir, fake.EnvState+"="+stateDir)
}
