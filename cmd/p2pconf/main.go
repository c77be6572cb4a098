// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Command p2pconf shows what a GPU machine claims about peer-to-peer
// communication, renders and merges the reports the suites write, and
// compares two runs check by check and pair by pair.
//
//	p2pconf topo [-json]
//	p2pconf report [-o OUT] [-print] [-fail-on-empty] DIR...
//	p2pconf diff [-json] [-strict] [-metric-threshold F] OLD NEW
//	p2pconf version
//
// Exit status: 0 on success, 1 when diff finds a regression (or topo could
// not read a claim, or report -fail-on-empty found no result), 2 on a usage
// error or unreadable input.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/p2pconf/p2pconf/harness/report"
)

const usage = `usage: p2pconf <command> [arguments]

commands:
  topo [-json]
        print this machine's GPUs and the capability matrices CUDA and NVML
        claim for every ordered pair, opening the backend as the suites do
        (P2PCONF_BACKEND, P2PCONF_FAKE, P2PCONF_GPUS, P2PCONF_PAIRS apply)
  report [-o OUT] [-print] [-fail-on-empty] DIR...
        render the merged report (conformance.json, junit.xml, matrix.md,
        matrix.html) of a run folder in place; with -o, write it to OUT;
        several folders of one host are merged, of several hosts make a
        fleet view (fleet.md, fleet.html, fleet.json, hosts/<host>/);
        -fail-on-empty exits 1 when no spec ran
  diff [-json] [-strict] [-metric-threshold F] OLD NEW
        compare two runs (run folders, conformance.json or fleet.json) check
        by check and pair by pair; exit 1 on a regression
  version
        print the version

exit status: 0 ok, 1 regression (diff), unreadable claims (topo) or no results
(report -fail-on-empty), 2 usage or input error
`

// errUsage marks errors that are the caller's: they exit 2 with the usage.
var errUsage = errors.New("usage")

// exitError carries an exit status without a message of its own.
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one command line and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	cmds := map[string]func([]string, io.Writer, io.Writer) error{
		"topo":    cmdTopo,
		"report":  cmdReport,
		"diff":    cmdDiff,
		"version": cmdVersion,
	}
	name := args[0]
	if name == "-h" || name == "--help" || name == "help" {
		fmt.Fprint(stdout, usage)
		return 0
	}
	cmd, ok := cmds[name]
	if !ok {
		fmt.Fprintf(stderr, "p2pconf: unknown command %q\n\n%s", name, usage)
		return 2
	}
	err := cmd(args[1:], stdout, stderr)
	var code exitError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &code):
		return int(code)
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "p2pconf %s: %v\n\n%s", name, err, usage)
		return 2
	}
	fmt.Fprintf(stderr, "p2pconf %s: %v\n", name, err)
	return 2
}

// flags makes a command's flag set that reports errors instead of exiting.
func flags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("p2pconf "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	return nil
}

func usageErr(format string, a ...any) error {
	return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, a...))
}

func cmdVersion(args []string, stdout, stderr io.Writer) error {
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
