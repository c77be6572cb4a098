// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package machine

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/p2pconf/p2pconf/harness/checks"
)

// Triple is three GPUs of the run in role order (A, B, C), with the pairs
// between them: the placements that need three agents on three GPUs (IRIW,
// WRC and ISA2 with every hop on another GPU) run on triples.
type Triple struct {
	A, B, C GPU
	// AB, BC and AC are the ordered pairs A→B, B→C and A→C, for their
	// links and claims.
	AB, BC, AC Pair
}

// ID is "0-1-2", as in the triple: label.
func (t Triple) ID() string {
	return checks.TripleID(int(t.A.Ordinal), int(t.B.Ordinal), int(t.C.Ordinal))
}

// String is "GPU0→GPU1→GPU2".
func (t Triple) String() string { return t.A.String() + "→" + t.B.String() + "→" + t.C.String() }

// GPUs are A, B and C.
func (t Triple) GPUs() []GPU { return []GPU{t.A, t.B, t.C} }

// Pairs are the six ordered pairs among the three GPUs, each direction of
// A–B, B–C and A–C.
func (t Triple) Pairs() []Pair {
	return []Pair{t.AB, t.AB.Reverse(), t.BC, t.BC.Reverse(), t.AC, t.AC.Reverse()}
}

// Link is the triple's link: label: the link of its three pairs when they
// agree, otherwise the least capable of them (none, then pcie, then
// unknown, then nvlink), so that link:pcie selects every triple with a
// PCIe hop.
func (t Triple) Link() string {
	rank := map[string]int{"none": 0, "pcie": 1, "unknown": 2, "nvlink": 3}
	best := t.AB.Link
	for _, l := range []string{t.BC.Link, t.AC.Link} {
		if r, ok := rank[l]; ok && r < rank[best] {
			best = l
		}
	}
	if _, ok := rank[best]; !ok {
		return "unknown"
	}
	return best
}

// LinkClass is what a pair's link is for the triple selection: the link
// and how many atomic operations are native across it, "nvlink/native",
// "nvlink/partial", "pcie/none" (the classes of the fake presets nvlink8
// and mixed), "?" where the driver did not say.
func LinkClass(p Pair) string {
	atomics := "?"
	switch c := p.Claims.CUDA; {
	case c.PartialNativeAtomic != nil && *c.PartialNativeAtomic == 1:
		atomics = "partial"
	case c.NativeAtomicSupported != nil && *c.NativeAtomicSupported == 1:
		atomics = "native"
	case c.NativeAtomicSupported != nil:
		atomics = "none"
	}
	return p.Link + "/" + atomics
}

// ParseTriples reads P2PCONF_TRIPLES ("0-1-2,0-2-3") into triples of
// gpus, roles in the order written.
func ParseTriples(s string, gpus []GPU, pair func(a, b GPU) Pair) ([]Triple, error) {
	byOrdinal := map[int]GPU{}
	for _, g := range gpus {
		byOrdinal[int(g.Ordinal)] = g
	}
	var out []Triple
	seen := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		v, ok := checks.ParseTripleID(f)
		if !ok {
			return nil, fmt.Errorf("%s=%q: %q is not three different GPU ordinals joined by -, such as 0-1-2", EnvTriples, s, f)
		}
		var t [3]GPU
		for i, o := range v {
			g, ok := byOrdinal[o]
			if !ok {
				return nil, fmt.Errorf("%s=%q: the machine has no GPU%d", EnvTriples, s, o)
			}
			t[i] = g
		}
		if seen[f] {
			return nil, fmt.Errorf("%s=%q: %q is named twice; name each triple once", EnvTriples, s, f)
		}
		seen[f] = true
		out = append(out, Triple{A: t[0], B: t[1], C: t[2], AB: pair(t[0], t[1]), BC: pair(t[1], t[2]), AC: pair(t[0], t[2])})
	}
	return out, nil
}

// SelectTriples chooses triples so that every GPU appears in one and every
// link class (LinkClass) and every shape (the classes of a triple's three
// links, as a multiset) that the GPUs' pairs show is covered, without
// running all n³ ordered triples: greedily, the unordered triple that
// covers the most GPUs, classes and shapes not yet covered, the first in
// ordinal order on a tie, until nothing is left to cover. Each triple's
// roles follow the ordinals (A < B < C), so a rerun on exactly its three
// GPUs (P2PCONF_GPUS=A,B,C) selects it again. Eight GPUs of one class give
// three triples (0-1-2, 3-4-5, 0-6-7); the four of the mixed preset (one
// NVLink pair with native atomics, one with partial ones, PCIe between the
// others) give 0-1-2 and 0-2-3. Fewer than three GPUs give none.
func SelectTriples(gpus []GPU, pair func(a, b GPU) Pair) []Triple {
	gpus = slices.Clone(gpus)
	sort.Slice(gpus, func(i, j int) bool { return gpus[i].Ordinal < gpus[j].Ordinal })
	type candidate struct {
		t      Triple
		shape  string
		covers []string
	}
	var cands []candidate
	for i := range gpus {
		for j := i + 1; j < len(gpus); j++ {
			for k := j + 1; k < len(gpus); k++ {
				t := Triple{A: gpus[i], B: gpus[j], C: gpus[k]}
				t.AB, t.BC, t.AC = pair(t.A, t.B), pair(t.B, t.C), pair(t.A, t.C)
				classes := []string{LinkClass(t.AB), LinkClass(t.BC), LinkClass(t.AC)}
				sorted := slices.Clone(classes)
				sort.Strings(sorted)
				c := candidate{t: t, shape: strings.Join(sorted, "+")}
				for _, g := range t.GPUs() {
					c.covers = append(c.covers, "gpu "+g.String())
				}
				for _, cl := range classes {
					c.covers = append(c.covers, "class "+cl)
				}
				c.covers = append(c.covers, "shape "+c.shape)
				cands = append(cands, c)
			}
		}
	}
	covered := map[string]bool{}
	var out []Triple
	for {
		best, gain := -1, 0
		for i, c := range cands {
			n := 0
			seen := map[string]bool{}
			for _, what := range c.covers {
				if !covered[what] && !seen[what] {
					n++
				}
				seen[what] = true
			}
			if n > gain {
				best, gain = i, n
			}
		}
		if best < 0 {
			return out
		}
		for _, what := range cands[best].covers {
			covered[what] = true
		}
		out = append(out, cands[best].t)
	}
}
