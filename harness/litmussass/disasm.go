// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package litmussass is the compile check of the litmus tests: it gets the
// code the driver's JIT produces for a litmus kernel, disassembles it with
// the CUDA toolkit's nvdisasm (or cuobjdump) and checks, access by access,
// that each thread role keeps the global memory instructions of its PTX.
// A compiler that merges a weak load of x across an acquire, or hoists it
// out of a poll loop, makes a forbidden outcome show on hardware that
// honours the acquire; this check names the access (cmd/litmus-sass runs
// it over the catalogue, litmusrun.Diagnose over a test that failed).
//
// What the driver kept of one access is counted by difference: the global
// memory instructions (LDG, STG, ATOM, RED) of the whole kernel, minus
// those of the kernel with that one access left out
// (litmus.Test.OpAblatedPTX). An access must keep one instruction per code
// path that holds it; an access inside a poll loop must keep as many as the
// loop's flag access has, since the compiler unrolls the bounded loop and
// every unrolled iteration must perform every access of the loop. Two
// accesses of one address on either side of a synchronising access are two
// accesses, each counted on its own, so merging them loses both counts.
package litmussass

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Tool finds a toolkit binary on PATH, under $CUDA_HOME/bin, $CUDA_PATH/bin
// or in /usr/local/cuda/bin; "" when it is nowhere.
func Tool(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, dir := range []string{os.Getenv("CUDA_HOME"), os.Getenv("CUDA_PATH"), "/usr/local/cuda"} {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, "bin", name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// Disassembler is the command that prints a cubin's SASS.
type Disassembler struct {
	Path string
	Args []string
}

// ErrNoDisassembler says why the check cannot run without a toolkit.
var ErrNoDisassembler = errors.New("needs the CUDA toolkit's nvdisasm or cuobjdump (not on PATH, under $CUDA_HOME/bin or in /usr/local/cuda/bin); nothing was checked")

// FindDisassembler is nvdisasm -c, else cuobjdump -sass, else
// ErrNoDisassembler.
func FindDisassembler() (Disassembler, error) {
	if p := Tool("nvdisasm"); p != "" {
		return Disassembler{p, []string{"-c"}}, nil
	}
	if p := Tool("cuobjdump"); p != "" {
		return Disassembler{p, []string{"-sass"}}, nil
	}
	return Disassembler{}, ErrNoDisassembler
}

// Version is the disassembler's name and version line.
func (d Disassembler) Version() string {
	out, err := exec.Command(d.Path, "--version").CombinedOutput()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err != nil || len(lines) == 0 {
		return d.Path
	}
	return filepath.Base(d.Path) + ": " + strings.TrimSpace(lines[len(lines)-1])
}

// SASS disassembles cubin, written to a file in dir.
func (d Disassembler) SASS(dir string, cubin []byte) (string, error) {
	// A file of its own: the compile check disassembles several cubins of
	// one kernel at once (CheckKernel).
	tmp, err := os.CreateTemp(dir, "kernel-*.cubin")
	if err != nil {
		return "", fmt.Errorf("litmussass: writing the cubin for %s: %w", filepath.Base(d.Path), err)
	}
	f := tmp.Name()
	defer os.Remove(f)
	_, werr := tmp.Write(cubin)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return "", fmt.Errorf("litmussass: writing the cubin for %s: %w", filepath.Base(d.Path), werr)
	}
	out, err := exec.Command(d.Path, append(d.Args, f)...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s %s: %v: %s", filepath.Base(d.Path), strings.Join(d.Args, " "), err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}
