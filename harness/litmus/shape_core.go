// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import "github.com/p2pconf/p2pconf/kernels"

// The core shapes beside the table's: message passing, store buffering,
// load buffering, the four coherence shapes and RMW atomicity, as
// generated tests with the same kinds of variants (docs/litmus.md A-E).
// Every access is an atomic of the test's scope, relaxed unless the
// variant says otherwise.

const coreSource = "docs/litmus.md, generated space (A-E)"

// CoreShapes lists the core shapes.
func CoreShapes() []*Shape {
	return []*Shape{mpShape(), sbShape(), lbShape(), corrShape(), corwShape(), cowrShape(), cowwShape(), atomicityShape()}
}

// SpaceShapes lists every shape of the generated space: the table's, then
// the core ones.
func SpaceShapes() []*Shape { return append(FieldShapes(), CoreShapes()...) }

// mpShape: T0 writes x, then y; T1 reads y, then x. Weak: y seen, x stale.
func mpShape() *Shape {
	return &Shape{Family: "mp", Locs: []string{"x", "y"},
		Threads: [][]Step{
			{stS(x, 1, ""), fenceAt("f0"), stS(y, 1, "s")},
			{ldS(y, 0, "l"), fenceAt("f1"), ldS(x, 1, "")},
		},
		Target: out{"r0": 1, "r1": 0},
		Variants: []ShapeVariant{
			vr("RELAXED", nil),
			vr("REL_ACQ", orders{"s": Release, "l": Acquire}),
			vr("RELEASE", orders{"s": Release}),
			vr("ACQUIRE", orders{"l": Acquire}),
			vr("BOTH_FENCE", nil, "f0", "f1"),
			vr("FENCE_0", orders{"l": Acquire}, "f0"),
			vr("FENCE_1", orders{"s": Release}, "f1"),
			withSC(vr("SC_FENCES", nil, "f0", "f1"), "f0", "f1"),
		},
		Source: coreSource}
}

// sbShape: each thread writes its location, then reads the other's. Weak:
// both read 0.
func sbShape() *Shape {
	return &Shape{Family: "sb", Locs: []string{"x", "y"},
		Threads: [][]Step{
			{stS(x, 1, "s"), fenceAt("f0"), ldS(y, 0, "l")},
			{stS(y, 1, "s"), fenceAt("f1"), ldS(x, 1, "l")},
		},
		Target: out{"r0": 0, "r1": 0},
		Variants: []ShapeVariant{
			vr("RELAXED", nil),
			vr("REL_ACQ", orders{"s": Release, "l": Acquire}),
			vr("BOTH_FENCE", nil, "f0", "f1"),
			withSC(vr("SC_FENCES", nil, "f0", "f1"), "f0", "f1"),
			withSC(vr("SC_FENCE_0", nil, "f0"), "f0"),
			vr("SEQ_CST", orders{"s": SeqCst, "l": SeqCst}),
		},
		Source: coreSource}
}

// lbShape: each thread reads the other's location, then writes its own.
// Weak: both read the other's later write.
func lbShape() *Shape {
	return &Shape{Family: "lb", Locs: []string{"x", "y"},
		Threads: [][]Step{
			{ldS(x, 0, "l"), fenceAt("f0"), stS(y, 1, "s")},
			{ldS(y, 1, "l"), fenceAt("f1"), stS(x, 1, "s")},
		},
		Target: out{"r0": 1, "r1": 1},
		Variants: []ShapeVariant{
			vr("RELAXED", nil),
			vr("ACQ_REL", orders{"l": Acquire, "s": Release}),
			vr("ACQUIRE", orders{"l": Acquire}),
			vr("RELEASE", orders{"s": Release}),
			vr("BOTH_FENCE", nil, "f0", "f1"),
		},
		Source: coreSource}
}

// corrShape: T0 writes x; T1 reads it twice. Weak: the second read older.
func corrShape() *Shape {
	return &Shape{Family: "corr", Locs: []string{"x"},
		Threads: [][]Step{{stS(x, 1, "")}, {ldS(x, 0, "l"), ldS(x, 1, "")}},
		Target:  out{"r0": 1, "r1": 0},
		Variants: []ShapeVariant{
			vr("RELAXED", nil),
			vr("ACQUIRE", orders{"l": Acquire}),
		},
		Source: coreSource}
}

// corwShape: T0 reads x, then writes it; T1 writes it. Weak: T0 read T1's
// write, which still ends last.
func corwShape() *Shape {
	return &Shape{Family: "corw", Locs: []string{"x"},
		Threads:  [][]Step{{ldS(x, 0, ""), stS(x, 1, "")}, {stS(x, 2, "")}},
		Finals:   []int{x},
		Target:   out{"r0": 2, "x": 2},
		Variants: []ShapeVariant{vr("RELAXED", nil)},
		Source:   coreSource}
}

// cowrShape: T0 writes x, then reads it; T1 writes it. Weak: T0 read T1's
// write, and its own ends last.
func cowrShape() *Shape {
	return &Shape{Family: "cowr", Locs: []string{"x"},
		Threads:  [][]Step{{stS(x, 1, ""), ldS(x, 0, "")}, {stS(x, 2, "")}},
		Finals:   []int{x},
		Target:   out{"r0": 2, "x": 1},
		Variants: []ShapeVariant{vr("RELAXED", nil)},
		Source:   coreSource}
}

// cowwShape: T0 writes x twice, the second time with an exchange (two
// relaxed stores of one address become one in the compiled code); T1 reads
// it twice. Weak: T1 sees the writes in the wrong order.
func cowwShape() *Shape {
	return &Shape{Family: "coww", Locs: []string{"x"},
		Threads: [][]Step{
			{stS(x, 1, ""), {Kind: RMW, Atom: kernels.OpExch, Loc: x, Val: 2, Reg: NoReg}},
			{ldS(x, 0, ""), ldS(x, 1, "")},
		},
		Target:   out{"r0": 2, "r1": 1},
		Variants: []ShapeVariant{vr("RELAXED", nil)},
		Source:   coreSource}
}

// atomicityShape: T0 adds 1 to x atomically; T1 writes 2. Weak: the add
// read 0 and x ends 1: the store vanished inside the add.
func atomicityShape() *Shape {
	return &Shape{Family: "atomicity", Locs: []string{"x"},
		Threads:  [][]Step{{{Kind: RMW, Atom: kernels.OpAdd, Loc: x, Val: 1, Reg: 0}}, {stS(x, 2, "")}},
		Finals:   []int{x},
		Target:   out{"r0": 0, "x": 1},
		Variants: []ShapeVariant{vr("RELAXED", nil)},
		Source:   coreSource}
}
