// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmussass

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/p2pconf/p2pconf/harness/litmus"
	"github.com/p2pconf/p2pconf/kernels"
)

func readFixture(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestCountMemory: nvdisasm's lines of one MP reader whose weak load of x
// ptxas merged: four LDG.E.STRONG.GPU of the flag, one LDG.E of x; shared
// memory and constant loads are not global memory instructions.
func TestCountMemory(t *testing.T) {
	got := CountMemory(readFixture(t, "mp-weak-in-loop.sass"))
	want := map[string]int{"LDG": 5, "STG": 2, "ATOM": 1, "RED": 1}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %d, want %d (all: %v)", k, got[k], v, got)
		}
	}
	if Total(got) != 9 {
		t.Errorf("total %d, want 9", Total(got))
	}
}

// TestExcerpt: the role's SASS is what the kernel without it lacks, the
// unrolled flag access printed once with its repeats counted.
func TestExcerpt(t *testing.T) {
	if h := moduleHeader(".version 7.0\n.target sm_70\n.address_size 64\n", readFixture(t, "mp-weak-in-loop.sass")); h != `.version 7.0; .target sm_70; code for sm_90; .headerflags @"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"` {
		t.Errorf("header %q", h)
	}
	ex := Excerpt(readFixture(t, "mp-weak-in-loop.sass"), readFixture(t, "mp-weak-in-loop-without-T1.sass"))
	for _, want := range []string{
		"/*0050*/                   LDG.E R7, desc[UR4][R4.64] ;",
		"/*0060*/                   LDG.E.STRONG.GPU R6, desc[UR4][R2.64] ;\n/*0070*/                   CCTL.IVALL ;\n        /* ... the 2 lines above 3 more times */",
	} {
		if !strings.Contains(ex, want) {
			t.Errorf("excerpt lacks %q:\n%s", want, ex)
		}
	}
	for _, not := range []string{"STG", "ATOMG", "REDG", "MEMBAR", "LDS", "EXIT"} {
		if strings.Contains(ex, not) {
			t.Errorf("excerpt has %s, which the kernel without the role has too:\n%s", not, ex)
		}
	}
	if n := strings.Count(ex, "\n"); n != 4 {
		t.Errorf("%d lines, want 4:\n%s", n, ex)
	}
}

// fakeJIT stands in for the driver's JIT: each global memory instruction of
// the PTX becomes the SASS ptxas writes for sm_90 (an acquire load
// LDG.E.STRONG.GPU and CCTL.IVALL, a weak load LDG.E, ...), each bounded
// poll loop is unrolled `unroll` times, and a load of the clock becomes
// CS2R. mergeLoop keeps a load other than an acquire inside a poll loop in
// the first unrolled iteration only (what ptxas 13.0 does at levels 2-4 to
// a weak load; the tests' loop load is relaxed, since litmus.Test refuses a
// weak one in a loop at this commit), mergePair
// drops a weak load of an address already weakly loaded since the last
// label (what it does at level 1 to `ld x; ld.acquire f; ld x`). The
// "cubin" is the SASS text; the disassembler is cat.
type fakeJIT struct {
	unroll               int
	mergeLoop, mergePair bool
}

var (
	ptxMemLine = regexp.MustCompile(`^\t(?:@%\S+ )?(ld|st|atom|red)\.([a-z_.]*?)\.?global\.[a-z0-9_.]*\s+(?:[^,\[]*,\s*)?\[([^\]]+)\]`)
	pollStart  = regexp.MustCompile(`^POLL[A-Z]?[0-9_]+:$`)
	pollEnd    = regexp.MustCompile(`^POLLED[A-Z]?[0-9_]+:$`)
)

type fakeInstr struct {
	sass  []string
	weak  bool // a weak load
	plain bool // a load that is not an acquire
	addr  string
}

func (f fakeJIT) Compile(ptx, _ string) ([]byte, string, error) {
	var out []string
	emit := func(lines ...string) {
		for _, l := range lines {
			out = append(out, fmt.Sprintf("        /*%04x*/                   %s ;", 16*len(out), l))
		}
	}
	var loop []fakeInstr
	inLoop := false
	seen := map[string]bool{} // addresses weakly loaded since the last label
	for _, line := range strings.Split(ptx, "\n") {
		switch {
		case pollStart.MatchString(line):
			inLoop, loop = true, nil
			continue
		case pollEnd.MatchString(line):
			for u := 0; u < f.unroll; u++ {
				for _, in := range loop {
					if !f.mergeLoop || !in.plain || u == 0 {
						emit(in.sass...)
					}
				}
				emit("ISETP.NE.AND P0, PT, R6, 0x1, PT", "@!P0 BRA 0x9990")
			}
			inLoop = false
			seen = map[string]bool{}
			continue
		case strings.HasSuffix(line, ":"):
			seen = map[string]bool{}
			continue
		case strings.Contains(line, "%clock"):
			if !inLoop {
				emit("CS2R R4, SR_CLOCKLO")
			}
			continue
		}
		m := ptxMemLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		in := fakeSASS(m[1], m[2], m[3])
		if inLoop {
			loop = append(loop, in)
			continue
		}
		if in.weak && f.mergePair && seen[in.addr] {
			continue
		}
		if in.weak {
			seen[in.addr] = true
		}
		emit(in.sass...)
	}
	return []byte(strings.Join(out, "\n") + "\n"), "ptxas info    : fake JIT for sm_90", nil
}

// fakeSASS is the SASS of one PTX global memory instruction.
func fakeSASS(kind, quals, addr string) fakeInstr {
	strength := ""
	switch {
	case strings.Contains(quals, "volatile"), strings.Contains(quals, ".sys"):
		strength = ".STRONG.SYS"
	case strings.Contains(quals, ".gpu"):
		strength = ".STRONG.GPU"
	case strings.Contains(quals, ".cta"):
		strength = ".STRONG.SM"
	}
	switch kind {
	case "ld":
		in := fakeInstr{sass: []string{"LDG.E" + strength + " R6, desc[UR4][R2.64]"}, weak: strength == "", plain: !strings.HasPrefix(quals, "acquire"), addr: addr}
		if strings.HasPrefix(quals, "acquire") {
			in.sass = append(in.sass, "CCTL.IVALL")
		}
		return in
	case "st":
		in := fakeInstr{sass: []string{"STG.E" + strength + " desc[UR4][R2.64], R7"}}
		if strings.HasPrefix(quals, "release") {
			in.sass = append([]string{"MEMBAR.ALL.GPU"}, in.sass...)
		}
		return in
	case "atom":
		return fakeInstr{sass: []string{"ATOMG.E.EXCH" + strength + " PT, R9, desc[UR4][R4.64], R9"}}
	}
	return fakeInstr{sass: []string{"REDG.E.ADD" + strength + " desc[UR6][R2.64], R5"}}
}

func cat(t *testing.T) Disassembler {
	t.Helper()
	p, err := exec.LookPath("cat")
	if err != nil {
		t.Skipf("needs cat (found: %v)", err)
	}
	return Disassembler{Path: p}
}

func ld(loc int, reg int, sem kernels.Sem) litmus.Op {
	return litmus.Op{Kind: litmus.Load, Loc: loc, Reg: reg, Sem: sem, Scope: kernels.GPU, Src: litmus.NoReg}
}

// st stores 1.
func st(loc int, sem kernels.Sem) litmus.Op {
	return litmus.Op{Kind: litmus.Store, Loc: loc, Val: 1, Sem: sem, Scope: kernels.GPU, Reg: litmus.NoReg, Src: litmus.NoReg}
}

// mpInLoop is MP rel.gpu/acq.gpu with the load of x inside the poll loop,
// the shape on which ptxas 13.0 merged a weak load (relaxed.sys here: the
// catalogue refuses a weak load in a loop at this commit).
func mpInLoop() *litmus.Test {
	flag := ld(1, 0, kernels.Acquire)
	flag.Poll, flag.Until = true, 1
	data := ld(0, 1, kernels.Relaxed)
	data.InPoll, data.Scope = true, kernels.Sys
	w := st(0, kernels.Relaxed)
	w.Scope = kernels.Sys
	return &litmus.Test{Family: "MP", Variant: "rel.gpu/acq.gpu x in loop", Locs: []string{"x", "y"},
		Threads: [][]litmus.Op{{w, st(1, kernels.Release)}, {flag, data}},
		Target:  map[string]uint32{"r0": 1, "r1": 0}, Where: litmus.InCTAs}
}

// mpAround is the single-shot reader `ld x; ld.acquire y; ld x`.
func mpAround() *litmus.Test {
	flag := ld(1, 1, kernels.Acquire)
	flag.Poll, flag.Once, flag.Until = true, true, 1
	return &litmus.Test{Family: "MP", Variant: "rel.gpu/acq.gpu x around", Locs: []string{"x", "y"},
		Threads: [][]litmus.Op{{st(0, kernels.Weak), st(1, kernels.Release)}, {ld(0, 0, kernels.Weak), flag, ld(0, 2, kernels.Weak)}},
		Target:  map[string]uint32{"r1": 1, "r2": 0}, Where: litmus.InCTAs}
}

// TestLoopMerge: the merged weak load of x in the poll loop fails the
// per-access check, named, while the per-role total (the check before it
// learned loops) still passes; a JIT that keeps it passes.
func TestLoopMerge(t *testing.T) {
	dis := cat(t)
	tt := mpInLoop()
	k := CheckKernel(tt, fakeJIT{unroll: 64, mergeLoop: true}, dis, t.TempDir())
	if k.Error != "" || k.OK() {
		t.Fatalf("merged: ok %v, error %q, accesses %+v", k.OK(), k.Error, k.Accesses)
	}
	for _, r := range k.Roles {
		if !r.Kept {
			t.Errorf("role %d fails the per-role count (%d of %d): the per-access check is what must find the merge", r.Role, r.SASS, r.PTX)
		}
	}
	f := k.Findings()
	if want := "the relaxed load of x in role 1's poll loop is merged or hoisted out of the loop (1 LDG for 64 iterations)"; len(f) != 1 || f[0] != want {
		t.Errorf("findings %q, want [%q]", f, want)
	}
	if !strings.HasPrefix(k.Header, ".version ") || !strings.Contains(k.Header, "; .target sm_") {
		t.Errorf("header %q", k.Header)
	}
	if !strings.Contains(k.Excerpt, "// role 1: poll {") || !strings.Contains(k.Excerpt, "LDG.E.STRONG.GPU") || !strings.Contains(k.Excerpt, "more times */") {
		t.Errorf("excerpt:\n%s", k.Excerpt)
	}
	kept := CheckKernel(tt, fakeJIT{unroll: 64}, dis, t.TempDir())
	if !kept.OK() {
		t.Errorf("kept: findings %q, error %q", kept.Findings(), kept.Error)
	}
	for _, a := range kept.Accesses {
		// Three code paths play role 1: its own, and every role in program
		// order and reversed (threads whose lane has bit B/4 set).
		if a.Role == 1 && a.Op == 1 && (a.Iterations != 192 || a.SASS != 192 || a.PTX != 3) {
			t.Errorf("the loop's weak load: %+v, want 192 instructions for 192 of the flag's over 3 code paths", a)
		}
	}
	// At level 0 nothing is unrolled: one of each per code path.
	if k0 := CheckKernel(tt, fakeJIT{unroll: 1}, dis, t.TempDir()); !k0.OK() {
		t.Errorf("not unrolled: %q", k0.Findings())
	}
}

// TestPairMerge: `ld x; ld.acquire y; ld x` merged into one load loses
// both loads of x (leaving either out leaves the one load), each named by
// its side of the acquire.
func TestPairMerge(t *testing.T) {
	dis := cat(t)
	tt := mpAround()
	k := CheckKernel(tt, fakeJIT{unroll: 4, mergePair: true}, dis, t.TempDir())
	want := []string{
		"the weak load of x before role 1's ld.acquire.gpu.global.u32 y is merged or dropped (0 LDG for 1 in the PTX)",
		"the weak load of x after role 1's ld.acquire.gpu.global.u32 y is merged or dropped (0 LDG for 1 in the PTX)",
	}
	if f := k.Findings(); k.OK() || strings.Join(f, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings %q, want %q", f, want)
	}
	if kept := CheckKernel(tt, fakeJIT{unroll: 4}, dis, t.TempDir()); !kept.OK() {
		t.Errorf("kept: %q %s", kept.Findings(), kept.Error)
	}
}

// TestCheckCatalogue: with a JIT that keeps every access the catalogue's
// MP and CoWW kernels pass; the merged test beside them is the one failure,
// printed with its SASS.
func TestCheckCatalogue(t *testing.T) {
	dis := cat(t)
	var tests []*litmus.Test
	for _, tt := range litmus.Catalogue() {
		if tt.Family == "CoWW" || tt.Family == "MP" && len(tests) < 6 {
			tests = append(tests, tt)
		}
	}
	var out bytes.Buffer
	rep := &Report{JIT: JITVersion("580.159.04", 13000), Level: "default", Device: "GPU 0 fake", Disassembler: "cat"}
	bad := Check(rep, append(tests, mpInLoop()), fakeJIT{unroll: 8, mergeLoop: true}, dis, t.TempDir(), false, &out)
	if bad != 1 || rep.Pass {
		t.Fatalf("%d bad, pass %v:\n%s", bad, rep.Pass, out.String())
	}
	for _, want := range []string{
		"NVIDIA driver 580.159.04, CUDA 13.0, JIT level default",
		"FAIL MP rel.gpu/acq.gpu x in loop T1 op 1 (ld.relaxed.sys.global.u32 x): the relaxed load of x in role 1's poll loop is merged or hoisted out of the loop (1 LDG for 8 iterations)",
		"SASS of MP rel.gpu/acq.gpu x in loop:",
		fmt.Sprintf("%d of %d litmus kernels keep every access of every role", len(tests), len(tests)+1),
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if n := strings.Count(out.String(), "FAIL"); n != 1 {
		t.Errorf("%d failures:\n%s", n, out.String())
	}
}
