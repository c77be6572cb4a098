// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Command selftest runs every suite on every fake preset and checks the
// outcome against the reviewed expectation in testdata/expected.json, spec
// by spec: each spec, keyed by check ID, target (gpu:N, pair:A-B) and
// variant (its text), must end in the expected state, a skip for exactly
// the expected reason, and a failure only where the preset models a driver
// defect that the spec exists to catch, with a message matching the
// expected pattern (h200x2 models driver 580's disagreement between
// NATIVE_ATOMIC_SUPPORTED and the per-operation atomic capabilities, which
// atomics.capability-report must fail on, saying so). A spec that starts
// skipping while another stops, a spec that disappears and a failure for
// another reason all show. It is how CI, with no GPU, proves the suites
// build, run, skip and fail for the right reasons.
//
//	go run ./cmd/selftest                  # check
//	go run ./cmd/selftest -update          # show how the expectation would change
//	go run ./cmd/selftest -update -write   # rewrite it, after reviewing that diff
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/p2pconf/p2pconf/internal/suiterun"
)

// presets are the fake machines the suites run on. Large presets run on a
// few pairs that cover their link kinds, so `make test` stays within minutes;
// the pair and triple lists are part of the expectation. Triples left empty
// are those the suite selects among the GPUs (none with fewer than three;
// 0-1-2 and 0-2-3 on mixed, which cover its three link classes).
// preset is a fake preset and the GPU selection the self-test runs it with.
type preset = struct{ Name, GPUs, Pairs, Triples string }

var presets = []preset{
	{"single", "", "", ""},
	{"h200x2", "", "", ""},
	{"nvlink8", "0,1", "", "0-1-2"},
	{"pcie4-nop2p", "0,1", "", ""},
	{"mixed", "", "0-1,2-3,1-2", ""}, // native NVLink, partial-atomics NVLink, PCIe
}

func main() {
	update := flag.Bool("update", false, "show how this run would change testdata/expected.json (with -write: rewrite it)")
	write := flag.Bool("write", false, "with -update: write the new expectation")
	only := flag.String("suite", "", "run only this suite")
	flag.Parse()
	if *write && !*update {
		fmt.Fprintln(os.Stderr, "selftest: -write needs -update")
		os.Exit(2)
	}
	if err := run(*update, *write, *only); err != nil {
		fmt.Fprintln(os.Stderr, "selftest:", err)
		os.Exit(1)
	}
}

func run(update, write bool, only string) error {
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
	got := map[string]map[string]map[string]Outcome{}
	var passed, failed, skipped int
	var problems []string
	var todo []string
	for _, suite := range suites {
		if only == "" || suite == only {
			todo = append(todo, suite)
		}
	}
	if err := suiterun.BuildAll(root, tmp, todo, nil); err != nil {
		return err
	}
	// Every (suite, preset) run is its own process on its own fake state:
	// several run at once (most of a fake run is the simulation's waiting,
	// not the CPU), and the results are read back in order.
	type job struct {
		suite string
		p     preset
		res   suiterun.Result
		err   error
	}
	var jobs []*job
	for _, suite := range todo {
		for _, p := range presets {
			jobs = append(jobs, &job{suite: suite, p: p})
		}
	}
	suiterun.Parallel(len(jobs), max(2, runtime.NumCPU()), func(i int) {
		j := jobs[i]
		env := []string{"P2PCONF_BACKEND=fake", "P2PCONF_FAKE=" + j.p.Name, "P2PCONF_GPUS=" + j.p.GPUs, "P2PCONF_PAIRS=" + j.p.Pairs, "P2PCONF_TRIPLES=" + j.p.Triples,
			"P2PCONF_FAKE_DEFECTS=", "P2PCONF_REPORT_DIR="}
		j.res, j.err = suiterun.Run(root, filepath.Join(tmp, j.suite+".test"), j.suite, env, 10*time.Minute)
	})
	for _, j := range jobs {
		suite, p, res := j.suite, j.p, j.res
		if j.err != nil {
			return j.err
		}
		outcomes, dup := observe(res.Specs)
		for _, d := range dup {
			problems = append(problems, fmt.Sprintf("%s on %s: %s", suite, p.Name, d))
		}
		nPassed, nSkipped, nOther := 0, 0, 0
		for _, s := range res.Specs {
			switch s.State {
			case "passed":
				nPassed++
			case "skipped":
				nSkipped++
			default:
				nOther++
				fmt.Printf("  %s: %s\n    %s\n", s.State, s.Text, s.Reason)
			}
		}
		switch {
		case res.ExitCode != 0 && len(res.Specs) == 0:
			problems = append(problems, fmt.Sprintf("%s on %s exited %d:\n%s", suite, p.Name, res.ExitCode, res.Output))
		case res.ExitCode != 0 && nOther == 0:
			// Every spec passed or skipped, yet the run failed: a suite-level
			// node (the reports, a cleanup) broke.
			out := res.Output
			if len(out) > 3000 {
				out = "…" + out[len(out)-3000:]
			}
			problems = append(problems, fmt.Sprintf("%s on %s exited %d although no spec failed:\n%s", suite, p.Name, res.ExitCode, out))
		}
		passed += nPassed
		skipped += nSkipped
		if got[p.Name] == nil {
			got[p.Name] = map[string]map[string]Outcome{}
		}
		got[p.Name][suite] = outcomes
		fmt.Printf("%-12s %-10s %4d passed %4d skipped %4d other  (%s)\n", p.Name, suite, nPassed, nSkipped,
			nOther, res.Duration.Round(time.Millisecond))
	}
	expPath := filepath.Join(root, "cmd", "selftest", "testdata", "expected.json")
	want := Oracle{}
	b, err := os.ReadFile(expPath)
	switch {
	case err == nil:
		if want, err = decode(b); err != nil && !update {
			return fmt.Errorf("%s: %w", expPath, err)
		} else if err != nil {
			fmt.Printf("%s is not a per-spec expectation (%v): every spec shows as new\n", expPath, err)
			want = Oracle{}
		}
	case !update:
		return fmt.Errorf("no expectation (%w); run with -update after reviewing the output", err)
	}
	if update {
		for _, p := range problems {
			fmt.Println("PROBLEM:", p)
		}
		return showUpdate(expPath, want, got, write)
	}
	problems = append(problems, compare(want, got, only)...)
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

// showUpdate prints how this run changes the expectation and, with write,
// stores it; with -suite only that suite's entries are replaced.
func showUpdate(path string, old Oracle, got map[string]map[string]map[string]Outcome, write bool) error {
	next := merge(old, got)
	d := diff(old, next)
	for _, l := range d {
		fmt.Println(l)
	}
	fmt.Printf("expectation: %d line(s) change; now %s\n", len(d), next.stateSummary())
	if !write {
		if len(d) > 0 {
			fmt.Println("not written: review the lines above, then run again with -update -write")
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, next.encode(), 0o644); err != nil {
		return err
	}
	fmt.Println("wrote", path)
	return nil
}
