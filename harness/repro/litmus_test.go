// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package repro

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/harness/litmus"
)

// Without --variant the litmus reproducer runs every forbidden case of its
// target: between CTAs of one GPU and with host threads, or across the
// pair; no mutant.
func TestLitmusWithoutVariantHasEveryForbiddenCase(t *testing.T) {
	for _, tg := range []Target{GPU(1), Pair(1, 0)} {
		var want []string
		cases := litmus.GPUCases(harness.GPU{Ordinal: 1})
		if tg.Pair {
			cases = litmus.PairCases(harness.Pair{A: harness.GPU{Ordinal: 1}, B: harness.GPU{Ordinal: 0}})
		}
		for _, c := range cases {
			if c.Verdict == litmus.Forbidden {
				want = append(want, c.Name())
			}
		}
		f, err := Generate("ordering.litmus", tg, "")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(f.Specs, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: the reproducer's specs are\n  %s\nwant the suite's forbidden cases\n  %s", tg, strings.Join(f.Specs, "\n  "), strings.Join(want, "\n  "))
		}
		build(t, "litmus-"+tg.ID(), f.Source) // every PTX and table compiles
	}
}

func TestLitmusVariantNamingAMutantListsTheSpecs(t *testing.T) {
	_, err := Generate("ordering.litmus", GPU(0), "MP rlx.sys/rlx.sys")
	if err == nil || !strings.Contains(err.Error(), "selects no spec") || !strings.Contains(err.Error(), "MP rel.sys/acq.sys between CTAs of GPU0") {
		t.Errorf("a mutant's variant: got %v, want an error listing the forbidden specs", err)
	}
}

// The stub counts every instance in one bin; which outcome that is decides
// the verdict: MP's bin 4 (r0=1 r1=1) conforms, bin 1 (r0=1 r1=0) is the
// forbidden outcome, bin 8 (r0 out of range) a value no operation wrote,
// and bin 0 (r0=0) never sees the polled flag, which leaves the run
// inconclusive (exit 2).
func TestLitmusVerdicts(t *testing.T) {
	f, err := Generate("ordering.litmus", GPU(1), "MP rel.sys/acq.sys between CTAs")
	if err != nil || len(f.Specs) != 1 {
		t.Fatalf("%v %q", err, f.Specs)
	}
	// The suite's seed: harness.Seed(CheckID, spec text), per launch + launch·0x9E3779B1.
	if want := fmt.Sprintf("run_litmus(&c, %du);", uint32(harness.Seed(litmus.CheckID, f.Specs[0]))); !strings.Contains(f.Source, want) {
		t.Errorf("the reproducer does not launch with the suite's seed: no %q", want)
	}
	bin := build(t, "litmus-mp", f.Source)
	for _, tc := range []struct {
		env  []string
		code int
		out  string
	}{
		{[]string{"FAKECUDA_LITMUS_BIN=4"}, ExitConforms, "ok: the forbidden outcome r0=1 ∧ r1=0 never appeared in 1000079360 instances"},
		{[]string{"FAKECUDA_LITMUS_BIN=1"}, ExitViolation, "VIOLATION: forbidden outcome r0=1 ∧ r1=0 observed on GPU1 in 1000079360 of 1000079360 instances"},
		{[]string{"FAKECUDA_LITMUS_BIN=8"}, ExitViolation, "VIOLATION: values no operation wrote were read on GPU1: 1000079360 instances"},
		{[]string{"FAKECUDA_LITMUS_BIN=0"}, ExitCannotRun, "SKIP: inconclusive: flag seen in 0 of 1000079360 instances"},
	} {
		code, out := run(t, bin, tc.env...)
		if code != tc.code || !strings.Contains(out, tc.out) {
			t.Errorf("%v: exit %d, want %d and %q in\n%s", tc.env, code, tc.code, tc.out, out)
		}
	}
}

// A host placement: the reproducer's thread plays the host's role against
// the stub's kernel, which marks its iterations done; MP with T0 on the
// host counts in the same bins. How many instances the host thread plays
// before the cap depends on the machine's load, so the test reads the count
// from the reproducer's "stopped at the …" line and holds the verdict to
// it: the target reached means at least the goal was counted, a verdict
// needs the settings' fewest instances and bound, and the count is the one
// the verdict names. No count is required within a time.
func TestLitmusHostPlacement(t *testing.T) {
	f, err := Generate("ordering.litmus", GPU(1), "MP rel.sys/acq.sys with T0 on the host, T1 on GPU1")
	if err != nil || len(f.Specs) != 1 {
		t.Fatalf("%v %q", err, f.Specs)
	}
	bin := build(t, "litmus-host", f.Source)
	code, out := run(t, bin, "FAKECUDA_LITMUS_BIN=4")
	if !strings.Contains(out, "host: 1 thread (1 roles") {
		t.Errorf("no host thread in\n%s", out)
	}
	m := stoppedLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no \"stopped at the …: N instances counted … in X s\" line in\n%s", out)
	}
	stop, counted := m[1], m[2]
	n, _ := strconv.ParseUint(counted, 10, 64)
	goal, _ := strconv.ParseFloat(m[3], 64)
	s := litmus.DefaultSettings()
	var wantCode int
	var want string
	switch {
	case stop == "target" && float64(n) < goal:
		t.Errorf("stopped at the target with %d instances, fewer than the goal %g\n%s", n, goal, out)
	case stop != "target" && stop != "cap":
		t.Errorf("stopped at the %s, want the target or the cap\n%s", stop, out)
	case n == 0:
		wantCode, want = ExitViolation, "no instance of"
	case n < s.MinInstances:
		wantCode, want = ExitCannotRun, "inconclusive: "+counted+" instances counted, fewer than the"
	case 2.995732273553991/float64(n) > s.MaxViolationBound:
		wantCode, want = ExitCannotRun, "over "+counted+" instances, above the allowed"
	default:
		wantCode, want = ExitConforms, "ok: the forbidden outcome r0=1 ∧ r1=0 never appeared in "+counted+" instances"
	}
	if want != "" && (code != wantCode || !strings.Contains(out, want)) {
		t.Errorf("stopped at the %s with %d instances: exit %d, want %d and %q in\n%s", stop, n, code, wantCode, want, out)
	}
	code, out = run(t, bin, "FAKECUDA_LITMUS_BIN=4", "FAKECUDA_DEFECT=litmus-weak")
	if code != ExitViolation || !strings.Contains(out, "VIOLATION: forbidden outcome r0=1 ∧ r1=0 observed on GPU1 in") {
		t.Errorf("with litmus-weak: exit %d, want 1 and the forbidden outcome\n%s", code, out)
	}
}

// stoppedLine is the reproducer's account of its loop: why it stopped, the
// instances counted and the goal.
var stoppedLine = regexp.MustCompile(`stopped at the (\w+): (\d+) instances counted of \d+ launched .* in [0-9.]+ s .*; goal ([0-9.e+]+) instances within`)

// The differential: a reproducer that saw a forbidden outcome loads the
// same PTX again with CU_JIT_OPTIMIZATION_LEVEL 0 and counts again,
// printing both; the exit status stays the default level's (1). The stub
// counts in FAKECUDA_LITMUS_BIN_O0 for a module loaded at level 0.
func TestLitmusDifferential(t *testing.T) {
	f, err := Generate("ordering.litmus", GPU(1), "MP rel.sys/acq.sys between CTAs")
	if err != nil || len(f.Specs) != 1 {
		t.Fatalf("%v %q", err, f.Specs)
	}
	bin := build(t, "litmus-differential", f.Source)
	stopped := regexp.MustCompile(`stopped at the (target|cap): (\d+) instances counted of \d+ launched \(.*\) in [0-9.]+ s`)
	for _, tc := range []struct {
		env   []string
		code  int
		runs  int
		out   string
		notIn string
	}{
		{[]string{"FAKECUDA_LITMUS_BIN=1", "FAKECUDA_LITMUS_BIN_O0=4"}, ExitViolation, 2,
			"differential: forbidden outcomes in 1000079360 of 1000079360 instances at the driver's default JIT level, 0 of 1000079360 at CU_JIT_OPTIMIZATION_LEVEL 0: the outcome vanishes when the JIT keeps every access: the compiler", ""},
		{[]string{"FAKECUDA_LITMUS_BIN=1"}, ExitViolation, 2,
			"1000079360 of 1000079360 at CU_JIT_OPTIMIZATION_LEVEL 0: the outcome shows at level 0 too", ""},
		{[]string{"FAKECUDA_LITMUS_BIN=4", "FAKECUDA_LITMUS_BIN_O0=1"}, ExitConforms, 1, "ok: the forbidden outcome", "differential"},
	} {
		code, out := run(t, bin, tc.env...)
		if code != tc.code || !strings.Contains(out, tc.out) || tc.notIn != "" && strings.Contains(out, tc.notIn) {
			t.Errorf("%v: exit %d, want %d and %q in\n%s", tc.env, code, tc.code, tc.out, out)
		}
		if m := stopped.FindAllStringSubmatch(out, -1); len(m) != tc.runs || m[0][2] != "1000079360" {
			t.Errorf("%v: %d runs' stop lines %q, want %d", tc.env, len(m), m, tc.runs)
		}
		if n := strings.Count(out, "VIOLATION: forbidden outcome"); tc.code == ExitViolation && n != 1 {
			t.Errorf("%v: %d violations reported, want the default level's only:\n%s", tc.env, n, out)
		}
	}
}
