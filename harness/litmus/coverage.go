// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"fmt"
	"sort"
	"strings"

	"github.com/p2pconf/p2pconf/kernels"
)

// Value coverage: a forbidden outcome is about values the threads store,
// and it can only show if those values reach the other threads. When the
// compiler merges two stores of one address into one, the first value is
// never seen, and the test cannot fail whatever the hardware does (CoWW
// with two st.relaxed in one thread on ptxas 13.0). So a run counts only
// when every value its threads store to a location the test observes was
// observed, by a read or in the final memory state, in at least one
// instance. The check needs no toolkit: it reads the outcome histogram.

// StoredValue is one value a test's threads write to a location it
// observes.
type StoredValue struct {
	Loc   int    // location index
	Name  string // location name
	Value uint32
}

func (v StoredValue) String() string { return fmt.Sprintf("%d of %s", v.Value, v.Name) }

// StoredValues lists, per observed location (one a register reads, or whose
// final value is part of the outcome), the values the threads write there
// as constants: st of a constant, atom.exch, the new value of atom.cas.
// Values computed from what a thread read (st of a register plus a
// constant, atom.add, atom.or) depend on the interleaving and are not
// listed: the constants they start from are what the test is about.
func (t *Test) StoredValues() []StoredValue {
	observed := map[int]bool{}
	for _, o := range t.Observations() {
		observed[o.Loc] = true
	}
	seen := map[StoredValue]bool{}
	var out []StoredValue
	for _, th := range t.Threads {
		for _, op := range th {
			constant := op.Kind == Store && op.Src == NoReg ||
				op.Kind == RMW && (op.Atom == kernels.OpExch || op.Atom == kernels.OpCAS)
			if !constant || !observed[op.Loc] {
				continue
			}
			v := StoredValue{Loc: op.Loc, Name: t.Locs[op.Loc], Value: op.Val}
			if !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Loc != out[j].Loc {
			return out[i].Loc < out[j].Loc
		}
		return out[i].Value < out[j].Value
	})
	return out
}

// Coverage is, for each stored value (Test.StoredValues), the number of
// counted instances in which some observation of its location held it.
type Coverage struct {
	Value     StoredValue `json:"-"`
	Text      string      `json:"value"`
	Instances uint64      `json:"instances"`
}

// Coverage counts, from the outcome histogram, in how many instances each
// stored value was observed.
func (r *Result) Coverage() []Coverage {
	m := r.Case.Test.Model()
	values := r.Case.Test.StoredValues()
	out := make([]Coverage, len(values))
	for i, v := range values {
		out[i] = Coverage{Value: v, Text: v.String()}
	}
	for bin, k := range r.Hist {
		if k == 0 {
			continue
		}
		digits := m.Decode(bin)
		for i, v := range values {
			for j, o := range m.Obs {
				if o.Loc == v.Loc && digits[j] < m.Radix[j]-1 && uint32(digits[j]) == v.Value {
					out[i].Instances += k
					break
				}
			}
		}
	}
	return out
}

// Vacuous says which stored values no counted instance observed, as
// "vacuous: value 1 of x never observed in N instances", or "" when every
// one was (or no instance was counted: that is reported on its own).
func (r *Result) Vacuous() string {
	n := r.Instances()
	if n == 0 {
		return ""
	}
	var missing []string
	for _, c := range r.Coverage() {
		if c.Instances == 0 {
			missing = append(missing, c.Text)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	what := "value " + missing[0]
	if len(missing) > 1 {
		what = "values " + strings.Join(missing, ", ")
	}
	return fmt.Sprintf("vacuous: %s never observed in %d instances, so the outcome the test is about could not occur (a store the compiler removed or merged, or one that never reached the other threads)", what, n)
}
