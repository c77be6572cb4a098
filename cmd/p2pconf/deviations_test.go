// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/p2pconf/p2pconf/harness/report"
)

// litmusRun writes a run folder of the ordering suite on a fake machine
// with driver 580.159.04: one pass and, unless passing, two ordering.litmus
// failures the suite found the compiler caused, one of a variant with a
// weak load of x in the poll loop.
func litmusRun(t *testing.T, passing bool) string {
	t.Helper()
	dir := t.TempDir()
	gpu := 0
	res := func(variant, status string) report.Result {
		r := report.Result{Check: "ordering.litmus", Family: "ordering", Kind: "conf", Target: report.TargetGPU, GPU: &gpu,
			Variant: variant, Status: status, Spec: "ordering.litmus " + variant}
		if status == report.StatusFail && !passing {
			r.Reason, r.Cause, r.CauseDetail = "forbidden outcome f=1 ∧ x=0 in 17 of 10^8", "compiler", "one LDG of x for 64 iterations"
		}
		return r
	}
	fail := report.StatusFail
	if passing {
		fail = report.StatusPass
	}
	doc := report.Document{SchemaVersion: report.SchemaVersion,
		System:  report.System{Host: "node1", Backend: "fake:h200x2", DriverVersion: "580.159.04", CUDAVersion: 13000},
		Suites:  []report.SuiteRun{{Name: "ordering", Backend: "fake:h200x2", Succeeded: passing}},
		Results: []report.Result{res("mp-rel-sys-weak-x-in-loop-cta", fail), res("sb-rel-acq-cta", fail), res("lb-cta", report.StatusPass)}}
	doc.Summary = report.Summarize(doc.Results)
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ordering"+report.SuiteConformanceSuffix), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// knownFile writes a known-deviations file of the given entries, each
// "variant driver cause".
func knownFile(t *testing.T, entries ...string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("# known deviations of the test\n")
	for _, e := range entries {
		f := strings.Fields(e)
		b.WriteString("check: ordering.litmus\nvariant: " + f[0] + "\ndriver: " + f[1] + "\ncause: " + f[2] +
			"\nnote: ptxas merges a weak load across ld.acquire in an unrolled poll loop\n\n")
	}
	p := filepath.Join(t.TempDir(), "known.txt")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func runCmd(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func readConformance(t *testing.T, dir string) report.Document {
	t.Helper()
	doc, err := report.ReadDocument(filepath.Join(dir, report.ConformanceFile))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestReportKnownDeviations(t *testing.T) {
	weak := "*weak-x-in-loop* 580.x compiler"
	for _, tc := range []struct {
		name     string
		entries  []string
		code     int
		accepted int
		unused   int
	}{
		{"no file", nil, exitFailure, 0, 0},
		{"one of two failures accepted: the other still fails", []string{weak}, exitFailure, 1, 0},
		{"both accepted", []string{weak, "sb-* 580.x any"}, exitOK, 2, 0},
		{"driver outside the range", []string{"* >=581 compiler"}, exitFailure, 0, 1},
		{"cause mismatch", []string{"* 580.159.04 hardware"}, exitFailure, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := litmusRun(t, false)
			args := []string{"report", "-suites", "ordering"}
			if tc.entries != nil {
				args = append(args, "-known-deviations", knownFile(t, tc.entries...))
			}
			code, out, errOut := runCmd(append(args, dir)...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tc.code, out, errOut)
			}
			doc := readConformance(t, dir)
			if doc.Summary.Fail != 2 || report.AcceptedCount(doc) != tc.accepted {
				t.Errorf("%d fail, %d accepted; want 2 fail (an accepted failure stays a failure), %d accepted", doc.Summary.Fail, report.AcceptedCount(doc), tc.accepted)
			}
			if tc.accepted > 0 {
				if !strings.Contains(out, plural(tc.accepted, "failure")+" accepted as known deviations: ordering.litmus (mp-rel-sys-weak-x-in-loop-cta)") {
					t.Errorf("the summary does not say what it accepted:\n%s", out)
				}
				for _, f := range []string{report.MatrixMDFile, report.MatrixHTMLFile, report.JUnitFile, report.ConformanceFile} {
					data, _ := os.ReadFile(filepath.Join(dir, f))
					if !strings.Contains(string(data), "ptxas merges a weak load across ld.acquire in an unrolled poll loop") {
						t.Errorf("%s does not carry the note", f)
					}
				}
				if j, _ := os.ReadFile(filepath.Join(dir, report.JUnitFile)); strings.Count(string(j), "<failure") != 2 {
					t.Errorf("junit.xml does not keep both failures:\n%s", j)
				}
			}
			if got := strings.Count(errOut, "unused known deviation"); got != tc.unused {
				t.Errorf("%d unused warnings, want %d:\n%s", got, tc.unused, errOut)
			}
			if tc.code == exitOK && !strings.Contains(out, "all conform but the 2 failures accepted as known deviations") {
				t.Errorf("no verdict line:\n%s", out)
			}
			// Rendered again without the file, nothing stays accepted.
			if code, out, _ := runCmd("report", "-suites", "ordering", dir); code != exitFailure || report.AcceptedCount(readConformance(t, dir)) != 0 {
				t.Errorf("without the file: exit %d, %d accepted\n%s", code, report.AcceptedCount(readConformance(t, dir)), out)
			}
		})
	}
}

func TestDiffKnownDeviations(t *testing.T) {
	old, newer := litmusRun(t, true), litmusRun(t, false)
	for _, tc := range []struct {
		name    string
		entries []string
		code    int
	}{
		{"no file: two regressions", nil, exitFailure},
		{"one accepted, one regression", []string{"*weak-x-in-loop* 580.x compiler"}, exitFailure},
		{"both accepted", []string{"* 580.x compiler"}, exitOK},
		{"driver outside the range", []string{"* 550.x compiler"}, exitFailure},
		{"cause mismatch", []string{"* 580.x hardware"}, exitFailure},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"diff"}
			if tc.entries != nil {
				args = append(args, "-known-deviations", knownFile(t, tc.entries...))
			}
			code, out, errOut := runCmd(append(args, old, newer)...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tc.code, out, errOut)
			}
			if tc.code == exitOK && (!strings.Contains(out, "2 failure(s) accepted as known deviations") || !strings.Contains(out, "pass → fail")) {
				t.Errorf("the diff does not list the accepted failures:\n%s", out)
			}
		})
	}
	// A recorded acceptance in NEW counts for nothing without the file.
	if code, _, _ := runCmd("report", "-suites", "ordering", "-known-deviations", knownFile(t, "* 580.x any"), newer); code != exitOK {
		t.Fatalf("report with the file: exit %d", code)
	}
	if code, out, _ := runCmd("diff", old, filepath.Join(newer, report.ConformanceFile)); code != exitFailure {
		t.Errorf("a conformance.json carrying accepted failures passed diff without the file: exit %d\n%s", code, out)
	}
}

// TestRunKnownDeviationsOnTheFake runs the access suite's peer-copy specs on
// GPU0→GPU1 of the fake two-H200 machine with a driver defect that drops
// one direction of every peer copy: without a file the run fails; with an
// entry for it the run passes and every report still shows the failures.
func TestRunKnownDeviationsOnTheFake(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the access suite")
	}
	t.Setenv("P2PCONF_BACKEND", "fake")
	t.Setenv("P2PCONF_FAKE", "h200x2")
	t.Setenv("P2PCONF_FAKE_DEFECTS", "peer-copy-one-way-dropped")
	t.Setenv("P2PCONF_GPUS", "")
	t.Setenv("P2PCONF_PAIRS", "0-1")
	t.Setenv(report.EnvRunID, "")
	base := t.TempDir()
	known := filepath.Join(base, "known.txt")
	if err := os.WriteFile(known, []byte("check: access.peer-copy\nvariant: *\ndriver: 580.x\ncause: any\nnote: the fake drops one direction\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runOnce := func(name string, flags ...string) (int, string, report.Document) {
		dir := filepath.Join(base, name)
		t.Setenv("P2PCONF_REPORT_DIR", dir)
		var out bytes.Buffer
		code := run(append([]string{"run", "--suites", "access", "--label-filter", "id:access.peer-copy && pair:0-1", "--ginkgo.no-color"}, flags...), &out, &out)
		return code, out.String(), readConformance(t, dir)
	}
	code, out, doc := runOnce("plain")
	if code != exitFailure || doc.Summary.Fail == 0 {
		t.Fatalf("without a file: exit %d, %d fail\n%s", code, doc.Summary.Fail, out)
	}
	code, out, doc = runOnce("accepted", "--known-deviations", known)
	if code != exitOK || doc.Summary.Fail == 0 || report.AcceptedCount(doc) != doc.Summary.Fail {
		t.Errorf("with the file: exit %d, %d fail, %d accepted\n%s", code, doc.Summary.Fail, report.AcceptedCount(doc), out)
	}
	if !strings.Contains(out, "accepted as known deviations: access.peer-copy") || !strings.Contains(out, "fail access.peer-copy GPU0→GPU1") {
		t.Errorf("the run does not say what it accepted:\n%s", out)
	}
	// A bad file stops the run before anything is built or written.
	if err := os.WriteFile(known, []byte("check: access.peer-copy\nvariant: *\ndriver: 580.x\ncause: driver\nnote: n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(base, "bad")
	t.Setenv("P2PCONF_REPORT_DIR", dir)
	var msg bytes.Buffer
	if code := run([]string{"run", "--suites", "access", "--known-deviations", known}, &msg, &msg); code != exitUsage ||
		!strings.Contains(msg.String(), known+":4: cause") {
		t.Errorf("a bad file: exit %d\n%s", code, msg.String())
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("a run with a bad file made its folder: %v", err)
	}
}

// TestDiffBaselineAcceptedOnlyByADeviation: a baseline whose failures were
// accepted by a known deviation does not accept them for good: without the
// entry (removed, expired) the same failures are regressions again.
func TestDiffBaselineAcceptedOnlyByADeviation(t *testing.T) {
	base, newer := litmusRun(t, false), litmusRun(t, false)
	known := knownFile(t, "* 580.x compiler")
	if code, out, _ := runCmd("report", "-suites", "ordering", "-known-deviations", known, base); code != exitOK {
		t.Fatalf("the baseline: exit %d\n%s", code, out)
	}
	// As gate.sh keeps it: the merged conformance.json.
	baseline := filepath.Join(base, report.ConformanceFile)
	if code, out, _ := runCmd("diff", "-known-deviations", known, baseline, newer); code != exitOK {
		t.Errorf("with the entry: exit %d\n%s", code, out)
	}
	code, out, _ := runCmd("diff", baseline, newer)
	if code != exitFailure || !strings.Contains(out, "no longer accepted") || !strings.Contains(out, "2 regression(s)") {
		t.Errorf("without the entry: exit %d, want 1 with two regressions\n%s", code, out)
	}
	// A baseline that simply failed accepts the same failures, as before.
	if code, out, _ := runCmd("diff", litmusRun(t, false), newer); code != exitOK {
		t.Errorf("failed → failed without any file: exit %d\n%s", code, out)
	}
}
