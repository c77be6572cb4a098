// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Command litmus-sass is the compile check of the litmus tests (`make
// litmus-sass`): for every litmus kernel it gets the code the driver's JIT
// produces for the GPU (cuLinkCreate, cuLinkAddData, cuLinkComplete return
// the cubin), disassembles it with the CUDA toolkit's nvdisasm (or
// cuobjdump), and checks that each thread role keeps the global memory
// instructions of its PTX, access by access (package litmussass): an
// access must keep one instruction per code path that holds it, an access
// inside a poll loop one per unrolled iteration of the loop, and a weak
// access before and one after a synchronising access must both stay. A
// lost access is named: "the weak load of x in role 1's poll loop is merged
// or hoisted out of the loop (1 LDG for 64 iterations)", with the role's
// SASS.
//
//	go run ./cmd/litmus-sass [-gpu 0] [-O N] [-o litmus-sass.json] [-v] [-match REGEXP]
//
// -O N compiles at CU_JIT_OPTIMIZATION_LEVEL N (0-4) instead of the
// driver's default: the differential of a forbidden outcome's cause. It
// records which driver's JIT produced the code (cuDriverGetVersion and the
// kernel module's version line). Exit status: 0 every access was kept, 1
// some access was not (or a kernel failed to compile), 2 the check could
// not run: no disassembler of the CUDA toolkit, no driver or GPU, or bad
// flags. It is never a pass without a toolkit.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"

	"github.com/p2pconf/p2pconf/harness/litmus"
	"github.com/p2pconf/p2pconf/harness/litmussass"
	"github.com/p2pconf/p2pconf/kernels"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// Exit codes.
const (
	exitPass      = 0
	exitFail      = 1
	exitCannotRun = 2
)

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("litmus-sass", flag.ContinueOnError)
	fs.SetOutput(stderr)
	gpu := fs.Int("gpu", 0, "CUDA ordinal of the GPU whose JIT compiles the kernels")
	level := fs.Int("O", -1, "compile at CU_JIT_OPTIMIZATION_LEVEL N (0-4); the driver's default when not given")
	outPath := fs.String("o", "", "write the report as JSON to this file")
	verbose := fs.Bool("v", false, "print every role and access, not only those that lost instructions")
	match := fs.String("match", "", "check only the tests whose name matches this regular expression (the report records it)")
	if err := fs.Parse(args); err != nil {
		return exitCannotRun
	}
	if fs.NArg() > 0 || *gpu < 0 || *level > 4 || *level < -1 {
		fmt.Fprintf(stderr, "litmus-sass: unexpected arguments %q (flags: -gpu N, -O 0-4, -o FILE, -v, -match REGEXP)\n", fs.Args())
		return exitCannotRun
	}
	var jit kernels.JITOptions
	if *level >= 0 {
		jit = kernels.JITOptions{Lowered: true, Level: *level}
	}
	tests, err := selectTests(litmus.Catalogue(), *match)
	if err != nil {
		fmt.Fprintln(stderr, "litmus-sass:", err)
		return exitCannotRun
	}
	dis, err := litmussass.FindDisassembler()
	if err != nil {
		fmt.Fprintln(stderr, "litmus-sass: CANNOT RUN:", err)
		return exitCannotRun
	}
	g, rep, err := litmussass.OpenGPU(*gpu, jit)
	if err != nil {
		fmt.Fprintln(stderr, "litmus-sass: CANNOT RUN:", err)
		return exitCannotRun
	}
	defer func() { _ = g.Close() }()
	rep.Disassembler = dis.Version()
	rep.Match = *match
	dir, err := os.MkdirTemp("", "p2pconf-litmus-sass-")
	if err != nil {
		fmt.Fprintln(stderr, "litmus-sass: CANNOT RUN:", err)
		return exitCannotRun
	}
	defer os.RemoveAll(dir)
	bad := litmussass.Check(rep, tests, g, dis, dir, *verbose, stdout)
	if *outPath != "" {
		data, _ := json.MarshalIndent(rep, "", " ")
		if err := os.WriteFile(*outPath, append(data, '\n'), 0o644); err != nil {
			fmt.Fprintln(stderr, "litmus-sass:", err)
			return exitCannotRun
		}
	}
	if bad > 0 {
		return exitFail
	}
	return exitPass
}

// selectTests keeps the tests whose name matches expr ("" keeps all); an
// expression that is not valid or matches none is bad input, before the
// GPU is opened.
func selectTests(all []*litmus.Test, expr string) ([]*litmus.Test, error) {
	if expr == "" {
		return all, nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("-match %q: %v", expr, err)
	}
	var out []*litmus.Test
	for _, t := range all {
		if re.MatchString(t.Name()) {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-match %q matches no litmus test", expr)
	}
	return out, nil
}
