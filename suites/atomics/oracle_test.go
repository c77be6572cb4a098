// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package atomics_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/p2pconf/p2pconf/kernels"
)

// outcome is what a contention run left: the final value of every word and
// the value every op number k got back, and per GPU the CAS loops that gave
// up (status[1]; each recorded kernels.CASGaveUp and applied nothing).
type outcome struct {
	finals    []uint64
	olds      []uint64 // indexed by k
	casGaveUp map[string]uint32
}

// verdict lists what the oracle found wrong; bad counts the wrong words and
// returned values (the "lost updates" of the .gpu-scope measurement).
type verdict struct {
	problems []string
	bad      int
}

func (v *verdict) add(n int, format string, args ...any) {
	v.bad += n
	if len(v.problems) < 4 {
		v.problems = append(v.problems, fmt.Sprintf(format, args...))
	}
}

// String is one line per problem (at most four), or "exact".
func (v verdict) String() string {
	if v.bad == 0 {
		return "exact"
	}
	return fmt.Sprintf("%d wrong words or returned values: %s", v.bad, strings.Join(v.problems, "; "))
}

// check compares a run with the plan, word by word. CAS loops that gave up
// show as wrong words and returned values; they are named first, since a
// loop starved past its attempt cap is not a lost update.
func (p plan) check(o outcome) verdict {
	var v verdict
	for _, g := range slices.Sorted(maps.Keys(o.casGaveUp)) {
		if n := o.casGaveUp[g]; n > 0 {
			v.problems = append(v.problems, fmt.Sprintf("%d CAS loops on %s gave up at the kernel's attempt cap (returned 0x%x)", n, g, uint64(kernels.CASGaveUp)))
		}
	}
	for w := uint64(0); w < p.nwords; w++ {
		var ks []uint64
		for k := w; k < p.total; k += p.nwords {
			ks = append(ks, k)
		}
		p.checkWord(&v, w, ks, o)
	}
	return v
}

func (p plan) checkWord(v *verdict, w uint64, ks []uint64, o outcome) {
	final := p.trunc(o.finals[w])
	olds := make([]uint64, len(ks))
	operands := make([]uint64, len(ks))
	for i, k := range ks {
		olds[i], operands[i] = o.olds[k], p.operand(k)
	}
	switch {
	case p.ordered():
		// The word runs through init, next(init), ...: the returned values
		// are exactly those states, each once, and the last state stays.
		states := make([]uint64, len(ks))
		s := p.init
		for i := range states {
			states[i], s = s, p.next(s)
		}
		p.wantFinal(v, w, final, s, len(ks))
		p.sameValues(v, w, "returned values", olds, states)
	case p.op.Name == "exch.b32" || p.op.Name == "exch.b64":
		// Every value stored is returned to exactly one later op or stays
		// as the final value, and so is the initial value.
		want := append([]uint64{p.init}, operands...)
		got := append(slices.Clone(olds), final)
		p.sameValues(v, w, "returned values and the final value", got, want)
	default:
		p.wantFinal(v, w, final, p.fold(p.init, operands), len(ks))
		p.checkReturned(v, w, olds, operands, final)
		if p.op.Op == kernels.OpAnd || p.op.Op == kernels.OpOr || p.op.Op == kernels.OpXor {
			p.checkChain(v, w, olds, operands, final)
		}
	}
}

// checkChain checks that the values and, or and xor returned can be put in
// one order in which each op read what the op before it left: the first
// read the initial value, op k left op(olds[k], operand k), and the last
// left the final value. Seen as a graph whose edges are the ops (from the
// value an op read to the value it left), that order is a trail through
// every edge from the initial value to the final one, which exists exactly
// when every value is left as often as it is reached (the initial value
// once more, the final once less) and every op is connected to the initial
// value. A returned value that is stale (the word as it was before another
// op) or an op applied twice breaks it, where the final value alone
// (commutative ops) shows nothing.
func (p plan) checkChain(v *verdict, w uint64, olds, operands []uint64, final uint64) {
	balance := map[uint64]int{p.init: 1}
	balance[final]--
	parent := map[uint64]uint64{}
	find := func(x uint64) uint64 {
		for {
			up, ok := parent[x]
			if !ok || up == x {
				return x
			}
			if upup, ok := parent[up]; ok {
				parent[x] = upup // path halving
			}
			x = up
		}
	}
	for k, old := range olds {
		to := p.fold(old, operands[k:k+1])
		balance[old]--
		balance[to]++
		if a, b := find(old), find(to); a != b {
			parent[a] = b
		}
	}
	unbalanced, example := 0, uint64(0)
	for val, d := range balance {
		if d != 0 {
			if unbalanced == 0 || val < example {
				example = val
			}
			unbalanced++
		}
	}
	apart := 0
	root := find(p.init)
	for _, old := range olds {
		if find(old) != root {
			apart++
		}
	}
	if unbalanced > 0 || apart > 0 {
		v.add(max(1, unbalanced/2, apart), "%s word %d: the %d returned values cannot be ordered into one sequence of atomic %s from 0x%x to the final 0x%x (%d values read and left unequally often, e.g. 0x%x; %d ops apart from the initial value)",
			p.op.Name, w, len(olds), p.op.Name, p.init, final, unbalanced, example, apart)
	}
}

func (p plan) wantFinal(v *verdict, w, got, want uint64, ops int) {
	if got != want {
		v.add(1, "%s word %d after %d ops: final 0x%x, want 0x%x", p.op.Name, w, ops, got, want)
	}
}

// sameValues compares two multisets of values.
func (p plan) sameValues(v *verdict, w uint64, what string, got, want []uint64) {
	got, want = slices.Clone(got), slices.Clone(want)
	slices.Sort(got)
	slices.Sort(want)
	missing, extra := diffSorted(want, got)
	if len(missing) == 0 && len(extra) == 0 {
		return
	}
	v.add(max(len(missing), len(extra)), "%s word %d: %d %s missing (first 0x%x), %d unexpected or repeated (first 0x%x)",
		p.op.Name, w, len(missing), what, first(missing), len(extra), first(extra))
}

// checkReturned checks the values min, max and the bit operations returned:
// each is the initial value or an operand of this word that is not beyond
// the final value (min/max), or does not yet carry the op's own bit
// (and/or); xor returns are checked only by checkChain.
func (p plan) checkReturned(v *verdict, w uint64, olds, operands []uint64, final uint64) {
	valid := append([]uint64{p.init}, operands...)
	slices.Sort(valid)
	stored := func(v uint64) bool { _, found := slices.BinarySearch(valid, v); return found }
	bad, example := 0, uint64(0)
	for i, old := range olds {
		ok := true
		switch p.op.Name[:3] {
		case "min":
			ok = stored(old) && !p.less(old, final)
		case "max":
			ok = stored(old) && !p.less(final, old)
		case "and":
			ok = old&^operands[i] != 0 // its bit (the one the operand clears) still set
		case "or.":
			ok = old&operands[i] == 0 // its bit not yet set
		}
		if !ok {
			if bad == 0 {
				example = old
			}
			bad++
		}
	}
	if bad > 0 {
		v.add(bad, "%s word %d: %d returned values impossible for an atomic %s (first 0x%x)", p.op.Name, w, bad, p.op.Name, example)
	}
}

// diffSorted returns the values of want missing from got and the values of
// got not in want (both sorted, counted with multiplicity).
func diffSorted(want, got []uint64) (missing, extra []uint64) {
	i, j := 0, 0
	for i < len(want) || j < len(got) {
		switch {
		case j == len(got) || (i < len(want) && want[i] < got[j]):
			missing = append(missing, want[i])
			i++
		case i == len(want) || got[j] < want[i]:
			extra = append(extra, got[j])
			j++
		default:
			i++
			j++
		}
	}
	return missing, extra
}

func first(v []uint64) uint64 {
	if len(v) == 0 {
		return 0
	}
	return v[0]
}
