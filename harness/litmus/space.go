// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"fmt"
	"sort"
	"strings"

	"github.com/p2pconf/p2pconf/harness/machine"
	"github.com/p2pconf/p2pconf/kernels"
)

// The generated litmus space: every shape (SpaceShapes) with every variant
// and scope, in every placement of its kind:
//
//   - on one GPU, every grouping of its threads into CTAs (threads of one
//     CTA on different warps), at .cta and .gpu scope (the table's BLOCK
//     and DEVICE) — the PLDI 2026 table is the part of this space it
//     lists;
//   - on a pair, every assignment of its threads to the two GPUs, at .gpu
//     and .sys scope, every location with the first thread that writes it;
//   - on a triple, every assignment of its threads to the three GPUs;
//   - with the host, every assignment of its threads to the GPU or host
//     threads (the host's accesses are sequentially consistent, so their
//     scope is the system's).
//
// Every case's verdict is the model's. The default run runs a subset the
// model picks (Spaced); the space profile runs all of it.

// spaceScopes are the access and fence scopes of each kind of placement.
func spaceScopes(kind PlaceKind) []kernels.Scope {
	if kind == CTAs {
		return []kernels.Scope{kernels.CTA, kernels.GPU}
	}
	return []kernels.Scope{kernels.GPU, kernels.Sys}
}

// tests lists the shape's generated tests for the scopes: each variant at
// each access scope and, for a variant with fences, each fence scope.
func (s *Shape) tests(scopes []kernels.Scope) []*Test {
	var out []*Test
	for _, v := range s.Variants {
		for _, sc := range scopes {
			if !v.HasFences() {
				out = append(out, s.Generate(v, sc, sc))
				continue
			}
			for _, fs := range scopes {
				out = append(out, s.Generate(v, sc, fs))
			}
		}
	}
	return out
}

// spacePlacements lists a generated test's placements of a kind.
func (s *Shape) spacePlacements(t *Test, kind PlaceKind) []Placement {
	n := len(t.Threads)
	var out []Placement
	switch kind {
	case CTAs:
		for _, g := range AllGroupings(n) {
			out = append(out, Placement{Kind: CTAs, Roles: units(n, UnitA), Homes: units(len(t.Locs), UnitA), Groups: g})
		}
	case TwoGPUs, ThreeGPUs:
		gpus := 2
		if kind == ThreeGPUs {
			gpus = 3
		}
		if strings.HasPrefix(s.Family, "paper-") || n < gpus {
			return nil
		}
		for _, g := range AllGroupings(n) {
			if groupCount(g) != gpus {
				continue
			}
			roles := make([]Unit, n)
			for i, x := range g {
				roles[i] = Unit(x)
			}
			out = append(out, Placement{Kind: kind, Roles: roles, Homes: t.homes(roles)})
		}
	case WithHost:
		if strings.HasPrefix(s.Family, "paper-") {
			return nil
		}
		for mask := 1; mask < 1<<n-1; mask++ {
			roles := make([]Unit, n)
			for i := range roles {
				roles[i] = UnitA
				if mask&(1<<i) != 0 {
					roles[i] = UnitHost
				}
			}
			out = append(out, Placement{Kind: WithHost, Roles: roles, Homes: t.homes(roles)})
		}
	}
	return out
}

func groupCount(g Grouping) int {
	n := 0
	for _, x := range g {
		n = max(n, x+1)
	}
	return n
}

// spaceKey is a generated case's variant key:
// "wrc.tb-01-2.scope-cta.fence-gpu.thread-1-fence",
// "mp.pair-ab-ab.scope-sys.rel-acq", "sb.host-gh.scope-gpu.relaxed".
func spaceKey(t *Test, p Placement) string {
	units := func(us []Unit) string {
		var b strings.Builder
		for _, u := range us {
			b.WriteByte(map[Unit]byte{UnitA: 'a', UnitB: 'b', UnitC: 'c', UnitHost: 'h'}[u])
		}
		return b.String()
	}
	var where string
	switch p.Kind {
	case CTAs:
		g := p.Groups
		if g == nil {
			g = make(Grouping, len(p.Roles))
			for i := range g {
				g[i] = i
			}
		}
		where = g.Key()
	case WithHost:
		where = "host-" + strings.ReplaceAll(units(p.Roles), "a", "g")
	case TwoGPUs:
		where = "pair-" + units(p.Roles) + "-" + units(p.Homes)
	case ThreeGPUs:
		where = "triple-" + units(p.Roles) + "-" + units(p.Homes)
	}
	return t.Generated.Shape.Family + "." + where + "." + t.Generated.Key()
}

// spaceCases lists the generated space's cases of a kind of placement,
// mutants first within each shape and placement.
func spaceCases(kind PlaceKind, mk func(*Test, Placement) Case) []Case {
	var out []Case
	for _, s := range SpaceShapes() {
		var cases []Case
		for _, t := range s.tests(spaceScopes(kind)) {
			for _, pl := range s.spacePlacements(t, kind) {
				cases = append(cases, mk(t, pl))
			}
		}
		out = append(out, mutantsFirst(cases)...)
	}
	return out
}

// SpaceGPUCases lists the generated space on one GPU: between CTAs in
// every grouping, and with host threads.
func SpaceGPUCases(g machine.GPU) []Case {
	var out []Case
	for _, kind := range []PlaceKind{CTAs, WithHost} {
		out = append(out, spaceCases(kind, func(t *Test, pl Placement) Case { return newCase(t, pl, g, machine.GPU{}, nil) })...)
	}
	return out
}

// SpacePairCases lists the generated space on an ordered pair.
func SpacePairCases(p machine.Pair) []Case {
	return spaceCases(TwoGPUs, func(t *Test, pl Placement) Case { return newCase(t, pl, p.A, p.B, &p) })
}

// SpaceTripleCases lists the generated space on a triple.
func SpaceTripleCases(tr machine.Triple) []Case {
	return spaceCases(ThreeGPUs, func(t *Test, pl Placement) Case {
		c := newCase(t, pl, tr.A, tr.B, nil)
		c.C, c.Triple = tr.C, &tr
		return c
	})
}

// scopeRelation describes how a case's scopes relate to where its threads
// run: for every pair of threads that communicate (access a location both
// touch, or one of them fences), how far apart they are and whether the
// scope of each of their strong operations on that link covers the other.
// Two cases with the same relation and the same verdict test the same
// thing of the hardware's scopes.
func scopeRelation(t *Test, p Placement) string {
	var parts []string
	for i, th := range t.Threads {
		for j := range t.Threads {
			if i == j {
				continue
			}
			dist := placeDistance(p, i, j)
			for _, op := range th {
				if op.Sem == kernels.Weak || op.Kind != Fence && !touches(t.Threads[j], op.Loc) {
					continue
				}
				covered := p.place(i).Host || p.place(i).Includes(op.Scope, p.place(j))
				parts = append(parts, fmt.Sprintf("%s/%v", dist, covered))
			}
		}
	}
	sort.Strings(parts)
	return strings.Join(dedupeSorted(parts), ",")
}

func dedupeSorted(s []string) []string {
	var out []string
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// placeDistance names how far apart threads i and j run.
func placeDistance(p Placement, i, j int) string {
	a, b := p.place(i), p.place(j)
	switch {
	case a.Host || b.Host:
		return "host"
	case a.GPU != b.GPU:
		return "gpus"
	case a.CTA != b.CTA:
		return "ctas"
	}
	return "cta"
}

// Spaced keeps, of a kind's generated cases, the subset the default run
// runs: the first case of each pair of verdict and scope relation
// (scopeRelation), shapes in order, and for each forbidden case kept its shape's
// relaxed variant in the same placement and scopes (the mutant that gives
// it power) where the model allows it.
func Spaced(cases []Case) []Case {
	seen := map[string]bool{}
	keep := map[string]bool{}
	for _, c := range cases {
		sig := c.Verdict.String() + "|" + scopeRelation(c.Test, c.Place)
		if seen[sig] {
			continue
		}
		seen[sig] = true
		keep[c.Key()] = true
		if c.Verdict != Forbidden {
			continue
		}
		g := c.Test.Generated
		if relaxed, ok := g.Shape.Variant("RELAXED"); ok {
			m := g.Shape.Generate(relaxed, g.Scope, g.Scope)
			if v, _ := c.Place.Verdict(m); v == Allowed {
				keep[spaceKey(m, c.Place)] = true
			}
		}
	}
	var out []Case
	for _, c := range cases {
		if keep[c.Key()] {
			out = append(out, c)
		}
	}
	return out
}
