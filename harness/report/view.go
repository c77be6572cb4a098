// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// The view is what matrix.md and matrix.html show, computed once and
// rendered twice so the two never disagree.

// Cell symbols.
const (
	SymPass     = "✓"
	SymFail     = "✗"
	SymSkip     = "–"
	SymTimeout  = "T"
	SymError    = "E"
	SymDiagonal = "X"
	SymNone     = "·" // nothing ran on this target
)

// severity orders statuses for a cell that aggregates several results: the
// worst wins.
func severity(status string) int {
	switch status {
	case StatusFail:
		return 5
	case StatusTimeout:
		return 4
	case StatusError:
		return 3
	case StatusPass:
		return 2
	case StatusSkip:
		return 1
	}
	return 0
}

func symbol(status string) string {
	switch status {
	case StatusPass:
		return SymPass
	case StatusFail:
		return SymFail
	case StatusSkip:
		return SymSkip
	case StatusTimeout:
		return SymTimeout
	case StatusError:
		return SymError
	}
	return SymNone
}

// tkey is a target: a pair (a→b), or a GPU (a, b = -1).
type tkey struct{ a, b int }

func keyOf(r Result) (tkey, bool) {
	switch {
	case r.Src != nil && r.Dst != nil:
		return tkey{*r.Src, *r.Dst}, true
	case r.GPU != nil:
		return tkey{*r.GPU, -1}, true
	}
	return tkey{}, false
}

type cell struct {
	status string
	notes  []int    // footnote numbers (skip reasons)
	lines  []string // what the cell aggregates, for hover text
}

func (c *cell) add(r Result, note int) {
	if severity(r.Status) > severity(c.status) {
		c.status = r.Status
	}
	if note > 0 && !containsInt(c.notes, note) {
		c.notes = append(c.notes, note)
	}
	line := r.Check + ": " + r.Status
	if r.Reason != "" {
		line += " (" + r.Reason + ")"
	}
	c.lines = append(c.lines, line)
}

func containsInt(s []int, n int) bool {
	for _, x := range s {
		if x == n {
			return true
		}
	}
	return false
}

type cells map[tkey]*cell

func (cs cells) at(k tkey) *cell {
	c := cs[k]
	if c == nil {
		c = &cell{}
		cs[k] = c
	}
	return c
}

type checkView struct {
	check, kind, target string
	cells               cells
	results             []Result
	uniform             string // the one status of every cell, or ""
}

// rowLabel names a per-GPU check's row, with the number of specs a cell
// stands for when the check has several on a GPU (the litmus tests), so a
// single ✓ is not read as a single spec.
func (c *checkView) rowLabel() string {
	n := 0
	for _, cl := range c.cells {
		n = max(n, len(cl.lines))
	}
	if n < 2 {
		return c.check
	}
	return fmt.Sprintf("%s (%d specs per GPU)", c.check, n)
}

type familyView struct {
	name     string
	summary  Summary
	pairs    cells // aggregate of the family's pair checks
	gpus     cells // aggregate of its per-GPU checks
	checks   []*checkView
	system   []Result
	notes    []string // footnotes; number = index+1
	hasPairs bool
	hasGPUs  bool
}

func (f *familyView) note(reason string) int {
	for i, n := range f.notes {
		if n == reason {
			return i + 1
		}
	}
	f.notes = append(f.notes, reason)
	return len(f.notes)
}

type disagreement struct {
	target string
	kind   string // "claim vs result", "sources disagree", "claims disagree"
	text   string
}

type failureGroup struct {
	target  string
	results []Result
}

// bwSeries is one measured figure of one check across targets: a metric
// base name ("bandwidth_gbps.ce.uni") with its values per target, at every
// size the metric names carry ("bandwidth_gbps.ce.uni.1GiB"); a metric
// without a size suffix is a series of one size, "".
type bwSeries struct {
	check, base, unit string
	pair              bool                        // pair targets (grid) or GPUs (table row)
	values            map[tkey]map[string]float64 // target -> size label -> value
	sizes             []string                    // size labels, smallest first
}

// largest is the value at the largest size a target has, and that size.
func (s *bwSeries) largest(k tkey) (float64, string, bool) {
	vals, ok := s.values[k]
	if !ok {
		return 0, "", false
	}
	for i := len(s.sizes) - 1; i >= 0; i-- {
		if v, ok := vals[s.sizes[i]]; ok {
			return v, s.sizes[i], true
		}
	}
	return 0, "", false
}

// largestCaption names the size a grid or row shows: "at 1GiB" when every
// target's largest size is the same, else "at each target's largest size".
func (s *bwSeries) largestCaption() string {
	size := ""
	for k := range s.values {
		_, sz, _ := s.largest(k)
		if size != "" && sz != size {
			return "at each target's largest size"
		}
		size = sz
	}
	if size == "" {
		return ""
	}
	return "at " + size
}

// powerRow is one power entry: a mutant on a target, the conf check it
// gives power to, and what that check's result on the target now means.
type powerRow struct {
	mutant, target, conf string
	observed             bool
	evidence, verdict    string
}

type view struct {
	doc           Document
	gpus          []int
	families      []*familyView
	pairs         map[tkey]Pair
	observed      []string // families shown in the observed grid
	observedCells map[string]cells
	disagreements []disagreement
	failures      []failureGroup
	bandwidth     []*bwSeries
	power         []powerRow
}

func newView(doc Document) *view {
	v := &view{doc: doc, pairs: map[tkey]Pair{}, observedCells: map[string]cells{}}
	seen := map[int]bool{}
	for _, g := range doc.System.GPUs {
		seen[g.Ordinal] = true
	}
	for _, p := range doc.System.Pairs {
		v.pairs[tkey{p.Src, p.Dst}] = p
		seen[p.Src], seen[p.Dst] = true, true
	}
	byFamily := map[string]*familyView{}
	byCheck := map[string]*checkView{}
	bw := map[string]*bwSeries{}
	for _, r := range doc.Results {
		f := byFamily[r.Family]
		if f == nil {
			f = &familyView{name: r.Family, pairs: cells{}, gpus: cells{}}
			byFamily[r.Family] = f
			v.families = append(v.families, f)
		}
		k, ok := keyOf(r)
		if !ok {
			f.system = append(f.system, r)
			continue
		}
		seen[k.a] = true
		if k.b >= 0 {
			seen[k.b] = true
		}
		note := 0
		if r.Status == StatusSkip {
			note = f.note(r.Reason)
		}
		c := byCheck[r.Family+"\x00"+r.Check+"\x00"+r.Target]
		if c == nil {
			c = &checkView{check: r.Check, kind: r.Kind, target: r.Target, cells: cells{}}
			byCheck[r.Family+"\x00"+r.Check+"\x00"+r.Target] = c
			f.checks = append(f.checks, c)
		}
		c.cells.at(k).add(r, note)
		c.results = append(c.results, r)
		if k.b >= 0 {
			f.hasPairs = true
			f.pairs.at(k).add(r, note)
			if r.Kind == "conf" || r.Kind == "" {
				oc := v.observedCells[r.Family]
				if oc == nil {
					oc = cells{}
					v.observedCells[r.Family] = oc
					v.observed = append(v.observed, r.Family)
				}
				oc.at(k).add(r, 0)
			}
		} else {
			f.hasGPUs = true
			f.gpus.at(k).add(r, note)
		}
		addBandwidth(bw, &v.bandwidth, r, k)
	}
	for g := range seen {
		v.gpus = append(v.gpus, g)
	}
	sort.Ints(v.gpus)
	sort.Strings(v.observed)
	sort.Slice(v.bandwidth, func(i, j int) bool {
		a, b := v.bandwidth[i], v.bandwidth[j]
		if a.check != b.check {
			return a.check < b.check
		}
		if a.base != b.base {
			return a.base < b.base
		}
		return !a.pair && b.pair
	})
	for _, s := range v.bandwidth {
		sort.Slice(s.sizes, func(i, j int) bool { return sizeBytes(s.sizes[i]) < sizeBytes(s.sizes[j]) })
	}
	sum := Summarize(doc.Results)
	for _, f := range v.families {
		f.summary = sum.ByFamily[f.name]
		for _, c := range f.checks {
			c.uniform = uniformStatus(c.cells)
		}
	}
	v.power = powerRows(doc.Results)
	v.disagreements = disagreements(doc, v.pairs)
	v.failures = failureGroups(doc.Results)
	return v
}

func powerRows(results []Result) []powerRow {
	byKey := map[string]Result{}
	for _, r := range results {
		byKey[r.Check+" "+r.TargetName()] = r
	}
	var rows []powerRow
	for _, r := range results {
		for _, e := range r.Entries {
			if e.Kind != KindPower {
				continue
			}
			row := powerRow{mutant: r.Check, target: r.TargetName(), conf: e.Name, observed: truthy(e.Value),
				evidence: valueText(e.Value), verdict: "conf check not run here"}
			if e.Detail != "" {
				row.evidence += " (" + e.Detail + ")"
			}
			if c, ok := byKey[e.Name+" "+r.TargetName()]; ok {
				row.verdict = c.Status
				if c.Status == StatusPass && c.PowerShown != nil {
					row.verdict = "pass, no power shown"
					if *c.PowerShown {
						row.verdict = "power-gated pass"
					}
				}
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// valueText renders an entry value compactly: strings as they are,
// everything else as JSON.
func valueText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}

func uniformStatus(cs cells) string {
	status := ""
	for _, c := range cs {
		if status != "" && c.status != status {
			return ""
		}
		status = c.status
	}
	return status
}

// failureGroups lists failed results grouped by target, pairs and GPUs in
// order, the system last.
func failureGroups(results []Result) []failureGroup {
	var groups []failureGroup
	idx := map[string]int{}
	sorted := append([]Result(nil), results...)
	sort.SliceStable(sorted, func(i, j int) bool { return targetOrder(sorted[i]) < targetOrder(sorted[j]) })
	for _, r := range sorted {
		if !r.Failed() {
			continue
		}
		t := r.TargetName()
		i, ok := idx[t]
		if !ok {
			i = len(groups)
			idx[t] = i
			groups = append(groups, failureGroup{target: t})
		}
		groups[i].results = append(groups[i].results, r)
	}
	return groups
}

// sizeSuffix matches the size label that ends a per-size metric name
// ("bandwidth_gbps.ce.uni.1GiB").
var sizeSuffix = regexp.MustCompile(`^[0-9]+(B|KiB|MiB|GiB|TiB)$`)

// sizeBytes reads a size label; 0 for "" or anything else.
func sizeBytes(label string) uint64 {
	m := sizeSuffix.FindStringSubmatch(label)
	if m == nil {
		return 0
	}
	n, _ := strconv.ParseUint(strings.TrimSuffix(label, m[1]), 10, 64)
	shift := map[string]uint{"B": 0, "KiB": 10, "MiB": 20, "GiB": 30, "TiB": 40}[m[1]]
	return n << shift
}

// addBandwidth files r's bandwidth metrics (names containing "gbps") and the
// bandwidth suite's latency metrics ("latency_…", "chase_…") into their
// series. A metric that only repeats a more specific one of the same
// result (the headline "bandwidth_gbps" beside "bandwidth_gbps.ce.uni.1GiB")
// is left out: two specs on one target (one-way and bidirectional) each
// have a headline, and one grid of both would show whichever came last.
func addBandwidth(bw map[string]*bwSeries, list *[]*bwSeries, r Result, k tkey) {
	for name, val := range r.Metrics {
		if val == nil || !isFigure(r, name) || strings.Contains(name, "#") {
			continue
		}
		if hasMoreSpecific(r.Metrics, name) {
			continue
		}
		base, size := name, ""
		if i := strings.LastIndexByte(name, '.'); i > 0 && sizeSuffix.MatchString(name[i+1:]) {
			base, size = name[:i], name[i+1:]
		}
		key := r.Check + "\x00" + base + "\x00" + fmt.Sprint(k.b >= 0)
		s := bw[key]
		if s == nil {
			s = &bwSeries{check: r.Check, base: base, unit: metricUnit(r, name), pair: k.b >= 0,
				values: map[tkey]map[string]float64{}}
			bw[key] = s
			*list = append(*list, s)
		}
		if s.values[k] == nil {
			s.values[k] = map[string]float64{}
		}
		s.values[k][size] = *val
		if !slices.Contains(s.sizes, size) {
			s.sizes = append(s.sizes, size)
		}
	}
}

func isFigure(r Result, name string) bool {
	if strings.Contains(strings.ToLower(name), "gbps") {
		return true
	}
	return r.Family == "bandwidth" && (strings.HasPrefix(name, "latency_") || strings.HasPrefix(name, "chase_"))
}

// hasMoreSpecific reports a headline metric beside per-size ones that
// start with its name ("bandwidth_gbps" and "bandwidth_gbps.ce.uni.1GiB").
func hasMoreSpecific(metrics map[string]*float64, name string) bool {
	for other, v := range metrics {
		if v != nil && strings.HasPrefix(other, name+".") && sizeSuffix.MatchString(other[strings.LastIndexByte(other, '.')+1:]) {
			return true
		}
	}
	return false
}

// metricUnit is the unit the spec's entry gave the metric; GB/s if none.
func metricUnit(r Result, name string) string {
	for _, e := range r.Entries {
		if e.Kind == KindMetric && e.Name == name && e.Unit != "" {
			return e.Unit
		}
	}
	return "GB/s"
}

// noDisagreements is what the Disagreements section says when it lists
// nothing: with no GPU pair in the run there was nothing to compare, which
// is not the same as agreement.
func (v *view) noDisagreements() string {
	if len(v.pairs) == 0 && !v.hasPairResults() {
		return fmt.Sprintf("None to look for: the run had no GPU pair (%s), so no peer capability was claimed or checked.", plural(len(v.gpus), "GPU"))
	}
	return "None: no check failed on a pair whose capabilities were claimed, and CUDA and NVML agree."
}

func (v *view) hasPairResults() bool {
	for _, f := range v.families {
		if f.hasPairs {
			return true
		}
	}
	return false
}

// targets are the series' targets, in GPU then pair order.
func (s *bwSeries) targets() []tkey {
	ks := make([]tkey, 0, len(s.values))
	for k := range s.values {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool {
		if ks[i].a != ks[j].a {
			return ks[i].a < ks[j].a
		}
		return ks[i].b < ks[j].b
	})
	return ks
}

// targetText names a target: "GPU0" or "GPU0→GPU1".
func targetText(k tkey) string {
	if k.b < 0 {
		return gpuName(k.a)
	}
	return gpuName(k.a) + "→" + gpuName(k.b)
}
