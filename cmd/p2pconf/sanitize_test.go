// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A stand-in for compute-sanitizer: it writes the sanitizer report given in
// FAKE_SANITIZER_REPORT to the --log-file it is given, then runs the
// command after its options, as the real one does.
const fakeSanitizer = `#!/usr/bin/env bash
log=""
while [ $# -gt 0 ]; do
	case "$1" in
	--log-file) log=$2; shift 2 ;;
	--*) shift 2 ;;
	*) break ;;
	esac
done
printf '%b' "$FAKE_SANITIZER_REPORT" > "$log"
exec "$@"
`

// A stand-in suite binary: prints Ginkgo's summary line (or none).
const fakeSuite = `#!/usr/bin/env bash
printf '%b' "$FAKE_SUITE_OUTPUT"
`

// TestSanitizeVerdicts runs dist/sanitize.sh over a stand-in suite and
// sanitizer and checks what it judges: a clean report passes, an intended
// API error listed in the allow file passes, any other error fails, a
// suite that ran no spec fails, and a node without the sanitizer gets exit
// status 2 with the reason.
func TestSanitizeVerdicts(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skipf("needs bash (found: %v)", err)
	}
	const ran = `Ran 3 of 5 Specs in 0.1 seconds\nSUCCESS! -- 3 Passed | 0 Failed\n`
	const apiError = `========= Program hit CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED (error 704) due to "peer access is already enabled" on CUDA API call to cuCtxEnablePeerAccess.\n`
	const allow = "memcheck access CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED cuCtxEnablePeerAccess # access.enable-errors\n"
	for _, c := range []struct {
		name, report, suite, allow string
		want                       int
		say                        string
	}{
		{"clean", `========= ERROR SUMMARY: 0 errors\n`, ran, "", 0, "sanitizer errors 0, intended 0; clean"},
		{"intended API error", apiError + `========= ERROR SUMMARY: 1 error\n`, ran, allow, 0, "sanitizer errors 1, intended 1; clean"},
		{"API error not listed", apiError + `========= ERROR SUMMARY: 1 error\n`, ran, "", 1, "1 errors not allowed"},
		{"memory error", `========= Invalid __global__ read of size 4 bytes\n=========     at copy_words+0x70\n========= ERROR SUMMARY: 1 error\n`, ran, allow, 1, "Invalid __global__ read of size 4 bytes"},
		{"error counted but not shown", `========= ERROR SUMMARY: 2 errors\n`, ran, allow, 1, "2 errors not allowed"},
		{"no spec ran", `========= ERROR SUMMARY: 0 errors\n`, `Ran 0 of 5 Specs in 0.1 seconds\n`, "", 1, "did not run"},
		{"no sanitizer summary", ``, ran, "", 1, "no sanitizer summary"},
	} {
		t.Run(c.name, func(t *testing.T) {
			home := sanitizeTree(t, c.allow)
			cmd := exec.Command("bash", filepath.Join(home, "sanitize.sh"), "--tools", "memcheck", "--out", t.TempDir())
			cmd.Env = append(os.Environ(),
				"COMPUTE_SANITIZER="+filepath.Join(home, "fake-sanitizer"),
				"FAKE_SANITIZER_REPORT="+c.report,
				"FAKE_SUITE_OUTPUT="+c.suite)
			out, err := cmd.CombinedOutput()
			if got := exitCode(t, err); got != c.want {
				t.Errorf("exit status %d, want %d\n%s", got, c.want, out)
			}
			if !strings.Contains(string(out), c.say) {
				t.Errorf("output lacks %q:\n%s", c.say, out)
			}
		})
	}

	t.Run("no sanitizer on the node", func(t *testing.T) {
		home := sanitizeTree(t, "")
		cmd := exec.Command("bash", filepath.Join(home, "sanitize.sh"))
		cmd.Env = append(os.Environ(), "COMPUTE_SANITIZER=", "PATH=/usr/bin:/bin")
		out, err := cmd.CombinedOutput()
		if _, statErr := os.Stat("/usr/local/cuda/bin/compute-sanitizer"); statErr == nil {
			t.Skip("this machine has the CUDA toolkit's compute-sanitizer")
		}
		if got := exitCode(t, err); got != 2 || !strings.Contains(string(out), "compute-sanitizer not found") {
			t.Errorf("exit status %d, want 2 with the reason:\n%s", got, out)
		}
	})
}

// sanitizeTree lays out what the dist tarball holds for sanitize.sh: the
// script, its allow file (the project's header plus extra), suites.txt and
// one suite binary, here stand-ins.
func sanitizeTree(t *testing.T, extra string) string {
	t.Helper()
	home := t.TempDir()
	copyScript(t, filepath.Join("..", "..", "dist", "sanitize.sh"), filepath.Join(home, "sanitize.sh"))
	header, err := os.ReadFile(filepath.Join("..", "..", "dist", "sanitize-allow.txt"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(home, "sanitize-allow.txt"), string(header)+extra, 0o644)
	write(t, filepath.Join(home, "suites.txt"), "suites/access access\n", 0o644)
	if err := os.MkdirAll(filepath.Join(home, "suites", "access"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(home, "suites", "access", "access.test"), fakeSuite, 0o755)
	write(t, filepath.Join(home, "fake-sanitizer"), fakeSanitizer, 0o755)
	return home
}

func copyScript(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	write(t, to, string(b), 0o755)
}

func write(t *testing.T, path, text string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
}

func exitCode(t *testing.T, err error) int {
	t.Helper()
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("run: %v", err)
	}
	return ee.ExitCode()
}
