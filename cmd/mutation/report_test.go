// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/p2pconf/p2pconf/harness/fake"
)

// testdata/report.json was recorded from a four-spec Ginkgo v2.34 suite: a
// pass, a failure (pair 1-0), a skip and a panic (a mutant spec, pair 0-1).
func TestReadReport(t *testing.T) {
	sum, err := readReport("testdata/report.json")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Passed != 1 || sum.Failed != 2 || sum.Skipped != 1 || sum.SuiteSucceeded {
		t.Errorf("summary %+v", sum)
	}
	f := failures(sum)
	if len(f) != 2 {
		t.Fatalf("failures %+v", f)
	}
	if f[0].Name() != "access.kernel-remote-write[1-0]" || f[0].Message != "words written from GPU1 into GPU0" {
		t.Errorf("first failure %q: %q", f[0].Name(), f[0].Message)
	}
	if f[1].Name() != "ordering.cross-device-handoff-without-wait[0-1]" || f[1].Message != "panic: boom" {
		t.Errorf("second failure %q: %q", f[1].Name(), f[1].Message)
	}
	if _, err := readReport("report_test.go"); err == nil {
		t.Error("a Go file parsed as a report")
	}
}

func TestNewFailuresIgnoreTheBaseline(t *testing.T) {
	run, err := readReport("testdata/report.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := newFailures(run, run); len(got) != 0 {
		t.Errorf("the same run against itself: %v", got)
	}
	base := run
	base.Specs = append([]specResult(nil), run.Specs...)
	for i := range base.Specs {
		if base.Specs[i].Pair == "1-0" {
			base.Specs[i].State = 0 // passed in the baseline
		}
	}
	got := groupByID(newFailures(base, run))
	if len(got) != 1 || got[0] != "access.kernel-remote-write [1-0]" {
		t.Errorf("new failures %v", got)
	}
}

func TestSelectDefects(t *testing.T) {
	all, err := selectDefects("", "")
	if err != nil || len(all) != len(fake.Defects()) {
		t.Fatalf("all: %d, %v", len(all), err)
	}
	vmm, _ := selectDefects("", "vmm")
	for _, d := range vmm {
		if d.Suite != "vmm" {
			t.Errorf("suite filter let %s (%s) through", d.Name, d.Suite)
		}
	}
	if _, err := selectDefects("no-such-defect", ""); err == nil {
		t.Error("an unknown defect was accepted")
	}
}

func TestSuiteNotBuiltIsNotCaughtAndNotAnError(t *testing.T) {
	m := newMutator(t.TempDir(), t.TempDir(), time.Minute, false, &bytes.Buffer{})
	o := m.try(fake.DefectInfo{Name: "stream-wait-ignored", Suite: "ordering", Preset: "h200x2"}, "h200x2")
	if o.caught || o.err != nil || o.note != "suite ordering not built yet" {
		t.Fatalf("%+v", o)
	}
	var out, errs bytes.Buffer
	if code := printResults(&out, &errs, []outcome{o, {defect: fake.DefectInfo{Name: "x"}, caught: true,
		failed: []specResult{{ID: "ordering.litmus", Pair: "0-1"}}}}); code != 0 {
		t.Errorf("exit %d without harness errors", code)
	}
	if !strings.Contains(out.String(), "mutation score 1/2") || !strings.Contains(out.String(), "ordering.litmus [0-1]") {
		t.Errorf("output:\n%s", out.String())
	}
	if code := printResults(&out, &errs, []outcome{{err: errors.New("boom")}}); code != 1 {
		t.Errorf("exit %d with a harness error", code)
	}
}

func TestSuiteEnv(t *testing.T) {
	t.Setenv(fake.EnvState, "/somewhere")
	t.Setenv(fake.EnvDefects, "free-leaks")
	t.Setenv("P2PCONF_BASELINE", "/somewhere/conformance.json")
	env := strings.Join(suiteEnv("mixed", "", "/tmp/r", "/tmp/s"), "\n")
	for _, want := range []string{"P2PCONF_BACKEND=fake", "P2PCONF_FAKE=mixed", "P2PCONF_FAKE_DEFECTS=\n",
		"P2PCONF_REPORT_DIR=/tmp/r", "P2PCONF_FAKE_STATE=/tmp/s"} {
		if !strings.Contains(env+"\n", want) {
			t.Errorf("env lacks %q", want)
		}
	}
	if strings.Contains(env, "/somewhere") || strings.Contains(env, "free-leaks") {
		t.Error("the caller's fake state or defects leaked into the suite's environment")
	}
}

func TestGatedDefectNeedsTheCleanRunsReport(t *testing.T) {
	m := newMutator(t.TempDir(), t.TempDir(), time.Minute, false, &bytes.Buffer{})
	if _, err := m.gateEnv("bandwidth", "h200x2"); err == nil || !strings.Contains(err.Error(), "no report to gate against") {
		t.Errorf("without the clean run's report: %v", err)
	}
	dir := m.reportDir("bandwidth", "h200x2", "")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "conformance.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	env, err := m.gateEnv("bandwidth", "h200x2")
	if err != nil || len(env) != 2 || env[0] != "P2PCONF_BASELINE="+filepath.Join(dir, "conformance.json") ||
		env[1] != "P2PCONF_BW_TOLERANCE="+GateTolerance {
		t.Errorf("gate env %q, %v", env, err)
	}
}
