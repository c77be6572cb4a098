// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// DiffOptions tune Diff.
type DiffOptions struct {
	// MetricThreshold is the relative change of a metric worth reporting
	// (0.1 = 10 %). Zero means 0.1.
	MetricThreshold float64
	// Strict also counts as regressions: a check that was skipped or absent
	// and now fails, and a check that passed and is now skipped.
	Strict bool
}

// Change is one difference between two runs for one check on one target.
type Change struct {
	Host       string  `json:"host,omitempty"`
	Key        string  `json:"key"`
	Check      string  `json:"check"`
	Target     string  `json:"target"`
	Old        *Result `json:"old"`
	New        *Result `json:"new"`
	Regression bool    `json:"regression"`
	// Detail is the one-line description: statuses, reasons or values.
	Detail string `json:"detail"`
	// Rerun is the rerun command for a newly failing result.
	Rerun string `json:"rerun,omitempty"`
}

// DiffResult is the comparison of two runs, check by check and pair by
// pair, in the order it is printed.
type DiffResult struct {
	Old          []string `json:"old"` // one line per host: host, backend, driver, CUDA, tool
	New          []string `json:"new"`
	Warnings     []string `json:"warnings"`
	NewlyFailing []Change `json:"newly_failing"` // regressions first
	Fixed        []Change `json:"fixed"`
	SkipReasons  []Change `json:"skip_reasons_changed"`
	Added        []Change `json:"added"`
	Removed      []Change `json:"removed"`
	OtherStatus  []Change `json:"other_status_changes"`
	Metrics      []Change `json:"metric_changes"`
	Regressions  int      `json:"regressions"`
}

// Diff compares two runs. Results are matched by check, GPU or pair, and
// host. When each side holds one host the host names are not compared (a
// driver upgrade may rename nothing, and comparing two nodes is a use too);
// with several hosts (fleet runs) results are matched per host name, and a
// host missing from the new run counts as every check on it missing.
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
			d.Warnings = append(d.Warnings, compareSystems(n, oldDoc, newDoc)...)
		}
		diffHost(&d, n, oldDoc, newDoc, opt)
	}
	sort.SliceStable(d.NewlyFailing, func(i, j int) bool {
		return d.NewlyFailing[i].Regression && !d.NewlyFailing[j].Regression
	})
	for _, c := range append(append([]Change{}, d.NewlyFailing...), d.OtherStatus...) {
		if c.Regression {
			d.Regressions++
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
	if o.System.Backend != n.System.Backend {
		w = append(w, fmt.Sprintf("backends differ%s: old %s, new %s", at, backendName(o.System), backendName(n.System)))
	}
	if o.System.Host != n.System.Host {
		w = append(w, fmt.Sprintf("comparing host %s (old) with host %s (new)", orDash(o.System.Host), orDash(n.System.Host)))
	}
	if o.System.DriverVersion != n.System.DriverVersion || o.System.CUDAVersion != n.System.CUDAVersion {
		w = append(w, fmt.Sprintf("driver%s: %s (CUDA %s) → %s (CUDA %s)", at, orDash(o.System.DriverVersion),
			cudaVersion(o.System.CUDAVersion), orDash(n.System.DriverVersion), cudaVersion(n.System.CUDAVersion)))
	}
	if len(o.System.GPUs) != len(n.System.GPUs) {
		w = append(w, fmt.Sprintf("GPU count%s: %d → %d", at, len(o.System.GPUs), len(n.System.GPUs)))
	}
	return w
}

func diffHost(d *DiffResult, host string, o, n Document, opt DiffOptions) {
	oldByKey := map[string]*Result{}
	for i := range o.Results {
		oldByKey[o.Results[i].Key()] = &o.Results[i]
	}
	newByKey := map[string]*Result{}
	for i := range n.Results {
		newByKey[n.Results[i].Key()] = &n.Results[i]
	}
	mk := func(r *Result, or, nr *Result, detail string) Change {
		return Change{Host: host, Key: r.Key(), Check: r.Check, Target: r.TargetName(), Old: or, New: nr, Detail: detail}
	}
	for _, or := range sortedResults(oldByKey) {
		nr := newByKey[or.Key()]
		switch {
		case nr == nil:
			c := mk(or, or, nil, fmt.Sprintf("%s → missing", or.Status))
			if or.Status == StatusPass {
				c.Regression = true
				c.Detail = "passed before, missing now"
				d.NewlyFailing = append(d.NewlyFailing, c)
			} else {
				d.Removed = append(d.Removed, c)
			}
		case nr.Failed() && !or.Failed():
			c := mk(or, or, nr, fmt.Sprintf("%s → %s: %s", or.Status, nr.Status, orDash(nr.Reason)))
			c.Regression = or.Status == StatusPass || opt.Strict
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
			c.Detail += ": " + nr.Reason
		}
		if nr.Failed() {
			c.Regression = opt.Strict
			c.Rerun = RerunCommand(n.System, *nr)
			d.NewlyFailing = append(d.NewlyFailing, c)
			continue
		}
		d.Added = append(d.Added, c)
	}
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
		out = append(out, Change{Host: host, Key: n.Key(), Check: n.Check, Target: n.TargetName(), Detail: detail})
	}
	return out
}

func numText(v *float64) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprintf("%.4g", *v)
}

// Text renders the comparison for a terminal or a CI log.
func (d DiffResult) Text() string {
	var b strings.Builder
	for _, l := range d.Old {
		fmt.Fprintf(&b, "old: %s\n", l)
	}
	for _, l := range d.New {
		fmt.Fprintf(&b, "new: %s\n", l)
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
			host := ""
			if c.Host != "" {
				host = "[" + c.Host + "] "
			}
			fmt.Fprintf(&b, "%s%s%s %s: %s\n", mark, host, c.Check, c.Target, c.Detail)
			if c.Rerun != "" {
				fmt.Fprintf(&b, "      rerun: %s\n", c.Rerun)
			}
		}
	}
	section("Newly failing (! = regression)", d.NewlyFailing)
	section("Fixed", d.Fixed)
	section("Skip reasons changed", d.SkipReasons)
	section("Added", d.Added)
	section("Removed", d.Removed)
	section("Other status changes", d.OtherStatus)
	section("Metric changes", d.Metrics)
	if d.Regressions > 0 {
		fmt.Fprintf(&b, "\n%d regression(s).\n", d.Regressions)
	} else {
		b.WriteString("\nNo regressions.\n")
	}
	return b.String()
}
