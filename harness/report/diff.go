// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/p2pconf/p2pconf/harness/checks"
)

// DiffOptions tune Diff.
type DiffOptions struct {
	// MetricThreshold is the relative change of a metric worth reporting
	// (0.1 = 10 %). Zero means 0.1.
	MetricThreshold float64
	// Strict also counts as regressions: a check that was skipped or absent
	// and now fails, and a check that passed and is now skipped.
	Strict bool
	// AllowMismatch compares runs of different backends or GPU sets; their
	// differences become notes, and results missing because a GPU is not in
	// the new run do not make it incomplete.
	AllowMismatch bool
}

// Change is one difference between two runs for one check on one target.
type Change struct {
	Host   string `json:"host,omitempty"`
	Key    string `json:"key"`
	Check  string `json:"check"`
	Target string `json:"target"`
	// Variant is the whole spec text of a check with several specs on one
	// target (VariantName); Key keeps the stored variant, so old runs match.
	Variant    string  `json:"variant,omitempty"`
	Old        *Result `json:"old"`
	New        *Result `json:"new"`
	Regression bool    `json:"regression"`
	// Accepted marks a newly failing result that a known-deviations file
	// accepts (New.KnownDeviation): listed, never a regression.
	Accepted bool `json:"accepted,omitempty"`
	// Detail is the one-line description: statuses, reasons or values.
	Detail string `json:"detail"`
	// Rerun is the rerun command for a newly failing result.
	Rerun string `json:"rerun,omitempty"`
	// Why says, for a result missing from the new run, why it is missing.
	Why string `json:"why,omitempty"`
	// Incomplete marks a missing result that makes the new run incomplete
	// (its suite or host did not run, or nothing explains its absence).
	Incomplete bool `json:"incomplete,omitempty"`
}

// DiffResult is the comparison of two runs, check by check and pair by
// pair, in the order it is printed.
type DiffResult struct {
	Old []string `json:"old"` // one line per host: host, backend, driver, CUDA, tool
	New []string `json:"new"`
	// Mismatches say why the runs are not comparable (different backends
	// or GPU sets); without AllowMismatch a caller should refuse them.
	Mismatches   []string `json:"mismatches"`
	Warnings     []string `json:"warnings"`
	NewlyFailing []Change `json:"newly_failing"` // regressions first
	Fixed        []Change `json:"fixed"`
	SkipReasons  []Change `json:"skip_reasons_changed"`
	Added        []Change `json:"added"`
	// Missing are results of the old run absent from the new one, each with
	// why; they are never regressions.
	Missing     []Change `json:"missing"`
	OtherStatus []Change `json:"other_status_changes"`
	Metrics     []Change `json:"metric_changes"`
	Regressions int      `json:"regressions"`
	// Accepted counts the newly failing results a known-deviations file
	// accepts (AcceptKnown on the new run): they would be regressions.
	Accepted int `json:"accepted,omitempty"`
	// Incomplete counts the missing results that make the new run
	// incomplete.
	Incomplete int `json:"incomplete"`
}

// Diff compares two runs. Results are matched by Key (check, GPU or pair,
// stored variant) and host. When each side holds one host the host names
// are not compared (a driver upgrade may rename nothing, and comparing two
// nodes is a use too); with several hosts (fleet runs) results are matched
// per host name, and a host missing from the new run makes every result on
// it missing. A missing result is not a regression: the check did not run,
// so it says nothing about the GPUs; it makes the new run incomplete. A
// failure NEW accepts (AcceptKnown) is no regression; one that OLD accepted
// and NEW fails without acceptance is.
func Diff(oldDocs, newDocs []Document, opt DiffOptions) DiffResult {
	if opt.MetricThreshold <= 0 {
		opt.MetricThreshold = 0.1
	}
	oldHosts, newHosts := ByHost(oldDocs), ByHost(newDocs)
	var d DiffResult
	for _, h := range oldHosts {
		d.Old = append(d.Old, describeRun(h.Doc))
	}
	for _, h := range newHosts {
		d.New = append(d.New, describeRun(h.Doc))
	}
	type side struct{ old, new *Document }
	sides := map[string]*side{}
	fleet := len(oldHosts) > 1 || len(newHosts) > 1
	for i := range oldHosts {
		name := hostKey(oldHosts[i].Name, fleet)
		sides[name] = &side{old: &oldHosts[i].Doc}
	}
	for i := range newHosts {
		name := hostKey(newHosts[i].Name, fleet)
		if sides[name] == nil {
			sides[name] = &side{}
		}
		sides[name].new = &newHosts[i].Doc
	}
	names := make([]string, 0, len(sides))
	for n := range sides {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s := sides[n]
		oldDoc, newDoc := orEmpty(s.old), orEmpty(s.new)
		if s.old != nil && s.new != nil {
			mismatches := systemMismatches(n, oldDoc, newDoc)
			if opt.AllowMismatch {
				d.Warnings = append(d.Warnings, mismatches...)
			} else {
				d.Mismatches = append(d.Mismatches, mismatches...)
			}
			d.Warnings = append(d.Warnings, compareSystems(n, oldDoc, newDoc)...)
		}
		diffHost(&d, n, oldDoc, newDoc, s.new != nil, opt)
	}
	sort.SliceStable(d.NewlyFailing, func(i, j int) bool {
		return d.NewlyFailing[i].Regression && !d.NewlyFailing[j].Regression
	})
	for _, c := range append(append([]Change{}, d.NewlyFailing...), d.OtherStatus...) {
		if c.Regression {
			d.Regressions++
		}
		if c.Accepted {
			d.Accepted++
		}
	}
	for _, c := range d.Missing {
		if c.Incomplete {
			d.Incomplete++
		}
	}
	return d
}

func hostKey(name string, fleet bool) string {
	if !fleet {
		return ""
	}
	return name
}

func orEmpty(d *Document) Document {
	if d == nil {
		return Document{}
	}
	return *d
}

func describeRun(d Document) string {
	s := d.System
	return fmt.Sprintf("host %s, backend %s, driver %s, CUDA %s, %s %s, %d results",
		orDash(s.Host), backendName(s), orDash(s.DriverVersion), cudaVersion(s.CUDAVersion),
		ToolName, orDash(d.Tool.Version), len(d.Results))
}

func compareSystems(host string, o, n Document) []string {
	var w []string
	at := ""
	if host != "" {
		at = " on " + host
	}
	ok, nk := backendKind(o.System), backendKind(n.System)
	switch {
	case o.System.Backend == n.System.Backend:
	case ok != "" && ok == nk:
		w = append(w, fmt.Sprintf("backends differ%s in injected defects only: old %s, new %s", at, backendName(o.System), backendName(n.System)))
	case ok == "" || nk == "": // not a mismatch (see systemMismatches), but worth a note
		w = append(w, fmt.Sprintf("backends differ%s: old %s, new %s", at, backendName(o.System), backendName(n.System)))
	}
	if o.System.Host != n.System.Host {
		w = append(w, fmt.Sprintf("comparing host %s (old) with host %s (new)", orDash(o.System.Host), orDash(n.System.Host)))
	}
	if o.System.DriverVersion != n.System.DriverVersion || o.System.CUDAVersion != n.System.CUDAVersion {
		w = append(w, fmt.Sprintf("driver%s: %s (CUDA %s) → %s (CUDA %s)", at, orDash(o.System.DriverVersion),
			cudaVersion(o.System.CUDAVersion), orDash(n.System.DriverVersion), cudaVersion(n.System.CUDAVersion)))
	}
	return w
}

// systemMismatches say why two runs of one host are not comparable: one ran
// on the driver and the other on the fake backend (or another preset), or
// they ran on different GPU sets (by ordinal and model). Fake defects are
// no mismatch: a defect stands in for a broken driver, which is what a diff
// is for. An unknown backend or GPU list (a run converted from Ginkgo's
// JSON alone) is not compared.
func systemMismatches(host string, o, n Document) []string {
	at := ""
	if host != "" {
		at = " on " + host
	}
	var m []string
	if ok, nk := backendKind(o.System), backendKind(n.System); ok != "" && nk != "" && ok != nk {
		m = append(m, fmt.Sprintf("backends differ%s: old %s, new %s", at, backendName(o.System), backendName(n.System)))
	}
	if og, ng := gpuSet(o.System), gpuSet(n.System); og != "" && ng != "" && og != ng {
		m = append(m, fmt.Sprintf("GPU sets differ%s: old %s; new %s", at, og, ng))
	}
	return m
}

// backendKind is the backend without injected fake defects ("cuda",
// "fake:h200x2"), "" when unknown.
func backendKind(s System) string {
	b, _, _ := strings.Cut(s.Backend, "+")
	if b == "unknown" || b == "" {
		return ""
	}
	return b
}

// gpuSet names a run's GPUs by ordinal and model, "" when the run lists none.
func gpuSet(s System) string {
	parts := make([]string, 0, len(s.GPUs))
	for _, g := range s.GPUs {
		parts = append(parts, fmt.Sprintf("GPU%d %s", g.Ordinal, orDash(g.Name)))
	}
	return strings.Join(parts, ", ")
}

func diffHost(d *DiffResult, host string, o, n Document, hostInNew bool, opt DiffOptions) {
	oldByKey := map[string]*Result{}
	for i := range o.Results {
		oldByKey[o.Results[i].Key()] = &o.Results[i]
	}
	newByKey := map[string]*Result{}
	for i := range n.Results {
		newByKey[n.Results[i].Key()] = &n.Results[i]
	}
	mk := func(r *Result, or, nr *Result, detail string) Change {
		return Change{Host: host, Key: r.Key(), Check: r.Check, Target: r.TargetName(), Variant: VariantName(*r),
			Old: or, New: nr, Detail: detail}
	}
	ranHere := map[string]bool{} // check and target with any result in the new run
	for _, r := range n.Results {
		ranHere[r.Check+" "+r.TargetName()] = true
	}
	for _, or := range sortedResults(oldByKey) {
		nr := newByKey[or.Key()]
		switch {
		case nr == nil:
			c := mk(or, or, nil, fmt.Sprintf("%s before, missing now", or.Status))
			c.Why, c.Incomplete = missingWhy(*or, o, n, hostInNew, ranHere, opt)
			d.Missing = append(d.Missing, c)
		case or.Accepted() && nr.Failed() && !nr.Accepted():
			// The old run let this failure pass only through a known
			// deviation; without one now (the entry expired or was
			// removed, or no file was given) it fails the gate again, as
			// if the old run had passed.
			c := mk(or, or, nr, fmt.Sprintf("%s (accepted as a known deviation) → %s, no longer accepted: %s", or.Status, nr.Status, orDash(nr.Reason)))
			c.Regression = true
			c.Rerun = RerunCommand(n.System, *nr)
			d.NewlyFailing = append(d.NewlyFailing, c)
		case nr.Failed() && !or.Failed():
			c := mk(or, or, nr, fmt.Sprintf("%s → %s: %s", or.Status, nr.Status, nr.ReasonLine()))
			if cl := nr.CauseLine(); cl != "" {
				c.Detail += "; " + cl
			}
			c.Regression = or.Status == StatusPass || opt.Strict
			acceptChange(&c, nr)
			c.Rerun = RerunCommand(n.System, *nr)
			d.NewlyFailing = append(d.NewlyFailing, c)
		case or.Failed() && nr.Status == StatusPass:
			d.Fixed = append(d.Fixed, mk(or, or, nr, fmt.Sprintf("%s → pass (was: %s)", or.Status, orDash(or.Reason))))
		case or.Status == StatusSkip && nr.Status == StatusSkip && or.Reason != nr.Reason:
			d.SkipReasons = append(d.SkipReasons, mk(or, or, nr, fmt.Sprintf("%q → %q", or.Reason, nr.Reason)))
		case or.Status != nr.Status:
			c := mk(or, or, nr, fmt.Sprintf("%s → %s", or.Status, nr.Status))
			if nr.Reason != "" {
				c.Detail += ": " + nr.Reason
			}
			c.Regression = opt.Strict && or.Status == StatusPass
			d.OtherStatus = append(d.OtherStatus, c)
		}
		if nr != nil {
			d.Metrics = append(d.Metrics, metricChanges(host, or, nr, opt.MetricThreshold)...)
		}
	}
	for _, nr := range sortedResults(newByKey) {
		if oldByKey[nr.Key()] != nil {
			continue
		}
		c := mk(nr, nil, nr, fmt.Sprintf("new: %s", nr.Status))
		if nr.Reason != "" && nr.Status != StatusPass {
			c.Detail += ": " + nr.ReasonLine()
		}
		if cl := nr.CauseLine(); cl != "" {
			c.Detail += "; " + cl
		}
		if nr.Failed() {
			c.Regression = opt.Strict
			acceptChange(&c, nr)
			c.Rerun = RerunCommand(n.System, *nr)
			d.NewlyFailing = append(d.NewlyFailing, c)
			continue
		}
		d.Added = append(d.Added, c)
	}
}

// acceptChange makes a newly failing change that a known-deviations entry
// accepts no regression, and marks it so: a diff lists it all the same.
func acceptChange(c *Change, nr *Result) {
	if nr.Accepted() && c.Regression {
		c.Regression, c.Accepted = false, true
	}
}

// missingWhy says why a result of the old run o is not in the new run n,
// and whether that makes n incomplete. A check this p2pconf no longer has,
// or (with AllowMismatch) a GPU the new run does not have, is an expected
// absence; a suite or host that did not run, or an absence nothing
// explains, is not.
func missingWhy(r Result, o, n Document, hostInNew bool, ranHere map[string]bool, opt DiffOptions) (string, bool) {
	if !hostInNew {
		return "its host is not in the new run", true
	}
	if len(MissingSuites(n, []string{r.Family})) > 0 {
		return fmt.Sprintf("suite %s did not run in the new run", r.Family), true
	}
	for _, s := range n.Suites {
		if s.Name == r.Family && len(s.FailureReasons) > 0 {
			return fmt.Sprintf("suite %s stopped early in the new run: %s", r.Family, strings.Join(s.FailureReasons, "; ")), true
		}
	}
	if gone := gpusNotIn(r, n.System); gone != "" {
		return gone + " not in the new run", !opt.AllowMismatch
	}
	if _, ok := checks.Lookup(r.Check); !ok && r.Kind != "setup" {
		return "this p2pconf has no check " + r.Check, false
	}
	if ranHere[r.Check+" "+r.TargetName()] {
		return "the check ran on " + r.TargetName() + " but not this spec (its text changed?)", true
	}
	if of, nf := suiteFilter(o, r.Family), suiteFilter(n, r.Family); of != nf {
		return fmt.Sprintf("suite %s ran with label filter %q in the new run, %q in the old", r.Family, nf, of), true
	}
	return "not run in the new run", true
}

// suiteFilter is the label filter the suite ran with in d.
func suiteFilter(d Document, suite string) string {
	for _, s := range d.Suites {
		if s.Name == suite {
			return s.LabelFilter
		}
	}
	return d.Run.LabelFilter
}

// gpusNotIn names the GPUs of r's target that sys does not list ("" when
// all are there, or sys lists no GPU).
func gpusNotIn(r Result, sys System) string {
	if len(sys.GPUs) == 0 {
		return ""
	}
	have := map[int]bool{}
	for _, g := range sys.GPUs {
		have[g.Ordinal] = true
	}
	var gone []string
	for _, p := range []*int{r.GPU, r.Src, r.Dst} {
		if p != nil && !have[*p] {
			gone = append(gone, gpuName(*p))
		}
	}
	for _, g := range r.GPUs {
		if !have[g] {
			gone = append(gone, gpuName(g))
		}
	}
	return strings.Join(gone, " and ")
}

func sortedResults(m map[string]*Result) []*Result {
	out := make([]*Result, 0, len(m))
	for _, r := range m {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Check != b.Check {
			return a.Check < b.Check
		}
		if ta, tb := targetOrder(*a), targetOrder(*b); ta != tb {
			return ta < tb
		}
		return a.Variant < b.Variant
	})
	return out
}

func metricChanges(host string, o, n *Result, threshold float64) []Change {
	var names []string
	for k := range o.Metrics {
		if _, ok := n.Metrics[k]; ok {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	var out []Change
	for _, k := range names {
		ov, nv := o.Metrics[k], n.Metrics[k]
		detail := ""
		switch {
		case ov == nil && nv == nil:
			continue
		case ov == nil || nv == nil:
			detail = fmt.Sprintf("%s: %s → %s", k, numText(ov), numText(nv))
		default:
			if *ov == *nv {
				continue
			}
			if *ov == 0 {
				detail = fmt.Sprintf("%s: 0 → %s", k, numText(nv))
				break
			}
			rel := (*nv - *ov) / math.Abs(*ov)
			if math.Abs(rel) < threshold {
				continue
			}
			detail = fmt.Sprintf("%s: %s → %s (%+.1f%%)", k, numText(ov), numText(nv), 100*rel)
		}
		out = append(out, Change{Host: host, Key: n.Key(), Check: n.Check, Target: n.TargetName(), Variant: VariantName(*n), Detail: detail})
	}
	return out
}

func numText(v *float64) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprintf("%.4g", *v)
}

// Text renders the comparison for a terminal or a CI log. Every change
// names its check, target and, where a check has several specs on a target,
// the whole spec text; missing results that share a reason (a suite that
// did not run) share one line.
func (d DiffResult) Text() string {
	var b strings.Builder
	for _, l := range d.Old {
		fmt.Fprintf(&b, "old: %s\n", l)
	}
	for _, l := range d.New {
		fmt.Fprintf(&b, "new: %s\n", l)
	}
	for _, m := range d.Mismatches {
		fmt.Fprintf(&b, "not comparable: %s\n", m)
	}
	for _, w := range d.Warnings {
		fmt.Fprintf(&b, "note: %s\n", w)
	}
	section := func(title string, cs []Change) {
		if len(cs) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n%s (%d):\n", title, len(cs))
		for _, c := range cs {
			mark := "  "
			if c.Regression {
				mark = "! "
			}
			fmt.Fprintf(&b, "%s%s: %s\n", mark, changeName(c), c.Detail)
			if c.Rerun != "" {
				fmt.Fprintf(&b, "      rerun: %s\n", c.Rerun)
			}
		}
	}
	section("Newly failing (! = regression)", d.NewlyFailing)
	section("Fixed", d.Fixed)
	section("Skip reasons changed", d.SkipReasons)
	section("Added", d.Added)
	writeMissing(&b, d.Missing)
	section("Other status changes", d.OtherStatus)
	section("Metric changes", d.Metrics)
	if d.Regressions > 0 {
		fmt.Fprintf(&b, "\n%d regression(s).\n", d.Regressions)
	} else {
		b.WriteString("\nNo regressions.\n")
	}
	if d.Accepted > 0 {
		fmt.Fprintf(&b, "%d failure(s) accepted as known deviations: still failing, not counted as regressions.\n", d.Accepted)
	}
	if d.Incomplete > 0 {
		fmt.Fprintf(&b, "%d result(s) of the old run missing from the new run: the new run is incomplete.\n", d.Incomplete)
	}
	return b.String()
}

// changeName is "[host] check target (whole variant)".
func changeName(c Change) string {
	s := c.Check + " " + c.Target
	if c.Host != "" {
		s = "[" + c.Host + "] " + s
	}
	if c.Variant != "" {
		s += " (" + c.Variant + ")"
	}
	return s
}

// writeMissing lists the missing results, one line per reason shared by
// more than a few of them (a suite that did not run), else one per result.
func writeMissing(b *strings.Builder, missing []Change) {
	if len(missing) == 0 {
		return
	}
	fmt.Fprintf(b, "\nMissing from the new run, not regressions (%d):\n", len(missing))
	type group struct {
		host, why string
		changes   []Change
	}
	var groups []*group
	byKey := map[string]*group{}
	for _, c := range missing {
		k := c.Host + "\x00" + c.Why
		g := byKey[k]
		if g == nil {
			g = &group{host: c.Host, why: c.Why}
			byKey[k] = g
			groups = append(groups, g)
		}
		g.changes = append(g.changes, c)
	}
	for _, g := range groups {
		if len(g.changes) <= 3 {
			for _, c := range g.changes {
				fmt.Fprintf(b, "  %s: %s: %s\n", changeName(c), c.Detail, c.Why)
			}
			continue
		}
		passed := 0
		checkSet := map[string]bool{}
		for _, c := range g.changes {
			if c.Old != nil && c.Old.Status == StatusPass {
				passed++
			}
			checkSet[c.Check] = true
		}
		host := ""
		if g.host != "" {
			host = "[" + g.host + "] "
		}
		of := plural(len(checkSet), "check")
		if len(checkSet) == 1 {
			of = g.changes[0].Check
		}
		fmt.Fprintf(b, "  %s%d results of %s (%d passed before): %s\n", host, len(g.changes), of, passed, g.why)
	}
}
