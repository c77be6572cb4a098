// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmussass

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"

	"github.com/p2pconf/p2pconf/harness/litmus"
	"github.com/p2pconf/p2pconf/kernels"
)

// Compiler turns PTX into a cubin as the driver's JIT does, with the JIT's
// info log.
type Compiler interface {
	Compile(ptx, name string) (cubin []byte, info string, err error)
}

// Report is what the check writes with -o (cmd/litmus-sass).
type Report struct {
	DriverVersion     string `json:"driver_version"`      // the kernel module's version line (/proc/driver/nvidia/version)
	CUDADriverVersion int    `json:"cuda_driver_version"` // cuDriverGetVersion
	// JIT names the compiler that produced the code: the driver, its CUDA
	// version and the optimization level (JITVersion).
	JIT          string `json:"jit"`
	Level        string `json:"jit_level"` // "default" or "O<n>" (CU_JIT_OPTIMIZATION_LEVEL)
	Device       string `json:"device"`
	Disassembler string `json:"disassembler"`
	// Match is the -match expression when only some tests were checked.
	Match   string       `json:"match,omitempty"`
	Kernels []KernelSASS `json:"kernels"`
	Pass    bool         `json:"pass"`
}

// JITVersion names the driver's JIT: the kernel module's version and the
// CUDA version of the driver API ("NVIDIA driver 580.159.04, CUDA 13.0").
func JITVersion(module string, cudaVersion int) string {
	return fmt.Sprintf("NVIDIA driver %s, CUDA %d.%d", module, cudaVersion/1000, cudaVersion%1000/10)
}

// LevelName is "default" or "O<n>".
func LevelName(jit kernels.JITOptions) string {
	if s := jit.String(); s != "" {
		return s
	}
	return "default"
}

// KernelSASS is one litmus kernel: its global memory instructions, what
// the driver kept of each role's and of each access.
type KernelSASS struct {
	Test     string         `json:"test"`
	Entry    string         `json:"entry"`
	Counts   map[string]int `json:"global_memory_instructions"`
	Roles    []RoleSASS     `json:"roles"`
	Accesses []Access       `json:"accesses"`
	JITInfo  string         `json:"jit_info,omitempty"`
	// Header is the module's PTX header (.version, .target) and the
	// disassembly's header (the SASS architecture and the cubin's header
	// flags): what the JIT was given and what it made.
	Header string `json:"header,omitempty"`
	// Excerpt is the SASS of the first role that lost an access (Excerpt):
	// what a ticket quotes.
	Excerpt string `json:"sass_excerpt,omitempty"`
	Error   string `json:"error,omitempty"`
}

// RoleSASS compares one role's PTX with what the driver kept, in total.
type RoleSASS struct {
	Role    int    `json:"role"`
	PTX     int    `json:"ptx_memory_ops"`
	SASS    int    `json:"sass_memory_instructions"`
	Kept    bool   `json:"kept"`
	Program string `json:"program"`
}

// Access is what the driver kept of one access of one role.
type Access struct {
	Role int    `json:"role"`
	Op   int    `json:"op"`
	Text string `json:"ptx"` // "ld.weak.global.u32 x"
	// What names the access in words ("the weak load of x in role 1's
	// poll loop"), for the finding.
	What string `json:"what"`
	// PTX is its instructions in the PTX (one per code path that plays the
	// role); SASS those of the driver's code.
	PTX  int `json:"ptx_instructions"`
	SASS int `json:"sass_instructions"`
	// Iterations is, for an access inside a poll loop, the instructions of
	// the loop's flag access in the driver's code: the loop's unrolled
	// iterations over all code paths, each of which must perform the
	// access too.
	Iterations int    `json:"loop_flag_instructions,omitempty"`
	Kept       bool   `json:"kept"`
	Finding    string `json:"finding,omitempty"`
}

// OK reports whether every role and every access kept its instructions.
func (k KernelSASS) OK() bool {
	if k.Error != "" || len(k.Roles) == 0 {
		return false
	}
	for _, r := range k.Roles {
		if !r.Kept {
			return false
		}
	}
	for _, a := range k.Accesses {
		if !a.Kept {
			return false
		}
	}
	return true
}

// Findings are the lost accesses in words, one a line: "the weak load of
// x in role 1's poll loop is merged or hoisted out of the loop (1 LDG for
// 64 iterations)".
func (k KernelSASS) Findings() []string {
	var out []string
	for _, a := range k.Accesses {
		if !a.Kept {
			out = append(out, a.Finding)
		}
	}
	for _, r := range k.Roles {
		if !r.Kept && len(out) == 0 {
			out = append(out, fmt.Sprintf("role %d (%s) keeps %d global memory instructions of the %d of its PTX", r.Role, r.Program, r.SASS, r.PTX))
		}
	}
	return out
}

// CheckKernel compiles t's kernel, each role's ablated form and each
// access's, and compares what the driver kept with the PTX. The forms are
// compiled and disassembled at once, a few at a time (a kernel of three
// roles is a dozen JIT runs of a large module: seconds one after another,
// and a run that failed on several tests diagnoses each).
func CheckKernel(t *litmus.Test, comp Compiler, dis Disassembler, dir string) KernelSASS {
	k := t.Kernel()
	ks := KernelSASS{Test: t.Name(), Entry: k.Entry}
	type form struct {
		role, op  int // -1: the whole kernel, or the whole role
		ptx, name string
		sass      string
		info      string
		err       error
	}
	forms := []*form{{role: -1, op: -1, ptx: k.PTX, name: k.Entry + ".ptx"}}
	for r := range t.Threads {
		forms = append(forms, &form{role: r, op: -1, ptx: t.AblatedPTX(r), name: fmt.Sprintf("%s_without_T%d.ptx", k.Entry, r)})
		for oi, op := range t.Threads[r] {
			if op.Kind != litmus.Fence {
				forms = append(forms, &form{role: r, op: oi, ptx: t.OpAblatedPTX(r, oi), name: fmt.Sprintf("%s_without_T%d_op%d.ptx", k.Entry, r, oi)})
			}
		}
	}
	var wg sync.WaitGroup
	slots := make(chan struct{}, max(1, min(8, runtime.NumCPU()/2)))
	for _, f := range forms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			var cubin []byte
			if cubin, f.info, f.err = comp.Compile(f.ptx, f.name); f.err == nil {
				f.sass, f.err = dis.SASS(dir, cubin)
			}
		}()
	}
	wg.Wait()
	full := forms[0]
	ks.JITInfo = full.info
	if full.err != nil {
		ks.Error = full.err.Error()
		return ks
	}
	ks.Counts = CountMemory(full.sass)
	ks.Header = moduleHeader(k.PTX, full.sass)
	fullN := Total(ks.Counts)
	for r := range t.Threads {
		var less *form
		kept := make(map[int]int) // op → its SASS instructions
		for _, f := range forms[1:] {
			switch {
			case f.role != r:
			case f.err != nil && f.op < 0:
				ks.Error = fmt.Sprintf("T%d left out: %v", r, f.err)
				return ks
			case f.err != nil:
				ks.Error = fmt.Sprintf("T%d op %d left out: %v", r, f.op, f.err)
				return ks
			case f.op < 0:
				less = f
			default:
				kept[f.op] = fullN - Total(CountMemory(f.sass))
			}
		}
		rs := RoleSASS{Role: r, PTX: t.RolePTXMemoryOps(r), SASS: fullN - Total(CountMemory(less.sass)), Program: litmus.ThreadText(t, t.Threads[r])}
		rs.Kept = rs.SASS >= rs.PTX
		ks.Roles = append(ks.Roles, rs)
		lost := false
		for oi, op := range t.Threads[r] {
			if op.Kind == litmus.Fence {
				continue
			}
			a := judge(t, r, oi, t.OpPTXMemoryOps(r, oi), kept)
			ks.Accesses = append(ks.Accesses, a)
			lost = lost || !a.Kept
		}
		if (lost || !rs.Kept) && ks.Excerpt == "" {
			ks.Excerpt = fmt.Sprintf("// %s\n// role %d: %s\n%s", ks.Header, r, rs.Program, Excerpt(full.sass, less.sass))
		}
	}
	return ks
}

// moduleHeader is the PTX's .version and .target lines and the
// disassembly's "code for sm_NN" and .headerflags lines, joined.
func moduleHeader(ptx, sass string) string {
	var out []string
	for _, l := range strings.Split(ptx, "\n") {
		if f := strings.Fields(l); len(f) > 0 && (f[0] == ".version" || f[0] == ".target") {
			out = append(out, strings.Join(f, " "))
		}
	}
	for _, l := range strings.Split(sass, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "code for ") || strings.HasPrefix(l, ".headerflags") {
			out = append(out, strings.Join(strings.Fields(l), " "))
		}
		if len(out) >= 4 {
			break
		}
	}
	return strings.Join(out, "; ")
}

// judge holds one access's instructions against what it must keep: one
// per code path of the PTX, and inside a poll loop one per instruction of
// the loop's flag access (every unrolled iteration performs it).
func judge(t *litmus.Test, role, oi, ptx int, kept map[int]int) Access {
	op := t.Threads[role][oi]
	a := Access{Role: role, Op: oi, Text: litmus.OpText(t, role, oi), What: describe(t, role, oi), PTX: ptx, SASS: kept[oi]}
	class := map[litmus.OpKind]string{litmus.Load: "LDG", litmus.Store: "STG", litmus.RMW: "ATOM"}[op.Kind]
	paths := max(ptx, 1)
	per := func(n int) string {
		if n%paths == 0 {
			return fmt.Sprint(n / paths)
		}
		return fmt.Sprintf("%.1f", float64(n)/float64(paths))
	}
	if poll := litmus.PollOf(t, role, oi); poll >= 0 {
		a.Iterations = kept[poll]
		a.Kept = a.SASS >= a.PTX && a.SASS >= a.Iterations
		if !a.Kept {
			a.Finding = fmt.Sprintf("%s is merged or hoisted out of the loop (%s %s for %s iterations)", a.What, per(a.SASS), class, per(a.Iterations))
		}
		return a
	}
	a.Kept = a.SASS >= a.PTX
	if !a.Kept {
		a.Finding = fmt.Sprintf("%s is merged or dropped (%s %s for %s in the PTX)", a.What, per(a.SASS), class, per(a.PTX))
	}
	return a
}

// describe names an access in words: "the weak load of x in role 1's poll
// loop", "the weak load of x before role 1's ld.acquire.gpu y", "the
// relaxed store of y".
func describe(t *litmus.Test, role, oi int) string {
	th := t.Threads[role]
	op := th[oi]
	sem := op.Sem.String()
	if op.Volatile {
		sem = "volatile"
	}
	what := fmt.Sprintf("the %s %s of %s", sem, map[litmus.OpKind]string{litmus.Load: "load", litmus.Store: "store", litmus.RMW: "RMW"}[op.Kind], t.Locs[op.Loc])
	if litmus.PollOf(t, role, oi) >= 0 {
		return fmt.Sprintf("%s in role %d's poll loop", what, role)
	}
	if op.Loops() {
		return fmt.Sprintf("%s, role %d's poll", what, role)
	}
	for j := oi + 1; j < len(th); j++ {
		if synchronises(th[j]) {
			return fmt.Sprintf("%s before role %d's %s", what, role, litmus.OpText(t, role, j))
		}
	}
	for j := oi - 1; j >= 0; j-- {
		if synchronises(th[j]) {
			return fmt.Sprintf("%s after role %d's %s", what, role, litmus.OpText(t, role, j))
		}
	}
	return fmt.Sprintf("%s in role %d", what, role)
}

// synchronises reports whether op orders the accesses around it: a fence,
// or an access with release or acquire semantics.
func synchronises(op litmus.Op) bool {
	return op.Kind == litmus.Fence || op.Sem == kernels.Acquire || op.Sem == kernels.Release || op.Sem == kernels.AcqRel || op.Sem == kernels.SC
}

// Check compiles every test and prints the verdict, one line per access
// the driver lost (per role and access with verbose); it fills rep and
// returns the number of kernels that lost something.
func Check(rep *Report, tests []*litmus.Test, comp Compiler, dis Disassembler, dir string, verbose bool, w io.Writer) int {
	fmt.Fprintf(w, "%s, JIT level %s, %s, %s\n", rep.JIT, orDefault(rep.Level), rep.Device, rep.Disassembler)
	bad := 0
	for _, t := range tests {
		k := CheckKernel(t, comp, dis, dir)
		rep.Kernels = append(rep.Kernels, k)
		if !k.OK() {
			bad++
		}
		if k.Error != "" {
			fmt.Fprintf(w, "FAIL %s: %s\n", t.Name(), k.Error)
			continue
		}
		for _, r := range k.Roles {
			if !r.Kept || verbose {
				fmt.Fprintf(w, "%s %s T%d (%s): %d global memory instructions in its PTX, %d in the driver's code\n", verdict(r.Kept), t.Name(), r.Role, r.Program, r.PTX, r.SASS)
			}
		}
		for _, a := range k.Accesses {
			switch {
			case !a.Kept:
				fmt.Fprintf(w, "FAIL %s T%d op %d (%s): %s\n", t.Name(), a.Role, a.Op, a.Text, a.Finding)
			case verbose:
				fmt.Fprintf(w, "ok   %s T%d op %d (%s): %d instructions in its PTX, %d in the driver's code%s\n", t.Name(), a.Role, a.Op, a.Text, a.PTX, a.SASS, loopNote(a))
			}
		}
		if !k.OK() && k.Excerpt != "" {
			fmt.Fprintf(w, "     SASS of %s:\n%s", t.Name(), indent(k.Excerpt))
		}
	}
	rep.Pass = bad == 0
	fmt.Fprintf(w, "%d of %d litmus kernels keep every access of every role\n", len(tests)-bad, len(tests))
	return bad
}

func verdict(ok bool) string {
	if ok {
		return "ok  "
	}
	return "FAIL"
}

func loopNote(a Access) string {
	if a.Iterations == 0 {
		return ""
	}
	return fmt.Sprintf(" (its poll loop's flag access: %d)", a.Iterations)
}

func orDefault(s string) string {
	if s == "" {
		return "default"
	}
	return s
}

func indent(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString("     " + strings.TrimSpace(l) + "\n")
	}
	return b.String()
}
