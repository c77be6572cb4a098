// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rewriteRun replaces old with new in every file of a run folder copy.
func rewriteRun(t *testing.T, dir, old, new string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(strings.ReplaceAll(string(data), old, new)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestReportExitStatus: one case per exit status of the documented table.
func TestReportExitStatus(t *testing.T) {
	for _, tc := range []struct {
		name string
		args func() []string
		code int
		want string // in stdout or stderr
	}{
		{"every selected suite ran and conformed", func() []string { return []string{"-suites", "ordering", runCopy(t, "run-a", "ordering")} },
			exitOK, "all conform"},
		{"a check failed", func() []string { return []string{runCopy(t, "run-a")} },
			exitFailure, "conformance failure: 2 check result(s) failed or timed out"},
		{"a failure wins over suites that did not run", func() []string { return []string{"-suites", "all", runCopy(t, "run-a", "access")} },
			exitFailure, "incomplete: 7 suites did not run: atomics, bandwidth, health, ipc, managed, ordering, vmm"},
		{"suites did not run", func() []string { return []string{runCopy(t, "run-a", "ordering")} },
			exitIncomplete, "incomplete: 7 suites did not run: access, atomics, bandwidth, health, ipc, managed, vmm"},
		{"a selected suite did not run", func() []string { return []string{"-suites", "ordering,ipc", runCopy(t, "run-a", "ordering")} },
			exitIncomplete, "incomplete: 1 suite did not run: ipc"},
		{"no results at all", func() []string { return []string{t.TempDir()} },
			exitIncomplete, "no p2pconf results in"},
		{"a fleet with a failing host", func() []string {
			return []string{"-o", filepath.Join(t.TempDir(), "fleet"), runCopy(t, "run-a"), runCopy(t, "run-8")}
		}, exitFailure, "fakehost-8: conformance failure"},
		{"a folder that does not exist", func() []string { return []string{filepath.Join(t.TempDir(), "missing")} },
			exitUsage, "no such file or directory"},
		{"a bad flag", func() []string { return []string{"-bogus", runCopy(t, "run-a")} },
			exitUsage, "flag provided but not defined: -bogus"},
	} {
		code, out, errOut := p2pconf(t, append([]string{"report"}, tc.args()...)...)
		if code != tc.code || !strings.Contains(out+errOut, tc.want) {
			t.Errorf("%s: exit %d, want %d with %q\n%s%s", tc.name, code, tc.code, tc.want, out, errOut)
		}
	}
}

// TestDiffExitStatus: one case per exit status of the documented table.
func TestDiffExitStatus(t *testing.T) {
	a := runCopy(t, "run-a")
	hw := runCopy(t, "run-a")
	rewriteRun(t, hw, `"fake:nvlink2"`, `"cuda"`)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"identical runs", []string{a, runCopy(t, "run-a")}, exitOK, "No regressions."},
		{"one run twice", []string{a, a}, exitUsage, "are the same run"},
		{"a regression", []string{a, runCopy(t, "run-b")}, exitFailure, "1 regression(s)."},
		{"a suite did not run in NEW", []string{a, runCopy(t, "run-a", "access", "ordering")}, exitIncomplete,
			"  bandwidth.copy-engine GPU1→GPU0: pass before, missing now: suite bandwidth did not run in the new run"},
		{"hardware against fake", []string{hw, a}, exitUsage, "are not comparable: backends differ: old cuda, new fake:nvlink2; pass -allow-mismatch"},
		{"hardware against fake, allowed", []string{"-allow-mismatch", hw, a}, exitOK, "note: backends differ: old cuda, new fake:nvlink2"},
		{"a bad threshold", []string{"-metric-threshold", "0", a, a}, exitUsage, "-metric-threshold must be positive"},
		{"OLD does not exist", []string{filepath.Join(t.TempDir(), "missing"), a}, exitUsage, "no such file or directory"},
		{"OLD holds no results", []string{t.TempDir(), a}, exitIncomplete, "no p2pconf results in"},
	} {
		code, out, errOut := p2pconf(t, append([]string{"diff"}, tc.args...)...)
		if code != tc.code || !strings.Contains(out+errOut, tc.want) {
			t.Errorf("%s: exit %d, want %d with %q\n%s%s", tc.name, code, tc.code, tc.want, out, errOut)
		}
	}
}
