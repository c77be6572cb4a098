// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package suiterun

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// BuildAll compiles the test binaries of suites (package names under
// ./suites of the module at root) into dir, as <suite>.test: the one place
// the project builds suite binaries (p2pconf run and plan, the self-test,
// the mutation run). The binaries carry the checkout's version and commit
// (VersionFlags). The compiler's output goes to log; with a nil log it is
// kept for the error.
//
// One go test -c per suite, as many at once as there are CPUs: go keeps a
// single package's linked test binary in its build cache and hands it out
// again when nothing changed (a second build of eight suites takes seconds),
// while one go test -c of several packages links every binary anew.
func BuildAll(root, dir string, suites []string, log io.Writer) error {
	flags := VersionFlags(root)
	errs := make([]error, len(suites))
	var logMu sync.Mutex
	Parallel(len(suites), max(1, runtime.NumCPU()), func(i int) {
		suite := suites[i]
		out, err := buildOne(root, filepath.Join(dir, suite+".test"), suite, flags)
		if log != nil && len(out) > 0 {
			logMu.Lock()
			_, _ = log.Write(out)
			logMu.Unlock()
		}
		if err != nil {
			msg := fmt.Sprintf("building the %s suite (go test -c ./suites/%s): %v", suite, suite, err)
			if log == nil {
				msg += "\n" + strings.TrimSpace(string(out))
			}
			errs[i] = errors.New(msg)
		}
	})
	return errors.Join(errs...)
}

// buildOne compiles one suite's test binary to bin and returns go's output.
func buildOne(root, bin, suite, flags string) ([]byte, error) {
	args := []string{"test", "-c", "-o", bin}
	if flags != "" {
		args = append(args, "-ldflags", flags)
	}
	cmd := exec.Command("go", append(args, "./suites/"+suite)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	if os.Getenv("CGO_CFLAGS") == "" {
		cmd.Env = append(cmd.Env, "CGO_CFLAGS=-Wno-deprecated-declarations")
	}
	return cmd.CombinedOutput()
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

// Parallel calls do(0) … do(n-1), at most limit at once, and returns when
// every call has.
func Parallel(n, limit int, do func(i int)) {
	sem := make(chan struct{}, max(1, limit))
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			do(i)
		}()
	}
	wg.Wait()
}
