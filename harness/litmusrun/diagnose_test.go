// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmusrun

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/p2pconf/p2pconf/harness/fake"
	"github.com/p2pconf/p2pconf/harness/litmus"
	"github.com/p2pconf/p2pconf/harness/litmussass"
	"github.com/p2pconf/p2pconf/harness/machine"
)

// forbiddenMP is the first forbidden MP case between CTAs of GPU 0.
func forbiddenMP(t *testing.T) litmus.Case {
	t.Helper()
	for _, c := range litmus.GPUCases(machine.GPU{Ordinal: 0}) {
		if c.Verdict == litmus.Forbidden && c.Test.Family == "MP" {
			return c
		}
	}
	t.Fatal("no forbidden MP case")
	return litmus.Case{}
}

// result is a run of c that counted total instances, viol of them with an
// outcome the model forbids there.
func result(t *testing.T, c litmus.Case, viol, total uint64) *litmus.Result {
	t.Helper()
	r := &litmus.Result{Case: c, Hist: make([]uint64, c.Test.Model().Bins)}
	bad, good := -1, -1
	for bin := range r.Hist {
		if c.ModelForbids(bin) && bad < 0 {
			bad = bin
		}
		if !c.ModelForbids(bin) && good < 0 {
			good = bin
		}
	}
	if bad < 0 || good < 0 {
		t.Fatalf("%s: no forbidden or no allowed bin", c.Name())
	}
	r.Hist[bad], r.Hist[good] = viol, total-viol
	if r.Violations() != viol || r.Instances() != total {
		t.Fatalf("built %d of %d", r.Violations(), r.Instances())
	}
	return r
}

// TestDiagnose: the rerun is the same case at JIT level 0 with the same
// goal; each pattern of evidence gives its cause, and the compile check's
// absence is said, never taken for a verdict.
func TestDiagnose(t *testing.T) {
	c := forbiddenMP(t)
	env := litmus.DefaultEnv(machine.Config{Backend: "fake"}, litmus.Settings{Target: 1_000_000})
	failing := result(t, c, 1700, 1_000_000)
	merged := litmussass.KernelSASS{Roles: []litmussass.RoleSASS{{Role: 1, Kept: true}},
		Accesses: []litmussass.Access{{Role: 1, Op: 1, Kept: false, Finding: "the weak load of x in role 1's poll loop is merged or hoisted out of the loop (1 LDG for 64 iterations)"}},
		Excerpt:  "// role 1: poll { ld.acquire.gpu y; ld.weak x } until y=1\n/*0050*/ LDG.E R7, desc[UR4][R4.64] ;\n"}
	kept := litmussass.KernelSASS{Roles: []litmussass.RoleSASS{{Role: 1, Kept: true}}, Accesses: []litmussass.Access{{Role: 1, Op: 1, Kept: true}}}
	noToolkit := func(*litmus.Test) (litmussass.KernelSASS, string, error) {
		return litmussass.KernelSASS{}, "NVIDIA driver 580.159.04, CUDA 13.0", litmussass.ErrNoDisassembler
	}
	checked := func(k litmussass.KernelSASS) func(*litmus.Test) (litmussass.KernelSASS, string, error) {
		return func(*litmus.Test) (litmussass.KernelSASS, string, error) {
			return k, "NVIDIA driver 580.159.04, CUDA 13.0", nil
		}
	}
	for _, tc := range []struct {
		name        string
		lowViol     uint64
		check       func(*litmus.Test) (litmussass.KernelSASS, string, error)
		cause, line string
	}{
		{"merged, gone at level 0", 0, checked(merged), litmus.CauseCompiler,
			"cause: compiler — the weak load of x in role 1's poll loop is merged or hoisted out of the loop (1 LDG for 64 iterations); at JIT level 0: 0 of 1000000 (1700 of 1000000 at the default level)"},
		{"no toolkit, gone at level 0", 0, noToolkit, litmus.CauseCompiler, "cause: compiler — the outcome vanishes"},
		{"kept, shows at level 0", 1500, checked(kept), litmus.CauseHardware, "cause: hardware — the driver's code keeps every access"},
		{"no toolkit, shows at level 0", 1500, noToolkit, litmus.CauseUndetermined, "cause: undetermined — the compile check was not available (needs the CUDA toolkit's nvdisasm"},
	} {
		var ran []litmus.Env
		d := diagnose(context.Background(), failing, env, diagnoser{
			rerun: func(e litmus.Env) *litmus.Result { ran = append(ran, e); return result(t, c, tc.lowViol, 1_000_000) },
			check: tc.check,
		})
		if len(ran) != 1 || ran[0].JIT != LoweredJIT || ran[0].Evidence.Target != env.Evidence.Target || ran[0].Goal(c) != env.Goal(c) {
			t.Errorf("%s: reruns %+v, want one at level 0 with the failing run's goal", tc.name, ran)
		}
		cause, detail := litmus.JudgeCause(d)
		if line := litmus.CauseLine(cause, detail); cause != tc.cause || !strings.HasPrefix(line, tc.line) {
			t.Errorf("%s: %q, want %s: %q…", tc.name, line, tc.cause, tc.line)
		}
		if d.JIT != "NVIDIA driver 580.159.04, CUDA 13.0" {
			t.Errorf("%s: JIT %q", tc.name, d.JIT)
		}
	}
	d := diagnose(context.Background(), failing, env, diagnoser{
		rerun: func(litmus.Env) *litmus.Result { return result(t, c, 0, 1_000_000) }, check: checked(merged)})
	if !strings.Contains(d.Excerpt, "LDG.E R7") {
		t.Errorf("excerpt %q", d.Excerpt)
	}
	// An interrupted run does not rerun.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d = diagnose(ctx, failing, env, diagnoser{
		rerun: func(litmus.Env) *litmus.Result { t.Error("reran an interrupted run"); return failing }, check: noToolkit})
	if cause, detail := litmus.JudgeCause(d); cause != litmus.CauseUndetermined || !strings.Contains(detail, "interrupted") {
		t.Errorf("interrupted: %s %s", cause, detail)
	}
}

// TestCompileCheckOnTheFake: the fake backend has no JIT, and the compile
// check says so instead of passing.
func TestCompileCheckOnTheFake(t *testing.T) {
	b, err := fake.Open("h200x2", nil, fake.WithStateDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	_, _, err = compileCheck(b, 0, forbiddenMP(t).Test)
	if err == nil || !strings.Contains(err.Error(), "backend has no JIT") {
		t.Errorf("compile check on the fake: %v", err)
	}
	if errors.Is(err, litmussass.ErrNoDisassembler) {
		t.Errorf("the fake's missing JIT reported as a missing toolkit")
	}
}
