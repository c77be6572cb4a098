// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"fmt"
	"sort"
)

// view is what matrix.md and matrix.html show, computed once and rendered
// twice so the two never disagree.
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
	powerTests    []powerTest
	borrowedPower string // borrowedPowerText
	evidence      string // evidenceText
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
	triples  []*tripleRow // three-GPU checks, one row per check and triple
}

// tripleRow is one check on one triple of GPUs: a triple has no cell in a
// GPU × GPU grid, so the family lists its triples as rows.
type tripleRow struct {
	check, target, link string
	cell                cell
}

// label names the row's check, with the number of specs the cell stands
// for when there are several (the litmus tests).
func (t *tripleRow) label() string {
	if n := len(t.cell.lines); n > 1 {
		return fmt.Sprintf("%s (%d specs)", t.check, n)
	}
	return t.check
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

type failureGroup struct {
	target  string
	results []Result
}

func newView(doc Document) *view {
	v := &view{doc: doc, pairs: map[tkey]Pair{}, observedCells: map[string]cells{}}
	vb := &viewBuilder{v: v, seen: map[int]bool{}, byFamily: map[string]*familyView{},
		byCheck: map[string]*checkView{}, bw: map[string]*bwSeries{}}
	for _, g := range doc.System.GPUs {
		vb.seen[g.Ordinal] = true
	}
	for _, p := range doc.System.Pairs {
		v.pairs[tkey{p.Src, p.Dst}] = p
		vb.seen[p.Src], vb.seen[p.Dst] = true, true
	}
	for _, r := range doc.Results {
		vb.add(r)
	}
	for g := range vb.seen {
		v.gpus = append(v.gpus, g)
	}
	sort.Ints(v.gpus)
	sort.Strings(v.observed)
	sortSeries(v.bandwidth)
	sum := Summarize(doc.Results)
	for _, f := range v.families {
		f.summary = sum.ByFamily[f.name]
		for _, c := range f.checks {
			c.uniform = uniformStatus(c.cells)
		}
	}
	v.power = powerRows(doc.Results)
	v.powerTests = powerTests(doc.Results)
	v.borrowedPower = borrowedPowerText(doc.Results)
	v.evidence = evidenceText(doc.Results)
	v.disagreements = disagreements(doc, v.pairs)
	v.failures = failureGroups(doc.Results)
	return v
}

// viewBuilder files results, in the order the document lists them, into
// the view's families, checks, cells and figure series.
type viewBuilder struct {
	v        *view
	seen     map[int]bool // every GPU a target or the system names
	byFamily map[string]*familyView
	byCheck  map[string]*checkView // by family, check and target kind
	bw       map[string]*bwSeries
}

// add files one result: under its family's system results when it has no
// target, else into its check's, family's and observed cells.
func (vb *viewBuilder) add(r Result) {
	f := vb.family(r.Family)
	if r.Target == TargetTriple && len(r.GPUs) == 3 {
		vb.addTriple(f, r)
		return
	}
	k, ok := keyOf(r)
	if !ok {
		f.system = append(f.system, r)
		return
	}
	vb.seen[k.a] = true
	if k.b >= 0 {
		vb.seen[k.b] = true
	}
	note := 0
	if r.Status == StatusSkip {
		note = f.note(r.Reason)
	}
	c := vb.check(f, r)
	c.cells.at(k).add(r, note)
	c.results = append(c.results, r)
	if k.b >= 0 {
		vb.addPair(f, r, k, note)
	} else {
		f.hasGPUs = true
		f.gpus.at(k).add(r, note)
	}
	addBandwidth(vb.bw, &vb.v.bandwidth, r, k)
}

// addTriple files a triple result into its family's row for that check
// and triple.
func (vb *viewBuilder) addTriple(f *familyView, r Result) {
	for _, g := range r.GPUs {
		vb.seen[g] = true
	}
	note := 0
	if r.Status == StatusSkip {
		note = f.note(r.Reason)
	}
	target := r.TargetName()
	for _, t := range f.triples {
		if t.check == r.Check && t.target == target {
			t.cell.add(r, note)
			return
		}
	}
	t := &tripleRow{check: r.Check, target: target, link: r.Link}
	t.cell.add(r, note)
	f.triples = append(f.triples, t)
}

// addPair files a pair result into its family's grid and, for a conf
// check, into the family's column of the observed grid.
func (vb *viewBuilder) addPair(f *familyView, r Result, k tkey, note int) {
	f.hasPairs = true
	f.pairs.at(k).add(r, note)
	if r.Kind != "conf" && r.Kind != "" {
		return
	}
	oc := vb.v.observedCells[r.Family]
	if oc == nil {
		oc = cells{}
		vb.v.observedCells[r.Family] = oc
		vb.v.observed = append(vb.v.observed, r.Family)
	}
	oc.at(k).add(r, 0)
}

// family is the view of the named family, added on its first result.
func (vb *viewBuilder) family(name string) *familyView {
	f := vb.byFamily[name]
	if f == nil {
		f = &familyView{name: name, pairs: cells{}, gpus: cells{}}
		vb.byFamily[name] = f
		vb.v.families = append(vb.v.families, f)
	}
	return f
}

// check is the view of r's check in f, added on its first result.
func (vb *viewBuilder) check(f *familyView, r Result) *checkView {
	key := r.Family + "\x00" + r.Check + "\x00" + r.Target
	c := vb.byCheck[key]
	if c == nil {
		c = &checkView{check: r.Check, kind: r.Kind, target: r.Target, cells: cells{}}
		vb.byCheck[key] = c
		f.checks = append(f.checks, c)
	}
	return c
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
