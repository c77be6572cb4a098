// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Command litmus-sass is the compile check of the litmus tests (`make
// litmus-sass`): for every litmus kernel it gets the code the driver's JIT
// produces for the GPU (cuLinkCreate, cuLinkAddData, cuLinkComplete return
// the cubin), disassembles it with the CUDA toolkit's nvdisasm (or
// cuobjdump), and checks that each thread role keeps the global memory
// instructions of its PTX. A role's instructions are what the kernel loses
// when that role's litmus operations are left out of its PTX
// (litmus.Test.AblatedPTX): the LDG, STG, ATOM and RED instructions of the
// whole kernel, minus those of the kernel without them, must be at least
// the global ld, st, atom and red instructions the PTX loses the same way
// (every code path that holds the role counts; a polling loop the compiler
// unrolls has more; two stores merged into one have fewer).
//
//	go run ./cmd/litmus-sass [-gpu 0] [-o litmus-sass.json] [-v]
//
// It records which driver's JIT produced the code (cuDriverGetVersion and
// the kernel module's version line). Exit status: 0 every role kept its
// instructions, 1 some role did not (or a kernel failed to compile), 2 the
// check could not run: no disassembler of the CUDA toolkit, no driver or
// GPU, or bad flags. It is never a pass without a toolkit.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/p2pconf/p2pconf/harness/cuda"
	"github.com/p2pconf/p2pconf/harness/litmus"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// Exit codes.
const (
	exitPass      = 0
	exitFail      = 1
	exitCannotRun = 2
)

// Report is what the check writes with -o.
type Report struct {
	DriverVersion     string `json:"driver_version"`      // the kernel module's version line (/proc/driver/nvidia/version)
	CUDADriverVersion int    `json:"cuda_driver_version"` // cuDriverGetVersion
	Device            string `json:"device"`
	Disassembler      string `json:"disassembler"`
	// Match is the -match expression when only some tests were checked.
	Match   string       `json:"match,omitempty"`
	Kernels []KernelSASS `json:"kernels"`
	Pass    bool         `json:"pass"`
}

// KernelSASS is one litmus kernel: its global memory instructions and, per
// role, what the driver kept of the role's.
type KernelSASS struct {
	Test    string         `json:"test"`
	Entry   string         `json:"entry"`
	Counts  map[string]int `json:"global_memory_instructions"`
	Roles   []RoleSASS     `json:"roles"`
	JITInfo string         `json:"jit_info,omitempty"`
	Error   string         `json:"error,omitempty"`
}

// RoleSASS compares one role's PTX with what the driver kept.
type RoleSASS struct {
	Role    int    `json:"role"`
	PTX     int    `json:"ptx_memory_ops"`
	SASS    int    `json:"sass_memory_instructions"`
	Kept    bool   `json:"kept"`
	Program string `json:"program"`
}

// tool finds a toolkit binary on PATH, under $CUDA_HOME/bin or in
// /usr/local/cuda/bin.
func tool(name string) string {
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

// disassembler is the command that prints a cubin's SASS.
type disassembler struct {
	path string
	args []string
}

func findDisassembler() (disassembler, error) {
	if p := tool("nvdisasm"); p != "" {
		return disassembler{p, []string{"-c"}}, nil
	}
	if p := tool("cuobjdump"); p != "" {
		return disassembler{p, []string{"-sass"}}, nil
	}
	return disassembler{}, errors.New("needs the CUDA toolkit's nvdisasm or cuobjdump (not on PATH, under $CUDA_HOME/bin or in /usr/local/cuda/bin); nothing was checked")
}

func (d disassembler) version() string {
	out, err := exec.Command(d.path, "--version").CombinedOutput()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err != nil || len(lines) == 0 {
		return d.path
	}
	return filepath.Base(d.path) + ": " + strings.TrimSpace(lines[len(lines)-1])
}

func (d disassembler) sass(dir string, cubin []byte) (string, error) {
	f := filepath.Join(dir, "kernel.cubin")
	if err := os.WriteFile(f, cubin, 0o600); err != nil {
		return "", err
	}
	out, err := exec.Command(d.path, append(d.args, f)...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s %s: %v: %s", filepath.Base(d.path), strings.Join(d.args, " "), err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}

// sassLine matches an instruction line of nvdisasm or cuobjdump output:
// "/*0090*/  @!P0 LDG.E.STRONG.SYS R2, desc[UR4][R2.64] ;".
var sassLine = regexp.MustCompile(`/\*[0-9a-fA-F]+\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_]*)(?:\.[A-Z0-9_.]*)?\s`)

// memoryClasses are the SASS instructions that access global (or generic)
// memory, by mnemonic.
var memoryClasses = map[string]string{
	"LDG": "LDG", "LD": "LDG",
	"STG": "STG", "ST": "STG",
	"ATOMG": "ATOM", "ATOM": "ATOM",
	"RED": "RED", "REDG": "RED",
}

// countMemory counts the global memory instructions of a disassembly.
func countMemory(sass string) map[string]int {
	out := map[string]int{"LDG": 0, "STG": 0, "ATOM": 0, "RED": 0}
	for _, line := range strings.Split(sass, "\n") {
		if m := sassLine.FindStringSubmatch(line); m != nil {
			if c, ok := memoryClasses[m[1]]; ok {
				out[c]++
			}
		}
	}
	return out
}

func total(c map[string]int) int { return c["LDG"] + c["STG"] + c["ATOM"] + c["RED"] }

// compiler turns PTX into a cubin on one GPU.
type compiler interface {
	compile(ptx, name string) ([]byte, string, error)
}

// checkKernel compiles t's kernel and each role's ablated form and compares.
func checkKernel(t *litmus.Test, comp compiler, dis disassembler, dir string) KernelSASS {
	k := t.Kernel()
	ks := KernelSASS{Test: t.Name(), Entry: k.Entry}
	counts := func(ptx, name string) (map[string]int, string, error) {
		cubin, info, err := comp.compile(ptx, name)
		if err != nil {
			return nil, info, err
		}
		text, err := dis.sass(dir, cubin)
		if err != nil {
			return nil, info, err
		}
		return countMemory(text), info, nil
	}
	full, info, err := counts(k.PTX, k.Entry+".ptx")
	ks.Counts, ks.JITInfo = full, info
	if err != nil {
		ks.Error = err.Error()
		return ks
	}
	for r := range t.Threads {
		less, _, err := counts(t.AblatedPTX(r), fmt.Sprintf("%s_without_T%d.ptx", k.Entry, r))
		if err != nil {
			ks.Error = fmt.Sprintf("T%d left out: %v", r, err)
			return ks
		}
		rs := RoleSASS{Role: r, PTX: t.RolePTXMemoryOps(r), SASS: total(full) - total(less), Program: program(t, r)}
		rs.Kept = rs.SASS >= rs.PTX
		ks.Roles = append(ks.Roles, rs)
	}
	return ks
}

// program is a role's PTX operations, for the table.
func program(t *litmus.Test, r int) string {
	return litmus.ThreadText(t, t.Threads[r])
}

func (k KernelSASS) ok() bool {
	if k.Error != "" || len(k.Roles) == 0 {
		return false
	}
	for _, r := range k.Roles {
		if !r.Kept {
			return false
		}
	}
	return true
}

// driverCompiler compiles with the driver in one GPU's primary context.
type driverCompiler struct {
	d   *cuda.Driver
	ctx *cuda.Context
}

func (c driverCompiler) compile(ptx, name string) (cubin []byte, info string, err error) {
	err = c.ctx.Do(func() error {
		var e error
		cubin, info, e = c.d.CompilePTX(ptx, name)
		return e
	})
	return cubin, info, err
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("litmus-sass", flag.ContinueOnError)
	fs.SetOutput(stderr)
	gpu := fs.Int("gpu", 0, "CUDA ordinal of the GPU whose JIT compiles the kernels")
	outPath := fs.String("o", "", "write the report as JSON to this file")
	verbose := fs.Bool("v", false, "print every role, not only those that lost instructions")
	match := fs.String("match", "", "check only the tests whose name matches this regular expression (the report records it)")
	if err := fs.Parse(args); err != nil {
		return exitCannotRun
	}
	if fs.NArg() > 0 || *gpu < 0 {
		fmt.Fprintf(stderr, "litmus-sass: unexpected arguments %q (flags: -gpu N, -o FILE, -v, -match REGEXP)\n", fs.Args())
		return exitCannotRun
	}
	tests, err := selectTests(litmus.Catalogue(), *match)
	if err != nil {
		fmt.Fprintln(stderr, "litmus-sass:", err)
		return exitCannotRun
	}
	dis, err := findDisassembler()
	if err != nil {
		fmt.Fprintln(stderr, "litmus-sass: CANNOT RUN:", err)
		return exitCannotRun
	}
	d, ctx, rep, err := openGPU(*gpu)
	if err != nil {
		fmt.Fprintln(stderr, "litmus-sass: CANNOT RUN:", err)
		return exitCannotRun
	}
	defer func() { _ = ctx.Release(); _ = d.Close() }()
	rep.Disassembler = dis.version()
	rep.Match = *match
	dir, err := os.MkdirTemp("", "p2pconf-litmus-sass-")
	if err != nil {
		fmt.Fprintln(stderr, "litmus-sass: CANNOT RUN:", err)
		return exitCannotRun
	}
	defer os.RemoveAll(dir)
	code := check(rep, tests, driverCompiler{d, ctx}, dis, dir, *verbose, stdout)
	if *outPath != "" {
		data, _ := json.MarshalIndent(rep, "", " ")
		if err := os.WriteFile(*outPath, append(data, '\n'), 0o644); err != nil {
			fmt.Fprintln(stderr, "litmus-sass:", err)
			return exitCannotRun
		}
	}
	return code
}

// check compiles every test and prints the verdict; it fills rep.
func check(rep *Report, tests []*litmus.Test, comp compiler, dis disassembler, dir string, verbose bool, w io.Writer) int {
	fmt.Fprintf(w, "driver %s (CUDA %s), %s, %s\n", rep.DriverVersion, cuda.VersionString(rep.CUDADriverVersion), rep.Device, rep.Disassembler)
	bad := 0
	for _, t := range tests {
		k := checkKernel(t, comp, dis, dir)
		rep.Kernels = append(rep.Kernels, k)
		if !k.ok() {
			bad++
		}
		if k.Error != "" {
			fmt.Fprintf(w, "FAIL %s: %s\n", t.Name(), k.Error)
			continue
		}
		for _, r := range k.Roles {
			if !r.Kept || verbose {
				verdict := "ok  "
				if !r.Kept {
					verdict = "FAIL"
				}
				fmt.Fprintf(w, "%s %s T%d (%s): %d global memory instructions in its PTX, %d in the driver's code\n", verdict, t.Name(), r.Role, r.Program, r.PTX, r.SASS)
			}
		}
	}
	rep.Pass = bad == 0
	fmt.Fprintf(w, "%d of %d litmus kernels keep every role's global memory instructions\n", len(tests)-bad, len(tests))
	if bad > 0 {
		return exitFail
	}
	return exitPass
}

// openGPU loads the driver and retains the GPU's primary context.
func openGPU(ordinal int) (*cuda.Driver, *cuda.Context, *Report, error) {
	d, err := cuda.Load(cuda.DefaultLibrary)
	if err != nil {
		return nil, nil, nil, err
	}
	fail := func(err error) (*cuda.Driver, *cuda.Context, *Report, error) {
		_ = d.Close()
		return nil, nil, nil, err
	}
	if err := d.Init(); err != nil {
		return fail(err)
	}
	dev, err := d.Device(ordinal)
	if err != nil {
		return fail(fmt.Errorf("GPU %d: %w", ordinal, err))
	}
	name, _ := d.DeviceName(dev)
	ctx, err := d.RetainPrimaryContext(dev)
	if err != nil {
		return fail(err)
	}
	rep := &Report{CUDADriverVersion: d.Version(), Device: fmt.Sprintf("GPU %d %s", ordinal, name), DriverVersion: kernelModuleVersion()}
	return d, ctx, rep, nil
}

// kernelModuleVersion is the NVIDIA kernel module's version line, the
// driver whose JIT compiled the code ("unknown" where it cannot be read).
func kernelModuleVersion() string {
	data, err := os.ReadFile("/proc/driver/nvidia/version")
	if err != nil {
		return "unknown"
	}
	line, _, _ := strings.Cut(string(data), "\n")
	if f := regexp.MustCompile(`\b\d+\.\d+(\.\d+)?\b`).FindString(line); f != "" {
		return f
	}
	return strings.TrimSpace(line)
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
