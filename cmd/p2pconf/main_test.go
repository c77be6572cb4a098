// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/p2pconf/p2pconf/harness/report"
)

// The recorded runs in testdata/ are what suite binaries leave in a run
// folder (<suite>.conformance.json), made from the hand-built Ginkgo
// reports in harness/report/testdata. Regenerate with
//
//	go test ./cmd/p2pconf -run TestRecordedRuns -update
var update = flag.Bool("update", false, "rewrite the recorded runs in testdata")

var recorded = map[string]string{
	"run-a": "fake2",           // 2 GPUs: passes, failures, skips, a timeout, an error
	"run-b": "fake2-regressed", // run-a with access.peer-copy GPU0→GPU1 failing
	"run-8": "fake8",           // another host, 8 GPUs
}

func TestRecordedRuns(t *testing.T) {
	for run, fixture := range recorded {
		dst := filepath.Join("testdata", run)
		if !*update {
			if files, _ := filepath.Glob(filepath.Join(dst, "*"+report.SuiteConformanceSuffix)); len(files) == 0 {
				t.Errorf("%s has no recorded suites (run with -update)", dst)
			}
			continue
		}
		src := filepath.Join("..", "..", "harness", "report", "testdata", fixture)
		var sys report.System
		readJSON(t, filepath.Join(src, "system.json"), &sys)
		tmp := t.TempDir()
		files, _ := filepath.Glob(filepath.Join(src, "*"+report.SuiteGinkgoSuffix))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			name := strings.TrimSuffix(filepath.Base(f), report.SuiteGinkgoSuffix)
			meta := report.RunMeta{Suite: name, ToolVersion: "v0.0.0-test", Commit: "0123456789abcdef", Args: []string{"./" + name + ".test"}}
			if err := report.WriteRun(tmp, sys, data, meta); err != nil {
				t.Fatal(err)
			}
		}
		_ = os.RemoveAll(dst)
		if err := os.MkdirAll(dst, 0o755); err != nil {
			t.Fatal(err)
		}
		out, _ := filepath.Glob(filepath.Join(tmp, "*"+report.SuiteConformanceSuffix))
		for _, f := range out {
			copyFile(t, f, filepath.Join(dst, filepath.Base(f)))
		}
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// runCopy copies a recorded run into a fresh folder, since report writes.
func runCopy(t *testing.T, run string, suites ...string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), run)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join("testdata", run, "*"))
	for _, f := range files {
		name := filepath.Base(f)
		if len(suites) > 0 && !contains(suites, strings.TrimSuffix(name, report.SuiteConformanceSuffix)) {
			continue
		}
		copyFile(t, f, filepath.Join(dst, name))
	}
	return dst
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// p2pconf runs the command line and returns its exit status and output.
func p2pconf(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestVersion(t *testing.T) {
	code, out, _ := p2pconf(t, "version")
	if code != 0 || !strings.HasPrefix(out, "p2pconf ") || !strings.Contains(out, "conformance schema 1") {
		t.Errorf("version: %d %q", code, out)
	}
}

func TestUsageErrors(t *testing.T) {
	a := runCopy(t, "run-a")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "usage: p2pconf <command>"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"report"}, "report needs a run folder"},
		{[]string{"report", a, a}, "several run folders need -o OUT"},
		{[]string{"report", "-bogus", a}, "flag provided but not defined: -bogus"},
		{[]string{"report", filepath.Join(a, "access.conformance.json")}, "is a file; give its run folder"},
		{[]string{"report", filepath.Join(t.TempDir(), "missing")}, "no such file or directory"},
		{[]string{"diff", a}, "diff needs two runs, OLD and NEW (got 1 argument)"},
		{[]string{"diff", "-metric-threshold", "0", a, a}, "-metric-threshold must be positive"},
		{[]string{"topo", "extra"}, "topo takes no arguments"},
		{[]string{"version", "x"}, "version takes no arguments"},
	} {
		code, _, errOut := p2pconf(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("p2pconf %v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
	if code, out, _ := p2pconf(t, "help"); code != 0 || !strings.Contains(out, "commands:") {
		t.Errorf("help: %d %q", code, out)
	}
}

func TestReportInPlace(t *testing.T) {
	dir := runCopy(t, "run-a")
	code, out, errOut := p2pconf(t, "report", "-print", dir)
	if code != exitFailure { // run-a holds a failed check
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"fakehost-a [fake:nvlink2]: 13 pass, 1 fail, 3 skip, 1 timeout, 1 error", "# p2pconf conformance matrix — fakehost-a — fake:nvlink2"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, f := range []string{report.ConformanceFile, report.JUnitFile, report.MatrixMDFile, report.MatrixHTMLFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

func TestReportMergesPartialRuns(t *testing.T) {
	first := runCopy(t, "run-a", "access")
	second := runCopy(t, "run-a", "ordering", "bandwidth")
	out := filepath.Join(t.TempDir(), "merged")
	code, stdout, errOut := p2pconf(t, "report", "-o", out, first, second)
	if code != exitFailure {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	doc, err := report.ReadDocument(filepath.Join(out, report.ConformanceFile))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range doc.Suites {
		names = append(names, s.Name)
	}
	sort.Strings(names)
	if strings.Join(names, ",") != "access,bandwidth,ordering" || len(doc.Results) != 19 {
		t.Errorf("merged suites %v, %d results\n%s", names, len(doc.Results), stdout)
	}
}

func TestReportFleet(t *testing.T) {
	out := filepath.Join(t.TempDir(), "fleet")
	code, stdout, errOut := p2pconf(t, "report", "-o", out, runCopy(t, "run-a"), runCopy(t, "run-8"))
	if code != exitFailure {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(stdout, "fleet view of 2 hosts") {
		t.Errorf("stdout: %s", stdout)
	}
	md, err := os.ReadFile(filepath.Join(out, report.FleetMDFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "rerun on fakehost-8: `P2PCONF_BACKEND=fake P2PCONF_FAKE=nvlink8 P2PCONF_PAIRS=3-5 go tool ginkgo --label-filter='id:access.peer-copy && pair:3-5' ./suites/access`") {
		t.Errorf("fleet.md lacks the per-host rerun command:\n%s", md)
	}
	// The fleet output reads back as input.
	again := filepath.Join(t.TempDir(), "fleet-again")
	if err := os.CopyFS(again, os.DirFS(out)); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := p2pconf(t, "diff", out, again); code != 0 {
		t.Errorf("diff of a fleet with itself: exit %d %s", code, errOut)
	}
}

func TestDiffRegression(t *testing.T) {
	code, out, errOut := p2pconf(t, "diff", runCopy(t, "run-a"), runCopy(t, "run-b"))
	if code != 1 {
		t.Fatalf("diff of a regressed run: exit %d, want 1\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"Newly failing (! = regression) (1):",
		"! access.peer-copy GPU0→GPU1: pass → fail: word 17 of 16777220 copied GPU0→GPU1 is 0xdeadbeef",
		"rerun: P2PCONF_BACKEND=fake P2PCONF_FAKE=nvlink2 P2PCONF_PAIRS=0-1 go tool ginkgo --label-filter='id:access.peer-copy && pair:0-1' ./suites/access",
		"1 regression(s).",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("diff output lacks %q:\n%s", want, out)
		}
	}
	// Fixed the other way round, exit 0.
	if code, out, _ := p2pconf(t, "diff", runCopy(t, "run-b"), runCopy(t, "run-a")); code != 0 || !strings.Contains(out, "Fixed (1):") {
		t.Errorf("reverse diff: exit %d\n%s", code, out)
	}
}

func TestDiffIdenticalAndJSON(t *testing.T) {
	a := runCopy(t, "run-a")
	code, out, _ := p2pconf(t, "diff", a, runCopy(t, "run-a"))
	if code != 0 || !strings.Contains(out, "No regressions.") {
		t.Errorf("identical runs: exit %d\n%s", code, out)
	}
	code, out, _ = p2pconf(t, "diff", "-json", a, runCopy(t, "run-b"))
	var d report.DiffResult
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("diff -json is not JSON: %v\n%s", err, out)
	}
	if code != 1 || d.Regressions != 1 || d.NewlyFailing[0].Key != "access.peer-copy GPU0→GPU1" {
		t.Errorf("diff -json: exit %d, %+v", code, d)
	}
	// A merged conformance.json is an input too.
	if code, _, errOut := p2pconf(t, "report", a); code != exitFailure {
		t.Fatal(errOut)
	}
	if code, _, errOut := p2pconf(t, "diff", filepath.Join(a, report.ConformanceFile), runCopy(t, "run-b")); code != 1 {
		t.Errorf("diff from conformance.json: exit %d %s", code, errOut)
	}
}
