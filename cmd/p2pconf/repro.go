// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/p2pconf/p2pconf/harness/checks"
	"github.com/p2pconf/p2pconf/harness/machine"
	"github.com/p2pconf/p2pconf/harness/repro"
)

// cmdRepro writes standalone C reproducers: of one check on one GPU or
// pair, or (--all) of every reproducible check on every GPU and pair of
// this machine, with run-all.sh to build and run them where Go is absent.
func cmdRepro(args []string, stdout, stderr io.Writer) error {
	fs := flags("repro", stderr)
	pair := fs.String("pair", "", "the ordered pair A-B the check runs on, e.g. 0-1")
	gpu := fs.String("gpu", "", "the GPU the check runs on, e.g. 0")
	variant := fs.String("variant", "", "only the spec with this variant key (the report's variant), or whose text is or contains this (GPU names are ignored)")
	out := fs.String("o", "", "the folder to write into (default: the current folder; repro for --all)")
	all := fs.Bool("all", false, "every reproducible check on every GPU and pair of this machine (P2PCONF_GPUS and P2PCONF_PAIRS apply), with run-all.sh")
	flagArgs, pos := splitArgs(args, "pair", "gpu", "variant", "o")
	if err := parse(fs, flagArgs); err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageErr("repro takes one check ID (got %v)", pos)
	}
	var id string
	if len(pos) == 1 {
		id = pos[0]
	}
	if *all {
		if id != "" || *pair != "" || *gpu != "" || *variant != "" {
			return usageErr("repro --all takes no check, --pair, --gpu or --variant")
		}
		dir := *out
		if dir == "" {
			dir = "repro"
		}
		return reproAll(dir, stdout)
	}
	if id == "" {
		return usageErr("repro needs a check ID, e.g. p2pconf repro access.peer-copy --pair 0-1")
	}
	if _, ok := checks.Lookup(id); !ok {
		return usageErr("no check %q in the catalogue (docs/checks.md lists them)", id)
	}
	t, err := repro.ParseTarget(*pair, *gpu)
	if err != nil {
		return usageErr("%v", err)
	}
	if err := checkReproTarget(t, stderr); err != nil {
		return err
	}
	f, err := repro.Generate(id, t, *variant)
	if err != nil {
		return inputErr(err)
	}
	dir := *out
	if dir == "" {
		dir = "."
	}
	path, err := writeRepro(dir, f)
	if err != nil {
		return incomplete(err)
	}
	fmt.Fprintf(stdout, "wrote %s (%d specs)\nbuild: cd %s && %s\nrun:   ./repro   (exit 0 conforms, 1 violation, 2 cannot run here)\n",
		path, len(f.Specs), filepath.Dir(path), buildLineFor(f.Name))
	return nil
}

// checkReproTarget refuses a GPU or pair this machine does not have (a
// reproducer for it could only say "cannot run here"). Where the machine
// cannot be opened (no driver: reproducers are often written on another
// machine than the one they run on) it says so and lets it through.
func checkReproTarget(t repro.Target, stderr io.Writer) error {
	if err := checkSettings(); err != nil {
		return err
	}
	// A machine of its own, closed here: Open's would keep this moment's
	// answer for the whole process.
	m, err := machine.OpenNew()
	if err != nil {
		fmt.Fprintf(stderr, "p2pconf repro: not checked against this machine's GPUs: %s\n", firstLine(err.Error()))
		return nil
	}
	defer func() { _ = m.Backend.Close() }()
	have := map[int]bool{}
	var ords []string
	for _, g := range m.AllGPUs() {
		have[int(g.Ordinal)] = true
		ords = append(ords, fmt.Sprint(int(g.Ordinal)))
	}
	what := fmt.Sprintf("--gpu %d", t.A)
	if t.Pair {
		what = fmt.Sprintf("--pair %d-%d", t.A, t.B)
	}
	if !have[t.A] || (t.Pair && !have[t.B]) {
		return inputErr(fmt.Errorf("%s: this machine has no such GPU (its GPUs: %s)", what, strings.Join(ords, ",")))
	}
	return nil
}

// buildLineFor is the build line for a file written under its own name.
func buildLineFor(name string) string {
	return fmt.Sprintf("cc -O2 -o repro %s -ldl", name)
}

func writeRepro(dir string, f repro.File) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, f.Name)
	if err := os.WriteFile(path, []byte(f.Source), 0o644); err != nil {
		return "", err
	}
	return path, nil
}

// reproAll writes every reproducible check for every GPU and pair of the
// machine, and run-all.sh.
func reproAll(dir string, stdout io.Writer) error {
	sys, closeFn, err := openMachine()
	if err != nil {
		return openError(err, os.Args[0])
	}
	if closeFn != nil {
		defer closeFn()
	}
	var targets []repro.Target
	for _, g := range sys.GPUs {
		targets = append(targets, repro.GPU(g.Ordinal))
	}
	for _, p := range sys.Pairs {
		targets = append(targets, repro.Pair(p.Src, p.Dst))
	}
	n := 0
	for _, id := range repro.Checks() {
		c, _ := checks.Lookup(id)
		for _, t := range targets {
			if (t.Pair && !c.AllowsScope(checks.OnPair)) || (!t.Pair && !c.AllowsScope(checks.OnGPU)) {
				continue
			}
			f, err := repro.Generate(id, t, "")
			if err != nil {
				return incomplete(err)
			}
			if _, err := writeRepro(dir, f); err != nil {
				return incomplete(err)
			}
			n++
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "interpose.c"), []byte(repro.InterposeC), 0o644); err != nil {
		return incomplete(err)
	}
	script := filepath.Join(dir, "run-all.sh")
	if err := os.WriteFile(script, []byte(repro.RunAllScript), 0o755); err != nil {
		return incomplete(err)
	}
	fmt.Fprintf(stdout, "wrote %d reproducers for %d GPUs and %d pairs into %s\nbuild and run them all: sh %s\nshow a violation caught on this driver made to drop peer-copy tails: sh %s --interposed\n",
		n, len(sys.GPUs), len(sys.Pairs), dir, script, script)
	return nil
}
