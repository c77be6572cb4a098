// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// Result is what one case's run saw.
type Result struct {
	Case       Case
	N          uint32        // instances per iteration
	Launches   int           // launches made
	Iterations uint64        // iterations launched
	Launched   uint64        // instances launched (Iterations·N)
	Elapsed    time.Duration // wall time of the launches, gate to end
	Hist       []uint64      // instances per outcome bin
	Aborts     []string      // why launches stopped early
	Grids      []string      // what ran where: CTAs per GPU, host goroutines
	Goal       Goal          // when the run was to stop
	Stop       StopReason    // why it stopped
	Wall       time.Duration // wall time of the run, first launch to last histogram read

	consecutiveAborts int
}

func (r *Result) record(iters, n uint32, took time.Duration, aborts []string) {
	r.N = n
	r.Launches++
	r.Iterations += uint64(iters)
	r.Launched += uint64(iters) * uint64(n)
	r.Elapsed += took
	r.Aborts = append(r.Aborts, aborts...)
	if len(aborts) > 0 {
		r.consecutiveAborts++
	} else {
		r.consecutiveAborts = 0
	}
}

// StopReason says why a run stopped.
type StopReason string

// Why runs stop.
const (
	StopTarget      StopReason = "target"      // the goal's count was reached
	StopCap         StopReason = "cap"         // the time cap came first
	StopInterrupted StopReason = "interrupted" // the spec's context ended
	StopAborted     StopReason = "aborted"     // three launches in a row stopped early
)

// Reached is the count the goal is about: instances counted for a
// forbidden test, weak outcomes of the target for a mutant.
func (r *Result) Reached() uint64 {
	if r.Goal.Hits {
		return r.Count(Target)
	}
	return r.Instances()
}

// TargetMissed says, for a run that stopped before its goal's count, what
// it reached: the target, the count, the time and the rate; "" when the
// target was reached.
func (r *Result) TargetMissed() string {
	if r.Stop == StopTarget {
		return ""
	}
	what := "instances"
	if r.Goal.Hits {
		what = "weak outcomes"
	}
	why := map[StopReason]string{StopCap: "the time cap " + r.Goal.CapAt(r.Reached()).String() + " came first",
		StopInterrupted: "the spec was interrupted", StopAborted: "three launches in a row stopped early"}[r.Stop]
	return fmt.Sprintf("target not reached: %d of %d %s in %s (%.3g instances/s); %s",
		r.Reached(), r.Goal.Want, what, r.Wall.Round(time.Millisecond), r.Rate(), why)
}

// Instances is the number of instances counted (completed and collected).
func (r *Result) Instances() uint64 {
	var n uint64
	for _, c := range r.Hist {
		n += c
	}
	return n
}

// Skipped is the number of instances launched but not counted: those of an
// iteration in which a party timed out.
func (r *Result) Skipped() uint64 {
	if n := r.Instances(); n < r.Launched {
		return r.Launched - n
	}
	return 0
}

// Count is the number of instances whose outcome is of class c.
func (r *Result) Count(c Class) uint64 {
	m := r.Case.Test.Model()
	var n uint64
	for bin, k := range r.Hist {
		if k > 0 && m.Class(bin) == c {
			n += k
		}
	}
	return n
}

// Violations counts the instances whose outcome the PTX memory model
// forbids in the case's placement: the target of a forbidden test, and any
// outcome of any test, mutants included, that no consistent execution
// produces (Case.ModelForbids).
func (r *Result) Violations() uint64 {
	var n uint64
	for bin, k := range r.Hist {
		if k > 0 && r.Case.ModelForbids(bin) {
			n += k
		}
	}
	return n
}

// Rate is instances counted per second of launch time.
func (r *Result) Rate() float64 { return perSecond(r.Instances(), r.Elapsed) }

func perSecond(n uint64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// UpperBound95 is the 95 % upper confidence bound on the per-instance
// probability of a violation: −ln(0.05)/N ≈ 3/N when none was seen,
// otherwise the Wilson score bound.
func (r *Result) UpperBound95() float64 {
	n := float64(r.Instances())
	k := float64(r.Violations())
	if n == 0 {
		return 1
	}
	if k == 0 {
		return -math.Log(0.05) / n
	}
	const z = 1.959964
	p := k / n
	c := (p + z*z/(2*n) + z*math.Sqrt(p*(1-p)/n+z*z/(4*n*n))) / (1 + z*z/n)
	return math.Min(c, 1)
}

// BinCount is one line of the outcome histogram in the report.
type BinCount struct {
	Outcome string `json:"outcome"`
	Class   string `json:"class"`
	Count   uint64 `json:"count"`
	// Model is the PTX memory model's verdict of the outcome in this
	// placement: "allowed" or "forbidden".
	Model string `json:"model"`
}

// Histogram lists the outcomes observed, most frequent first.
func (r *Result) Histogram() []BinCount {
	m := r.Case.Test.Model()
	var out []BinCount
	for bin, k := range r.Hist {
		if k > 0 {
			verdict := Allowed
			if r.Case.ModelForbids(bin) {
				verdict = Forbidden
			}
			out = append(out, BinCount{Outcome: m.Text(bin), Class: m.Class(bin).String(), Count: k, Model: verdict.String()})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Count > out[j].Count })
	return out
}

// HistogramText renders the histogram on one line.
func (r *Result) HistogramText() string {
	var parts []string
	for _, b := range r.Histogram() {
		parts = append(parts, fmt.Sprintf("%s (%s) %d", b.Outcome, b.Class, b.Count))
	}
	if len(parts) == 0 {
		return "no instance counted"
	}
	return strings.Join(parts, "; ")
}

// Summary says how the run went, for report details and failure messages.
func (r *Result) Summary() string {
	s := fmt.Sprintf("%s %s: %d instances counted (%d launched in %d launches, %d per iteration, %s), %.3g instances/s; outcomes: %s",
		r.Case.Test.Name(), r.Case.Where(), r.Instances(), r.Launched, r.Launches, r.N, r.Elapsed.Round(time.Millisecond),
		r.Rate(), r.HistogramText())
	if missed := r.TargetMissed(); missed != "" {
		s += "; " + missed
	} else if r.Goal.Want > 0 {
		s += fmt.Sprintf("; stopped at the target of %d", r.Goal.Want)
	}
	if len(r.Aborts) > 0 {
		s += "; stopped early: " + strings.Join(dedupe(r.Aborts), "; ")
	}
	return s
}

func dedupe(s []string) []string {
	seen := map[string]int{}
	var out []string
	for _, v := range s {
		if seen[v]++; seen[v] == 1 {
			out = append(out, v)
		}
	}
	for i, v := range out {
		if seen[v] > 1 {
			out[i] = fmt.Sprintf("%s (%d times)", v, seen[v])
		}
	}
	return out
}

// StoppedEarly is why parties stopped before the end of a launch, each
// reason once with how often it happened.
func (r *Result) StoppedEarly() []string { return dedupe(r.Aborts) }

// TargetRate is the target outcomes counted per second of launch time: a
// mutant's weak outcomes per second.
func (r *Result) TargetRate() float64 { return perSecond(r.Count(Target), r.Elapsed) }
