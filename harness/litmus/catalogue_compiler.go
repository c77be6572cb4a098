// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import "slices"

// The compiler-sensitive class: variants of the polled and single-shot
// families whose reader also touches the data location with a weak load
// around its synchronising access: before the acquire, inside the poll
// loop, after the data load. Under the PTX memory model the extra load
// changes nothing about the shape's outcome (the model judges the whole
// program, extra register included, and the target stays the shape's),
// but a compiler may serve the data load from the extra one: on an H200
// (driver 580, CUDA 13.0) ptxas kept one load of x for a loop of
// {ld.acquire f; ld x} and merged `ld x; ld.acquire f; ld x` into one
// load (docs/litmus.md, "A weak data load in the poll loop"). One
// forbidden test per family is transformed (compilerBases), each into at
// most three variants, between CTAs and across pairs: a handful of
// specs on one GPU.

// compilerBases names, per family, the forbidden test the transform
// starts from: release/acquire at the widest scope the family runs.
var compilerBases = map[string]string{
	"MP":        "rel.sys/acq.sys",
	"WRC":       "rel.sys/acq.sys",
	"ISA2":      "rel.sys/acq.sys",
	"MP once":   "rel.gpu/acq.gpu",
	"WRC once":  "rel.gpu/acq.gpu",
	"ISA2 once": "rel.gpu/acq.gpu",
}

// withCompilerVariants appends to family the compiler-sensitive variants
// of its base test (compilerBases), if it has one.
func withCompilerVariants(family []*Test) []*Test {
	for _, t := range family {
		if len(family) > 0 && compilerBases[t.Family] == t.Variant {
			return append(family, compilerVariants(t)...)
		}
	}
	return family
}

// compilerVariants are t's variants whose synchronising reader (the last
// thread, the one whose flag read guards the data load) also loads the
// data location weakly into a new register: "also weak x before" (before
// the flag access), "also weak x in loop" (in every iteration of a polled
// flag, right after it) and "also weak x after" (after the data load).
func compilerVariants(t *Test) []*Test {
	ri := len(t.Threads) - 1
	r := t.Threads[ri]
	flag := slices.IndexFunc(r, func(op Op) bool { return op.Poll })
	data := len(r) - 1
	if flag < 0 || r[data].Kind != Load {
		panic("litmus: compilerVariants: " + t.Name() + ": its last thread does not read a flag, then data")
	}
	extra := ld(r[data].Loc, t.Regs(), weak)
	mk := func(name string, ops []Op) *Test {
		v := *t
		v.Variant = t.Variant + " also weak x " + name
		v.Threads = slices.Clone(t.Threads)
		v.Threads[ri] = ops
		v.Where = t.Where & (InCTAs | InPair)
		v.Host = nil
		v.Source = t.Source + "; a weak load of the data location beside the synchronising access, which a compiler must not merge across it (PTX ISA \"Memory Consistency Model\", Causality)"
		return &v
	}
	var out []*Test
	before := append(append(slices.Clone(r[:flag]), extra), r[flag:]...)
	out = append(out, mk("before", before))
	if r[flag].loops() {
		in := extra
		in.InPoll = true
		out = append(out, mk("in loop", append(append(slices.Clone(r[:flag+1]), in), r[flag+1:]...)))
	}
	out = append(out, mk("after", append(slices.Clone(r), extra)))
	return out
}
