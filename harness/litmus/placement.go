// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"fmt"
	"slices"
	"strings"
)

// Unit is where a thread runs or a location lives: the placement's first
// GPU (A), its second (B), its third (C), or the host.
type Unit int

// Units.
const (
	UnitHost Unit = -1
	UnitA    Unit = 0
	UnitB    Unit = 1
	UnitC    Unit = 2
)

// PlaceKind is the kind of a placement.
type PlaceKind int

// Placement kinds.
const (
	CTAs      PlaceKind = iota // all threads on GPU A, in different CTAs
	WithHost                   // some threads on GPU A, some on host threads
	TwoGPUs                    // threads on GPU A and GPU B, over peer memory
	ThreeGPUs                  // threads on GPUs A, B and C, over peer memory
)

// Placement says where each thread of a test runs and where each location
// lives.
type Placement struct {
	Kind  PlaceKind
	Roles []Unit // per thread
	Homes []Unit // per location
	// Groups puts the threads of a CTAs placement in CTAs: threads of one
	// group share a CTA, on different warps. Nil: every thread in a CTA of
	// its own.
	Groups Grouping
}

// Placements lists the placements a test runs in, for kind.
func (t *Test) Placements(kind PlaceKind) []Placement {
	n := len(t.Threads)
	switch {
	case kind == CTAs && t.Where&InCTAs != 0:
		return []Placement{{Kind: CTAs, Roles: units(n, UnitA), Homes: units(len(t.Locs), UnitA)}}
	case kind == WithHost && t.Where&InHost != 0:
		var out []Placement
		for _, pat := range t.Host {
			roles := make([]Unit, n)
			for i, c := range pat {
				roles[i] = map[rune]Unit{'G': UnitA, 'H': UnitHost}[c]
			}
			out = append(out, Placement{Kind: WithHost, Roles: roles, Homes: t.homes(roles)})
		}
		return out
	case kind == TwoGPUs && t.Where&InPair != 0 && n == 2:
		roles := []Unit{UnitA, UnitB}
		out := []Placement{{Kind: TwoGPUs, Roles: roles, Homes: units(len(t.Locs), UnitA)}}
		if !t.Symmetric {
			out = append(out, Placement{Kind: TwoGPUs, Roles: roles, Homes: units(len(t.Locs), UnitB)})
		}
		return append(out, crossHomed(roles, len(t.Locs))...)
	case kind == TwoGPUs && t.Where&InPair != 0 && n == 3:
		var out []Placement
		for _, roles := range [][]Unit{{UnitA, UnitB, UnitA}, {UnitA, UnitB, UnitB}, {UnitA, UnitA, UnitB}} {
			pl := Placement{Kind: TwoGPUs, Roles: roles, Homes: t.homes(roles)}
			out = append(out, pl)
			if split, ok := pl.split(); ok {
				out = append(out, split)
			}
		}
		return out
	case kind == ThreeGPUs && t.Where&InTriple != 0:
		return t.triplePlacements()
	}
	return nil
}

// triplePlacements are a test's placements on three GPUs, every location
// with the first thread that writes it. A three-thread test (WRC, ISA2)
// runs each thread on its own GPU, so each hop of the chain crosses a
// link: T0 on A, T1 on B, T2 on C. IRIW has four threads for three GPUs:
// the writers run on A (x) and B (y), and one reader runs on C, away from
// both writers, while the other shares a GPU with a writer, in other
// CTAs. Both ways are run: the reader of y then x (T3) beside y's writer
// on B, and the reader of x then y (T2) beside x's writer on A. A reader
// beside a writer sees that writer's store early and the other late, the
// order the far reader must not see reversed; four GPUs would put every
// agent on its own GPU, which three cannot.
func (t *Test) triplePlacements() []Placement {
	var all [][]Unit
	switch len(t.Threads) {
	case 3:
		all = [][]Unit{{UnitA, UnitB, UnitC}}
	case 4:
		all = [][]Unit{{UnitA, UnitB, UnitC, UnitB}, {UnitA, UnitB, UnitA, UnitC}}
	}
	var out []Placement
	for _, roles := range all {
		out = append(out, Placement{Kind: ThreeGPUs, Roles: roles, Homes: t.homes(roles)})
	}
	return out
}

// crossHomed lists the placements of a two-thread test on a pair with its
// locations split between the GPUs: the first location in A's memory and
// the others in B's, and the reverse. With every location on one GPU only
// the other GPU's accesses cross the link; split, each thread stores across
// the link in one of them and loads across it in the other, also in the
// symmetric shapes (SB, LB), whose reverse pair only swaps the GPUs' roles.
func crossHomed(roles []Unit, locs int) []Placement {
	if locs < 2 {
		return nil
	}
	var out []Placement
	for _, first := range []Unit{UnitA, UnitB} {
		homes := units(locs, other(first))
		homes[0] = first
		out = append(out, Placement{Kind: TwoGPUs, Roles: roles, Homes: homes})
	}
	return out
}

// split is, for a placement with every location on one GPU, the same
// placement with the last location (the flag the last hop publishes) in the
// other GPU's memory, so the locations are split between the GPUs as in
// the other three-thread placements; ok is false where they already are.
func (p Placement) split() (Placement, bool) {
	if len(p.Homes) < 2 || p.Homes[0] == UnitHost {
		return p, false
	}
	for _, u := range p.Homes {
		if u != p.Homes[0] {
			return p, false
		}
	}
	homes := slices.Clone(p.Homes)
	homes[len(homes)-1] = other(homes[0])
	return Placement{Kind: p.Kind, Roles: p.Roles, Homes: homes}, true
}

// other is the pair's other GPU (the host stays the host).
func other(u Unit) Unit {
	switch u {
	case UnitA:
		return UnitB
	case UnitB:
		return UnitA
	}
	return u
}

func units(n int, u Unit) []Unit {
	out := make([]Unit, n)
	for i := range out {
		out[i] = u
	}
	return out
}

// homes puts a location the host touches in pinned host memory (the host
// cannot reach device memory) and any other location with the first thread
// that writes it (reads of the writer's memory showed weak outcomes most
// often on the H200s).
func (t *Test) homes(roles []Unit) []Unit {
	out := make([]Unit, len(t.Locs))
	for l := range t.Locs {
		out[l] = UnitHost
		first := -1
		host := false
		for i, th := range t.Threads {
			for _, op := range th {
				if op.Kind == Fence || op.Loc != l {
					continue
				}
				host = host || roles[i] == UnitHost
				if first < 0 && (op.Kind == Store || op.Kind == RMW) {
					first = i
				}
			}
		}
		switch {
		case host:
		case first >= 0:
			out[l] = roles[first]
		default:
			out[l] = roles[0]
		}
	}
	return out
}

func touches(th []Op, loc int) bool {
	for _, op := range th {
		if op.Kind != Fence && op.Loc == loc {
			return true
		}
	}
	return false
}

// Describe names the placement for spec texts: gpus are the names of GPUs
// A, B and C, as far as the placement uses them.
func (p Placement) Describe(t *Test, gpus ...string) string {
	name := func(u Unit) string {
		if u >= 0 && int(u) < len(gpus) {
			return gpus[u]
		}
		if u >= 0 {
			return fmt.Sprintf("GPU %c", 'A'+rune(u))
		}
		return "the host"
	}
	if p.Kind == CTAs {
		if shares := p.Groups.shared(); shares != "" {
			return fmt.Sprintf("between CTAs of %s, grouped %s (%s)", name(UnitA), p.Groups.Key(), shares)
		}
		return "between CTAs of " + name(UnitA)
	}
	var roles []string
	for i, u := range p.Roles {
		roles = append(roles, fmt.Sprintf("T%d on %s", i, name(u)))
	}
	byHome := map[Unit][]string{}
	var order []Unit
	for l, u := range p.Homes {
		if _, ok := byHome[u]; !ok {
			order = append(order, u)
		}
		byHome[u] = append(byHome[u], t.Locs[l])
	}
	var homes []string
	for _, u := range order {
		where := name(u) + "'s memory"
		if u == UnitHost {
			where = "pinned host memory"
		}
		homes = append(homes, strings.Join(byHome[u], ",")+" in "+where)
	}
	return "with " + strings.Join(roles, ", ") + " and " + strings.Join(homes, ", ")
}

// HostRMW reports whether a read-modify-write touches a location in host
// memory: atomic only where the GPU's host atomics are native.
func (p Placement) HostRMW(t *Test) bool {
	for _, th := range t.Threads {
		for _, op := range th {
			if op.Kind == RMW && p.Homes[op.Loc] == UnitHost {
				return true
			}
		}
	}
	return false
}

// PeerRMW reports whether a GPU applies a read-modify-write to another
// GPU's memory: atomic only where the pair's atomics are native.
func (p Placement) PeerRMW(t *Test) bool {
	for i, th := range t.Threads {
		for _, op := range th {
			if op.Kind == RMW && p.Homes[op.Loc] != UnitHost && p.Homes[op.Loc] != p.Roles[i] {
				return true
			}
		}
	}
	return false
}

// rolesOn lists the threads that run on unit u.
func (p Placement) rolesOn(u Unit) []int {
	var out []int
	for i, r := range p.Roles {
		if r == u {
			out = append(out, i)
		}
	}
	return out
}

// opText renders an operation as PTX-like text for messages.
func opText(op Op, t *Test) string {
	loc := ""
	if op.Kind != Fence {
		loc = " " + t.Locs[op.Loc]
	}
	return strings.TrimSpace(strings.Fields(instruction(op))[0]) + loc
}
