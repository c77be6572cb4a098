// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package ci holds example CI jobs that gate driver upgrades on p2pconf and
// the script they share, gate.sh. Its tests run gate.sh on the fake backend
// through a baseline's life (first run, regression, recovery) and check
// that both CI files call it and publish what it writes.
package ci

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// gateRun is one call of gate.sh and what it left.
type gateRun struct {
	code   int
	output string
}

// gateEnv is the test's environment without the caller's p2pconf or gate
// settings, on two fake GPUs and one check (the run takes seconds).
func gateEnv(gateDir string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "P2PCONF_") || strings.HasPrefix(kv, "GATE_") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "GATE_DIR="+gateDir, "P2PCONF_BACKEND=fake", "P2PCONF_FAKE=h200x2", "P2PCONF_PAIRS=0-1,1-0")
	return append(env, extra...)
}

func runGate(t *testing.T, env []string, args ...string) gateRun {
	t.Helper()
	cmd := exec.Command("bash", append([]string{"gate.sh"}, args...)...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("gate.sh %v: %v", args, err)
		}
		code = ee.ExitCode()
	}
	return gateRun{code: code, output: string(out)}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return data
}

// TestGateOnFakeBackend builds a tarball of the access suite and walks the
// gate through: a failing first run (no baseline to accept it), a clean run
// that becomes the baseline, a driver defect that regresses (baseline
// kept), a recovery, and the runs the gate cannot judge.
func TestGateOnFakeBackend(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the access suite and runs it four times; skipped with -short")
	}
	work := t.TempDir()
	build := exec.Command("bash", "dist/build.sh", "--out", filepath.Join(work, "dist"), "--version", "v0.0.0-gate", "./suites/access")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("dist/build.sh: %v\n%s", err, out)
	}
	tarball := filepath.Join(work, "dist", "p2pconf-v0.0.0-gate-linux-amd64.tar.gz")
	gateDir := filepath.Join(work, "gate")
	baseline := filepath.Join(gateDir, "baseline", "conformance.json")
	newRun := filepath.Join(gateDir, "run", "conformance.json")
	junit := filepath.Join(gateDir, "run", "junit.xml")
	flags := []string{tarball, "--suites", "access", "--label-filter", "id:access.kernel-remote-write", "--ginkgo.no-color"}
	clean := gateEnv(gateDir)
	defect := gateEnv(gateDir, "P2PCONF_FAKE_DEFECTS=peer-store-dropped")

	// 1. A failing run with no baseline fails the gate and is not kept.
	r := runGate(t, defect, flags...)
	if r.code != 1 || !strings.Contains(r.output, "no baseline at "+baseline) {
		t.Fatalf("first run with a defect: exit %d, want 1 and the missing baseline named\n%s", r.code, r.output)
	}
	if _, err := os.Stat(baseline); err == nil {
		t.Fatalf("a failing first run became the baseline\n%s", r.output)
	}
	if !bytes.Contains(readFile(t, junit), []byte("<failure")) {
		t.Errorf("the failing run's %s has no failure to publish", junit)
	}
	// The tarball carries deploy/ (this script among it), without Go tests.
	shipped := filepath.Join(gateDir, "bundle", "p2pconf-v0.0.0-gate-linux-amd64", "deploy")
	for _, f := range []string{"ci/gate.sh", "ci/github-actions.yml", "ci/gitlab-ci.yml", "slurm/p2pconf.sbatch", "slurm/submit.sh", "kubernetes/render.sh", "README.md"} {
		if _, err := os.Stat(filepath.Join(shipped, f)); err != nil {
			t.Errorf("the tarball lacks deploy/%s: %v", f, err)
		}
	}
	if tests, _ := filepath.Glob(filepath.Join(shipped, "*", "*_test.go")); len(tests) > 0 {
		t.Errorf("the tarball ships Go tests: %v", tests)
	}

	// 2. A clean run passes and becomes the baseline.
	r = runGate(t, clean, flags...)
	if r.code != 0 {
		t.Fatalf("clean run without a baseline: exit %d, want 0\n%s", r.code, r.output)
	}
	if !bytes.Equal(readFile(t, baseline), readFile(t, newRun)) {
		t.Fatalf("the passing run's conformance.json is not the baseline\n%s", r.output)
	}
	accepted := readFile(t, baseline)

	// 3. The defect now regresses against the baseline; the baseline stays.
	r = runGate(t, defect, flags...)
	if r.code != 1 || !strings.Contains(r.output, "FAIL: regressions against the baseline") {
		t.Fatalf("defect against a clean baseline: exit %d, want 1 with the regression\n%s", r.code, r.output)
	}
	if diff := string(readFile(t, filepath.Join(gateDir, "diff.txt"))); !strings.Contains(diff, "access.kernel-remote-write") {
		t.Errorf("diff.txt does not name the regressed check:\n%s", diff)
	}
	if !bytes.Equal(readFile(t, baseline), accepted) {
		t.Fatalf("a regressed run replaced the baseline\n%s", r.output)
	}
	if _, err := os.Stat(junit); err != nil {
		t.Errorf("the regressed run left no JUnit to publish: %v", err)
	}

	// 4. Recovery: no regression, the gate passes and moves the baseline on.
	r = runGate(t, clean, flags...)
	if r.code != 0 || !strings.Contains(r.output, "PASS: no regression against the baseline") {
		t.Fatalf("clean run against the baseline: exit %d, want 0\n%s", r.code, r.output)
	}
	if !bytes.Equal(readFile(t, baseline), readFile(t, newRun)) {
		t.Errorf("the passing run did not become the baseline")
	}

	// 5. A known deviation: the defect's failures, accepted by an entry of
	// GATE_KNOWN_DEVIATIONS, pass the gate and stay failures in its JUnit
	// and diff; the run becomes the baseline with its notes.
	known := filepath.Join(work, "known-deviations.txt")
	entry := "check: access.kernel-remote-write\nvariant: *\ndriver: 580.x\ncause: any\nnote: the fake drops peer stores\n"
	if err := os.WriteFile(known, []byte(entry), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runGate(t, append(defect, "GATE_KNOWN_DEVIATIONS="+known), flags...)
	if r.code != 0 || !strings.Contains(r.output, "PASS: no regression against the baseline") {
		t.Fatalf("defect with its known deviation: exit %d, want 0\n%s", r.code, r.output)
	}
	if j := readFile(t, junit); !bytes.Contains(j, []byte("<failure")) || !bytes.Contains(j, []byte("the fake drops peer stores")) {
		t.Errorf("the accepted failures are not failures with their note in %s", junit)
	}
	if diff := string(readFile(t, filepath.Join(gateDir, "diff.txt"))); !strings.Contains(diff, "accepted as known deviations") {
		t.Errorf("diff.txt does not say what it accepted:\n%s", diff)
	}
	// 6. Without the entry the same failures regress against that baseline.
	r = runGate(t, defect, flags...)
	if r.code != 1 || !strings.Contains(string(readFile(t, filepath.Join(gateDir, "diff.txt"))), "no longer accepted") {
		t.Fatalf("defect after its entry was removed: exit %d, want 1\n%s", r.code, r.output)
	}
	// 7. A bad file stops the gate before the run; the baseline stays.
	before := readFile(t, baseline)
	if err := os.WriteFile(known, []byte(strings.Replace(entry, "cause: any", "cause: fake", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runGate(t, append(defect, "GATE_KNOWN_DEVIATIONS="+known), flags...)
	if r.code != 2 || !strings.Contains(r.output, known+":4: cause") {
		t.Errorf("a bad known-deviations file: exit %d, want 2 naming %s:4\n%s", r.code, known, r.output)
	}
	if !bytes.Equal(readFile(t, baseline), before) {
		t.Errorf("a gate stopped by a bad file changed the baseline")
	}
	// Recovery again, for what follows.
	if r = runGate(t, clean, flags...); r.code != 0 {
		t.Fatalf("clean run: exit %d\n%s", r.code, r.output)
	}
	kept := readFile(t, baseline)

	// 8. Runs the gate cannot judge exit 2 and leave the baseline alone.
	if r := runGate(t, clean, filepath.Join(work, "no-such.tar.gz")); r.code != 2 || !strings.Contains(r.output, "no tarball") {
		t.Errorf("missing tarball: exit %d, want 2\n%s", r.code, r.output)
	}
	if r := runGate(t, clean, tarball, "--suites", "no-such-suite"); r.code != 2 || !strings.Contains(r.output, "no suite matches") {
		t.Errorf("run.sh usage error: exit %d, want 2\n%s", r.code, r.output)
	}
	if !bytes.Equal(readFile(t, baseline), kept) {
		t.Errorf("a run the gate could not judge changed the baseline")
	}
}

// TestCIFilesUseTheGate decodes both example CI files and checks that each
// runs gate.sh on the dist tarball, publishes the JUnit gate.sh writes, and
// keeps the baseline folder between jobs, saved only on success.
func TestCIFilesUseTheGate(t *testing.T) {
	const (
		gateCmd     = "deploy/ci/gate.sh dist/out/p2pconf-*-linux-amd64.tar.gz"
		junitPath   = "p2pconf-gate/run/junit.xml"
		baselineDir = "p2pconf-gate/baseline"
	)
	var gh struct {
		Jobs map[string]struct {
			RunsOn any `json:"runs-on"`
			Env    map[string]string
			Steps  []struct {
				Name string
				Uses string
				Run  string
				If   string
				With map[string]any
			}
		}
	}
	if err := yaml.Unmarshal(readFile(t, "github-actions.yml"), &gh); err != nil {
		t.Fatalf("github-actions.yml: %v", err)
	}
	job, ok := gh.Jobs["gate"]
	if !ok {
		t.Fatalf("github-actions.yml has no gate job")
	}
	if job.Env["GATE_DIR"] != "p2pconf-gate" {
		t.Errorf("github-actions.yml: gate job GATE_DIR = %q, want p2pconf-gate", job.Env["GATE_DIR"])
	}
	if !strings.Contains(strings.Join(anyStrings(job.RunsOn), " "), "self-hosted") {
		t.Errorf("github-actions.yml: the gate job runs on %v, want a self-hosted runner", job.RunsOn)
	}
	var runsGate, publishes, restores, saves bool
	for _, s := range job.Steps {
		switch {
		case strings.TrimSpace(s.Run) == gateCmd:
			runsGate = true
		case strings.HasPrefix(s.Uses, "mikepenz/action-junit-report@"):
			publishes = s.With["report_paths"] == junitPath && s.If == "always()"
		case strings.HasPrefix(s.Uses, "actions/cache/restore@"):
			restores = s.With["path"] == baselineDir
		case strings.HasPrefix(s.Uses, "actions/cache/save@"):
			saves = s.With["path"] == baselineDir && s.If == "success()"
		}
	}
	for what, ok := range map[string]bool{"runs " + gateCmd: runsGate, "publishes " + junitPath + " always": publishes,
		"restores " + baselineDir: restores, "saves " + baselineDir + " on success only": saves} {
		if !ok {
			t.Errorf("github-actions.yml: the gate job never %s", what)
		}
	}

	var gl map[string]json.RawMessage
	if err := yaml.Unmarshal(readFile(t, "gitlab-ci.yml"), &gl); err != nil {
		t.Fatalf("gitlab-ci.yml: %v", err)
	}
	var g struct {
		Needs     []string
		Tags      []string
		Variables map[string]string
		Script    []string
		Cache     struct {
			Key   string
			Paths []string
			When  string
		}
		Artifacts struct {
			When    string
			Reports map[string]string
			Paths   []string
		}
	}
	if err := json.Unmarshal(gl["p2pconf-gate"], &g); err != nil {
		t.Fatalf("gitlab-ci.yml: the p2pconf-gate job: %v", err)
	}
	if g.Variables["GATE_DIR"] != "p2pconf-gate" || len(g.Script) != 1 || g.Script[0] != gateCmd {
		t.Errorf("gitlab-ci.yml: p2pconf-gate runs %q with GATE_DIR=%q, want %q with p2pconf-gate", g.Script, g.Variables["GATE_DIR"], gateCmd)
	}
	if g.Artifacts.Reports["junit"] != junitPath || g.Artifacts.When != "always" {
		t.Errorf("gitlab-ci.yml: junit report %q when %q, want %s always", g.Artifacts.Reports["junit"], g.Artifacts.When, junitPath)
	}
	if len(g.Cache.Paths) != 1 || strings.TrimSuffix(g.Cache.Paths[0], "/") != baselineDir || g.Cache.When != "on_success" {
		t.Errorf("gitlab-ci.yml: cache %v when %q, want %s on_success", g.Cache.Paths, g.Cache.When, baselineDir)
	}
	if _, ok := gl[firstOf(g.Needs)]; !ok {
		t.Errorf("gitlab-ci.yml: p2pconf-gate needs %v, which is no job of the file", g.Needs)
	}
}

func anyStrings(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func firstOf(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}
