// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Command selftest runs every suite on every fake preset and checks the
// outcome against the reviewed expectation in testdata/expected.json: each
// preset passes and skips exactly the expected number of specs with the
// expected skip reasons, and no spec fails unless the preset models a driver
// defect that the spec exists to catch (h200x2 models driver 580's
// disagreement between NATIVE_ATOMIC_SUPPORTED and the per-operation atomic
// capabilities, which atomics.capability-report must fail on). It is how CI,
// with no GPU, proves the suites build, run, skip and fail for the right
// reasons.
//
//	go run ./cmd/selftest            # check
//	go run ./cmd/selftest -update    # rewrite the expectation after reviewing a change
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/p2pconf/p2pconf/internal/suiterun"
)

// presets are the fake machines the suites run on. Large presets run on a
// few pairs that cover their link kinds, so `make test` stays within minutes;
// the pair lists are part of the expectation.
var presets = []struct{ Name, GPUs, Pairs string }{
	{"single", "", ""},
	{"h200x2", "", ""},
	{"nvlink8", "0,1", ""},
	{"pcie4-nop2p", "0,1", ""},
	{"mixed", "", "0-1,2-3,1-2"}, // native NVLink, partial-atomics NVLink, PCIe
}

// Counts is one suite's outcome on one preset.
type Counts struct {
	Passed      int            `json:"passed"`
	Skipped     int            `json:"skipped"`
	SkipReasons map[string]int `json:"skip_reasons,omitempty"`
	// Failed lists the specs expected to fail on the preset, by check and target.
	Failed map[string]int `json:"failed,omitempty"`
}

func main() {
	update := flag.Bool("update", false, "rewrite testdata/expected.json from this run")
	only := flag.String("suite", "", "run only this suite")
	flag.Parse()
	if err := run(*update, *only); err != nil {
		fmt.Fprintln(os.Stderr, "selftest:", err)
		os.Exit(1)
	}
}

func run(update bool, only string) error {
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	suites, err := suiterun.Suites(root)
	if err != nil {
		return err
	}
	if only != "" && !slices.Contains(suites, only) {
		return fmt.Errorf("-suite %s: no such suite (found: %s)", only, strings.Join(suites, ", "))
	}
	tmp, err := os.MkdirTemp("", "p2pconf-selftest-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	got := map[string]map[string]Counts{}
	var passed, failed, skipped int
	var problems []string
	for _, suite := range suites {
		if only != "" && suite != only {
			continue
		}
		bin, err := suiterun.Build(root, tmp, suite)
		if err != nil {
			return err
		}
		for _, p := range presets {
			env := []string{"P2PCONF_BACKEND=fake", "P2PCONF_FAKE=" + p.Name, "P2PCONF_GPUS=" + p.GPUs, "P2PCONF_PAIRS=" + p.Pairs,
				"P2PCONF_FAKE_DEFECTS=", "P2PCONF_REPORT_DIR="}
			res, err := suiterun.Run(root, bin, suite, env, 10*time.Minute)
			if err != nil {
				return err
			}
			c := Counts{Passed: res.Count("passed"), Skipped: res.Count("skipped"), SkipReasons: map[string]int{}, Failed: map[string]int{}}
			for _, s := range res.Specs {
				switch s.State {
				case "passed":
				case "skipped":
					c.SkipReasons[s.Reason]++
				default:
					c.Failed[s.State+" "+s.ID+" "+s.Target]++
					fmt.Printf("  %s: %s\n    %s\n", s.State, s.Text, s.Reason)
				}
			}
			switch {
			case res.ExitCode != 0 && len(res.Specs) == 0:
				problems = append(problems, fmt.Sprintf("%s on %s exited %d:\n%s", suite, p.Name, res.ExitCode, res.Output))
			case res.ExitCode != 0 && len(c.Failed) == 0:
				// Every spec passed or skipped, yet the run failed: a suite-level
				// node (the reports, a cleanup) broke.
				out := res.Output
				if len(out) > 3000 {
					out = "…" + out[len(out)-3000:]
				}
				problems = append(problems, fmt.Sprintf("%s on %s exited %d although no spec failed:\n%s", suite, p.Name, res.ExitCode, out))
			}
			passed += c.Passed
			skipped += c.Skipped
			if got[p.Name] == nil {
				got[p.Name] = map[string]Counts{}
			}
			got[p.Name][suite] = c
			fmt.Printf("%-12s %-10s %4d passed %4d skipped %4d other  (%s)\n", p.Name, suite, c.Passed, c.Skipped,
				len(res.Specs)-c.Passed-c.Skipped, res.Duration.Round(time.Millisecond))
		}
	}
	expPath := filepath.Join(root, "cmd", "selftest", "testdata", "expected.json")
	if update {
		if err := writeExpectation(expPath, got, only); err != nil {
			return err
		}
	} else {
		problems = append(problems, compare(expPath, got, only)...)
	}
	for _, p := range problems {
		fmt.Println("PROBLEM:", p)
	}
	// The plain closing line CI reads: "failed" counts outcomes that differ
	// from the reviewed expectation (expected failures are listed above).
	failed = len(problems)
	fmt.Printf("selftest: %d passed, %d failed, %d skipped\n", passed, failed, skipped)
	if len(problems) > 0 {
		return fmt.Errorf("%d problems", len(problems))
	}
	return nil
}

// writeExpectation stores got as the expectation; with -suite it replaces
// only that suite's entries and keeps the others.
func writeExpectation(path string, got map[string]map[string]Counts, only string) error {
	all := map[string]map[string]Counts{}
	if b, err := os.ReadFile(path); err == nil && only != "" {
		if err := json.Unmarshal(b, &all); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	for preset, suites := range got {
		if all[preset] == nil {
			all[preset] = map[string]Counts{}
		}
		for suite, c := range suites {
			all[preset][suite] = c
		}
	}
	b, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func compare(path string, got map[string]map[string]Counts, only string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		return []string{fmt.Sprintf("no expectation (%v); run with -update after reviewing the output", err)}
	}
	var want map[string]map[string]Counts
	if err := json.Unmarshal(b, &want); err != nil {
		return []string{fmt.Sprintf("%s: %v", path, err)}
	}
	var probs []string
	for preset, suites := range want {
		for suite, w := range suites {
			if only != "" && suite != only {
				continue
			}
			g, ok := got[preset][suite]
			if !ok {
				probs = append(probs, fmt.Sprintf("%s on %s: expected to run, did not", suite, preset))
				continue
			}
			if g.Passed != w.Passed || g.Skipped != w.Skipped {
				probs = append(probs, fmt.Sprintf("%s on %s: %d passed %d skipped, expected %d passed %d skipped",
					suite, preset, g.Passed, g.Skipped, w.Passed, w.Skipped))
			}
			probs = append(probs, diffReasons(suite, preset, "skip reason", w.SkipReasons, g.SkipReasons)...)
			probs = append(probs, diffReasons(suite, preset, "failing spec", w.Failed, g.Failed)...)
		}
	}
	for preset, suites := range got {
		for suite := range suites {
			if _, ok := want[preset][suite]; !ok {
				probs = append(probs, fmt.Sprintf("%s on %s: ran but has no expectation; review and run -update", suite, preset))
			}
		}
	}
	sort.Strings(probs)
	return probs
}

func diffReasons(suite, preset, what string, want, got map[string]int) []string {
	var probs []string
	keys := map[string]bool{}
	for k := range want {
		keys[k] = true
	}
	for k := range got {
		keys[k] = true
	}
	for k := range keys {
		if want[k] != got[k] {
			probs = append(probs, fmt.Sprintf("%s on %s: %s %q: %d, expected %d", suite, preset, what, strings.TrimSpace(k), got[k], want[k]))
		}
	}
	return probs
}
