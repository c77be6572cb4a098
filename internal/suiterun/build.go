// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package suiterun

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// BuildAll compiles the test binaries of suites (package names under
// ./suites of the module at root) into dir, as <suite>.test, with one
// go test -c: the one place the project builds suite binaries (p2pconf run
// and plan, the self-test, the mutation run). The binaries carry the
// checkout's version and commit (VersionFlags). The compiler's output goes
// to log; with a nil log it is kept for the error.
func BuildAll(root, dir string, suites []string, log io.Writer) error {
	var pkgs []string
	for _, s := range suites {
		pkgs = append(pkgs, "./suites/"+s)
	}
	args := []string{"test", "-c", "-o", dir + string(filepath.Separator)}
	if flags := VersionFlags(root); flags != "" {
		args = append(args, "-ldflags", flags)
	}
	cmd := exec.Command("go", append(args, pkgs...)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	if os.Getenv("CGO_CFLAGS") == "" {
		cmd.Env = append(cmd.Env, "CGO_CFLAGS=-Wno-deprecated-declarations")
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if log != nil {
		cmd.Stdout, cmd.Stderr = log, log
	}
	if err := cmd.Run(); err != nil {
		if log == nil {
			return fmt.Errorf("building the suites (go test -c %s): %w\n%s", strings.Join(pkgs, " "), err, strings.TrimSpace(out.String()))
		}
		return fmt.Errorf("building the suites (go test -c %s): %w", strings.Join(pkgs, " "), err)
	}
	return nil
}

// Build compiles suite's test binary into dir and returns its path.
func Build(root, dir, suite string) (string, error) {
	if err := BuildAll(root, dir, []string{suite}, nil); err != nil {
		return "", fmt.Errorf("suiterun: %w", err)
	}
	return filepath.Join(dir, suite+".test"), nil
}

// VersionFlags stamps the checkout's version and commit into the suite
// binaries (go test records no VCS information), as dist/build.sh does,
// so that every report of the run names them; "" when git cannot tell.
func VersionFlags(root string) string {
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", root}, args...)...).Output()
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(out))
	}
	version, commit := git("describe", "--tags", "--always", "--dirty"), git("rev-parse", "HEAD")
	if version == "" || commit == "" || strings.ContainsAny(version+commit, " '\"") {
		return ""
	}
	const pkg = "github.com/p2pconf/p2pconf/harness/report"
	return fmt.Sprintf("-X %s.Version=%s -X %s.Commit=%s", pkg, strings.ReplaceAll(version, "/", "-"), pkg, commit)
}
