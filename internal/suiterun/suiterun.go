// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package suiterun builds suite test binaries once and runs them with a given
// environment, reading back Ginkgo's JSON report. The self-test (every suite
// on every fake preset) and the mutation run (every suite under every fake
// defect) are both made of such runs; p2pconf run and plan build their
// binaries here too (BuildAll: the project's one go test -c). The package
// reads Ginkgo's JSON through harness/report's own types, so it links no
// test framework and the p2pconf command can use it.
//
// p2pconf run's orchestration lives here as well, so that the command only
// parses flags and prints: the run folder policy (folder.go), the executor
// of a schedule's plan with its signal handling, and the merge of every
// process's shard into the run folder's reports (executor.go).
package suiterun

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/p2pconf/p2pconf/harness/report"
)

// Suites lists the suite packages under ./suites of the module at root.
func Suites(root string) ([]string, error) {
	ents, err := os.ReadDir(filepath.Join(root, "suites"))
	if err != nil {
		return nil, fmt.Errorf("suiterun: list suites: %w", err)
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		tests, _ := filepath.Glob(filepath.Join(root, "suites", e.Name(), "*_test.go"))
		if len(tests) > 0 {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

// Spec is one spec's outcome.
type Spec struct {
	Text   string
	ID     string // from the id: label
	Target string // gpu:N, pair:A-B or triple:A-B-C
	// Variant is the variant key (variant: label), "" when none.
	Variant string
	State   string // passed, failed, skipped, ...
	Reason  string // skip reason or failure message
}

// Result is one run of a suite binary.
type Result struct {
	Suite    string
	Specs    []Spec
	ExitCode int
	Output   string // combined stdout and stderr, for diagnosis
	Duration time.Duration
}

// Count returns how many specs ended in state.
func (r Result) Count(state string) int {
	n := 0
	for _, s := range r.Specs {
		if s.State == state {
			n++
		}
	}
	return n
}

// Run runs the suite binary bin from the suite's package directory (as go
// test does) with extra environment, bounded by timeout, and parses the
// Ginkgo JSON report it writes.
func Run(root, bin, suite string, env []string, timeout time.Duration) (Result, error) {
	res := Result{Suite: suite}
	tmp, err := os.MkdirTemp("", "p2pconf-run-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(tmp)
	jsonPath := filepath.Join(tmp, "report.json")
	cmd := exec.Command(bin, "-test.timeout="+timeout.String(), "--ginkgo.no-color", "--ginkgo.json-report="+jsonPath)
	cmd.Dir = filepath.Join(root, "suites", suite)
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	runErr := cmd.Run()
	res.Duration = time.Since(start)
	res.Output = out.String()
	if ee, ok := runErr.(*exec.ExitError); ok {
		res.ExitCode = ee.ExitCode()
	} else if runErr != nil {
		return res, fmt.Errorf("suiterun: run %s: %w", suite, runErr)
	}
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		return res, fmt.Errorf("suiterun: %s wrote no report (exit %d): %s", suite, res.ExitCode, tail(res.Output, 2000))
	}
	res.Specs, err = ParseReport(b)
	return res, err
}

// ParseReport reads the It specs of a Ginkgo JSON report.
func ParseReport(b []byte) ([]Spec, error) {
	reports, err := report.DecodeGinkgoJSON(b)
	if err != nil {
		return nil, fmt.Errorf("suiterun: parse Ginkgo JSON: %w", err)
	}
	var out []Spec
	for _, r := range reports {
		for _, s := range r.SpecReports {
			if s.LeafNodeType != report.NodeIt {
				continue
			}
			sp := Spec{Text: s.FullText(), State: s.State.String()}
			for _, l := range s.Labels() {
				switch {
				case strings.HasPrefix(l, "id:"):
					sp.ID = strings.TrimPrefix(l, "id:")
				case strings.HasPrefix(l, "gpu:"), strings.HasPrefix(l, "pair:"), strings.HasPrefix(l, "triple:"):
					sp.Target = l
				case strings.HasPrefix(l, "variant:"):
					sp.Variant = strings.TrimPrefix(l, "variant:")
				}
			}
			if s.State != report.SpecPassed {
				sp.Reason = firstLine(s.Failure.Message)
			}
			out = append(out, sp)
		}
	}
	return out, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
