// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// badInput is one bad input: a setting, a flag or a file. Every one must
// give exit 2 and one line naming it, open no GPU and write no result.
type badInput struct {
	// input is what the line must name (a variable, a flag, a path).
	input string
	// suite: run the health suite binary (as go test or ginkgo would)
	// instead of p2pconf.
	suite bool
	env   []string // KEY=VALUE; $F is the folder of prepared files
	args  []string
	// opens: the fake machine is opened to list its GPUs (a setting names
	// GPUs), so its state folder exists; it must still hold no allocation.
	opens bool
}

// badInputs is the table the issue asks for. $F/afile holds "x",
// $F/empty nothing, $F/known-bad.txt a known-deviations entry with a bad cause on line 4, $F/array.json "[]", $F/dir is a folder, $F/fifo a
// FIFO, $F/dangling a link to nothing, $F/run-a a recorded run.
var badInputs = []badInput{
	// Settings, through a suite binary: before any spec tree.
	{input: "P2PCONF_BW_MAX_SIZE", suite: true, env: []string{"P2PCONF_BW_MAX_SIZE=1XB"}},
	{input: "P2PCONF_BW_TOLERANCE", suite: true, env: []string{"P2PCONF_BW_TOLERANCE=-10"}},
	{input: "P2PCONF_BASELINE", suite: true, env: []string{"P2PCONF_BASELINE=$F/missing.json"}},
	{input: "P2PCONF_BASELINE", suite: true, env: []string{"P2PCONF_BASELINE=$F/empty"}},
	{input: "P2PCONF_BASELINE", suite: true, env: []string{"P2PCONF_BASELINE=$F/array.json"}},
	{input: "P2PCONF_BASELINE", suite: true, env: []string{"P2PCONF_BASELINE=$F/dir"}},
	{input: "P2PCONF_BASELINE", suite: true, env: []string{"P2PCONF_BASELINE=$F/fifo"}},
	{input: "P2PCONF_BASELINE", suite: true, env: []string{"P2PCONF_BASELINE=$F/dangling"}},
	{input: "P2PCONF_LINK_EFFICIENCY_MIN", suite: true, env: []string{"P2PCONF_LINK_EFFICIENCY_MIN=150"}},
	{input: "P2PCONF_BW_SWEEP", suite: true, env: []string{"P2PCONF_BW_SWEEP=some"}},
	{input: "P2PCONF_LITMUS_PROFILE", suite: true, env: []string{"P2PCONF_LITMUS_PROFILE=fast"}},
	{input: "P2PCONF_LITMUS_TARGET", suite: true, env: []string{"P2PCONF_LITMUS_TARGET=-1"}},
	{input: "P2PCONF_LITMUS_TARGET", suite: true, env: []string{"P2PCONF_LITMUS_TARGET=abc"}},
	{input: "P2PCONF_LITMUS_MIN_FLAG_SHARE", suite: true, env: []string{"P2PCONF_LITMUS_MIN_FLAG_SHARE=200%"}},
	{input: "P2PCONF_LITMUS_MAX_VIOLATION_BOUND", suite: true, env: []string{"P2PCONF_LITMUS_MAX_VIOLATION_BOUND=2"}},
	{input: "P2PCONF_LITMUS_MUTANT_BUDGET", suite: true, env: []string{"P2PCONF_LITMUS_MUTANT_BUDGET=0s"}},
	{input: "P2PCONF_PAIR_MUTANTS", suite: true, env: []string{"P2PCONF_PAIR_MUTANTS=foo"}},
	{input: "P2PCONF_TRIPLES", suite: true, env: []string{"P2PCONF_TRIPLES=0-1"}},
	{input: "P2PCONF_TRIPLES", suite: true, env: []string{"P2PCONF_TRIPLES=0-1-9"}, opens: true},
	{input: "P2PCONF_GPUS", suite: true, env: []string{"P2PCONF_GPUS=0,9"}, opens: true},
	{input: "P2PCONF_PAIRS", suite: true, env: []string{"P2PCONF_PAIRS=0-9"}, opens: true},
	{input: "P2PCONF_PAIRS", suite: true, env: []string{"P2PCONF_PAIRS=0-0"}},
	{input: "P2PCONF_SPEC_TIMEOUT", suite: true, env: []string{"P2PCONF_SPEC_TIMEOUT=banana"}},
	{input: "P2PCONF_FAKE", suite: true, env: []string{"P2PCONF_FAKE=nvlink9"}},
	{input: "P2PCONF_FAKE_DEFECTS", suite: true, env: []string{"P2PCONF_FAKE_DEFECTS=no-such-defect"}},
	{input: "P2PCONF_FAKE_FOREIGN", suite: true, env: []string{"P2PCONF_FAKE_FOREIGN=lots"}},
	{input: "P2PCONF_BACKEND", suite: true, env: []string{"P2PCONF_BACKEND=gpu"}},
	{input: "P2PCONF_REPORT_DIR", suite: true, env: []string{"P2PCONF_REPORT_DIR=$F/afile"}},
	{input: "P2PCONF_REPORT_DIR", suite: true, env: []string{"P2PCONF_REPORT_DIR=$F/afile/sub"}},
	{input: "P2PCONF_REPORT_DIR", suite: true, env: []string{"P2PCONF_REPORT_DIR=/sys/p2pconf-reports"}},
	{input: "P2PCONF_LOCK_DIR", suite: true, env: []string{"P2PCONF_LOCK_DIR=$F/afile"}},
	{input: "P2PCONF_LOCK_WAIT", suite: true, env: []string{"P2PCONF_LOCK_WAIT=-1s"}},
	{input: "P2PCONF_LOCK_HELD", suite: true, env: []string{"P2PCONF_LOCK_HELD=nopid"}},
	{input: "P2PCONF_MUTANT_TRIALS", suite: true, env: []string{"P2PCONF_MUTANT_TRIALS=0"}},
	{input: "P2PCONF_LITMUS_STRESS", suite: true, env: []string{"P2PCONF_LITMUS_STRESS=maybe"}},
	{input: "P2PCONF_LITMUS_BUDGET", suite: true, env: []string{"P2PCONF_LITMUS_BUDGET=0"}},
	{input: "P2PCONF_LIBCUDA", suite: true, env: []string{"P2PCONF_LIBCUDA=$F/dir"}},
	{input: "P2PCONF_HOST", suite: true, env: []string{"P2PCONF_HOST=a\x1b[2Jb"}},
	{input: "P2PCONF_BW_MAXSIZE", suite: true, env: []string{"P2PCONF_BW_MAXSIZE=1GiB"}},
	{input: "P2PCONF_GPUS", suite: true, env: []string{"P2PCONF_GPUS=0,0"}},
	{input: "P2PCONF_PAIRS", suite: true, env: []string{"P2PCONF_PAIRS=1-0,1-0"}},
	{input: "P2PCONF_TRIPLES", suite: true, env: []string{"P2PCONF_TRIPLES=0-1-2,0-1-2"}},
	{input: "array where an object", suite: true, env: []string{"P2PCONF_LITMUS_ENV=$F/array.json"}},
	{input: "acess.peer-copy", suite: true, args: []string{"--ginkgo.label-filter=id:acess.peer-copy"}},
	{input: "acess", suite: true, args: []string{"--ginkgo.label-filter=suite:acess"}},
	{input: "suite:(", suite: true, args: []string{"--ginkgo.label-filter=suite:("}},

	// p2pconf's flags, settings and files.
	{input: "--bogus-flag", args: []string{"run", "--bogus-flag"}},
	{input: "stray", args: []string{"run", "stray"}},
	{input: "-j", args: []string{"run", "-j", "-1"}},
	{input: "--mutants", args: []string{"run", "--mutants", "some"}},
	{input: "--run", args: []string{"run", "--run", "a/b"}},
	{input: "P2PCONF_SPEC_TIMEOUT", args: []string{"run"}, env: []string{"P2PCONF_SPEC_TIMEOUT=banana"}},
	{input: "P2PCONF_GPUS", args: []string{"run"}, env: []string{"P2PCONF_GPUS=0,9"}, opens: true},
	{input: "P2PCONF_FAKE", args: []string{"run"}, env: []string{"P2PCONF_FAKE=nvlink9"}},
	{input: "P2PCONF_REPORT_DIR", args: []string{"run"}, env: []string{"P2PCONF_REPORT_DIR=$F/afile"}},
	{input: "acess.peer-copy", args: []string{"run", "--label-filter", "id:acess.peer-copy"}},
	{input: `"id:" does not parse`, args: []string{"run", "--label-filter", "id:"}},
	{input: `"suite:access &&" does not parse`, args: []string{"run", "--label-filter", "suite:access &&"}},
	{input: `"id:" does not parse`, args: []string{"plan", "-label-filter", "id:"}},
	{input: `"0" is named twice`, args: []string{"run"}, env: []string{"P2PCONF_GPUS=0,0"}},
	{input: `"1-0" is named twice`, args: []string{"run"}, env: []string{"P2PCONF_PAIRS=1-0,1-0"}},
	{input: "array where an object", args: []string{"run"}, env: []string{"P2PCONF_LITMUS_ENV=$F/array.json"}},
	{input: "--bogus", args: []string{"preflight", "--bogus"}},
	{input: "$F/dir", args: []string{"run", "--dry-run", "--model", "$F/dir"}},
	{input: "$F/known-bad.txt:4", args: []string{"run", "--known-deviations", "$F/known-bad.txt"}},
	{input: "$F/afile:1", args: []string{"run", "--known-deviations=$F/afile", "--dry-run"}},
	{input: "$F/missing.txt", args: []string{"run", "--known-deviations", "$F/missing.txt"}},
	{input: "-j", args: []string{"plan", "-j", "-3"}},
	{input: "bogus", args: []string{"plan", "-preset", "bogus"}},
	{input: "-mutants", args: []string{"plan", "-mutants", "some"}},
	{input: "$F/empty", args: []string{"plan", "-model", "$F/empty"}},
	{input: "$F/array.json", args: []string{"plan", "-model", "$F/array.json"}},
	{input: "acess", args: []string{"report", "-suites", "acess", "$F/run-a"}},
	{input: "$F/missing", args: []string{"report", "$F/missing"}},
	{input: "$F/array.json", args: []string{"report", "-o", "$F/out", "$F/array.json"}},
	{input: "$F/known-bad.txt:4", args: []string{"report", "-known-deviations", "$F/known-bad.txt", "-o", "$F/out", "$F/run-a"}},
	{input: "$F/empty", args: []string{"diff", "$F/empty", "$F/run-a"}},
	{input: "$F/array.json", args: []string{"diff", "$F/run-a", "$F/array.json"}},
	{input: "$F/missing", args: []string{"diff", "$F/missing", "$F/run-a"}},
	{input: "-metric-threshold", args: []string{"diff", "-metric-threshold", "-1", "$F/run-a", "$F/run-b"}},
	{input: "the same run", args: []string{"diff", "$F/run-a", "$F/run-a"}},
	{input: "the same run", args: []string{"diff", "$F/run-a", "$F/link-a"}},
	{input: "$F/known-bad.txt:4", args: []string{"diff", "-known-deviations", "$F/known-bad.txt", "$F/run-a", "$F/run-b"}},
	{input: "$F/missing", args: []string{"ticket", "-o", "$F/out.tar.gz", "$F/missing"}},
	{input: "--pair 0-9", args: []string{"repro", "access.peer-copy", "--pair", "0-9", "-o", "$F/out"}, opens: true},
	{input: "no.such-check", args: []string{"repro", "no.such-check", "--gpu", "0", "-o", "$F/out"}},
	{input: "extra", args: []string{"topo", "extra"}},
	{input: "P2PCONF_PAIRS", args: []string{"topo"}, env: []string{"P2PCONF_PAIRS=1-1"}},
	{input: "x", args: []string{"version", "x"}},
}

var (
	healthOnce sync.Once
	healthDir  string
	healthBin  string
	healthErr  error
)

// TestMain removes the health suite's binary the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	for _, d := range []string{healthDir, healthRunDir} {
		if d != "" {
			_ = os.RemoveAll(d)
		}
	}
	os.Exit(code)
}

// healthSuite builds the health suite's binary once.
func healthSuite(t *testing.T) string {
	t.Helper()
	healthOnce.Do(func() {
		dir, err := os.MkdirTemp("", "p2pconf-badinput-")
		if err != nil {
			healthErr = err
			return
		}
		healthDir = dir
		healthBin = filepath.Join(dir, "health.test")
		cmd := exec.Command("go", "test", "-c", "-o", healthBin, "./suites/health")
		cmd.Dir = "../.."
		cmd.Env = append(os.Environ(), "CGO_ENABLED=1", "CGO_CFLAGS=-Wno-deprecated-declarations")
		if out, err := cmd.CombinedOutput(); err != nil {
			healthErr = err
			healthBin = string(out)
		}
	})
	if healthErr != nil {
		t.Fatalf("building the health suite: %v\n%s", healthErr, healthBin)
	}
	return healthBin
}

// preparedFiles makes the folder of files the table's $F names.
func preparedFiles(t *testing.T) string {
	t.Helper()
	f := t.TempDir()
	for name, data := range map[string]string{"afile": "x", "empty": "", "array.json": "[]",
		"known-bad.txt": "check: ordering.litmus\nvariant: *\ndriver: 580.x\ncause: ptxas\nnote: n\n"} {
		if err := os.WriteFile(filepath.Join(f, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(f, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(f, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(f, "nothing"), filepath.Join(f, "dangling")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(runCopy(t, "run-a"), filepath.Join(f, "run-a")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(runCopy(t, "run-b"), filepath.Join(f, "run-b")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(f, "run-a"), filepath.Join(f, "link-a")); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestBadInputsExit2BeforeAnyWork runs every bad input of the table.
func TestBadInputsExit2BeforeAnyWork(t *testing.T) {
	if len(badInputs) < 40 {
		t.Fatalf("%d bad inputs, the table needs at least 40", len(badInputs))
	}
	files := preparedFiles(t)
	subst := func(s string) string { return strings.ReplaceAll(s, "$F", files) }
	for _, tc := range badInputs {
		name := strings.Join(append(append([]string{}, tc.env...), tc.args...), " ")
		t.Run(subst(name), func(t *testing.T) {
			state := t.TempDir()
			reports := filepath.Join(t.TempDir(), "reports")
			env := map[string]string{"P2PCONF_BACKEND": "fake", "P2PCONF_FAKE": "h200x2", "P2PCONF_FAKE_STATE": state,
				"P2PCONF_REPORT_DIR": reports, "P2PCONF_GPUS": "", "P2PCONF_PAIRS": "", "P2PCONF_TRIPLES": "", "P2PCONF_RUN_ID": ""}
			for _, kv := range tc.env {
				k, v, _ := strings.Cut(subst(kv), "=")
				env[k] = v
			}
			var args []string
			for _, a := range tc.args {
				args = append(args, subst(a))
			}
			var code int
			var lines []string
			if tc.suite {
				ginkgoJSON := filepath.Join(t.TempDir(), "ginkgo.json")
				cmd := exec.Command(healthSuite(t), append([]string{"--ginkgo.json-report=" + ginkgoJSON}, args...)...)
				cmd.Dir = "../../suites/health"
				cmd.Env = os.Environ()
				for k, v := range env {
					cmd.Env = append(cmd.Env, k+"="+v)
				}
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				code = processExit(cmd.Run())
				lines = strings.Split(strings.TrimSpace(out.String()), "\n")
				if _, err := os.Stat(ginkgoJSON); err == nil {
					t.Errorf("Ginkgo's report %s was written", ginkgoJSON)
				}
			} else {
				for k, v := range env {
					t.Setenv(k, v)
				}
				var stdout, stderr bytes.Buffer
				code = run(args, &stdout, &stderr)
				for _, l := range strings.Split(stdout.String()+stderr.String(), "\n") {
					if strings.HasPrefix(l, "p2pconf ") {
						lines = append(lines, l)
					}
				}
			}
			input := subst(tc.input)
			for _, l := range lines {
				if d := doubledPrefix(l); d != "" {
					t.Errorf("%q says %q twice", l, d)
				}
				if strings.Contains(l, "Go value") || strings.Contains(l, "of type ") {
					t.Errorf("%q names a Go type", l)
				}
			}
			if code != exitUsage || len(lines) != 1 || !strings.Contains(lines[0], input) {
				t.Errorf("exit %d and %d line(s), want exit 2 and one line naming %q:\n%s", code, len(lines), input, strings.Join(lines, "\n"))
			} else {
				t.Logf("exit %d: %s", code, lines[0])
			}
			mem, err := os.ReadDir(filepath.Join(state, "mem"))
			switch {
			case !tc.opens && err == nil:
				t.Errorf("the fake machine was opened (its state folder has mem/)")
			case tc.opens && len(mem) > 0:
				t.Errorf("the fake machine holds %d allocations", len(mem))
			}
			for _, out := range []string{reports, filepath.Join(files, "out"), filepath.Join(files, "out.tar.gz")} {
				if ents, err := os.ReadDir(out); err == nil && len(ents) > 0 || (err != nil && !os.IsNotExist(err) && !strings.Contains(err.Error(), "not a directory")) {
					t.Errorf("%s was written: %v %v", out, ents, err)
				}
				if _, err := os.Stat(out); err == nil && out != reports {
					t.Errorf("%s was written", out)
				}
			}
		})
	}
}

// doubledPrefix is the name a line says twice in a row at its start
// ("p2pconf preflight: preflight: …" says preflight twice), or "".
func doubledPrefix(line string) string {
	parts := strings.Split(line, ": ")
	for i := 1; i < len(parts)-1; i++ {
		a, b := strings.TrimPrefix(parts[i-1], "p2pconf "), strings.TrimPrefix(parts[i], "p2pconf ")
		if a == b && !strings.ContainsAny(a, " \"") {
			return a
		}
	}
	return ""
}

// TestRunWithoutAGPUStopsBeforeBuilding: p2pconf run opens the driver
// before it builds a suite; a driver that cannot be opened ends the run
// at once (exit 3, one line saying so) and leaves no report folder behind.
func TestRunWithoutAGPUStopsBeforeBuilding(t *testing.T) {
	files := preparedFiles(t)
	reports := filepath.Join(t.TempDir(), "reports")
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("nogpu-test-%d", os.Getpid())
	t.Cleanup(func() { _ = os.RemoveAll(filepath.Join(root, "reports", name)) })
	t.Setenv("P2PCONF_BACKEND", "cuda")
	t.Setenv("P2PCONF_LIBCUDA", filepath.Join(files, "afile")) // not a library
	t.Setenv("P2PCONF_REPORT_DIR", "")
	t.Setenv("P2PCONF_GPUS", "")
	t.Setenv("P2PCONF_PAIRS", "")
	t.Setenv("P2PCONF_TRIPLES", "")
	for _, env := range []string{reports, ""} {
		t.Setenv("P2PCONF_REPORT_DIR", env)
		var stdout, stderr bytes.Buffer
		code := run([]string{"run", "--run", name}, &stdout, &stderr)
		if code != exitIncomplete || !strings.Contains(stderr.String(), "no GPU to run on (nothing was built") {
			t.Errorf("P2PCONF_REPORT_DIR=%q: exit %d, want 3 and no GPU to run on:\n%s%s", env, code, stdout.String(), stderr.String())
		}
		if strings.Contains(stderr.String(), "building") {
			t.Errorf("a suite was built:\n%s", stderr.String())
		}
		for _, dir := range []string{reports, filepath.Join(root, "reports", name)} {
			if _, err := os.Stat(dir); err == nil {
				t.Errorf("P2PCONF_REPORT_DIR=%q: %s was left behind", env, dir)
			}
		}
	}
}
