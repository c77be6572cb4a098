// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import "github.com/p2pconf/p2pconf/kernels"

// The shapes of the PLDI 2026 table of cuda-litmus (IRIW, ISA2, RWC, WRC,
// WWC, WRW+2W, 2+2W, 3.2W, Z6.3 and the paper's two examples), with the
// variants its tuning files list, each variant's orders and fences as its
// kernels set them (a fence is atomic_thread_fence(acq_rel) unless the
// kernel makes it seq_cst). Every access is a cuda::atomic of the test's
// scope; every fence has the fence scope.

func ldS(loc, reg int, slot string) Step { return Step{Kind: Load, Loc: loc, Reg: reg, Slot: slot} }
func stS(loc int, v uint32, slot string) Step {
	return Step{Kind: Store, Loc: loc, Val: v, Slot: slot}
}
func fenceAt(slot string) Step { return Step{Kind: Fence, Slot: slot} }

// vr is a variant: orders by slot, then the fence points it fills with
// fence.acq_rel.
func vr(name string, orders map[string]Order, fences ...string) ShapeVariant {
	v := ShapeVariant{Name: name, Orders: orders, Fences: map[string]kernels.Sem{}}
	for _, f := range fences {
		v.Fences[f] = kernels.AcqRel
	}
	return v
}

// withSC makes the named fences of v seq_cst fences.
func withSC(v ShapeVariant, fences ...string) ShapeVariant {
	for _, f := range fences {
		v.Fences[f] = kernels.SC
	}
	return v
}

type orders = map[string]Order

func source(kernel string) string {
	return "cuda-litmus (PLDI 2026 artifact): kernels/" + kernel + ".cu, tuning-files/" + kernel + ".txt"
}

// FieldShapes lists the shapes of the PLDI 2026 table.
func FieldShapes() []*Shape {
	return []*Shape{iriwShape(), isa2Shape(), rwcShape(), wrcShape(), wwcShape(), wrw2wShape(), threeTwoWShape(), twoTwoWShape(), z63Shape(),
		paperExample1Shape(), paperExample2Shape()}
}

// iriwShape: T0 writes x; T1 reads x then y; T2 writes y; T3 reads y then
// x. Weak: the readers see the writes in different orders.
func iriwShape() *Shape {
	return &Shape{Family: "iriw", Locs: []string{"x", "y"},
		Threads: [][]Step{
			{stS(x, 1, "")},
			{ldS(x, 0, "t1"), fenceAt("f1"), ldS(y, 1, "")},
			{stS(y, 1, "")},
			{ldS(y, 2, "t3"), fenceAt("f3"), ldS(x, 3, "")},
		},
		Target: out{"r0": 1, "r1": 0, "r2": 1, "r3": 0},
		Variants: []ShapeVariant{
			vr("RELAXED", nil),
			vr("ACQUIRE", orders{"t1": Acquire, "t3": Acquire}),
			vr("THREAD_1_FENCE", orders{"t3": Acquire}, "f1"),
			vr("THREAD_3_FENCE", orders{"t1": Acquire}, "f3"),
			vr("BOTH_FENCE", nil, "f1", "f3"),
		},
		Kernel: "iriw", Source: source("iriw")}
}

// isa2Shape: T0 writes x, then y; T1 reads y, then writes z; T2 reads z,
// then x. Weak: both flags seen, x stale.
func isa2Shape() *Shape {
	return &Shape{Family: "isa2", Locs: []string{"x", "y", "z"},
		Threads: [][]Step{
			{stS(x, 1, ""), fenceAt("f0"), stS(y, 1, "t0s")},
			{ldS(y, 0, "t1l"), fenceAt("f1"), stS(z, 1, "t1s")},
			{ldS(z, 1, "t2l"), fenceAt("f2"), ldS(x, 2, "")},
		},
		Target: out{"r0": 1, "r1": 1, "r2": 0},
		Variants: []ShapeVariant{
			vr("RELAXED", nil),
			vr("ACQUIRE", orders{"t0s": Release, "t1l": Acquire, "t2l": Acquire}),
			vr("RELEASE", orders{"t0s": Release, "t1s": Release, "t2l": Acquire}),
			vr("ALL_FENCE", nil, "f0", "f1", "f2"),
			vr("THREAD_0_FENCE_ACQ", orders{"t1l": Acquire, "t2l": Acquire}, "f0"),
			vr("THREAD_0_FENCE_REL", orders{"t1s": Release, "t2l": Acquire}, "f0"),
			vr("THREAD_1_FENCE", orders{"t0s": Release, "t2l": Acquire}, "f1"),
			vr("THREAD_2_FENCE_ACQ", orders{"t0s": Release, "t1l": Acquire}, "f2"),
			vr("THREAD_2_FENCE_REL", orders{"t0s": Release, "t1s": Release}, "f2"),
			vr("THREAD_0_1_FENCE", orders{"t2l": Acquire}, "f0", "f1"),
			vr("THREAD_0_2_FENCE_ACQ", orders{"t1l": Acquire}, "f0", "f2"),
			vr("THREAD_0_2_FENCE_REL", orders{"t1s": Release}, "f0", "f2"),
			vr("THREAD_1_2_FENCE", orders{"t0s": Release}, "f1", "f2"),
		},
		Kernel: "isa2", Source: source("isa2")}
}

// rwcShape: T0 writes x; T1 reads x, then y; T2 writes y, then reads x.
// Weak: T1 sees x but not y, T2 does not see x. T2's fence is seq_cst.
func rwcShape() *Shape {
	return &Shape{Family: "rwc", Locs: []string{"x", "y"},
		Threads: [][]Step{
			{stS(x, 1, "")},
			{ldS(x, 0, "t1l"), fenceAt("f1"), ldS(y, 1, "")},
			{stS(y, 1, "t2s"), fenceAt("f2"), ldS(x, 2, "t2l")},
		},
		Target: out{"r0": 1, "r1": 0, "r2": 0},
		Variants: []ShapeVariant{
			vr("RELAXED", nil),
			vr("STORE_SC", orders{"t1l": Acquire, "t2s": SeqCst}),
			vr("LOAD_SC", orders{"t1l": Acquire, "t2l": SeqCst}),
			withSC(vr("BOTH_FENCE", nil, "f1", "f2"), "f2"),
			vr("THREAD_1_FENCE_STORE_SC", orders{"t2s": SeqCst}, "f1"),
			vr("THREAD_1_FENCE_LOAD_SC", orders{"t2l": SeqCst}, "f1"),
			withSC(vr("THREAD_2_FENCE", orders{"t1l": Acquire}, "f2"), "f2"),
		},
		Kernel: "rwc", Source: source("rwc")}
}

// wrcShape: T0 writes x; T1 reads x, then writes y; T2 reads y, then x.
// Weak: T1 saw x, T2 saw y but not x.
func wrcShape() *Shape {
	return &Shape{Family: "wrc", Locs: []string{"x", "y"},
		Threads: [][]Step{
			{stS(x, 1, "")},
			{ldS(x, 0, "t1l"), fenceAt("f1"), stS(y, 1, "t1s")},
			{ldS(y, 1, "t2l"), fenceAt("f2"), ldS(x, 2, "")},
		},
		Target: out{"r0": 1, "r1": 1, "r2": 0},
		Variants: []ShapeVariant{
			vr("RELAXED", nil),
			vr("ACQUIRE", orders{"t1l": Acquire, "t2l": Acquire}),
			vr("RELEASE", orders{"t1s": Release, "t2l": Acquire}),
			vr("BOTH_FENCE", nil, "f1", "f2"),
			vr("THREAD_1_FENCE", orders{"t2l": Acquire}, "f1"),
			vr("THREAD_2_FENCE_ACQ", orders{"t1l": Acquire}, "f2"),
			vr("THREAD_2_FENCE_REL", orders{"t1s": Release}, "f2"),
		},
		Kernel: "wrc", Source: source("wrc")}
}

// wwcShape: T0 writes x=2; T1 reads x, then writes y; T2 reads y, then
// writes x=1. Weak: both reads saw the writes, and x ends 2.
func wwcShape() *Shape {
	return &Shape{Family: "wwc", Locs: []string{"x", "y"},
		Threads: [][]Step{
			{stS(x, 2, "")},
			{ldS(x, 0, "t1l"), fenceAt("f1"), stS(y, 1, "t1s")},
			{ldS(y, 1, "t2l"), fenceAt("f2"), stS(x, 1, "t2s")},
		},
		Finals: []int{x},
		Target: out{"r0": 2, "r1": 1, "x": 2},
		Variants: []ShapeVariant{
			vr("RELAXED", nil),
			vr("ACQ_REL", orders{"t1l": Acquire, "t2s": Release}),
			vr("ACQ_ACQ", orders{"t1l": Acquire, "t2l": Acquire}),
			vr("REL_ACQ", orders{"t1s": Release, "t2l": Acquire}),
			vr("REL_REL", orders{"t1s": Release, "t2s": Release}),
			vr("BOTH_FENCE", nil, "f1", "f2"),
			vr("THREAD_1_FENCE_ACQ", orders{"t2l": Acquire}, "f1"),
			vr("THREAD_1_FENCE_REL", orders{"t2s": Release}, "f1"),
			vr("THREAD_2_FENCE_ACQ", orders{"t1l": Acquire}, "f2"),
			vr("THREAD_2_FENCE_REL", orders{"t1s": Release}, "f2"),
		},
		Kernel: "wwc", Source: source("wwc")}
}

// wrw2wShape: T0 writes x=2; T1 reads x, then writes y=1; T2 writes y=2,
// then x=1. Weak: T1 saw x=2, and x and y end 2.
func wrw2wShape() *Shape {
	return &Shape{Family: "wrw-2w", Locs: []string{"x", "y"},
		Threads: [][]Step{
			{stS(x, 2, "")},
			{ldS(x, 0, "t1l"), fenceAt("f1"), stS(y, 1, "t1s")},
			{stS(y, 2, ""), fenceAt("f2"), stS(x, 1, "t2s")},
		},
		Finals: []int{x, y},
		Target: out{"r0": 2, "x": 2, "y": 2},
		Variants: []ShapeVariant{
			vr("RELAXED", nil),
			vr("ACQUIRE", orders{"t1l": Acquire, "t2s": Release}),
			vr("RELEASE", orders{"t1s": Release, "t2s": Release}),
			vr("BOTH_FENCE", nil, "f1", "f2"),
			vr("THREAD_1_FENCE", orders{"t2s": Release}, "f1"),
			vr("THREAD_2_FENCE_ACQ", orders{"t1l": Acquire}, "f2"),
			vr("THREAD_2_FENCE_REL", orders{"t1s": Release}, "f2"),
		},
		Kernel: "wrw+2w", Source: source("wrw+2w")}
}

// threeTwoWShape: 3.2W, a cycle of three threads each writing two
// locations; weak: every location ends at its first write.
func threeTwoWShape() *Shape {
	return &Shape{Family: "3-2w", Locs: []string{"x", "y", "z"},
		Threads: [][]Step{
			{stS(x, 2, ""), fenceAt("f0"), stS(y, 1, "s0")},
			{stS(y, 2, ""), fenceAt("f1"), stS(z, 1, "s1")},
			{stS(z, 2, ""), fenceAt("f2"), stS(x, 1, "s2")},
		},
		Finals:   []int{x, y, z},
		Target:   out{"x": 2, "y": 2, "z": 2},
		Variants: storeCycleVariants([]string{"s0", "s1", "s2"}, []string{"f0", "f1", "f2"}, "ALL_FENCE"),
		Kernel:   "3.2w", Source: source("3.2w")}
}

// twoTwoWShape: 2+2W; weak: both locations end at their first write.
func twoTwoWShape() *Shape {
	return &Shape{Family: "2-2w", Locs: []string{"x", "y"},
		Threads: [][]Step{
			{stS(x, 1, ""), fenceAt("f0"), stS(y, 2, "s0")},
			{stS(y, 1, ""), fenceAt("f1"), stS(x, 2, "s1")},
		},
		Finals:   []int{x, y},
		Target:   out{"x": 1, "y": 1},
		Variants: storeCycleVariants([]string{"s0", "s1"}, []string{"f0", "f1"}, "BOTH_FENCE"),
		Kernel:   "2+2w", Source: source("2+2w")}
}

// storeCycleVariants are 2+2W's and 3.2W's variants: every second store
// released (RELEASE) or relaxed (RELAXED), every fence point filled (all),
// or some fences with the other threads' second stores released
// (FENCE_0, FENCE_01, ...).
func storeCycleVariants(stores, fences []string, all string) []ShapeVariant {
	out := []ShapeVariant{vr("RELAXED", nil)}
	rel := orders{}
	for _, s := range stores {
		rel[s] = Release
	}
	out = append(out, vr("RELEASE", rel), vr(all, nil, fences...))
	n := len(stores)
	for mask := 1; mask < 1<<n-1; mask++ {
		name := "FENCE_"
		o := orders{}
		var fs []string
		for i := 0; i < n; i++ {
			if mask&(1<<i) != 0 {
				name += string(rune('0' + i))
				fs = append(fs, fences[i])
			} else {
				o[stores[i]] = Release
			}
		}
		out = append(out, vr(name, o, fs...))
	}
	return out
}

// z63Shape: Z6.3; T0 writes x, then y=1; T1 writes y=2, then z; T2 reads
// z, then x. Weak: y ends 2, T2 saw z but not x.
func z63Shape() *Shape {
	return &Shape{Family: "z6-3", Locs: []string{"x", "y", "z"},
		Threads: [][]Step{
			{stS(x, 1, ""), fenceAt("f0"), stS(y, 1, "s0")},
			{stS(y, 2, ""), fenceAt("f1"), stS(z, 1, "s1")},
			{ldS(z, 0, "l"), fenceAt("f2"), ldS(x, 1, "")},
		},
		Finals: []int{y},
		Target: out{"y": 2, "r0": 1, "r1": 0},
		Variants: []ShapeVariant{
			vr("RELAXED", nil),
			vr("ACQ_REL", orders{"s0": Release, "s1": Release, "l": Acquire}),
			vr("ALL_FENCE", nil, "f0", "f1", "f2"),
			vr("FENCE_0", orders{"s1": Release, "l": Acquire}, "f0"),
			vr("FENCE_1", orders{"s0": Release, "l": Acquire}, "f1"),
			vr("FENCE_2", orders{"s0": Release, "s1": Release}, "f2"),
			vr("FENCE_01", orders{"l": Acquire}, "f0", "f1"),
			vr("FENCE_02", orders{"s1": Release}, "f0", "f2"),
			vr("FENCE_12", orders{"s0": Release}, "f1", "f2"),
		},
		Kernel: "z6-3", Source: source("z6-3")}
}

// paperVariants are the paper examples' variants: everything relaxed, or
// every load acquire, every store release and every fence seq_cst
// (DISALLOWED: the strengthened model forbids it, the PTX model allows it).
func paperVariants(loads, stores, fences []string) []ShapeVariant {
	o := orders{}
	for _, l := range loads {
		o[l] = Acquire
	}
	for _, s := range stores {
		o[s] = Release
	}
	return []ShapeVariant{vr("RELAXED", nil), withSC(vr("DISALLOWED", o, fences...), fences...)}
}

// paperExample1Shape: the first example of the PLDI 2026 paper.
func paperExample1Shape() *Shape {
	const a = 3
	return &Shape{Family: "paper-example1", Locs: []string{"x", "y", "z", "a"},
		Threads: [][]Step{
			{fenceAt("f0"), stS(x, 1, "s"), stS(y, 1, "s")},
			{ldS(y, 0, "l"), fenceAt("f1"), stS(z, 1, "s")},
			{fenceAt("f2"), stS(z, 2, "s"), stS(a, 1, "s")},
			{ldS(a, 1, "l"), ldS(x, 2, "l")},
		},
		Finals:   []int{z},
		Target:   out{"r0": 1, "z": 2, "r1": 1, "r2": 0},
		Variants: paperVariants([]string{"l"}, []string{"s"}, []string{"f0", "f1", "f2"}),
		Kernel:   "paper-example1", Source: source("paper-example1")}
}

// paperExample2Shape: the second example of the PLDI 2026 paper.
func paperExample2Shape() *Shape {
	const a = 3
	return &Shape{Family: "paper-example2", Locs: []string{"x", "y", "z", "a"},
		Threads: [][]Step{
			{fenceAt("f0"), stS(x, 1, "s"), stS(y, 1, "s")},
			{ldS(y, 0, "l"), fenceAt("f1"), ldS(z, 1, "l")},
			{fenceAt("f2"), stS(z, 1, "s"), stS(a, 1, "s")},
			{ldS(a, 2, "l"), ldS(x, 3, "l")},
		},
		Target:   out{"r0": 1, "r1": 0, "r2": 1, "r3": 0},
		Variants: paperVariants([]string{"l"}, []string{"s"}, []string{"f0", "f1", "f2"}),
		Kernel:   "paper-example2", Source: source("paper-example2")}
}
