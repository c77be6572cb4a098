// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"fmt"
	"strings"

	"github.com/p2pconf/p2pconf/kernels"
)

// A Shape is a litmus family as data, the way the field's generators write
// one: the threads' accesses, whose memory orders are slots a variant
// fills, the points where a variant may put a fence, and the outcome the
// family is about. A generated test is a shape with a variant, an access
// scope and a fence scope (Shape.Test); where its threads run is its
// placement, CTA groupings included (Grouping).
type Shape struct {
	Family   string // the field's name, as a key word: "wrc", "wrw-2w"
	Locs     []string
	Threads  [][]Step
	Finals   []int
	Target   map[string]uint32
	Variants []ShapeVariant
	// Kernel is the cuda-litmus kernel of a shape from its table ("wrw+2w").
	Kernel string
	Source string
}

// Step is one access of a shape's thread, or a fence point.
type Step struct {
	Kind OpKind // Load, Store, RMW or Fence (a fence point: only where the variant puts one)
	Loc  int
	Val  uint32         // Store, RMW's operand
	Reg  int            // Load, RMW (NoReg: none)
	Atom kernels.AtomOp // RMW
	// Slot names the access's memory order in a variant ("t1.load"), or
	// the fence point ("f1"); an access without a slot is relaxed.
	Slot string
}

// Order is the memory order a variant gives an access, as C++ and
// cuda::atomic write it; Shape.Test maps it to PTX with the ABI of the
// PTX ISA ("Atomics Application Binary Interface"): a seq_cst load is
// fence.sc then ld.acquire, a seq_cst store fence.sc then st.relaxed.
type Order int

// Memory orders.
const (
	Relaxed Order = iota
	Acquire
	Release
	SeqCst
)

// ShapeVariant is one of a shape's variants: the orders of its slots and
// the fences it puts at fence points.
type ShapeVariant struct {
	Name   string           // the field's name: "THREAD_1_FENCE", "RELAXED"
	Orders map[string]Order // by slot; missing slots are relaxed
	Fences map[string]kernels.Sem
}

// Key is the variant's key word: "thread-1-fence".
func (v ShapeVariant) Key() string {
	return strings.ReplaceAll(strings.ToLower(v.Name), "_", "-")
}

// HasFences reports whether the variant puts any fence.
func (v ShapeVariant) HasFences() bool { return len(v.Fences) > 0 }

// Variant returns the shape's variant with the given name.
func (s *Shape) Variant(name string) (ShapeVariant, bool) {
	for _, v := range s.Variants {
		if v.Name == name {
			return v, true
		}
	}
	return ShapeVariant{}, false
}

// Generated says what a generated test was made of.
type Generated struct {
	Shape      *Shape
	Variant    ShapeVariant
	Scope      kernels.Scope // of every access
	FenceScope kernels.Scope // of every fence (when the variant has fences)
}

// Key is the test's part of a case key: "scope-cta.fence-gpu.thread-1-fence",
// "scope-gpu.relaxed".
func (g *Generated) Key() string {
	parts := []string{"scope-" + g.Scope.String()}
	if g.Variant.HasFences() {
		parts = append(parts, "fence-"+g.FenceScope.String())
	}
	return strings.Join(append(parts, g.Variant.Key()), ".")
}

// Test generates the shape's test for a variant, an access scope and a
// fence scope.
func (s *Shape) Test(v ShapeVariant, scope, fenceScope kernels.Scope) *Test {
	g := &Generated{Shape: s, Variant: v, Scope: scope, FenceScope: fenceScope}
	t := &Test{Family: s.Family, Variant: g.Key(), Locs: s.Locs, Finals: s.Finals, Target: s.Target,
		Where: InCTAs, Source: s.Source, Generated: g}
	for _, th := range s.Threads {
		var ops []Op
		for _, st := range th {
			if st.Kind == Fence {
				if sem, ok := v.Fences[st.Slot]; ok {
					ops = append(ops, fence(acc{sem, fenceScope}))
				}
				continue
			}
			order := v.Orders[st.Slot]
			if order == SeqCst {
				ops = append(ops, fence(acc{kernels.SC, scope}))
			}
			switch st.Kind {
			case Load:
				sem := kernels.Relaxed
				if order == Acquire || order == SeqCst {
					sem = kernels.Acquire
				}
				ops = append(ops, ld(st.Loc, st.Reg, acc{sem, scope}))
			case Store:
				sem := kernels.Relaxed
				if order == Release {
					sem = kernels.Release
				}
				ops = append(ops, Op{Kind: Store, Loc: st.Loc, Val: st.Val, Sem: sem, Scope: scope, Reg: NoReg, Src: NoReg})
			case RMW:
				sem := map[Order]kernels.Sem{Relaxed: kernels.Relaxed, Acquire: kernels.Acquire, Release: kernels.Release, SeqCst: kernels.Acquire}[order]
				ops = append(ops, rmw(st.Atom, st.Loc, st.Val, st.Reg, acc{sem, scope}))
			}
		}
		t.Threads = append(t.Threads, ops)
	}
	return t
}

// Grouping places a shape's threads in CTAs of one GPU: Groups[i] is the
// CTA group of thread i; threads of one group share a CTA (on different
// warps), groups are different CTAs.
type Grouping []int

// ParseGrouping reads the field's notation: "TB_01_2" is threads 0 and 1 in
// one CTA and thread 2 in another, for a test of n threads.
func ParseGrouping(s string, n int) (Grouping, error) {
	body, ok := strings.CutPrefix(s, "TB_")
	if !ok {
		return nil, fmt.Errorf("grouping %q: expected TB_ and groups of thread digits", s)
	}
	g := make(Grouping, n)
	seen := 0
	for i := range g {
		g[i] = -1
	}
	for gi, group := range strings.Split(body, "_") {
		if group == "" {
			return nil, fmt.Errorf("grouping %q: an empty group", s)
		}
		for _, c := range group {
			t := int(c - '0')
			if t < 0 || t >= n || g[t] >= 0 {
				return nil, fmt.Errorf("grouping %q: thread %c is out of range or in two groups", s, c)
			}
			g[t] = gi
			seen++
		}
	}
	if seen != n {
		return nil, fmt.Errorf("grouping %q: %d of %d threads placed", s, seen, n)
	}
	return g.canonical(), nil
}

// canonical renumbers groups in the order of their first thread.
func (g Grouping) canonical() Grouping {
	ids := map[int]int{}
	out := make(Grouping, len(g))
	for i, x := range g {
		if _, ok := ids[x]; !ok {
			ids[x] = len(ids)
		}
		out[i] = ids[x]
	}
	return out
}

// shared names the threads that share a CTA, "T0 and T1 in one CTA, on
// different warps", or "" when every thread has a CTA of its own.
func (g Grouping) shared() string {
	groups := map[int][]string{}
	var order []int
	for t, x := range g {
		if _, ok := groups[x]; !ok {
			order = append(order, x)
		}
		groups[x] = append(groups[x], fmt.Sprintf("T%d", t))
	}
	var parts []string
	for _, x := range order {
		if ts := groups[x]; len(ts) > 1 {
			parts = append(parts, strings.Join(ts[:len(ts)-1], ", ")+" and "+ts[len(ts)-1]+" in one CTA")
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ") + ", on different warps"
}

// Key is "tb-01-2": the groups in the order of their first thread.
func (g Grouping) Key() string {
	groups := map[int][]byte{}
	var order []int
	for t, x := range g {
		if _, ok := groups[x]; !ok {
			order = append(order, x)
		}
		groups[x] = append(groups[x], byte('0'+t))
	}
	parts := []string{"tb"}
	for _, x := range order {
		parts = append(parts, string(groups[x]))
	}
	return strings.Join(parts, "-")
}

// Shared reports whether some CTA holds more than one thread.
func (g Grouping) Shared() bool {
	seen := map[int]bool{}
	for _, x := range g {
		if seen[x] {
			return true
		}
		seen[x] = true
	}
	return false
}

// AllGroupings lists every way to place n threads in CTAs: the set
// partitions of the threads (5 for three threads, 15 for four).
func AllGroupings(n int) []Grouping {
	var out []Grouping
	var walk func(i int, g Grouping, groups int)
	walk = func(i int, g Grouping, groups int) {
		if i == n {
			out = append(out, append(Grouping(nil), g...))
			return
		}
		for x := 0; x <= groups; x++ {
			g[i] = x
			next := groups
			if x == groups {
				next++
			}
			walk(i+1, g, next)
		}
	}
	walk(0, make(Grouping, n), 0)
	return out
}
