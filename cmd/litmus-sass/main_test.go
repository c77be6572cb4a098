// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/p2pconf/p2pconf/harness/litmus"
	"github.com/p2pconf/p2pconf/kernels"
)

func TestCountMemory(t *testing.T) {
	sass := `
        /*0080*/                   LDG.E.STRONG.SYS R2, desc[UR4][R2.64] ;
        /*0090*/              @!P0 STG.E.STRONG.SYS desc[UR4][R4.64], R7 ;
        /*00a0*/                   ATOMG.E.EXCH.STRONG.GPU PT, R9, desc[UR4][R4.64], R9 ;
        /*00b0*/                   REDG.E.ADD.STRONG.GPU desc[UR6][R2.64], R5 ;
        /*00c0*/                   LDS R3, [R2] ;
        /*00d0*/                   STS [R2], R3 ;
        /*00e0*/                   LDC R1, c[0x0][0x28] ;
        /*00f0*/                   MEMBAR.SC.SYS ;
        /*0100*/                   RED.E.ADD.STRONG.GPU desc[UR6][R2.64], R5 ;
`
	got := countMemory(sass)
	want := map[string]int{"LDG": 1, "STG": 1, "ATOM": 1, "RED": 2}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %d, want %d (all: %v)", k, got[k], v, got)
		}
	}
}

// mergingCompiler stands in for the driver's JIT: each global ld, st or
// atom of the PTX becomes one SASS line, except that a store followed by
// another relaxed or weak store of the same address (only movs between) is
// dropped, as ptxas 13.0 does for sm_90. The "cubin" is that SASS text; the
// disassembler is cat.
type mergingCompiler struct{}

var ptxMem = regexp.MustCompile(`^\t(ld|st|atom)\.([a-z_.]*)global[a-z0-9_.]* (?:[^,]*, )?\[([^\]]+)\]`)

func (mergingCompiler) compile(ptx, _ string) ([]byte, string, error) {
	var out []string
	lastStore := -1 // index in out of the previous instruction if it is a mergeable store
	lastAddr := ""
	for _, line := range strings.Split(ptx, "\n") {
		m := ptxMem.FindStringSubmatch(line)
		if m == nil {
			if !strings.HasPrefix(line, "\tmov.") {
				lastStore = -1
			}
			continue
		}
		mnemonic := map[string]string{"ld": "LDG.E", "st": "STG.E", "atom": "ATOMG.E"}[m[1]]
		mergeable := m[1] == "st" && !strings.HasPrefix(m[2], "volatile")
		if mergeable && lastStore >= 0 && lastAddr == m[3] {
			out = out[:lastStore]
		}
		out = append(out, fmt.Sprintf("        /*%04x*/                   %s R2, [R4] ;", 16*len(out), mnemonic))
		lastStore, lastAddr = -1, ""
		if mergeable {
			lastStore, lastAddr = len(out)-1, m[3]
		}
	}
	return []byte(strings.Join(out, "\n") + "\n"), "fake JIT", nil
}

// TestCheckFindsAMergedStore: two st.relaxed of one address in one thread
// lose one store and fail the check; the catalogue's CoWW forms keep both.
func TestCheckFindsAMergedStore(t *testing.T) {
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Skipf("needs cat (found: %v)", err)
	}
	dis := disassembler{path: cat}
	st := func(v uint32) litmus.Op {
		return litmus.Op{Kind: litmus.Store, Loc: 0, Val: v, Sem: kernels.Relaxed, Scope: kernels.Sys, Reg: litmus.NoReg, Src: litmus.NoReg}
	}
	ld := func(r int) litmus.Op {
		return litmus.Op{Kind: litmus.Load, Loc: 0, Reg: r, Sem: kernels.Relaxed, Scope: kernels.Sys, Src: litmus.NoReg}
	}
	merged := &litmus.Test{Family: "CoWW", Variant: "two st.relaxed", Locs: []string{"x"},
		Threads: [][]litmus.Op{{st(1), st(2)}, {ld(0), ld(1)}}, Target: map[string]uint32{"r0": 2, "r1": 1}, Where: litmus.InCTAs}
	var kept []*litmus.Test
	for _, tt := range litmus.Catalogue() {
		if tt.Family == "CoWW" || tt.Family == "MP" {
			kept = append(kept, tt)
		}
	}
	var out bytes.Buffer
	rep := &Report{}
	if code := check(rep, append(kept, merged), mergingCompiler{}, dis, t.TempDir(), false, &out); code != exitFail || rep.Pass {
		t.Fatalf("exit %d, pass %v, want 1:\n%s", code, rep.Pass, out.String())
	}
	if want := "FAIL CoWW two st.relaxed T0 (st.relaxed.sys.global.u32 x; st.relaxed.sys.global.u32 x): 4 global memory instructions in its PTX, 2 in the driver's code"; !strings.Contains(out.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, out.String())
	}
	if n := strings.Count(out.String(), "FAIL"); n != 1 {
		t.Errorf("%d failures, want only the merged store's:\n%s", n, out.String())
	}
	if want := fmt.Sprintf("%d of %d litmus kernels keep", len(kept), len(kept)+1); !strings.Contains(out.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, out.String())
	}
}

// TestNoToolkitCannotRun: without nvdisasm or cuobjdump the check says so
// and exits 2, before touching the driver.
func TestNoToolkitCannotRun(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv("CUDA_HOME", "")
	t.Setenv("CUDA_PATH", "")
	if tool("nvdisasm") != "" || tool("cuobjdump") != "" {
		t.Skip("a CUDA toolkit is installed in /usr/local/cuda")
	}
	var out, errOut bytes.Buffer
	if code := run(nil, &out, &errOut); code != exitCannotRun || !strings.Contains(errOut.String(), "needs the CUDA toolkit's nvdisasm or cuobjdump") {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
	if code := run([]string{"-gpu", "-1"}, &out, &errOut); code != exitCannotRun {
		t.Errorf("-gpu -1: exit %d", code)
	}
}

func TestSelectTests(t *testing.T) {
	all := litmus.Catalogue()
	got, err := selectTests(all, "")
	if err != nil || len(got) != len(all) {
		t.Fatalf("no expression: %d of %d tests, %v", len(got), len(all), err)
	}
	got, err = selectTests(all, "^(MP|WRC|ISA2|CoW)")
	if err != nil || len(got) == 0 || len(got) >= len(all) {
		t.Fatalf("^(MP|WRC|ISA2|CoW): %d of %d tests, %v", len(got), len(all), err)
	}
	for _, tc := range got {
		if !strings.HasPrefix(tc.Name(), "MP") && !strings.HasPrefix(tc.Name(), "WRC") && !strings.HasPrefix(tc.Name(), "ISA2") && !strings.HasPrefix(tc.Name(), "CoW") {
			t.Errorf("kept %q", tc.Name())
		}
	}
	t.Logf("%d of %d tests match", len(got), len(all))
	for _, bad := range []string{"(", "no such test"} {
		if _, err := selectTests(all, bad); err == nil {
			t.Errorf("-match %q accepted", bad)
		}
	}
}
