// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package ptxmodel

// The definitions of the PTX ISA's chapter "Memory Consistency Model", one
// function per definition, over one candidate execution. Read them beside
// the chapter; the section names are the ISA's.

// exec is one candidate execution: the events, which write each read reads
// from, the Fence-SC order and the coherence order, and the relations the
// chapter derives from them.
type exec struct {
	p  *Program
	ev []event
	rf []int // rf[read] = the write it reads from; -1 for other events

	// fixed by the events alone
	po, poLoc, ms, dep rel
	rmw                rel // an RMW's read to its write
	relPat, acqPat     rel // release patterns (first → write), acquire patterns (read → last)

	// fixed by rf and the Fence-SC order
	rfRel, obs, sw, bc, cause rel
	scOrder                   rel

	// fixed by the coherence order
	co, fr rel
}

// memorySet, readSet, writeSet and fenceSet select events by kind.
func (x *exec) kinds(k evKind) set {
	var s set
	for i, e := range x.ev {
		if e.kind == k {
			s |= 1 << uint(i)
		}
	}
	return s
}

// programOrder: "The program order relates all operations performed by a
// thread to the order in which a sequential processor will execute
// instructions" (Program Order). Initial writes precede nothing in program
// order; base causality orders them before every event.
func (x *exec) programOrder() rel {
	po := newRel(len(x.ev))
	for a, ea := range x.ev {
		for b, eb := range x.ev {
			if ea.thread >= 0 && ea.thread == eb.thread && ea.order < eb.order {
				po.add(a, b)
			}
		}
	}
	return po
}

// sameLocation relates memory events of one location.
func (x *exec) sameLocation() rel {
	r := newRel(len(x.ev))
	for a, ea := range x.ev {
		for b, eb := range x.ev {
			if ea.memory() && eb.memory() && ea.loc == eb.loc {
				r.add(a, b)
			}
		}
	}
	return r
}

// inScopeOf reports whether event a's scope includes the thread of b. An
// initial write is executed before any thread and seen by all.
func (x *exec) inScopeOf(a, b int) bool {
	ea, eb := x.ev[a], x.ev[b]
	if ea.thread < 0 || eb.thread < 0 {
		return true
	}
	return x.p.Threads[ea.thread].Place.Includes(ea.scope, x.p.Threads[eb.thread].Place)
}

// morallyStrong: "Two operations are said to be morally strong relative to
// each other if they satisfy all of the following conditions: the
// operations are related in program order (i.e., they are both executed by
// the same thread), or each operation is strong and specifies a scope that
// includes the thread executing the other operation; both operations are
// performed via the same proxy; if both are memory operations, then they
// overlap completely" (Morally strong operations). Every operation here is
// of the generic proxy; locations never overlap partially; an access of
// another size overlaps only partially.
func (x *exec) morallyStrong() rel {
	ms := newRel(len(x.ev))
	for a, ea := range x.ev {
		for b, eb := range x.ev {
			if a == b {
				continue
			}
			sameThread := ea.thread >= 0 && ea.thread == eb.thread
			strong := ea.strong && eb.strong && x.inScopeOf(a, b) && x.inScopeOf(b, a)
			if !sameThread && !strong {
				continue
			}
			if ea.memory() && eb.memory() && (ea.loc != eb.loc || ea.size != eb.size) {
				continue
			}
			ms.add(a, b)
		}
	}
	return ms
}

// rmwPairs relates an RMW's read to its write.
func (x *exec) rmwPairs() rel {
	r := newRel(len(x.ev))
	for i, e := range x.ev {
		if e.kind == evRead && e.pair >= 0 {
			r.add(i, e.pair)
		}
	}
	return r
}

// releasePatterns: "A release pattern on a location M consists of one of
// the following: a release operation on M; or a release or acquire-release
// operation on M followed by a strong write on M in program order; or a
// release or acquire-release memory fence followed by a strong write on M
// in program order" (Release and Acquire Patterns). The relation goes from
// the pattern's first operation, which bounds what it releases, to the
// write whose observation synchronises.
func (x *exec) releasePatterns() rel {
	r := newRel(len(x.ev))
	for w, ew := range x.ev {
		if ew.kind != evWrite || ew.thread < 0 {
			continue
		}
		if ew.release {
			r.add(w, w)
		}
		if !ew.strong {
			continue
		}
		for f, ef := range x.ev {
			if !x.po.has(f, w) || !ef.release {
				continue
			}
			if ef.kind == evFence || ef.kind == evWrite && ef.loc == ew.loc {
				r.add(f, w)
			}
		}
	}
	return r
}

// acquirePatterns: "An acquire pattern on a location M consists of one of
// the following: an acquire operation on M; or a strong read on M followed
// by an acquire operation on M in program order; or a strong read on M
// followed by an acquire memory fence in program order" — and "atomic
// reductions ... do not form an acquire pattern". The relation goes from
// the read that observes to the pattern's last operation, which bounds
// what it acquires.
func (x *exec) acquirePatterns() rel {
	r := newRel(len(x.ev))
	for rd, er := range x.ev {
		if er.kind != evRead || er.reduction {
			continue
		}
		if er.acquire {
			r.add(rd, rd)
		}
		if !er.strong {
			continue
		}
		for l, el := range x.ev {
			if !x.po.has(rd, l) || !el.acquire {
				continue
			}
			if el.kind == evFence || el.kind == evRead && el.loc == er.loc {
				r.add(rd, l)
			}
		}
	}
	return r
}

// readsFrom is rf as a relation, from writes to reads.
func (x *exec) readsFrom() rel {
	r := newRel(len(x.ev))
	for rd, w := range x.rf {
		if w >= 0 {
			r.add(w, rd)
		}
	}
	return r
}

// observation: "A write W precedes a read R in observation order if R and
// W are morally strong and R reads the value written by W, or for some
// atomic operation Z, W precedes Z and Z precedes R in observation order"
// (Observation Order): morally strong rf, chained through RMWs.
func (x *exec) observation() rel {
	step := x.rfRel.inter(x.ms)
	obs := step
	for {
		next := obs.union(obs.seq(x.rmw).seq(step))
		if equalRel(next, obs) {
			return obs
		}
		obs = next
	}
}

// synchronizes: "A fence.sc operation X synchronizes with a fence.sc
// operation Y if X precedes Y in the Fence-SC order", and "a release
// pattern X synchronizes with an acquire pattern Y, if a write operation
// in X precedes a read operation in Y in observation order, and the first
// operation in X and the last operation in Y are morally strong" (Memory
// synchronization). Barriers and the CUDA API are outside litmus programs.
func (x *exec) synchronizes() rel {
	sw := x.scOrder.clone()
	for first := range x.ev {
		x.relPat[first].each(func(w int) {
			x.obs[w].each(func(rd int) {
				x.acqPat[rd].each(func(last int) {
					if x.ms.has(first, last) {
						sw.add(first, last)
					}
				})
			})
		})
	}
	return sw
}

// baseCausality: "An operation X precedes an operation Y in base causality
// order if X precedes Y in program order, or X synchronizes with Y, or for
// some operation Z ..." — the transitive closure of program order and
// synchronisation; initial writes precede every event.
func (x *exec) baseCausality() rel {
	bc := x.po.union(x.sw)
	for i, e := range x.ev {
		if e.thread < 0 {
			for j, f := range x.ev {
				if f.thread >= 0 {
					bc.add(i, j)
				}
			}
		}
	}
	return bc.plus()
}

// causality: "An operation X precedes an operation Y in causality order if
// X precedes Y in (proxy-preserved) base causality order, or for some
// operation Z, X precedes Z in observation order, and Z precedes Y in
// (proxy-preserved) base causality order" (Causality Order). All
// operations are of the generic proxy, so proxy preservation removes
// nothing the axioms look at.
func (x *exec) causality() rel {
	return x.bc.union(x.obs.seq(x.bc))
}

// fromReads: "A read R precedes an overlapping write W in communication
// order if ... R returns the value written by a write W' that precedes W in
// coherence order" (Communication Order).
func (x *exec) fromReads() rel {
	return x.rfRel.inverse().seq(x.co)
}

// Axiom names, as the ISA's section "Axioms" has them.
const (
	AxiomCoherence  = "Coherence"
	AxiomFenceSC    = "Fence-SC"
	AxiomAtomicity  = "Atomicity"
	AxiomNoThinAir  = "No-Thin-Air"
	AxiomSCPerLoc   = "SC-per-Location"
	AxiomCausality  = "Causality"
	AxiomCandidates = "values" // no choice of reads-from produces the outcome at all
)

// Violation is an axiom a candidate execution breaks, with the events that
// show it.
type Violation struct {
	Axiom  string
	Events []int  // a cycle, or the offending pair
	Detail string // rendered with the program's text
}

// coherenceAxiom: "If a write W precedes an overlapping write W' in
// causality order, then W must precede W' in coherence order."
func (x *exec) coherenceAxiom() *Violation {
	bad := x.cause.inter(x.sameLocation()).restrict(x.kinds(evWrite), x.kinds(evWrite)).minus(x.co)
	for a := range bad {
		if b := firstOf(bad[a]); b >= 0 && a != b {
			return &Violation{Axiom: AxiomCoherence, Events: []int{a, b},
				Detail: x.describe(a) + " precedes " + x.describe(b) + " in causality order but not in coherence order"}
		}
	}
	return nil
}

// fenceSCAxiom: "Fence-SC order cannot contradict causality order. For a
// pair of morally strong fence.sc operations F1 and F2, if F1 precedes F2
// in causality order, then F1 must precede F2 in Fence-SC order."
func (x *exec) fenceSCAxiom() *Violation {
	for a, ea := range x.ev {
		for b, eb := range x.ev {
			if ea.sc && eb.sc && x.ms.has(a, b) && x.cause.has(a, b) && !x.scOrder.has(a, b) {
				return &Violation{Axiom: AxiomFenceSC, Events: []int{a, b},
					Detail: x.describe(a) + " precedes " + x.describe(b) + " in causality order but follows it in Fence-SC order"}
			}
		}
	}
	return nil
}

// atomicityAxiom: "When an atomic operation A and a write W overlap and
// are morally strong, then the following two communications cannot both
// exist in the same execution ...: A reads any byte from a write W' that
// precedes W in coherence order; A follows W in coherence order."
func (x *exec) atomicityAxiom() *Violation {
	for rd, er := range x.ev {
		if er.kind != evRead || er.pair < 0 {
			continue
		}
		aw := er.pair
		for w, ew := range x.ev {
			if ew.kind != evWrite || w == aw || !x.ms.has(aw, w) {
				continue
			}
			if x.fr.has(rd, w) && x.co.has(w, aw) {
				return &Violation{Axiom: AxiomAtomicity, Events: []int{rd, w, aw},
					Detail: x.describe(w) + " falls between the read and the write of " + x.describe(rd)}
			}
		}
	}
	return nil
}

// noThinAirAxiom: "Values may not appear out of thin air": reads-from and
// dependencies together are acyclic.
func (x *exec) noThinAirAxiom() *Violation {
	r := x.rfRel.union(x.dep)
	if c := r.cycle(); c != nil {
		return &Violation{Axiom: AxiomNoThinAir, Events: c, Detail: x.describeCycle(c, "reads-from or dependency")}
	}
	return nil
}

// scPerLocationAxiom: "Within any set of overlapping memory operations that
// are pairwise morally strong, communication order cannot contradict
// program order, i.e., a concatenation of program order between
// overlapping operations and morally strong relations in communication
// order cannot result in a cycle."
func (x *exec) scPerLocationAxiom() *Violation {
	com := x.rfRel.union(x.co).union(x.fr).inter(x.ms)
	r := com.union(x.poLoc)
	if c := r.cycle(); c != nil {
		return &Violation{Axiom: AxiomSCPerLoc, Events: c, Detail: x.describeCycle(c, "program order or communication order")}
	}
	return nil
}

// causalityAxiom: "If a read R precedes an overlapping write W in
// causality order, then R cannot read from W. If a write W precedes an
// overlapping read R in causality order, then for any byte accessed by
// both R and W, R cannot read from any write W' that precedes W in
// coherence order": (rf | fr); cause is irreflexive.
func (x *exec) causalityAxiom() *Violation {
	for rd, w := range x.rf {
		if w < 0 {
			continue
		}
		if x.cause.has(rd, w) {
			return &Violation{Axiom: AxiomCausality, Events: []int{w, rd},
				Detail: x.describe(rd) + " reads from " + x.describe(w) + ", which it precedes in causality order"}
		}
		later := -1
		x.fr[rd].each(func(w2 int) {
			if later < 0 && x.cause.has(w2, rd) {
				later = w2
			}
		})
		if later >= 0 {
			return &Violation{Axiom: AxiomCausality, Events: []int{w, later, rd},
				Detail: x.describe(rd) + " reads from " + x.describe(w) + ", which precedes " + x.describe(later) +
					" in coherence order, although " + x.describe(later) + " precedes the read in causality order"}
		}
	}
	return nil
}

func firstOf(s set) int {
	first := -1
	s.each(func(e int) {
		if first < 0 {
			first = e
		}
	})
	return first
}

func equalRel(a, b rel) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
