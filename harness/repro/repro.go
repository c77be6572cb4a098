// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package repro writes standalone C reproducers of conformance checks: one
// file that a driver engineer builds with `cc -O2 -o repro repro.c -ldl`
// and runs on a machine with only the driver. It makes the same driver calls
// as the check's specs, in the same order, with the same sizes, seeds, flags
// and placement, prints what it expected and what it observed in the suite's
// words, and exits 0 when the driver conformed, 1 on the violation and 2 when
// the machine cannot run the check.
//
// The file is assembled from the binding's own C declarations (shim.h and
// entries.h of harness/cuda, so the reproducer resolves every entry point at
// the version the suite pins), one runtime (runtime.c: load, contexts,
// memory, seeded data, bounded waits, exit codes), the PTX the check
// launches as a string, and one C function per spec of the check.
package repro

import (
	_ "embed" // csrc/runtime.c
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/p2pconf/p2pconf/harness/checks"
	"github.com/p2pconf/p2pconf/harness/cuda"
	"github.com/p2pconf/p2pconf/kernels"
)

// BuildLine is how a reproducer is built, written into every file's header.
const BuildLine = "cc -O2 -o repro repro.c -ldl"

// Exit codes of a reproducer.
const (
	ExitConforms  = 0 // the driver did what the check demands
	ExitViolation = 1 // the driver violated the check
	ExitCannotRun = 2 // this machine cannot run the check (the reason is printed)
)

//go:embed csrc/runtime.c
var runtimeC string

// Target is the GPU or ordered pair a reproducer runs on.
type Target struct {
	A, B int
	Pair bool // false: one GPU, A
}

// GPU is the one-GPU target n.
func GPU(n int) Target { return Target{A: n} }

// Pair is the ordered pair a→b.
func Pair(a, b int) Target { return Target{A: a, B: b, Pair: true} }

// ParseTarget reads "--pair A-B" or "--gpu N" values: pair "0-1", gpu "0".
func ParseTarget(pair, gpu string) (Target, error) {
	switch {
	case pair != "" && gpu != "":
		return Target{}, fmt.Errorf("repro: give --pair or --gpu, not both")
	case pair != "":
		a, b, ok := strings.Cut(pair, "-")
		x, err1 := strconv.Atoi(a)
		y, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil || x < 0 || y < 0 || x == y {
			return Target{}, fmt.Errorf("repro: --pair %q: want two different GPU ordinals as A-B, e.g. 0-1", pair)
		}
		return Pair(x, y), nil
	case gpu != "":
		n, err := strconv.Atoi(gpu)
		if err != nil || n < 0 {
			return Target{}, fmt.Errorf("repro: --gpu %q: want a GPU ordinal, e.g. 0", gpu)
		}
		return GPU(n), nil
	}
	return Target{}, fmt.Errorf("repro: no target: give --pair A-B or --gpu N")
}

// String is "GPU0" or "GPU0→GPU1", as the suites write targets.
func (t Target) String() string {
	if t.Pair {
		return fmt.Sprintf("GPU%d→GPU%d", t.A, t.B)
	}
	return fmt.Sprintf("GPU%d", t.A)
}

// ID is "0" or "0-1", the label value of the target (pair:0-1, gpu:0).
func (t Target) ID() string {
	if t.Pair {
		return fmt.Sprintf("%d-%d", t.A, t.B)
	}
	return strconv.Itoa(t.A)
}

// Flag is the command-line flag that names the target.
func (t Target) Flag() string {
	if t.Pair {
		return "--pair " + t.ID()
	}
	return "--gpu " + t.ID()
}

func (t Target) scope() checks.Scope {
	if t.Pair {
		return checks.OnPair
	}
	return checks.OnGPU
}

// Command is the p2pconf command that writes the reproducer of check on t
// (restricted to the spec variant names, when not empty).
func Command(check string, t Target, variant string) string {
	c := "p2pconf repro " + check + " " + t.Flag()
	if variant != "" {
		c += " --variant " + shellQuote(variant)
	}
	return c
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// spec is one spec of a check on a target: a C function body.
type spec struct {
	// name is the spec's text with the GPU names, as the suite prints it.
	name string
	// key is the spec's variant key, as the suite declares it (its
	// variant: label); "" where the check has one spec per target.
	key string
	// code is the body of a C function returning void.
	code string
	// decls are C declarations the code needs (a PTX string, tables);
	// specs that share them write the same text, which appears once.
	decls string
}

// recipe is how one check's reproducer is built.
type recipe struct {
	// basic embeds kernels/basic.ptx (fill, verify, transform, delay,
	// empty), which the runtime's kernel helpers launch.
	basic bool
	// ptx is another PTX module the specs launch, as PTX (empty: none).
	ptx string
	// helpers is C code shared by the specs (after the runtime).
	helpers string
	// timeout is the spec's timeout in seconds (each wait is bounded by it).
	timeout float64
	// helperProcess forks a helper before CUDA starts (see helperC).
	helperProcess bool
	specs         func(t Target) []spec
}

var recipes = map[string]recipe{}

func register(id string, r recipe) {
	if _, dup := recipes[id]; dup {
		panic("repro: two recipes for " + id)
	}
	recipes[id] = r
}

// Checks lists the check IDs that have a reproducer, sorted.
func Checks() []string {
	out := make([]string, 0, len(recipes))
	for id := range recipes {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// File is one generated reproducer.
type File struct {
	Name   string // suggested file name, e.g. access.peer-copy_0-1.c
	Source string
	Specs  []string // the specs it runs, as the suite names them
}

// Generate writes the reproducer of check id on t. With variant set, only
// the specs it selects are included (see choose): the spec with that
// variant key, else the specs whose text is or contains it.
func Generate(id string, t Target, variant string) (File, error) {
	c, ok := checks.Lookup(id)
	if !ok {
		return File{}, fmt.Errorf("repro: no check %q in the catalogue", id)
	}
	r, ok := recipes[id]
	if !ok || !c.Reproducible {
		why := c.NotReproducible
		if why == "" {
			why = "the catalogue does not mark it reproducible"
		}
		return File{}, fmt.Errorf("repro: %s has no standalone reproducer: %s", id, why)
	}
	if !c.AllowsScope(t.scope()) {
		return File{}, fmt.Errorf("repro: %s does not run on %s (scopes %v)", id, t, c.Scopes)
	}
	all := r.specs(t)
	chosen := choose(all, variant)
	if len(chosen) == 0 {
		var names []string
		for _, s := range all {
			if s.key != "" {
				names = append(names, s.key+": "+s.name)
			} else {
				names = append(names, s.name)
			}
		}
		return File{}, fmt.Errorf("repro: %s on %s: --variant %q selects no spec; the specs are:\n  %s", id, t, variant, strings.Join(names, "\n  "))
	}
	f := File{Name: fmt.Sprintf("%s_%s.c", id, t.ID())}
	var b strings.Builder
	writeHeader(&b, c, t, variant, chosen, r)
	fmt.Fprintf(&b, "#define CHECK_ID %s\n#define TARGET %s\n#define TIMEOUT_S %s\n\n", cString(id), cString(t.String()), strconv.FormatFloat(r.timeout, 'g', -1, 64))
	b.WriteString(runtimeC)
	if r.helperProcess {
		b.WriteString(helperC)
	}
	if r.basic {
		b.WriteString("\n/* kernels/basic.ptx: the suite's fill, verify, transform, delay and empty kernels, unchanged. */\nstatic const char PTX_BASIC[] =\n")
		b.WriteString(cStringLines(kernels.Fill.PTX))
		b.WriteString(";\n")
	}
	if r.ptx != "" {
		b.WriteString("\n/* The PTX the check launches (the suite's kernels, unchanged). */\nstatic const char PTX[] =\n")
		b.WriteString(cStringLines(r.ptx))
		b.WriteString(";\n")
	}
	b.WriteString("\n/* ---- the check ---- */\n\n")
	fmt.Fprintf(&b, "enum { A = %d, B = %d };\n\n", t.A, t.B)
	b.WriteString(r.helpers)
	written := map[string]bool{}
	for _, s := range chosen {
		if s.decls != "" && !written[s.decls] {
			written[s.decls] = true
			b.WriteString(s.decls)
		}
	}
	for i, s := range chosen {
		fmt.Fprintf(&b, "\n/* %s */\nstatic void spec_%d(void) {\n\tbegin(%s);\n%s}\n", s.name, i, cString(s.name), indent(s.code))
		f.Specs = append(f.Specs, s.name)
	}
	b.WriteString("\nint main(void) {\n")
	if r.basic {
		b.WriteString("\trt_basic_ptx = PTX_BASIC;\n")
	}
	if r.helperProcess {
		b.WriteString("\tif (helper_child()) return 0; /* this process is a helper: it served its request */\n")
	}
	b.WriteString("\trt_start(CHECK_ID, TARGET);\n")
	for i := range chosen {
		fmt.Fprintf(&b, "\tspec_%d();\n", i)
	}
	b.WriteString("\treturn rt_finish();\n}\n")
	f.Source = b.String()
	return f, nil
}

// choose picks the specs --variant names. The report's variant is the
// spec's variant key, which selects that spec; a user may also paste the
// spec's display text (perhaps with its "family: " prefix), or a part of
// it. Texts are compared without GPU names: an equal spec wins, else every
// spec whose text contains the variant.
func choose(all []spec, variant string) []spec {
	if variant == "" {
		return all
	}
	for _, s := range all {
		if s.key != "" && s.key == strings.TrimSpace(variant) {
			return []spec{s}
		}
	}
	v := normalise(variant)
	var equal, containing []spec
	for _, s := range all {
		n := normalise(s.name)
		switch {
		case n == v:
			equal = append(equal, s)
		case strings.Contains(n, v):
			containing = append(containing, s)
		}
	}
	if len(equal) > 0 {
		return equal
	}
	return containing
}

var (
	gpuWords    = regexp.MustCompile(`\s*GPU\d+(\s*(→|->)\s*GPU\d+)?\s*`)
	familyStart = regexp.MustCompile(`^[a-z]+: `)
	copyNumber  = regexp.MustCompile(` #\d+$`)
)

func normalise(s string) string {
	s = copyNumber.ReplaceAllString(strings.TrimSpace(s), "")
	s = familyStart.ReplaceAllString(s, "")
	return strings.Join(strings.Fields(gpuWords.ReplaceAllString(s, " ")), " ")
}

func writeHeader(b *strings.Builder, c checks.Check, t Target, variant string, specs []spec, r recipe) {
	b.WriteString("/* SPDX-License-Identifier: Apache-2.0\n * SPDX-FileCopyrightText: 2026 The p2pconf Authors\n *\n")
	fmt.Fprintf(b, " * p2pconf reproducer: %s on %s\n *\n", c.ID, t)
	fmt.Fprintf(b, " * Build:  %s\n * Run:    ./repro\n", BuildLine)
	b.WriteString(" * Needs:  a C compiler and the NVIDIA driver (libcuda.so.1); no CUDA toolkit.\n")
	b.WriteString(" * Exit:   0 the driver conformed, 1 it violated the check, 2 this machine cannot run it.\n *\n")
	fmt.Fprintf(b, " * Written by: %s\n *\n", Command(c.ID, t, variant))
	b.WriteString(" * Requirement (the suite's words):\n")
	for _, l := range wrap(c.Requirement, 74) {
		b.WriteString(" *   " + commentSafe(l) + "\n")
	}
	b.WriteString(" * Source:\n")
	for _, l := range wrap(c.Source, 74) {
		b.WriteString(" *   " + commentSafe(l) + "\n")
	}
	b.WriteString(" * Specs reproduced here:\n")
	for _, s := range specs {
		for i, l := range wrap(s.name, 72) {
			p := " *   - "
			if i > 0 {
				p = " *     "
			}
			b.WriteString(p + commentSafe(l) + "\n")
		}
	}
	if r.ptx != "" || r.basic {
		b.WriteString(" * The PTX below is JIT-compiled by the driver (cuModuleLoadDataEx).\n")
	}
	if r.helperProcess {
		b.WriteString(" * A helper process (fork() and exec of this binary, one request each over a\n * socketpair) plays the second process of the check.\n")
	}
	b.WriteString(" */\n\n#define _GNU_SOURCE\n#include <dlfcn.h>\n#include <stdarg.h>\n#include <stddef.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <time.h>\n#include <unistd.h>\n")
	if r.helperProcess {
		b.WriteString("#include <dirent.h>\n#include <signal.h>\n#include <sys/socket.h>\n#include <sys/time.h>\n#include <sys/uio.h>\n#include <sys/wait.h>\n")
	}
	b.WriteString("\n/* ---- CUDA driver types and entry points (p2pconf harness/cuda) ---- */\n\n")
	b.WriteString(cuda.ShimHeader)
	b.WriteString("\n")
	b.WriteString(cuda.EntriesHeader)
	b.WriteString("\n")
}

// commentSafe keeps a line from closing the C comment it is in.
func commentSafe(s string) string { return strings.ReplaceAll(s, "*/", "* /") }

func wrap(s string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// cString is s as a C string literal; bytes beyond ASCII stay as UTF-8.
func cString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '%':
			b.WriteString("%") // strings are never format strings
		case c < 0x20:
			fmt.Fprintf(&b, `\%03o`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// cStringLines is a long text as adjacent C string literals, one per line.
func cStringLines(s string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if l == "" {
			continue
		}
		b.WriteString("\t" + cString(l) + "\n")
	}
	return b.String()
}

func indent(code string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(code, "\n"), "\n") {
		if l == "" {
			b.WriteString("\n")
			continue
		}
		b.WriteString("\t" + l + "\n")
	}
	return b.String()
}
