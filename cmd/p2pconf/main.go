// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Command p2pconf shows what a GPU machine claims about peer-to-peer
// communication, renders and merges the reports the suites write, and
// compares two runs check by check and pair by pair.
//
//	p2pconf run [--run NAME] [--suites LIST] [--label-filter EXPR] [-j N] [--serial] [--mutants WHICH] [--dry-run] [--keep]
//	p2pconf plan [-preset NAME] [-model FILE] [-profile P] [-j N] [-serial] [-mutants WHICH] [-suites LIST] [-label-filter EXPR]
//	p2pconf topo [-json]
//	p2pconf report [-o OUT] [-print] [-suites LIST] DIR...
//	p2pconf diff [-json] [-strict] [-allow-mismatch] [-metric-threshold F] OLD NEW
//	p2pconf repro CHECK (--pair A-B | --gpu N) [--variant TEXT] [-o DIR]
//	p2pconf repro --all [-o DIR]
//	p2pconf ticket [-o FILE.tar.gz] [--redact] RUN_DIR
//	p2pconf preflight [--run NAME] [--verdict FILE] [--textfile DIR] [--features FILE]
//	p2pconf preflight status [--max-age D] PATH
//	p2pconf litmus check [-json] [-v] FILE...
//	p2pconf version
//
// Every command's exit statuses are in one table (exitcodes.go), printed by
// its --help and in docs/usage.md: 0 all conform, 1 a conformance failure (run,
// report) or a regression (diff), 2 bad input found before any GPU work,
// 3 an incomplete run or a harness error.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"strings"

	"github.com/p2pconf/p2pconf/harness/report"
)

const usage = `usage: p2pconf <command> [arguments]

commands:
  run [--run NAME] [--suites LIST] [--label-filter EXPR] [-j N] [--serial]
      [--mutants WHICH] [--dry-run] [--keep] [--known-deviations FILE] [--ginkgo.FLAG...]
        run the suites on this machine's GPUs, several processes at once on
        disjoint GPUs (p2pconf run --help), and render the merged report into
        reports/NAME (NAME.2 when NAME holds an earlier run)
  plan [-preset NAME] [-model FILE] [-profile P] [-j N] [-serial] [-mutants WHICH]
      [-suites LIST] [-label-filter EXPR]
        print the schedule p2pconf run would follow (rounds, processes at once)
        and the time model's predicted wall time, for this machine or the spec
        list of a fake preset
  topo [-json]
        print this machine's GPUs and the capability matrices CUDA and NVML
        claim for every ordered pair, opening the backend as the suites do
        (P2PCONF_BACKEND, P2PCONF_FAKE, P2PCONF_GPUS, P2PCONF_PAIRS apply)
  report [-o OUT] [-print] [-suites LIST] [-known-deviations FILE] DIR...
        render the merged report (conformance.json, junit.xml, matrix.md,
        matrix.html) of a run folder in place; with -o, write it to OUT;
        several folders of one host are merged, of several hosts make a
        fleet view (fleet.md, fleet.html, fleet.json, hosts/<host>/);
        -suites names the suites the run was meant to run (default: all),
        any of them without results makes the run incomplete
  diff [-json] [-strict] [-allow-mismatch] [-metric-threshold F] [-known-deviations FILE] OLD NEW
        compare two runs (run folders, conformance.json or fleet.json) check
        by check and pair by pair; runs of different backends or GPU sets
        are refused unless -allow-mismatch
  repro CHECK (--pair A-B | --gpu N) [--variant TEXT] [-o DIR]
        write a standalone C reproducer of a check (CHECK_TARGET.c: the same
        driver calls, sizes, seeds and placement; build it with
        cc -O2 -o repro FILE.c -ldl; it exits 0 conforms, 1 violation,
        2 cannot run here); --all writes every reproducible check for every
        GPU and pair of this machine into DIR (default repro) with run-all.sh
  ticket [-o FILE.tar.gz] [--redact] RUN_DIR
        pack a run's failures for a bug report: SUMMARY.md, the reproducers
        of the failing checks, the environment, conformance.json and
        junit.xml; --redact drops host names and GPU UUIDs
  preflight [--run NAME] [--verdict FILE] [--textfile DIR] [--features FILE]
        run the short profile for a node that has just come up and write
        verdict.json (PASS, WARN, FAIL or UNKNOWN per GPU, pair and node, with
        actions and likely causes) beside the reports; preflight status PATH
        prints one line about a verdict (p2pconf preflight --help)
  litmus check [-json] [-v] FILE...
        judge litmus tests written in the PTX litmus text format of herd and
        Dat3M with the suite's executable PTX memory model: for each, whether
        its outcome is allowed or forbidden, the axiom that forbids it or an
        execution that allows it, and any data race (docs/litmus.md, "Checking
        a litmus test"); - reads standard input
  litmus table [-json] [-gpu N] RUN
        put a run's litmus results beside the PLDI 2026 cuda-litmus table:
        per row, the model's verdict, whether the run showed the outcome and
        whether the table's H100 and GH200 did (docs/litmus.md, "The generated
        space"); the rows come from the space profile
  tune [-envs N] [-time D] [-mutant-budget D] [-o FILE] [-suite-binary BIN]
        search random litmus testing environments on this machine (the
        ordering suite's mutants between CTAs of one GPU, each environment
        scored by their weak outcomes per second), printing each as it goes,
        and write the best to FILE (default litmus-env.json) for
        P2PCONF_LITMUS_ENV
  version
        print the version

Every command exits 0 on success and 2 on bad input (a bad flag, argument,
setting or input file, found before any GPU work, writing nothing);
p2pconf <command> --help gives its own table, p2pconf help exit all of them.
`

// Exit statuses (the table in the usage text and in docs/usage.md).
const (
	exitOK         = 0
	exitFailure    = 1 // a conformance failure or a regression
	exitUsage      = 2 // the caller's mistake
	exitIncomplete = 3 // an incomplete run or a harness error
)

// errUsage marks errors that are the caller's: they exit 2 with the usage.
var errUsage = errors.New("usage")

// exitError carries an exit status without a message of its own.
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// statusError is an error that exits with its own status after printing
// its message.
type statusError struct {
	code int
	err  error
}

func (e statusError) Error() string { return e.err.Error() }
func (e statusError) Unwrap() error { return e.err }

// incomplete marks err as a harness or input problem: exit 3.
func incomplete(err error) error {
	if err == nil {
		return nil
	}
	return statusError{code: exitIncomplete, err: err}
}

// inputErr marks err as the caller's (a path that does not exist): exit 2
// without the usage text.
func inputErr(err error) error { return statusError{code: exitUsage, err: err} }

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one command line and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	cmds := map[string]func([]string, io.Writer, io.Writer) error{
		"run":       cmdRun,
		"plan":      cmdPlan,
		"topo":      cmdTopo,
		"report":    cmdReport,
		"diff":      cmdDiff,
		"repro":     cmdRepro,
		"ticket":    cmdTicket,
		"preflight": cmdPreflight,
		"tune":      cmdTune,
		"litmus":    cmdLitmus,
		"version":   cmdVersion,
	}
	name := args[0]
	if name == "-h" || name == "--help" || name == "help" {
		return help(args[1:], stdout, stderr)
	}
	cmd, ok := cmds[name]
	if !ok {
		fmt.Fprintf(stderr, "p2pconf: unknown command %q\n\n%s", name, usage)
		return exitUsage
	}
	err := cmd(args[1:], stdout, stderr)
	var code exitError
	var st statusError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &code):
		return int(code)
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "p2pconf %s: %v\n\n%s", name, strings.TrimPrefix(err.Error(), errUsage.Error()+": "), shortUsage(name))
		return exitUsage
	case errors.As(err, &st):
		printLines(stderr, name, err)
		return st.code
	}
	printLines(stderr, name, err)
	return exitUsage
}

// printLines prints err with "p2pconf NAME: " before each of its lines (a
// validation error has one line per bad setting).
func printLines(w io.Writer, name string, err error) {
	for _, l := range strings.Split(err.Error(), "\n") {
		fmt.Fprintf(w, "p2pconf %s: %s\n", name, l)
	}
}

// flags makes a command's flag set that reports errors instead of exiting;
// its -h prints the command's own usage, options and exit statuses.
func flags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("p2pconf "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), commandUsage(name))
		fmt.Fprintln(fs.Output(), "\noptions:")
		fs.PrintDefaults()
		fmt.Fprint(fs.Output(), "\n"+exitText(name))
	}
	return fs
}

// help prints the global usage, or with "exit" every command's exit
// statuses, or with a command name that command's usage.
func help(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		fmt.Fprint(stdout, usage)
	case args[0] == "exit":
		for i, c := range exitCommands() {
			if i > 0 {
				fmt.Fprintln(stdout)
			}
			fmt.Fprint(stdout, exitText(c))
		}
	case commandUsage(args[0]) != "":
		fmt.Fprint(stdout, commandUsage(args[0])+"\n"+exitText(args[0]))
	default:
		fmt.Fprintf(stderr, "p2pconf help: no command %q\n\n%s", args[0], usage)
		return exitUsage
	}
	return exitOK
}

// commandUsage is name's entry of the global usage text: "usage: p2pconf "
// and its synopsis, then its description. "" when usage has no entry.
func commandUsage(name string) string {
	lines := strings.Split(usage, "\n")
	for i, l := range lines {
		if l != "  "+name && !strings.HasPrefix(l, "  "+name+" ") {
			continue
		}
		var b strings.Builder
		b.WriteString("usage: p2pconf " + strings.TrimPrefix(l, "  ") + "\n")
		j := i + 1
		for ; j < len(lines) && strings.HasPrefix(lines[j], "      ") && !strings.HasPrefix(lines[j], "        "); j++ {
			b.WriteString("              " + strings.TrimSpace(lines[j]) + "\n")
		}
		b.WriteString("\n")
		for ; j < len(lines) && strings.HasPrefix(lines[j], "        "); j++ {
			b.WriteString(strings.TrimPrefix(lines[j], "      ") + "\n")
		}
		return b.String()
	}
	return ""
}

// shortUsage is what a usage error prints after its message: the
// command's synopsis and where the rest is.
func shortUsage(name string) string {
	u := commandUsage(name)
	if u == "" {
		return usage
	}
	synopsis, _, _ := strings.Cut(u, "\n\n")
	return synopsis + "\n(p2pconf " + name + " --help: every option and exit status)\n"
}

// parse parses args. The flag package prints the usage with every error;
// only -h or --help should print it all (an error prints the command's
// synopsis, in run).
func parse(fs *flag.FlagSet, args []string) error {
	if !asksHelp(args) {
		out := fs.Output()
		fs.SetOutput(io.Discard)
		defer fs.SetOutput(out)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	return nil
}

// asksHelp reports whether args (before any "--") hold -h or --help.
func asksHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--h", "--help":
			return true
		}
	}
	return false
}

func usageErr(format string, a ...any) error {
	return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, a...))
}

func cmdVersion(args []string, stdout, stderr io.Writer) error {
	if asksHelp(args) {
		fmt.Fprint(stdout, commandUsage("version")+"\n"+exitText("version"))
		return nil
	}
	if len(args) > 0 {
		return usageErr("version takes no arguments (got %s)", strings.Join(args, " "))
	}
	v, c := report.ToolVersion()
	if c == "" {
		c = "unknown"
	}
	fmt.Fprintf(stdout, "p2pconf %s (commit %s, %s, %s/%s, conformance schema %d)\n", v, c, runtime.Version(), runtime.GOOS, runtime.GOARCH, report.SchemaVersion)
	return nil
}

// isNotExist reports whether err says a path does not exist: the caller's
// mistake, not a broken run.
func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// isFile reports whether p is a file, not a folder: a file given as input
// that cannot be read as what it should be is the caller's mistake.
func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
