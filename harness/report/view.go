// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"encoding/json"
	"fmt"
	"sort"
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

type bwGrid struct {
	check, metric string
	values        map[tkey]float64
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
	bandwidth     []*bwGrid
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
	bw := map[string]*bwGrid{}
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
			for name, val := range r.Metrics {
				if val == nil || !strings.Contains(strings.ToLower(name), "gbps") {
					continue
				}
				g := bw[r.Check+"\x00"+name]
				if g == nil {
					g = &bwGrid{check: r.Check, metric: name, values: map[tkey]float64{}}
					bw[r.Check+"\x00"+name] = g
					v.bandwidth = append(v.bandwidth, g)
				}
				g.values[k] = *val
			}
		} else {
			f.hasGPUs = true
			f.gpus.at(k).add(r, note)
		}
	}
	for g := range seen {
		v.gpus = append(v.gpus, g)
	}
	sort.Ints(v.gpus)
	sort.Strings(v.observed)
	sort.Slice(v.bandwidth, func(i, j int) bool {
		a, b := v.bandwidth[i], v.bandwidth[j]
		return a.check < b.check || (a.check == b.check && a.metric < b.metric)
	})
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
