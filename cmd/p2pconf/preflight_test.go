// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/p2pconf/p2pconf/harness/preflight"
)

func TestPreflightUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"preflight", "--bogus"},
		{"preflight", "extra"},
		{"preflight", "--preset", "nvlink8"},
		{"preflight", "--suites", "ipc"},
		{"preflight", "--features-expiry", "soon"},
		{"preflight", "-j", "-1"},
		{"preflight", "--run", "a/b"},
		{"preflight", "status"},
	} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != exitUsage {
			t.Errorf("%v: exit %d, want %d (stderr %q)", args, code, exitUsage, errb.String())
		}
		if out.Len() != 0 {
			t.Errorf("%v: wrote %q to stdout", args, out.String())
		}
	}
}

func TestPreflightStatus(t *testing.T) {
	dir := t.TempDir()
	end := time.Now().UTC()
	fail := preflight.Verdict{Schema: preflight.Schema, Verdict: preflight.Fail, End: &end, Summary: "FAIL: 0-1 access.peer-copy: word 3 differs",
		First: &preflight.Problem{Target: "0-1", Check: "access.peer-copy", Status: preflight.Fail}}
	if err := preflight.Write(filepath.Join(dir, preflight.VerdictFile), fail); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		line string
	}{
		{[]string{"preflight", "status", dir}, 1, "p2pconf FAIL: 0-1 access.peer-copy"},
		{[]string{"preflight", "status", "--reason", dir}, 1, "p2pconf: 0-1 access.peer-copy\n"},
		{[]string{"preflight", "status", "--max-age", "1ns", dir}, 2, "p2pconf UNKNOWN: the last verdict (FAIL)"},
		{[]string{"preflight", "status", filepath.Join(dir, "nothing.json")}, 2, "p2pconf UNKNOWN: no verdict"},
	} {
		var out, errb bytes.Buffer
		code := run(tc.args, &out, &errb)
		if code != tc.code || !strings.HasPrefix(out.String(), tc.line) || strings.Count(out.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q; want %d and a line starting %q", tc.args, code, out.String(), tc.code, tc.line)
		}
	}
}
