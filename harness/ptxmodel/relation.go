// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package ptxmodel

import "math/bits"

// maxEvents bounds the events of one candidate execution: a relation is a
// row of 64 bits per event. Litmus programs have a few dozen at most.
const maxEvents = 64

// set is a set of events, one bit per event index.
type set uint64

func (s set) has(e int) bool { return s&(1<<uint(e)) != 0 }

// each calls f for every member, in index order.
func (s set) each(f func(e int)) {
	for s != 0 {
		e := bits.TrailingZeros64(uint64(s))
		f(e)
		s &^= 1 << uint(e)
	}
}

// rel is a binary relation over the events of one candidate execution, as
// .cat files write them: rows of successors.
type rel []set

func newRel(n int) rel { return make(rel, n) }

func (r rel) has(a, b int) bool { return r[a].has(b) }
func (r rel) add(a, b int)      { r[a] |= 1 << uint(b) }

func (r rel) clone() rel { return append(rel(nil), r...) }

// withEdge is the transitive closure of r plus a→b, for a transitively
// closed r: every event that reaches a (and a) now reaches b and all b
// reaches.
func (r rel) withEdge(a, b int) rel {
	out := r.clone()
	to := r[b] | 1<<uint(b)
	for p := range out {
		if p == a || out[p].has(a) {
			out[p] |= to
		}
	}
	return out
}

// union is r | o.
func (r rel) union(o rel) rel {
	out := r.clone()
	for i := range out {
		out[i] |= o[i]
	}
	return out
}

// inter is r & o.
func (r rel) inter(o rel) rel {
	out := r.clone()
	for i := range out {
		out[i] &= o[i]
	}
	return out
}

// minus is r \ o.
func (r rel) minus(o rel) rel {
	out := r.clone()
	for i := range out {
		out[i] &^= o[i]
	}
	return out
}

// seq is the composition r;o.
func (r rel) seq(o rel) rel {
	out := newRel(len(r))
	for a := range r {
		r[a].each(func(b int) { out[a] |= o[b] })
	}
	return out
}

// inverse is r^-1.
func (r rel) inverse() rel {
	out := newRel(len(r))
	for a := range r {
		r[a].each(func(b int) { out.add(b, a) })
	}
	return out
}

// plus is the transitive closure r+.
func (r rel) plus() rel {
	out := r.clone()
	for k := range out {
		for i := range out {
			if out[i].has(k) {
				out[i] |= out[k]
			}
		}
	}
	return out
}

// restrict is [from]; r; [to].
func (r rel) restrict(from, to set) rel {
	out := newRel(len(r))
	for a := range r {
		if from.has(a) {
			out[a] = r[a] & to
		}
	}
	return out
}

// cycle returns a cycle of r as a list of events (first repeated last), or
// nil: the explanation of a violated acyclicity axiom.
func (r rel) cycle() []int {
	closure := r.plus()
	for start := range r {
		if !closure[start].has(start) {
			continue
		}
		// breadth-first search from start back to start along r
		prev := make([]int, len(r))
		for i := range prev {
			prev[i] = -1
		}
		queue := []int{start}
		seen := set(0)
		for len(queue) > 0 {
			a := queue[0]
			queue = queue[1:]
			found := -1
			r[a].each(func(b int) {
				if found >= 0 || seen.has(b) {
					return
				}
				seen |= 1 << uint(b)
				prev[b] = a
				if b == start {
					found = b
					return
				}
				queue = append(queue, b)
			})
			if found >= 0 {
				path := []int{start}
				for at := prev[start]; at != start; at = prev[at] {
					path = append([]int{at}, path...)
				}
				return append([]int{start}, path...)
			}
		}
	}
	return nil
}
