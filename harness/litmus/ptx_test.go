// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/p2pconf/p2pconf/kernels"
)

// TestInstructionPerOp pins the exact PTX instruction of each kind of
// operation: the point of generating PTX is that the semantics and scope
// under test are exactly these.
func TestInstructionPerOp(t *testing.T) {
	for _, c := range []struct {
		op   Op
		want string
	}{
		{st(x, 1, relSys), "st.release.sys.global.u32"},
		{st(x, 1, rlxGPU), "st.relaxed.gpu.global.u32"},
		{st(x, 1, weak), "st.weak.global.u32"},
		{ld(x, 0, acqSys), "ld.acquire.sys.global.u32"},
		{ld(x, 0, acqCTA), "ld.acquire.cta.global.u32"},
		{ld(x, 0, rlxSys), "ld.relaxed.sys.global.u32"},
		{ld(x, 0, weak), "ld.weak.global.u32"},
		{fence(scSys), "fence.sc.sys"},
		{fence(arSys), "fence.acq_rel.sys"},
		{fence(scGPU), "fence.sc.gpu"},
		{rmw(kernels.OpExch, x, 1, NoReg, arSys), "atom.acq_rel.sys.global.exch.b32"},
		{rmw(kernels.OpAdd, x, 1, 0, rlxSys), "atom.relaxed.sys.global.add.u32"},
		{rmw(kernels.OpAdd, x, 1, 0, rlxGPU), "atom.relaxed.gpu.global.add.u32"},
		{pollCAS(x, 1, 1, 0, acqSys), "atom.acquire.sys.global.cas.b32"},
		{rmw(kernels.OpExch, x, 1, NoReg, relSys), "atom.release.sys.global.exch.b32"},
	} {
		if got := instruction(c.op); got != c.want {
			t.Errorf("instruction(%+v) = %q, want %q", c.op, got, c.want)
		}
	}
}

func findTest(t *testing.T, name string) *Test {
	t.Helper()
	for _, tt := range Catalogue() {
		if tt.Name() == name {
			return tt
		}
	}
	t.Fatalf("no test %q in the catalogue", name)
	return nil
}

// TestGeneratedSnippets checks whole generated lines of a few kernels.
func TestGeneratedSnippets(t *testing.T) {
	for name, lines := range map[string][]string{
		"MP rel.sys/acq.sys": {
			"\tst.weak.global.u32 [%d_a0], %s8;",
			"\tst.release.sys.global.u32 [%d_a1], %s8;",
			"\tld.acquire.sys.global.u32 %u_r0, [%d_a1];",
			"\tld.weak.global.u32 %u_r1, [%d_a0];",
			"\tsetp.lt.u32 %sp1, %s7, 64;",
		},
		"MP exch.rel.sys/cas.acq.sys": {
			"\tatom.release.sys.global.exch.b32 %s6, [%d_a1], %s8;",
			"\tatom.acquire.sys.global.cas.b32 %u_r0, [%d_a1], %s8, %s9;",
		},
		"SB atom.acq_rel.sys": {
			"\tatom.acq_rel.sys.global.exch.b32 %s6, [%d_a0], %s8;",
			"\tatom.acq_rel.sys.global.add.u32 %u_r0, [%d_a1], %s8;",
		},
		"atomicity ld/st increment": {
			"\tadd.u32 %s8, %u_r0, 1;",
			"\tst.relaxed.sys.global.u32 [%d_a0], %s8;",
		},
	} {
		ptx := findTest(t, name).Kernel().PTX
		for _, l := range lines {
			if !strings.Contains(ptx, l+"\n") {
				t.Errorf("%s: the PTX lacks the line %q", name, l)
			}
		}
	}
}

var memInstr = regexp.MustCompile(`^\t(ld|st|atom|fence)\.(\S+)`)

// TestRolesEmitTheirOperationsInOrder checks, for every test, that each
// role's code performs exactly the thread's operations, in program order,
// with the exact instruction (a poll loop shows its instruction once).
func TestRolesEmitTheirOperationsInOrder(t *testing.T) {
	for _, tt := range Catalogue() {
		ptx := tt.Kernel().PTX
		for r, th := range tt.Threads {
			sec := section(ptx, fmt.Sprintf("ROLE%d:", r), "\tbra ITEM_NEXT;")
			var got []string
			for _, line := range strings.Split(sec, "\n") {
				if m := memInstr.FindStringSubmatch(line); m != nil && !strings.Contains(line, "[%sd3]") {
					got = append(got, strings.Fields(strings.TrimSpace(line))[0])
				}
			}
			var want []string
			for _, op := range th {
				in := instruction(op)
				if op.Kind == Fence {
					in += ";"
				}
				want = append(want, in)
			}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("%s T%d: PTX performs %v, want %v", tt.Name(), r, got, want)
			}
		}
	}
}

// section returns the text from the line starting with from to the first
// line equal to to after it.
func section(s, from, to string) string {
	i := strings.Index(s, "\n"+from)
	if i < 0 {
		return ""
	}
	s = s[i+1:]
	if j := strings.Index(s, "\n"+to+"\n"); j >= 0 {
		return s[:j]
	}
	return s
}

var (
	regDecl  = regexp.MustCompile(`^\s*\.reg\s+\.\w+\s+(.*);`)
	regRange = regexp.MustCompile(`^(%\w+)<(\d+)>$`)
	regUse   = regexp.MustCompile(`%[A-Za-z_]\w*`)
	labelDef = regexp.MustCompile(`^([A-Za-z_]\w*):$`)
	branch   = regexp.MustCompile(`\bbra\s+([A-Za-z_]\w*);`)
)

var specialRegs = map[string]bool{"%tid": true, "%ntid": true, "%ctaid": true, "%nctaid": true, "%globaltimer": true}

// TestPTXIsWellFormed lints every generated kernel without a GPU: the
// header the driver needs, the entry and parameters the descriptor
// declares, ASCII only, every register declared, every branch target
// defined once, every instruction terminated.
func TestPTXIsWellFormed(t *testing.T) {
	for _, tt := range Catalogue() {
		for _, p := range lintPTX(tt.Kernel()) {
			t.Error(p)
		}
	}
}

// TestLintFindsMistakes keeps the lint honest.
func TestLintFindsMistakes(t *testing.T) {
	good := findTest(t, "MP rel.sys/acq.sys").Kernel()
	for what, edit := range map[string]func(string) string{
		"undeclared register": func(s string) string { return strings.Replace(s, "%u_r0, [%d_a1]", "%u_r9, [%d_a1]", 1) },
		"undefined label":     func(s string) string { return strings.Replace(s, "bra ITEM_NEXT;", "bra ITEM_NXT;", 1) },
		"missing semicolon":   func(s string) string { return strings.Replace(s, "fence.acq_rel.sys;", "fence.acq_rel.sys", 1) },
		"non-ASCII":           func(s string) string { return strings.Replace(s, "// iterations", "// iterations ∧", 1) },
		"parameter renamed":   func(s string) string { return strings.Replace(s, ".param .u32 lt_seed", ".param .u32 lt_sed", 1) },
	} {
		k := *good
		k.PTX = edit(good.PTX)
		if k.PTX == good.PTX {
			t.Fatalf("%s: the edit changed nothing", what)
		}
		if len(lintPTX(&k)) == 0 {
			t.Errorf("lint accepted PTX with a %s", what)
		}
	}
}

func lintPTX(k *kernels.Kernel) (probs []string) {
	bad := func(f string, a ...any) { probs = append(probs, fmt.Sprintf(f, a...)) }
	ptx := k.PTX
	if v, err := kernels.PTXVersion(ptx); err != nil || v != 70 {
		bad("%s: .version %d (%v), want 7.0", k, v, err)
	}
	if !strings.Contains(ptx, "\n.target sm_70\n") || !strings.Contains(ptx, "\n.address_size 64\n") {
		bad("%s: missing .target sm_70 or .address_size 64", k)
	}
	sigs, err := kernels.ParseEntries(ptx)
	if err != nil || len(sigs) != 1 || sigs[0].Name != k.Entry || len(sigs[0].Params) != len(k.Params) {
		bad("%s: entries %+v (%v), want one entry %s with %d parameters", k, sigs, err, k.Entry, len(k.Params))
		return probs
	}
	for i, p := range k.Params {
		want := p.Kind
		if want == kernels.Ptr {
			want = kernels.U64
		}
		if sigs[0].Params[i].Name != p.Name || sigs[0].Params[i].Kind != want {
			bad("%s: parameter %d is %+v in PTX, %+v in the descriptor", k, i, sigs[0].Params[i], p)
		}
	}
	declared, labels := map[string]bool{}, map[string]int{}
	var body []string
	inBody := false
	for n, line := range strings.Split(ptx, "\n") {
		for _, c := range line {
			if c > 0x7e || (c < 0x20 && c != '\t') {
				bad("%s line %d: non-ASCII or control character %q", k, n+1, c)
			}
		}
		switch {
		case line == "{":
			inBody = true
		case !inBody || strings.HasPrefix(line, "//") || line == "" || line == "}":
		case regDecl.MatchString(line):
			for _, name := range strings.Split(regDecl.FindStringSubmatch(line)[1], ",") {
				name = strings.TrimSpace(name)
				if m := regRange.FindStringSubmatch(name); m != nil {
					count, _ := strconv.Atoi(m[2])
					for i := 0; i < count; i++ {
						declared[fmt.Sprintf("%s%d", m[1], i)] = true
					}
					continue
				}
				declared[name] = true
			}
		case labelDef.MatchString(line):
			labels[labelDef.FindStringSubmatch(line)[1]]++
		default:
			if !strings.HasPrefix(line, "\t") || !strings.HasSuffix(line, ";") {
				bad("%s line %d: %q is not a tab-indented, terminated instruction", k, n+1, line)
			}
			body = append(body, line)
		}
	}
	for name, n := range labels {
		if n > 1 {
			bad("%s: label %s defined %d times", k, name, n)
		}
	}
	for _, line := range body {
		for _, r := range regUse.FindAllString(line, -1) {
			if !declared[r] && !specialRegs[r] {
				bad("%s: register %s used but not declared: %q", k, r, line)
			}
		}
		if m := branch.FindStringSubmatch(line); m != nil && labels[m[1]] != 1 {
			bad("%s: branch to undefined label %s", k, m[1])
		}
	}
	if strings.Count(ptx, "{") != strings.Count(ptx, "}") {
		bad("%s: unbalanced braces", k)
	}
	return probs
}
