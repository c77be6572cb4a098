// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package ptxmodel

import (
	"fmt"
	"sort"
	"strings"
)

// candidate is one candidate execution with what the model says of it.
type candidate struct {
	x *exec
	// states are the final states the candidate may end in: its registers,
	// and for every location the value of one of its co-maximal writes
	// (overlapping writes in a data race are unrelated in coherence order,
	// so either may be the last); nil when the values could not be
	// computed (thin air).
	states     []*State
	violations []Violation
}

func (c *candidate) consistent() bool { return len(c.violations) == 0 }

// explore calls visit for every candidate execution of p: every choice of
// which CAS operations succeed (kept only where the values agree), of the
// write each read reads from, of a Fence-SC order relating every morally
// strong pair of fence.sc operations, and of a coherence order relating
// every pair of overlapping writes that are morally strong or related in
// causality order (either way; the Coherence axiom then judges it) and
// leaving the others unrelated: "two overlapping writes are unrelated in
// coherence order if they are in a data-race" (Coherence Order). visit
// returns false to stop.
func explore(p *Program, visit func(*candidate) bool) {
	cas := p.casOps()
	for mask := 0; mask < 1<<len(cas); mask++ {
		succeed := map[[2]int]bool{}
		for i, c := range cas {
			succeed[c] = mask&(1<<i) != 0
		}
		if !exploreEvents(p, p.events(succeed), succeed, visit) {
			return
		}
	}
}

func exploreEvents(p *Program, ev []event, succeed map[[2]int]bool, visit func(*candidate) bool) bool {
	base := &exec{p: p, ev: ev}
	base.po = base.programOrder()
	base.poLoc = base.po.inter(base.sameLocation())
	base.ms = base.morallyStrong()
	base.rmw = base.rmwPairs()
	base.relPat = base.releasePatterns()
	base.acqPat = base.acquirePatterns()
	base.dep = dependencies(p, ev)

	var reads []int
	sources := map[int][]int{}
	for i, e := range ev {
		if e.kind != evRead {
			continue
		}
		reads = append(reads, i)
		for j, w := range ev {
			if w.kind == evWrite && w.loc == e.loc {
				sources[i] = append(sources[i], j)
			}
		}
	}
	rf := make([]int, len(ev))
	for i := range rf {
		rf[i] = -1
	}
	var choose func(k int) bool
	choose = func(k int) bool {
		if k < len(reads) {
			for _, w := range sources[reads[k]] {
				rf[reads[k]] = w
				if !choose(k + 1) {
					return false
				}
			}
			return true
		}
		return exploreRF(base, append([]int(nil), rf...), succeed, visit)
	}
	return choose(0)
}

// exploreRF continues with a fixed reads-from: values, then the Fence-SC
// and coherence orders.
func exploreRF(base *exec, rf []int, succeed map[[2]int]bool, visit func(*candidate) bool) bool {
	p := base.p
	vals := newValues(p, base.ev, rf)
	var thinAir bool
	for c, ok := range succeed {
		got, err := vals.casSucceeds(c[0], c[1])
		if err != nil {
			thinAir = true
			break
		}
		if got != ok {
			return true // not a candidate: the CAS compares otherwise
		}
	}
	regs, err := vals.final()
	thinAir = thinAir || err != nil
	x := *base
	x.rf = rf
	x.rfRel = x.readsFrom()
	x.obs = x.observation()
	return eachSCOrder(&x, func(sc rel) bool {
		y := x
		y.scOrder = sc
		y.sw = y.synchronizes()
		y.bc = y.baseCausality()
		y.cause = y.causality()
		return eachCoherence(&y, func(co rel) bool {
			z := y
			z.co = co
			z.fr = z.fromReads()
			c := &candidate{x: &z}
			if !thinAir {
				c.states = z.finalStates(regs, vals)
			}
			c.violations = z.violations()
			return visit(c)
		})
	})
}

// eachSCOrder calls f with every Fence-SC order: an acyclic (transitively
// closed) order relating every morally strong pair of fence.sc events.
// It orients the pairs one at a time and keeps the order closed, so a pair
// transitivity already orients has one way only and no branch ever closes
// a cycle: it visits each acyclic orientation once, not all 2^pairs.
func eachSCOrder(x *exec, f func(rel) bool) bool {
	var pairs [][2]int
	for a, ea := range x.ev {
		for b, eb := range x.ev {
			if a < b && ea.sc && eb.sc && x.ms.has(a, b) {
				pairs = append(pairs, [2]int{a, b})
			}
		}
	}
	var orient func(i int, r rel) bool
	orient = func(i int, r rel) bool {
		if i == len(pairs) {
			return f(r)
		}
		a, b := pairs[i][0], pairs[i][1]
		if r.has(a, b) || r.has(b, a) {
			return orient(i+1, r)
		}
		return orient(i+1, r.withEdge(a, b)) && orient(i+1, r.withEdge(b, a))
	}
	return orient(0, newRel(len(x.ev)))
}

// eachCoherence calls f with every coherence order: initial writes first;
// every pair of overlapping writes that are morally strong or related in
// causality order related one way or the other; transitively closed and
// acyclic. Other pairs (data races) stay unrelated unless transitivity
// relates them.
func eachCoherence(x *exec, f func(rel) bool) bool {
	var pairs [][2]int
	base := newRel(len(x.ev))
	for a, ea := range x.ev {
		if ea.kind != evWrite {
			continue
		}
		for b, eb := range x.ev {
			if eb.kind != evWrite || eb.loc != ea.loc || a == b {
				continue
			}
			if ea.thread < 0 {
				base.add(a, b)
				continue
			}
			if a < b && eb.thread >= 0 && (x.ms.has(a, b) || x.cause.has(a, b) || x.cause.has(b, a)) {
				pairs = append(pairs, [2]int{a, b})
			}
		}
	}
	// as eachSCOrder: orient pair by pair, keeping the order closed
	var orient func(i int, r rel) bool
	orient = func(i int, r rel) bool {
		if i == len(pairs) {
			return f(r)
		}
		a, b := pairs[i][0], pairs[i][1]
		if r.has(a, b) || r.has(b, a) {
			return orient(i+1, r)
		}
		return orient(i+1, r.withEdge(a, b)) && orient(i+1, r.withEdge(b, a))
	}
	return orient(0, base.plus())
}

// finalStates are the registers with every choice of a final value per
// location: the value of one of the location's co-maximal writes.
func (x *exec) finalStates(regs [][]int64, vals *values) []*State {
	choices := make([][]int64, len(x.p.Locs))
	for l := range x.p.Locs {
		seen := map[int64]bool{}
		for w, e := range x.ev {
			if e.kind != evWrite || e.loc != l {
				continue
			}
			later := false
			x.co[w].each(func(o int) { later = later || x.ev[o].loc == l })
			if later {
				continue
			}
			v, err := vals.of(w)
			if err != nil {
				return nil
			}
			if !seen[v] {
				seen[v] = true
				choices[l] = append(choices[l], v)
			}
		}
	}
	var out []*State
	var walk func(l int, mem []int64)
	walk = func(l int, mem []int64) {
		if l == len(choices) {
			out = append(out, &State{Regs: regs, Mem: append([]int64(nil), mem...)})
			return
		}
		for _, v := range choices[l] {
			walk(l+1, append(mem, v))
		}
	}
	walk(0, nil)
	return out
}

// violations checks the six axioms.
func (x *exec) violations() []Violation {
	var out []Violation
	for _, a := range []struct {
		name  string
		check func() *Violation
	}{{AxiomCoherence, x.coherenceAxiom}, {AxiomFenceSC, x.fenceSCAxiom}, {AxiomAtomicity, x.atomicityAxiom},
		{AxiomNoThinAir, x.noThinAirAxiom}, {AxiomSCPerLoc, x.scPerLocationAxiom}, {AxiomCausality, x.causalityAxiom}} {
		if ignoredAxioms[a.name] {
			continue
		}
		if v := a.check(); v != nil {
			out = append(out, *v)
		}
	}
	return out
}

// ignoredAxioms is empty but in the tests that show each axiom decides
// some published verdict (the model with one axiom left out disagrees).
var ignoredAxioms = map[string]bool{}

// races lists the data races of a consistent execution: "two conflicting
// memory operations are said to be in a data-race if they are not related
// in causality order and they are not morally strong" (Conflict and
// Data-races); mixed-size when they overlap only partially.
func (x *exec) races() []Race {
	var out []Race
	for a, ea := range x.ev {
		for b, eb := range x.ev {
			if a >= b || ea.thread < 0 || eb.thread < 0 || !ea.memory() || !eb.memory() || ea.loc != eb.loc {
				continue
			}
			if ea.kind != evWrite && eb.kind != evWrite || ea.thread == eb.thread && ea.op == eb.op {
				continue
			}
			if x.ms.has(a, b) || x.cause.has(a, b) || x.cause.has(b, a) {
				continue
			}
			out = append(out, Race{A: x.opRef(a), B: x.opRef(b), MixedSize: ea.size != eb.size,
				Text: fmt.Sprintf("%s and %s", x.describe(a), x.describe(b))})
		}
	}
	return out
}

// OpRef names an operation of a program: thread and index.
type OpRef struct{ Thread, Op int }

// Race is a data race between two operations in some consistent execution.
type Race struct {
	A, B      OpRef
	MixedSize bool // the two overlap partially: the model's axioms do not apply
	Text      string
}

func (x *exec) opRef(e int) OpRef { return OpRef{x.ev[e].thread, x.ev[e].op} }

// describe renders event e: "P1's ld.acquire.sys r1, y" (with "(write)" for
// an RMW's write half); "the initial write of x".
func (x *exec) describe(e int) string {
	ev := x.ev[e]
	if ev.thread < 0 {
		return "the initial write of " + x.p.Locs[ev.loc].Name
	}
	s := x.p.Threads[ev.thread].Name + "'s " + x.p.OpText(ev.thread, ev.op)
	if ev.pair >= 0 {
		if ev.kind == evRead {
			s += " (its read)"
		} else {
			s += " (its write)"
		}
	}
	return s
}

// edgeName names why a precedes b in the relations an acyclicity axiom
// looks at.
func (x *exec) edgeName(a, b int) string {
	var names []string
	for _, r := range []struct {
		name string
		rel  rel
	}{{"program order", x.po}, {"reads-from", x.rfRel}, {"coherence", x.co}, {"from-reads", x.fr}, {"dependency", x.dep}} {
		if r.rel != nil && r.rel.has(a, b) {
			names = append(names, r.name)
		}
	}
	if len(names) == 0 {
		return "order"
	}
	return strings.Join(names, ", ")
}

func (x *exec) describeCycle(c []int, what string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "a cycle of %s: ", what)
	for i := 0; i+1 < len(c); i++ {
		fmt.Fprintf(&b, "%s -(%s)-> ", x.describe(c[i]), x.edgeName(c[i], c[i+1]))
	}
	b.WriteString(x.describe(c[len(c)-1]))
	return b.String()
}

// Execution is a candidate execution in words: what each read read from,
// the coherence order of each location, the Fence-SC order, the final
// state.
type Execution struct {
	ReadsFrom []string
	Coherence []string
	FenceSC   []string
	Final     string
}

func (x *exec) execution(s *State) *Execution {
	out := &Execution{}
	for rd, w := range x.rf {
		if w >= 0 {
			v := ""
			if s != nil {
				if val, err := newValues(x.p, x.ev, x.rf).of(rd); err == nil {
					v = fmt.Sprintf(" = %d", val)
				}
			}
			out.ReadsFrom = append(out.ReadsFrom, fmt.Sprintf("%s%s reads from %s", x.describe(rd), v, x.describe(w)))
		}
	}
	for l := range x.p.Locs {
		var writes []int
		for w, e := range x.ev {
			if e.kind == evWrite && e.loc == l && e.thread >= 0 {
				writes = append(writes, w)
			}
		}
		if len(writes) < 2 {
			continue
		}
		sort.SliceStable(writes, func(i, j int) bool { return x.co.has(writes[i], writes[j]) })
		var parts []string
		for i, w := range writes {
			parts = append(parts, x.describe(w))
			if i+1 < len(writes) && !x.co.has(w, writes[i+1]) {
				parts[len(parts)-1] += " (unordered with the next: a data race)"
			}
		}
		out.Coherence = append(out.Coherence, x.p.Locs[l].Name+": "+strings.Join(parts, " < "))
	}
	for a := range x.scOrder {
		x.scOrder[a].each(func(b int) { out.FenceSC = append(out.FenceSC, x.describe(a)+" < "+x.describe(b)) })
	}
	if s != nil {
		out.Final = x.p.stateText(s)
	}
	return out
}

// Text renders the execution on several lines.
func (e *Execution) Text() string {
	var b strings.Builder
	for _, l := range e.ReadsFrom {
		fmt.Fprintf(&b, "  %s\n", l)
	}
	for _, l := range e.Coherence {
		fmt.Fprintf(&b, "  coherence %s\n", l)
	}
	for _, l := range e.FenceSC {
		fmt.Fprintf(&b, "  Fence-SC %s\n", l)
	}
	if e.Final != "" {
		fmt.Fprintf(&b, "  final %s\n", e.Final)
	}
	return b.String()
}

// stateText renders the registers the condition names and every location.
func (p *Program) stateText(s *State) string {
	var parts []string
	for t, th := range p.Threads {
		for r, reg := range th.Regs {
			parts = append(parts, fmt.Sprintf("%s:%s=%d", th.Name, reg.Name, s.Regs[t][r]))
		}
	}
	for l, loc := range p.Locs {
		parts = append(parts, fmt.Sprintf("%s=%d", loc.Name, s.Mem[l]))
	}
	return strings.Join(parts, " ")
}
