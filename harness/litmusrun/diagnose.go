// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmusrun

import (
	"context"
	"fmt"
	"os"

	"github.com/onsi/ginkgo/v2"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/litmus"
	"github.com/p2pconf/p2pconf/harness/litmussass"
	"github.com/p2pconf/p2pconf/harness/report"
	"github.com/p2pconf/p2pconf/kernels"
)

// LoweredJIT is the differential of a forbidden outcome: the same PTX
// compiled by the driver's JIT at CU_JIT_OPTIMIZATION_LEVEL 0. On one H200
// (driver 580.159.04, CUDA 13.0) ptxas merged a weak load of x inside an
// acquire poll loop into one load for the whole unrolled loop at levels
// 2-4 (the forbidden outcome in about half the instances that saw the
// flag), kept every loop load at level 1 but merged `ld x; ld.acquire f;
// ld x` into one, and merged nothing at level 0, where the outcome never
// showed (docs/litmus.md).
var LoweredJIT = kernels.JITOptions{Lowered: true, Level: 0}

// jitCompiler is a backend whose driver can compile PTX without loading it
// (the cuda backend; the fake has no JIT).
type jitCompiler interface {
	CompilePTX(d backend.Device, ptx, name string, jit kernels.JITOptions) ([]byte, string, error)
}

// Diagnose finds out why a forbidden test showed violations in r: it runs
// the same case again with the driver's JIT at level 0 (LoweredJIT), with
// the same goal, and, where the toolkit's disassembler is on the node, runs
// the compile check (package litmussass) of the test's kernel as the
// driver compiled it; litmus.JudgeCause turns both into the cause. It
// records the cause as the result's cause finding (report.CauseEntry), with
// the JIT's version and the SASS of the role that lost an access, and
// returns the diagnosis.
func Diagnose(ctx context.Context, h *harness.Harness, r *litmus.Result, env litmus.Env) litmus.Diagnosis {
	ginkgo.GinkgoHelper()
	c := r.Case
	ginkgo.By(fmt.Sprintf("finding out why: %s again with the driver's JIT at level %d, and the compile check of its kernel", c.Test.Name(), LoweredJIT.Level))
	d := diagnose(ctx, r, env, diagnoser{
		rerun: func(e litmus.Env) *litmus.Result { return litmus.Run(ctx, &fixture{h}, c, e) },
		check: func(t *litmus.Test) (litmussass.KernelSASS, string, error) {
			return compileCheck(h.B(), c.A.Ordinal, t)
		},
	})
	cause, detail := litmus.JudgeCause(d)
	where := fmt.Sprintf("%s %s", c.Test.Name(), c.Where())
	harness.Finding(report.CauseEntry, map[string]any{
		"cause": cause, "detail": detail, "line": litmus.CauseLine(cause, detail),
		"jit": d.JIT, "lowered_level": d.Lowered, "lowered_ran": d.LoweredRan, "lowered_violations": d.LoweredViolations,
		"lowered_instances": d.LoweredInstances, "compile_check": compileText(d), "lost": d.Lost, "sass_excerpt": d.Excerpt,
	}, where+": why the forbidden outcome showed")
	return d
}

// diagnoser is how diagnose reruns a case and compiles a test: the
// harness's fixture and the driver on a GPU, fakes in the unit tests.
type diagnoser struct {
	rerun func(litmus.Env) *litmus.Result
	// check is the compile check of a test's kernel at the driver's
	// default level, with the JIT's version, or why it could not run.
	check func(*litmus.Test) (litmussass.KernelSASS, string, error)
}

func diagnose(ctx context.Context, r *litmus.Result, env litmus.Env, x diagnoser) litmus.Diagnosis {
	d := litmus.Diagnosis{Violations: r.Violations(), Instances: r.Instances(), Lowered: LoweredJIT.Level}
	if err := ctx.Err(); err != nil {
		d.LoweredWhy = "the run was interrupted: " + err.Error()
	} else {
		low := env
		low.JIT = LoweredJIT
		lr := x.rerun(low)
		d.LoweredRan, d.LoweredViolations, d.LoweredInstances = true, lr.Violations(), lr.Instances()
	}
	k, jit, err := x.check(r.Case.Test)
	d.JIT = jit
	switch {
	case err != nil:
		d.CompileWhy = err.Error()
	case k.Error != "":
		d.CompileWhy = "the compile check failed: " + k.Error
	default:
		d.CompileRan, d.Lost, d.Excerpt = true, k.Findings(), k.Excerpt
	}
	return d
}

// compileCheck runs the compile check of t's kernel on GPU dev at the
// driver's default level, or says why it cannot: a backend without a JIT,
// or no disassembler of the CUDA toolkit.
func compileCheck(b backend.Backend, dev backend.Device, t *litmus.Test) (litmussass.KernelSASS, string, error) {
	jit := litmussass.JITVersion(litmussass.KernelModuleVersion(), b.DriverVersion())
	comp, ok := b.(jitCompiler)
	if !ok {
		return litmussass.KernelSASS{}, jit, fmt.Errorf("the %s backend has no JIT to compile with", b.Name())
	}
	dis, err := litmussass.FindDisassembler()
	if err != nil {
		return litmussass.KernelSASS{}, jit, err
	}
	dir, err := os.MkdirTemp("", "p2pconf-litmus-sass-")
	if err != nil {
		return litmussass.KernelSASS{}, jit, fmt.Errorf("litmusrun: compile check of %s: %w", t.Name(), err)
	}
	defer os.RemoveAll(dir)
	return litmussass.CheckKernel(t, deviceCompiler{comp, dev}, dis, dir), jit, nil
}

// deviceCompiler compiles for one GPU at the driver's default level.
type deviceCompiler struct {
	c   jitCompiler
	dev backend.Device
}

func (d deviceCompiler) Compile(ptx, name string) ([]byte, string, error) {
	return d.c.CompilePTX(d.dev, ptx, name, kernels.JITOptions{})
}

// compileText says what the compile check found, for the finding.
func compileText(d litmus.Diagnosis) string {
	switch {
	case !d.CompileRan:
		return "not available: " + d.CompileWhy
	case len(d.Lost) == 0:
		return "every access kept"
	}
	return fmt.Sprintf("%d accesses lost", len(d.Lost))
}
