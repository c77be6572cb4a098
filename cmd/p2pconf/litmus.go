// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/p2pconf/p2pconf/harness/ptxmodel"
)

var _ = registerExits(
	exitRow{"litmus check", exitOK, "every test's condition holds under the PTX memory model"},
	exitRow{"litmus check", exitFailure, "some test's condition does not hold: an exists whose outcome the model forbids, a ~exists whose outcome it allows, a forall it breaks"},
	exitRow{"litmus check", exitUsage, usageMeaning(", a file that cannot be read, or a test outside the subset the model judges (barriers, branches, proxies, ...); the one line names the file and line, and nothing is judged")},
	exitRow{"litmus check", exitIncomplete, "some test has a mixed-size data race: the model's axioms do not apply to it, so it cannot be judged"},
)

// litmusJSON is one test's answer in litmus check -json.
type litmusJSON struct {
	File       string               `json:"file"`
	Test       string               `json:"test"`
	Condition  string               `json:"condition"`
	Outcome    string               `json:"outcome"` // allowed or forbidden: the condition's expression
	Holds      bool                 `json:"holds"`
	Undefined  bool                 `json:"undefined,omitempty"`
	Executions int                  `json:"consistent_executions"`
	Satisfying int                  `json:"satisfying"`
	Witness    *ptxmodel.Execution  `json:"witness,omitempty"`
	Counter    *ptxmodel.Execution  `json:"counterexample,omitempty"`
	Forbidden  []ptxmodel.Violation `json:"violated_axioms,omitempty"`
	Races      []litmusRaceJSON     `json:"data_races,omitempty"`
}

type litmusRaceJSON struct {
	Between string `json:"between"`
	Kind    string `json:"kind"` // uniform-size or mixed-size
}

// cmdLitmus is p2pconf litmus: "check FILE..." judges litmus tests with the
// PTX memory model; "table RUN" puts a run's results beside the PLDI 2026
// table (cmdLitmusTable).
func cmdLitmus(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "table" {
		return cmdLitmusTable(args[1:], stdout, stderr)
	}
	if len(args) == 0 || args[0] != "check" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fs := flags("litmus check", stderr)
			fs.Usage()
			return nil
		}
		return usageErr("the subcommands are check and table: litmus check [-json] [-v] FILE..., litmus table [-json] [-gpu N] RUN")
	}
	fs := flags("litmus check", stderr)
	asJSON := fs.Bool("json", false, "print each test's answer as JSON, one object per line")
	verbose := fs.Bool("v", false, "print the witness or counterexample execution of every test")
	if err := parse(fs, args[1:]); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageErr("check needs at least one FILE (- reads standard input)")
	}
	progs := make([]*ptxmodel.Program, fs.NArg())
	for i, path := range fs.Args() {
		p, err := readLitmus(path)
		if err != nil {
			return inputErr(err)
		}
		progs[i] = p
	}
	fails, undefined := 0, 0
	enc := json.NewEncoder(stdout)
	for i, p := range progs {
		r, err := ptxmodel.Check(p)
		if err != nil {
			return inputErr(fmt.Errorf("%s: %w", fs.Arg(i), err))
		}
		switch {
		case r.Undefined():
			undefined++
		case !r.Holds:
			fails++
		}
		if *asJSON {
			if err := enc.Encode(litmusAnswer(fs.Arg(i), r)); err != nil {
				return incomplete(err)
			}
			continue
		}
		printLitmus(stdout, fs.Arg(i), r, *verbose)
	}
	if !*asJSON && len(progs) > 1 {
		fmt.Fprintf(stdout, "%d tests: %d conditions hold, %d do not, %d undefined (mixed-size races)\n", len(progs), len(progs)-fails-undefined, fails, undefined)
	}
	switch {
	case fails > 0:
		return exitError(exitFailure)
	case undefined > 0:
		return exitError(exitIncomplete)
	}
	return nil
}

func readLitmus(path string) (*ptxmodel.Program, error) {
	if path == "-" {
		return ptxmodel.Parse("<stdin>", os.Stdin)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ptxmodel.Parse(path, f)
}

func raceKind(r ptxmodel.Race) string {
	if r.MixedSize {
		return "mixed-size"
	}
	return "uniform-size"
}

func litmusAnswer(file string, r *ptxmodel.Result) litmusJSON {
	out := litmusJSON{File: file, Test: r.Program.Name, Condition: r.Program.CondText(), Outcome: r.Verdict(), Holds: r.Holds,
		Undefined: r.Undefined(), Executions: r.Executions, Satisfying: r.Satisfying, Witness: r.Witness, Counter: r.Counterexample, Forbidden: r.Forbidden}
	for _, x := range r.Races {
		out.Races = append(out.Races, litmusRaceJSON{Between: x.Text, Kind: raceKind(x)})
	}
	return out
}

// printLitmus prints one test's answer: the verdict of the condition's
// outcome with the violated axiom or a witness, whether the condition
// holds, and the data races.
func printLitmus(w io.Writer, file string, r *ptxmodel.Result, verbose bool) {
	p := r.Program
	fmt.Fprintf(w, "%s (%s): %s\n", p.Name, file, p.CondText())
	if r.Undefined() {
		fmt.Fprintln(w, "  undefined: a mixed-size data race; the PTX memory model's axioms do not apply")
	}
	switch {
	case r.Reachable:
		fmt.Fprintf(w, "  outcome allowed: %d of %d consistent executions satisfy it\n", r.Satisfying, r.Executions)
	default:
		fmt.Fprintf(w, "  outcome forbidden (%d consistent executions, none satisfies it)\n", r.Executions)
		for _, v := range r.Forbidden {
			fmt.Fprintf(w, "    %s: %s\n", v.Axiom, v.Detail)
		}
	}
	verdict := "holds"
	if !r.Holds {
		verdict = "does not hold"
	}
	fmt.Fprintf(w, "  condition %s\n", verdict)
	if r.Witness != nil && (verbose || r.Reachable && p.Cond.Quantifier != ptxmodel.Forall) {
		fmt.Fprintf(w, "  witness:\n%s", indent(r.Witness.Text(), "  "))
	}
	if r.Counterexample != nil && (verbose || !r.Holds) {
		fmt.Fprintf(w, "  counterexample:\n%s", indent(r.Counterexample.Text(), "  "))
	}
	for _, x := range r.Races {
		fmt.Fprintf(w, "  data race (%s): %s\n", raceKind(x), x.Text)
	}
}

func indent(s, by string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = by + l
		}
	}
	return strings.Join(lines, "")
}
