// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package ptxmodel

import (
	"fmt"

	"github.com/p2pconf/p2pconf/kernels"
)

// evKind is what an event does to memory.
type evKind int

const (
	evRead evKind = iota
	evWrite
	evFence
)

// event is one event of a candidate execution. A load is a read, a store a
// write, an RMW a read and (unless a CAS fails) a write, a fence a fence;
// every location has an initial write (thread -1) that precedes every
// thread's events. Local register operations are no events.
type event struct {
	thread int // -1 for an initial write
	op     int // index of the operation in its thread
	kind   evKind
	loc    int
	size   int
	scope  kernels.Scope
	strong bool
	// acquire: an acquire read, or a fence with acquire semantics (.acquire,
	// .acq_rel, .sc); release: a release write, or a fence with release
	// semantics.
	acquire, release bool
	sc               bool // fence.sc
	reduction        bool // the read of a red: never part of an acquire pattern
	pair             int  // the other half of an RMW, or -1
	order            int  // position in program order: 2·op, the RMW's write 2·op+1
}

func (e event) memory() bool { return e.kind != evFence }

// events expands the program into events for one choice of which CAS
// operations succeed (casWrites[t][op]; a CAS that fails is a read only).
// It returns the events, then the index of each location's initial write.
func (p *Program) events(casWrites map[[2]int]bool) []event {
	var out []event
	for l := range p.Locs {
		out = append(out, event{thread: -1, op: -1, kind: evWrite, loc: l, size: 4, scope: kernels.Sys, strong: true, pair: -1, order: -1})
	}
	for ti, th := range p.Threads {
		for oi, op := range th.Ops {
			base := event{thread: ti, op: oi, loc: op.Loc, size: op.size(), scope: op.Scope, strong: op.strong(), pair: -1, order: 2 * oi}
			if op.Sem == kernels.Weak {
				base.scope = kernels.CTA // unused: weak operations are in no one's scope
			}
			switch op.Kind {
			case Load:
				e := base
				e.kind, e.acquire = evRead, op.Sem == kernels.Acquire
				out = append(out, e)
			case Store:
				e := base
				e.kind, e.release = evWrite, op.Sem == kernels.Release
				out = append(out, e)
			case RMW:
				r := base
				r.kind = evRead
				r.acquire = !op.Reduction && (op.Sem == kernels.Acquire || op.Sem == kernels.AcqRel)
				r.reduction = op.Reduction
				if op.Atom == kernels.OpCAS && !casWrites[[2]int{ti, oi}] {
					out = append(out, r)
					continue
				}
				w := base
				w.kind, w.order = evWrite, 2*oi+1
				w.release = op.Sem == kernels.Release || op.Sem == kernels.AcqRel
				r.pair, w.pair = len(out)+1, len(out)
				out = append(out, r, w)
			case Fence:
				e := base
				e.kind, e.loc, e.size = evFence, -1, 0
				e.sc = op.Sem == kernels.SC
				e.acquire = op.Sem == kernels.SC || op.Sem == kernels.AcqRel || op.Sem == kernels.Acquire
				e.release = op.Sem == kernels.SC || op.Sem == kernels.AcqRel || op.Sem == kernels.Release
				out = append(out, e)
			}
		}
	}
	if len(out) > maxEvents {
		panic(fmt.Sprintf("ptxmodel: %s has %d events (at most %d)", p.Name, len(out), maxEvents))
	}
	return out
}

// casOps lists the (thread, op) of every CAS, whose success is chosen per
// candidate.
func (p *Program) casOps() [][2]int {
	var out [][2]int
	for ti, th := range p.Threads {
		for oi, op := range th.Ops {
			if op.Kind == RMW && op.Atom == kernels.OpCAS {
				out = append(out, [2]int{ti, oi})
			}
		}
	}
	return out
}
