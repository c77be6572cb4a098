// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	_ "embed"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

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
//     scope is the system's) in which no two host threads share a location
//     one of them writes (hostThreadsShare).
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
// each access scope and, for a variant with fences, each fence scope (the
// paper examples' fences only at .sys, as in the table).
func (s *Shape) tests(scopes []kernels.Scope) []*Test {
	var out []*Test
	for _, v := range s.Variants {
		for _, sc := range scopes {
			if !v.HasFences() {
				out = append(out, s.Generate(v, sc, sc))
				continue
			}
			fenceScopes := scopes
			if strings.HasPrefix(s.Family, "paper-") {
				// the table's paper examples fence at the kernels'
				// default scope, .sys, and nowhere else
				fenceScopes = []kernels.Scope{kernels.Sys}
			}
			for _, fs := range fenceScopes {
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
			if hostThreadsShare(t, mask) {
				continue
			}
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

// hostThreadsShare reports whether two of the threads in mask, played by
// the host, touch a location one of them writes. The host party plays an
// instance's host roles one after another in one goroutine, so two such
// threads never run at the same time: the reader of a later role's store
// never sees it, and the test is vacuous, not a test of the host.
func hostThreadsShare(t *Test, mask int) bool {
	for i := range t.Threads {
		for j := range t.Threads {
			if i == j || mask&(1<<i) == 0 || mask&(1<<j) == 0 {
				continue
			}
			for _, op := range t.Threads[i] {
				if op.Kind != Fence && op.Kind != Load && touches(t.Threads[j], op.Loc) {
					return true
				}
			}
		}
	}
	return false
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

// spaceItem is one generated test in one placement, not yet judged: the
// model judges only the items a run keeps.
type spaceItem struct {
	t  *Test
	pl Placement
}

var spaceItemLists sync.Map // PlaceKind → [][]spaceItem, one list per shape

// spaceItems lists a kind's generated tests and placements, per shape in
// SpaceShapes order.
func spaceItems(kind PlaceKind) [][]spaceItem {
	if v, ok := spaceItemLists.Load(kind); ok {
		return v.([][]spaceItem)
	}
	var out [][]spaceItem
	for _, s := range SpaceShapes() {
		var items []spaceItem
		for _, t := range s.tests(spaceScopes(kind)) {
			for _, pl := range s.spacePlacements(t, kind) {
				items = append(items, spaceItem{t, pl})
			}
		}
		out = append(out, items)
	}
	v, _ := spaceItemLists.LoadOrStore(kind, out)
	return v.([][]spaceItem)
}

// spaceCases judges a kind's generated items that keep says to keep (all
// when keep is nil), mutants first within each shape.
func spaceCases(kind PlaceKind, keep func(spaceItem) bool, mk func(*Test, Placement) Case) []Case {
	var out []Case
	for _, items := range spaceItems(kind) {
		var cases []Case
		for _, it := range items {
			if keep == nil || keep(it) {
				cases = append(cases, mk(it.t, it.pl))
			}
		}
		out = append(out, mutantsFirst(cases)...)
	}
	return out
}

var spaceLists sync.Map // "gpu "+GPU, "pair "+pair, "triple "+triple → []Case

// cachedSpace lists a target's generated space once per process.
func cachedSpace(key string, list func() []Case) []Case {
	if v, ok := spaceLists.Load(key); ok {
		return v.([]Case)
	}
	v, _ := spaceLists.LoadOrStore(key, list())
	return v.([]Case)
}

// The cases of each kind of target, on its GPUs.
func gpuCase(g machine.GPU) func(*Test, Placement) Case {
	return func(t *Test, pl Placement) Case { return newCase(t, pl, g, machine.GPU{}, nil) }
}

func pairCase(p machine.Pair) func(*Test, Placement) Case {
	return func(t *Test, pl Placement) Case { return newCase(t, pl, p.A, p.B, &p) }
}

func tripleCase(tr machine.Triple) func(*Test, Placement) Case {
	return func(t *Test, pl Placement) Case {
		c := newCase(t, pl, tr.A, tr.B, nil)
		c.C, c.Triple = tr.C, &tr
		return c
	}
}

// SpaceGPUCases lists the generated space on one GPU, judged: between CTAs
// in every grouping, and with host threads.
func SpaceGPUCases(g machine.GPU) []Case {
	return cachedSpace(fmt.Sprintf("gpu %+v", g), func() []Case {
		return append(spaceCases(CTAs, nil, gpuCase(g)), spaceCases(WithHost, nil, gpuCase(g))...)
	})
}

// SpacePairCases lists the generated space on an ordered pair, judged.
func SpacePairCases(p machine.Pair) []Case {
	return cachedSpace(fmt.Sprintf("pair %+v", p), func() []Case { return spaceCases(TwoGPUs, nil, pairCase(p)) })
}

// SpaceTripleCases lists the generated space on a triple, judged.
func SpaceTripleCases(tr machine.Triple) []Case {
	return cachedSpace(fmt.Sprintf("triple %+v", tr), func() []Case { return spaceCases(ThreeGPUs, nil, tripleCase(tr)) })
}

// spacedKeys are the keys of the default run's subset of the generated
// space (Spaced), as the model picked them. Picking needs every verdict of
// the space (about 20 s of the model on one core), too slow for every suite
// process, so the list is kept here and TestSpacedSubset holds it to what
// Spaced picks now (go test ./harness/litmus -run TestSpacedSubset -update
// rewrites it).
//
//go:embed space_default.txt
var spacedKeysText string

func spacedKeys() map[string]bool {
	keys := map[string]bool{}
	for _, line := range strings.Split(spacedKeysText, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			keys[line] = true
		}
	}
	return keys
}

// spaceFor lists a kind's generated cases a run of the profile runs: all
// of them under the space profile, else the subset the model picked.
func spaceFor(kind PlaceKind, profile string, mk func(*Test, Placement) Case) []Case {
	if profile == ProfileSpace {
		return spaceCases(kind, nil, mk)
	}
	keys := spacedKeys()
	return spaceCases(kind, func(it spaceItem) bool { return keys[spaceKey(it.t, it.pl)] }, mk)
}

// RunGPUCases lists what a run of the litmus profile runs on one GPU: the
// catalogue's cases, then the generated space's (spaceFor).
func RunGPUCases(g machine.GPU, profile string) []Case {
	return slices.Concat(GPUCases(g), spaceFor(CTAs, profile, gpuCase(g)), spaceFor(WithHost, profile, gpuCase(g)))
}

// RunPairCases is RunGPUCases on an ordered pair.
func RunPairCases(p machine.Pair, profile string) []Case {
	return append(PairCases(p), spaceFor(TwoGPUs, profile, pairCase(p))...)
}

// RunTripleCases is RunGPUCases on a triple.
func RunTripleCases(tr machine.Triple, profile string) []Case {
	return append(TripleCases(tr), spaceFor(ThreeGPUs, profile, tripleCase(tr))...)
}

// spaceSiblings lists the generated forbidden cases mutant c gives power
// to: the same shape in the same placement on the same GPUs. Only those
// few are judged.
func (c Case) spaceSiblings() []Case {
	mk := gpuCase(c.A)
	switch {
	case c.Pair != nil:
		mk = pairCase(*c.Pair)
	case c.Triple != nil:
		mk = tripleCase(*c.Triple)
	}
	place := c.Place.String()
	var out []Case
	for _, items := range spaceItems(c.Place.Kind) {
		for _, it := range items {
			if it.pl.String() != place || !sameShape(it.t, c.Test) {
				continue
			}
			if o := mk(it.t, it.pl); GivesPower(c, o) {
				out = append(out, o)
			}
		}
	}
	return out
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
