// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/p2pconf/p2pconf/harness/pldi26"
	"github.com/p2pconf/p2pconf/harness/report"
)

// exitCase produces one row of the exit table: it returns the exit status
// and the output, which must contain want.
type exitCase struct {
	command string
	code    int
	want    string
	run     func(t *testing.T) (int, string)
}

// inProcess runs p2pconf with env set (KEY=VALUE, on top of a fake
// two-GPU machine and a fresh report folder).
func inProcess(env []string, args ...string) func(t *testing.T) (int, string) {
	return func(t *testing.T) (int, string) {
		t.Setenv("P2PCONF_BACKEND", "fake")
		t.Setenv("P2PCONF_FAKE", "h200x2")
		t.Setenv("P2PCONF_FAKE_STATE", t.TempDir())
		t.Setenv("P2PCONF_REPORT_DIR", filepath.Join(t.TempDir(), "run"))
		for _, k := range []string{"P2PCONF_GPUS", "P2PCONF_PAIRS", "P2PCONF_FAKE_DEFECTS", report.EnvRunID} {
			t.Setenv(k, "")
		}
		for _, kv := range env {
			k, v, _ := strings.Cut(kv, "=")
			t.Setenv(k, v)
		}
		var out bytes.Buffer
		code := run(args, &out, &out)
		return code, out.String()
	}
}

// runSh runs dist/run.sh of a bundle whose bin/p2pconf exits with code:
// run.sh must hand on p2pconf run's status.
func runSh(code int) func(t *testing.T) (int, string) {
	return func(t *testing.T) (int, string) {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
			t.Fatal(err)
		}
		copyFile(t, "../../dist/run.sh", filepath.Join(dir, "run.sh"))
		stub := fmt.Sprintf("#!/bin/sh\necho \"p2pconf $*\"\nexit %d\n", code)
		if err := os.WriteFile(filepath.Join(dir, "bin", "p2pconf"), []byte(stub), 0o755); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("bash", filepath.Join(dir, "run.sh"), "--suites", "access").CombinedOutput()
		return processExit(err), string(out)
	}
}

func makeConformance(vars ...string) func(t *testing.T) (int, string) {
	return func(t *testing.T) (int, string) {
		cmd := exec.Command("make", append([]string{"-s", "-C", "../..", "conformance", "RUN=exit-row-" + filepath.Base(t.TempDir())}, vars...)...)
		cmd.Env = append(os.Environ(), "P2PCONF_BACKEND=fake", "P2PCONF_FAKE=h200x2")
		out, err := cmd.CombinedOutput()
		return processExit(err), string(out)
	}
}

// TestEveryExitRowHasACase: each row of the exit table is produced by a
// case here, and a row without one fails (a command that registers rows
// adds their cases).
func TestEveryExitRowHasACase(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the health suite through p2pconf run and make")
	}
	// run and plan use the health suite's binary, built once.
	health := healthSuite(t)
	old := suitesFor
	suitesFor = func(only string, _ io.Writer) (suiteSet, error) {
		abs, _ := filepath.Abs("../../suites/health")
		return suiteSet{Root: "../..", Suites: []suiteBinary{{Name: "health", Dir: abs, Bin: health}}}, nil
	}
	t.Cleanup(func() { suitesFor = old })
	noResults := t.TempDir()
	file := filepath.Join(t.TempDir(), "afile")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []exitCase{
		{"run", exitOK, "all conform", func(t *testing.T) (int, string) { r := healthRun(t); return r.code, r.out }},
		{"run", exitFailure, "conformance failure", inProcess([]string{"P2PCONF_FAKE_DEFECTS=fabric-not-started"}, "run", "--suites", "health", "--ginkgo.no-color")},
		{"run", exitUsage, "P2PCONF_SPEC_TIMEOUT", inProcess([]string{"P2PCONF_SPEC_TIMEOUT=banana"}, "run")},
		// A fake whose state folder cannot be made cannot be opened: the
		// run stops before it builds anything.
		{"run", exitIncomplete, "no GPU to run on (nothing was built", inProcess([]string{"P2PCONF_FAKE_STATE=" + file}, "run", "--suites", "health")},

		{"plan", exitOK, "plan for fake preset h200x2", inProcess(nil, "plan", "-preset", "h200x2", "-suites", "health")},
		{"plan", exitUsage, "-j", inProcess(nil, "plan", "-j", "-3")},
		{"plan", exitIncomplete, "listing the specs of health", inProcess([]string{"P2PCONF_FAKE_STATE=" + file}, "plan", "-preset", "h200x2", "-suites", "health")},

		{"topo", exitOK, "backend fake:h200x2", inProcess(nil, "topo")},
		{"topo", exitFailure, "NVML could not tell", func(t *testing.T) (int, string) {
			var sys report.System
			readJSON(t, filepath.Join("testdata", "topo-h200x2.json"), &sys)
			sys.Pairs[0].NVML.Error = "nvmlDeviceGetP2PStatus: ERROR_UNKNOWN"
			old := openMachine
			openMachine = func() (report.System, func(), error) { return sys, nil, nil }
			defer func() { openMachine = old }()
			code, out, errOut := p2pconf(t, "topo")
			return code, out + errOut
		}},
		{"topo", exitUsage, "P2PCONF_BACKEND", inProcess([]string{"P2PCONF_BACKEND=gpu"}, "topo")},

		{"report", exitOK, "all conform", func(t *testing.T) (int, string) {
			code, out, errOut := p2pconf(t, "report", "-suites", "ordering", runCopy(t, "run-a", "ordering"))
			return code, out + errOut
		}},
		{"report", exitFailure, "conformance failure", func(t *testing.T) (int, string) {
			code, out, errOut := p2pconf(t, "report", runCopy(t, "run-a"))
			return code, out + errOut
		}},
		{"report", exitUsage, "acess", func(t *testing.T) (int, string) {
			code, out, errOut := p2pconf(t, "report", "-suites", "acess", runCopy(t, "run-a"))
			return code, out + errOut
		}},
		{"report", exitIncomplete, "no p2pconf results", func(t *testing.T) (int, string) {
			code, out, errOut := p2pconf(t, "report", noResults)
			return code, out + errOut
		}},

		{"diff", exitOK, "No regressions.", func(t *testing.T) (int, string) {
			code, out, errOut := p2pconf(t, "diff", runCopy(t, "run-a"), runCopy(t, "run-a"))
			return code, out + errOut
		}},
		{"diff", exitFailure, "regression", func(t *testing.T) (int, string) {
			code, out, errOut := p2pconf(t, "diff", runCopy(t, "run-a"), runCopy(t, "run-b"))
			return code, out + errOut
		}},
		{"diff", exitUsage, "not JSON", func(t *testing.T) (int, string) {
			code, out, errOut := p2pconf(t, "diff", file, runCopy(t, "run-a"))
			return code, out + errOut
		}},
		{"diff", exitIncomplete, "missing now", func(t *testing.T) (int, string) {
			code, out, errOut := p2pconf(t, "diff", runCopy(t, "run-a"), runCopy(t, "run-a", "access", "ordering"))
			return code, out + errOut
		}},

		{"repro", exitOK, "wrote", inProcess(nil, "repro", "access.peer-copy", "--pair", "0-1", "-o", filepath.Join(noResults, "..", "repro-ok"))},
		{"repro", exitUsage, "--pair 0-9", inProcess(nil, "repro", "access.peer-copy", "--pair", "0-9")},
		{"repro", exitIncomplete, "afile", inProcess(nil, "repro", "access.peer-copy", "--pair", "0-1", "-o", file)},

		{"ticket", exitOK, "wrote", func(t *testing.T) (int, string) {
			code, out, errOut := p2pconf(t, "ticket", "-o", filepath.Join(t.TempDir(), "t.tar.gz"), runCopy(t, "run-a"))
			return code, out + errOut
		}},
		{"ticket", exitUsage, "missing", func(t *testing.T) (int, string) {
			code, out, errOut := p2pconf(t, "ticket", filepath.Join(t.TempDir(), "missing"))
			return code, out + errOut
		}},
		{"ticket", exitIncomplete, "no p2pconf results", func(t *testing.T) (int, string) {
			code, out, errOut := p2pconf(t, "ticket", "-o", filepath.Join(t.TempDir(), "t.tar.gz"), noResults)
			return code, out + errOut
		}},

		{"litmus check", exitOK, "condition holds", inProcess(nil, "litmus", "check", "testdata/litmus/mp-acquire.litmus")},
		{"litmus check", exitFailure, "condition does not hold", inProcess(nil, "litmus", "check", "testdata/litmus/mp-relaxed.litmus")},
		{"litmus check", exitUsage, "barrier.litmus:5: P0: \"bar.cta.sync 0\": barriers are not judged", inProcess(nil, "litmus", "check", "testdata/litmus/barrier.litmus")},
		{"litmus check", exitIncomplete, "undefined: a mixed-size data race", inProcess(nil, "litmus", "check", "testdata/litmus/mixed-size.litmus")},

		{"litmus table", exitOK, "Rows both models forbid: 98; seen here: 0.", func(t *testing.T) (int, string) {
			code, out, errOut := p2pconf(t, "litmus", "table", tableRun(t, func(pldi26.Row) float64 { return 0 }))
			return code, out + errOut
		}},
		{"litmus table", exitUsage, "table takes one run folder", inProcess(nil, "litmus", "table")},
		{"litmus table", exitIncomplete, "holds no result of the table's", func(t *testing.T) (int, string) {
			code, out, errOut := p2pconf(t, "litmus", "table", "-gpu", "1", tableRun(t, func(pldi26.Row) float64 { return 0 }))
			return code, out + errOut
		}},

		{"version", exitOK, "p2pconf ", inProcess(nil, "version")},
		{"version", exitUsage, "version takes no arguments", inProcess(nil, "version", "x")},

		{"run.sh", exitOK, "p2pconf run --suites access", runSh(0)},
		{"run.sh", exitFailure, "p2pconf run --suites access", runSh(1)},
		{"run.sh", exitUsage, "p2pconf run --suites access", runSh(2)},
		{"run.sh", exitIncomplete, "p2pconf run --suites access", runSh(3)},

		{"suite binary", exitOK, "SUCCESS!", runSuiteBinary(health, nil)},
		{"suite binary", exitFailure, "FAIL!", runSuiteBinary(health, []string{"P2PCONF_FAKE_DEFECTS=fabric-not-started"})},
		{"suite binary", exitUsage, `label filter "suite:(" does not parse`, runSuiteBinary(health, nil, "--ginkgo.label-filter=suite:(")},

		{"make conformance", exitOK, "usage: p2pconf run", makeConformance("RUN_FLAGS=--help")},
		{"make conformance", exitUsage, "make conformance: p2pconf run exited 2 (bad input)", makeConformance("RUN_FLAGS=--suites health -j -1")},
	}
	have := map[string]bool{}
	for _, c := range cases {
		key := fmt.Sprintf("%s %d", c.command, c.code)
		have[key] = true
		t.Run(key, func(t *testing.T) {
			code, out := c.run(t)
			if code != c.code || !strings.Contains(out, c.want) {
				t.Errorf("exit %d, want %d with %q:\n%s", code, c.code, c.want, out)
			}
		})
	}
	for _, cmd := range exitCommands() {
		for _, r := range exitsOf(cmd) {
			if !have[fmt.Sprintf("%s %d", cmd, r.Code)] {
				t.Errorf("exit %d of %s (%s) has no case in TestEveryExitRowHasACase", r.Code, cmd, r.Meaning)
			}
		}
	}
}

// TestRunStatus: the run's status from its processes and its report.
func TestRunStatus(t *testing.T) {
	for _, tc := range []struct {
		ok      bool
		verdict error
		code    int
	}{
		{true, nil, exitOK},
		{false, nil, exitIncomplete}, // a process failed, though every result it left conforms
		{true, exitError(exitFailure), exitFailure},
		{false, exitError(exitFailure), exitFailure},
		{true, exitError(exitIncomplete), exitIncomplete},
		{true, incomplete(fmt.Errorf("unreadable")), exitIncomplete},
	} {
		err := runStatus(tc.ok, tc.verdict)
		code := exitOK
		if e, ok := err.(exitError); ok {
			code = int(e)
		}
		if code != tc.code {
			t.Errorf("runStatus(%v, %v) = %v, want exit %d", tc.ok, tc.verdict, err, tc.code)
		}
	}
}

// healthRun is one p2pconf run of the health suite on the fake, shared by
// the tests that need a clean run.
var healthRun = func() func(t *testing.T) healthRunResult {
	var once sync.Once
	var r healthRunResult
	return func(t *testing.T) healthRunResult {
		once.Do(func() {
			health := healthSuite(t)
			old := suitesFor
			suitesFor = func(string, io.Writer) (suiteSet, error) {
				abs, _ := filepath.Abs("../../suites/health")
				return suiteSet{Root: "../..", Suites: []suiteBinary{{Name: "health", Dir: abs, Bin: health}}}, nil
			}
			defer func() { suitesFor = old }()
			dir, err := os.MkdirTemp("", "p2pconf-healthrun-")
			if err != nil {
				t.Fatal(err)
			}
			healthRunDir = dir
			r.dir = filepath.Join(dir, "run")
			r.code, r.out = inProcess([]string{"P2PCONF_REPORT_DIR=" + r.dir}, "run", "--suites", "health", "--ginkgo.no-color")(t)
		})
		return r
	}
}()

type healthRunResult struct {
	code     int
	out, dir string
}

// healthRunDir is removed by TestMain.
var healthRunDir string

// TestRunAndReportAgreeOnAFolder: a run of some suites records them
// (run.json), and p2pconf report on its folder judges it as the run did,
// instead of calling the suites it did not mean to run missing.
func TestRunAndReportAgreeOnAFolder(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the health suite through p2pconf run")
	}
	run := healthRun(t)
	if run.code != exitOK {
		t.Fatalf("run: exit %d\n%s", run.code, run.out)
	}
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.CopyFS(dir, os.DirFS(run.dir)); err != nil {
		t.Fatal(err)
	}
	r, ok, err := readRunRecord(dir)
	if !ok || err != nil || strings.Join(r.Suites, ",") != "health" {
		t.Fatalf("run.json: %+v %v %v, want the health suite", r, ok, err)
	}
	code, stdout, stderr := p2pconf(t, "report", dir)
	if code != exitOK || !strings.Contains(stdout, "all conform") {
		t.Errorf("report on the run's folder: exit %d, want 0 as the run\n%s%s", code, stdout, stderr)
	}
	// Without the record the folder is judged against every suite.
	if err := os.Remove(filepath.Join(dir, runRecordFile)); err != nil {
		t.Fatal(err)
	}
	if code, stdout, _ := p2pconf(t, "report", dir); code != exitIncomplete || !strings.Contains(stdout, "did not run") {
		t.Errorf("report without run.json: exit %d, want 3 naming the suites that did not run\n%s", code, stdout)
	}
}

// runSuiteBinary runs the compiled health suite from its package folder on
// the fake, with env added and args, giving its status and output.
func runSuiteBinary(bin string, env []string, args ...string) func(t *testing.T) (int, string) {
	return func(t *testing.T) (int, string) {
		cmd := exec.Command(bin, append([]string{"--ginkgo.no-color"}, args...)...)
		cmd.Dir = filepath.Join("..", "..", "suites", "health")
		cmd.Env = append(os.Environ(), append([]string{"P2PCONF_BACKEND=fake", "P2PCONF_FAKE=h200x2", "P2PCONF_REPORT_DIR=" + t.TempDir()}, env...)...)
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("running %s: %v", bin, err)
		}
		return code, string(out)
	}
}
