// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmusrun

import (
	"fmt"
	"strings"
	"sync"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/harness/litmus"
	"github.com/p2pconf/p2pconf/harness/report"
)

// powerRegistry remembers, per group (family, placement, GPUs), the mutants
// that ran in this process, so a forbidden spec that runs after them can say
// whether its pass is power-gated.
var powerRegistry = struct {
	sync.Mutex
	runs map[string][]litmus.MutantRun
}{runs: map[string][]litmus.MutantRun{}}

func rememberMutant(c litmus.Case, m litmus.MutantRun) {
	powerRegistry.Lock()
	defer powerRegistry.Unlock()
	powerRegistry.runs[c.Group()] = append(powerRegistry.runs[c.Group()], m)
}

func mutantsOf(c litmus.Case) []litmus.MutantRun {
	powerRegistry.Lock()
	defer powerRegistry.Unlock()
	return append([]litmus.MutantRun(nil), powerRegistry.runs[c.Group()]...)
}

// Report attaches the run's observations to the spec: instances,
// instances/s, skipped instances, the outcome histogram; for a forbidden
// test its violations, their 95 % upper bound, the share of instances that
// saw a polled flag, and whether its own mutants that ran before it in this
// process showed power; for a mutant its weak outcomes per second and a
// power entry naming the forbidden specs it gives power to.
func Report(r *litmus.Result, env litmus.Env) {
	c := r.Case
	where := fmt.Sprintf("%s %s", c.Test.Name(), c.Where())
	n := r.Instances()
	harness.Metric("instances", float64(n), "instances", fmt.Sprintf("%s: %d per iteration, %d iterations in %d launches", where, r.N, r.Iterations, r.Launches))
	harness.Metric("instances_per_second", r.Rate(), "1/s", fmt.Sprintf("%s: counted instances per second of launch time (%s)", where, r.Elapsed))
	harness.Metric("skipped_instances", float64(r.Skipped()), "instances", fmt.Sprintf("%s: launched but not counted because a wait timed out", where))
	harness.Finding("outcome_histogram", r.Histogram(), where)
	harness.Finding("litmus_environment", map[string]any{"instances_per_iteration": r.N, "launches": r.Launches,
		"iterations": r.Iterations, "grids": r.Grids, "stopped_early": r.StoppedEarly(),
		"environment": env.For(c).Finding(c)}, where)
	reportGoal(r, where)
	if other := r.Count(litmus.OtherWeak); other > 0 && c.Verdict == litmus.Allowed {
		harness.Finding("other_weak_outcomes", other, fmt.Sprintf("%s: outcomes that are neither sequentially consistent nor the mutant's target (a mutant does not judge them)", where))
	}
	hits := r.Count(litmus.Target)
	if c.Verdict == litmus.Forbidden {
		ub := r.UpperBound95()
		harness.Metric("violations", float64(r.Violations()), "instances", fmt.Sprintf("%s: forbidden outcome %s (%d) or another outcome that is not sequentially consistent (%d)", where, c.Test.TargetText(), hits, r.Count(litmus.OtherWeak)))
		harness.Metric("violation_upper_bound_95", ub, "per instance", fmt.Sprintf("%s: 95 %% upper bound on the probability of %s per instance", where, c.Test.TargetText()))
		harness.Metric("violation_upper_bound_95_per_second", ub*r.Rate(), "1/s", where)
		if c.Test.Polled() {
			harness.Metric("flag_seen", float64(r.FlagSeen()), "instances", fmt.Sprintf("%s: instances whose polls all read the value they wait for", where))
			harness.Metric("flag_seen_share", r.FlagShare(), "share", fmt.Sprintf("%s: flag seen in %d of %d instances", where, r.FlagSeen(), n))
		}
		reportCoverage(r, where)
		reportPower(c, env.Evidence.PairMutantsElsewhere)
		return
	}
	rate := r.TargetRate()
	harness.Metric("weak_outcomes", float64(hits), "instances", fmt.Sprintf("%s: allowed weak outcome %s", where, c.Test.TargetText()))
	harness.Metric("weak_outcomes_per_second", rate, "1/s", where)
	reportCoverage(r, where)
	run := litmus.MutantRun{Test: c.Test.Name(), Hits: hits, Trials: n, Rate: rate, Spec: c}
	if c.Test.Model().TargetIsSC() {
		detail := fmt.Sprintf("%s: the target outcome %s is sequentially consistent, so seeing it (%d of %d instances) shows only that the threads interleave, not that a forbidden test could fail", where, c.Test.TargetText(), hits, n)
		if c.Test.Model().TargetInterleaved() && len(c.Test.Locs) == 1 {
			detail += "; it is interleaving evidence for the forbidden tests of its family here"
		}
		harness.Finding("gives no power", c.Test.TargetText(), detail)
		rememberMutant(c, run)
		return
	}
	sib := c.Siblings()
	var specs, tests []string
	for _, f := range sib {
		specs = append(specs, f.Key())
		tests = append(tests, f.Test.Name())
	}
	detail := fmt.Sprintf("mutant %s on %s: weak outcome %s in %d of %d instances; gives power to %s", where, c.Target(), c.Test.TargetText(), hits, n, orNone(tests))
	if c.Why != "" {
		detail += "; a mutant here because " + c.Why
	}
	if len(specs) > 0 {
		harness.PowerTo(litmus.CheckID, specs, harness.PowerResult{Observed: hits > 0, Hits: int(hits), Trials: int(n)}, detail)
	} else {
		harness.Finding("gives no power", c.Test.TargetText(), detail)
	}
	rememberMutant(c, run)
}

// reportGoal says how the run ended against its goal: the target, what it
// reached, in what time and at what rate, and whether the target or the
// cap stopped it. For a forbidden test a cap reached first is a finding of
// its own, so a pass that rests on less than the target shows as such in
// the report; a mutant that never shows its weak outcome ends at its cap
// as a matter of course.
func reportGoal(r *litmus.Result, where string) {
	what := "instances"
	if r.Goal.Hits {
		what = "weak_outcomes"
	}
	harness.Metric("run_seconds", r.Wall.Seconds(), "s", fmt.Sprintf("%s: wall time of the run, stopped by its %s", where, r.Stop))
	harness.Metric("target_"+what, float64(r.Goal.Want), what, fmt.Sprintf("%s: the run stops at %s", where, r.Goal))
	harness.Finding("litmus_goal", map[string]any{"target": r.Goal.Want, "counts": what, "reached": r.Reached(),
		"cap_seconds": r.Goal.Cap.Seconds(), "long_cap_seconds": r.Goal.LongCap.Seconds(), "seconds": r.Wall.Seconds(), "instances_per_second": r.Rate(),
		"stopped_by": string(r.Stop)}, where)
	if missed := r.TargetMissed(); missed != "" && r.Case.Verdict == litmus.Forbidden {
		harness.Finding("target_not_reached", r.Reached(), fmt.Sprintf("%s: %s", where, missed))
	}
}

// reportPower says, from a forbidden spec, whether its own mutants (see
// GivesPower) that ran earlier in this process showed their weak outcome.
// It always says one or the other, so the report's power_shown for this
// spec rests on this spec's mutants alone, with one exception: on a pair
// whose mutants were left to the representative pair of its link class
// (elsewhere), a spec with no mutant of its own says so, and the merged
// report takes the verdict of the same test on that pair.
func reportPower(c litmus.Case, elsewhere bool) {
	all := mutantsOf(c)
	reportEvidence(c, all, elsewhere)
	var runs []litmus.MutantRun
	for _, m := range all {
		if litmus.GivesPower(m.Spec, c) {
			runs = append(runs, m)
		}
	}
	var seen []string
	for _, m := range runs {
		if m.Hits > 0 {
			seen = append(seen, fmt.Sprintf("%s (%d of %d, %.3g/s)", m.Test, m.Hits, m.Trials, m.Rate))
		}
	}
	where := fmt.Sprintf("%s %s", c.Test.Name(), c.Where())
	switch {
	case len(seen) > 0:
		harness.Finding(report.FindingPowerShown, runs, fmt.Sprintf("%s: its mutants showed their weak outcome: %s", where, strings.Join(seen, ", ")))
	case len(runs) > 0:
		harness.Finding(report.FindingNoPowerShown, runs, fmt.Sprintf("%s: none of its %d mutants that ran before showed its weak outcome; the pass is not power-gated", where, len(runs)))
	case elsewhere && c.Pair != nil:
		harness.Finding(report.FindingPowerFromLinkClass, c.Pair.Link, fmt.Sprintf("%s: this test's mutants ran on the representative pair of link class %s instead of %s; the merged report takes this pass's power verdict from the same test there", where, c.Pair.Link, c.Target()))
	default:
		harness.Finding(report.FindingNoPowerShown, []litmus.MutantRun{}, fmt.Sprintf("%s: no mutant of this test (same shape and placement, weakened, with an outcome that is not sequentially consistent) ran before it; the pass is not power-gated", where))
	}
}

// reportEvidence names the forbidden result's evidence classes (weak,
// interleaving, checker: evidence_class.go), each with what showed it, or
// why it has none. The weak class is what the power findings above say;
// the others never change them.
func reportEvidence(c litmus.Case, runs []litmus.MutantRun, elsewhere bool) {
	v := litmus.Evidence(c, runs, elsewhere)
	where := fmt.Sprintf("%s %s", c.Test.Name(), c.Where())
	var parts []string
	for _, x := range []struct {
		class string
		by    []string
	}{{litmus.EvidenceWeak, v.Weak}, {litmus.EvidenceInterleaving, v.Interleaving}, {litmus.EvidenceChecker, v.Checker}} {
		if len(x.by) > 0 {
			parts = append(parts, fmt.Sprintf("%s (%s)", x.class, strings.Join(x.by, ", ")))
		}
	}
	detail := where + ": evidence "
	if len(parts) == 0 {
		detail += "none"
	} else {
		detail += strings.Join(parts, "; ")
	}
	if v.Why != "" {
		detail += "; " + v.Why
	}
	harness.Finding(litmus.FindingEvidence, v, detail)
}

// reportCoverage records in how many instances each stored value was
// observed (coverage.go); a forbidden run that misses one ends as an error
// (Inconclusive), a mutant says so here.
func reportCoverage(r *litmus.Result, where string) {
	cov := r.Coverage()
	if len(cov) == 0 {
		return
	}
	var parts []string
	for _, c := range cov {
		parts = append(parts, fmt.Sprintf("%s in %d", c.Text, c.Instances))
	}
	harness.Finding("value_coverage", cov, fmt.Sprintf("%s: instances that observed each stored value: %s of %d", where, strings.Join(parts, ", "), r.Instances()))
	if why := r.Vacuous(); why != "" && r.Case.Verdict == litmus.Allowed {
		harness.Finding("vacuous", why, fmt.Sprintf("%s: %s", where, why))
	}
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "no forbidden test of its shape in this placement"
	}
	return strings.Join(s, ", ")
}
