// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package repro

import (
	"fmt"
	"regexp"
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
// host counts in the same bins.
func TestLitmusHostPlacement(t *testing.T) {
	f, err := Generate("ordering.litmus", GPU(1), "MP rel.sys/acq.sys with T0 on the host, T1 on GPU1")
	if err != nil || len(f.Specs) != 1 {
		t.Fatalf("%v %q", err, f.Specs)
	}
	bin := build(t, "litmus-host", f.Source)
	code, out := run(t, bin, "FAKECUDA_LITMUS_BIN=4")
	if want := "ok: the forbidden outcome r0=1 ∧ r1=0 never appeared in 10002432 instances"; code != ExitConforms || !strings.Contains(out, want) || !strings.Contains(out, "host: 1 thread (1 roles") {
		t.Errorf("exit %d, want 0 and %q in\n%s", code, want, out)
	}
	code, out = run(t, bin, "FAKECUDA_LITMUS_BIN=4", "FAKECUDA_DEFECT=litmus-weak")
	if code != ExitViolation || !strings.Contains(out, "VIOLATION: forbidden outcome r0=1 ∧ r1=0 observed on GPU1 in") {
		t.Errorf("with litmus-weak: exit %d, want 1 and the forbidden outcome\n%s", code, out)
	}
}

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
