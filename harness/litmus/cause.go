// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"fmt"
	"strings"
)

// Causes of a forbidden outcome (JudgeCause).
const (
	// CauseCompiler: the code the driver's JIT produced drops, merges or
	// hoists an access the PTX has, so the hardware never ran the test.
	CauseCompiler = "compiler"
	// CauseHardware: the code keeps every access and the outcome still
	// shows, at the lowered JIT level too.
	CauseHardware = "hardware"
	// CauseUndetermined: the evidence does not tell the two apart; the
	// detail says what is missing.
	CauseUndetermined = "undetermined"
)

// Diagnosis is what the suite found out about a forbidden outcome a run
// showed: the same case rerun with the driver's JIT at a lowered
// optimization level (the same PTX compiled keeping every access, with no
// toolkit needed), and the compile check where the toolkit's disassembler
// is on the node.
type Diagnosis struct {
	// Violations and Instances are the failing run's.
	Violations, Instances uint64
	// Lowered is the rerun's JIT level; LoweredRan says whether it ran
	// (LoweredWhy why not), LoweredViolations and LoweredInstances what
	// it counted.
	Lowered           int
	LoweredRan        bool
	LoweredWhy        string
	LoweredViolations uint64
	LoweredInstances  uint64
	// CompileRan says whether the compile check ran (CompileWhy why not);
	// Lost are its findings, one per access the driver's code lost ("the
	// weak load of x in role 1's poll loop is merged or hoisted out of the
	// loop (1 LDG for 64 iterations)"), empty when it kept every access.
	CompileRan bool
	CompileWhy string
	Lost       []string
	// JIT names the driver's JIT (driver version, CUDA version), Excerpt
	// the SASS of the role that lost an access.
	JIT     string
	Excerpt string
}

// minExpected is how many violations the lowered rerun must have been
// expected to show, at the failing run's rate, for none to mean that they
// vanished: with 3 expected, a Poisson count is 0 with probability 5 %.
const minExpected = 3.0

// vanished reports whether the lowered rerun showed no violation in enough
// instances to have expected some at the failing run's rate.
func (d Diagnosis) vanished() bool {
	return d.LoweredRan && d.LoweredViolations == 0 && d.Instances > 0 &&
		float64(d.Violations)*float64(d.LoweredInstances)/float64(d.Instances) >= minExpected
}

// JudgeCause says why a forbidden outcome showed, and the detail in words:
// compiler when the compile check names an access the driver's code lost
// or the violations vanish at the lowered JIT level; hardware when the
// compile check shows every access kept and the outcome shows at the
// lowered level too; otherwise undetermined, saying what is missing. The
// detail ends with the lowered rerun's count, so one line carries the
// evidence (CauseLine).
func JudgeCause(d Diagnosis) (cause, detail string) {
	lowered := d.loweredText()
	switch {
	case len(d.Lost) > 0:
		return CauseCompiler, strings.Join(d.Lost, "; ") + "; " + lowered
	case d.vanished():
		what := "the compile check was not available (" + d.CompileWhy + ")"
		if d.CompileRan {
			what = "the compile check found every access kept"
		}
		return CauseCompiler, fmt.Sprintf("the outcome vanishes when the driver's JIT compiles the same PTX at level %d; %s; %s", d.Lowered, what, lowered)
	case d.CompileRan && d.LoweredRan && d.LoweredViolations > 0:
		return CauseHardware, "the driver's code keeps every access of the PTX and the outcome shows at JIT level " + fmt.Sprint(d.Lowered) + " too; " + lowered
	}
	var why []string
	if !d.CompileRan {
		why = append(why, "the compile check was not available ("+d.CompileWhy+")")
	} else {
		why = append(why, "the compile check found every access kept")
	}
	switch {
	case !d.LoweredRan:
		why = append(why, fmt.Sprintf("the rerun at JIT level %d did not run (%s)", d.Lowered, d.LoweredWhy))
	case d.LoweredViolations == 0:
		why = append(why, fmt.Sprintf("%s: too few instances to expect %.0f violations at the default level's rate", lowered, minExpected))
	default:
		why = append(why, lowered+", so a merge the lowered level keeps or the hardware")
	}
	return CauseUndetermined, strings.Join(why, "; ")
}

// loweredText is "at JIT level 0: 0 of 1000000 (12 of 1000000 at the
// default level)".
func (d Diagnosis) loweredText() string {
	if !d.LoweredRan {
		return fmt.Sprintf("at JIT level %d: not run (%s)", d.Lowered, d.LoweredWhy)
	}
	return fmt.Sprintf("at JIT level %d: %d of %d (%d of %d at the default level)", d.Lowered, d.LoweredViolations, d.LoweredInstances, d.Violations, d.Instances)
}

// CauseLine is the one line a ticket quotes: "cause: compiler — the weak
// load of x in role 1's poll loop is merged or hoisted out of the loop (1
// LDG for 64 iterations); at JIT level 0: 0 of N (…)".
func CauseLine(cause, detail string) string {
	return "cause: " + cause + " — " + detail
}
