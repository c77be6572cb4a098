// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import "fmt"

// A forbidden test that saw no violation has only shown something if it ran
// enough instances, if the reading thread actually saw the flag it polls
// (otherwise it never reached the read the test is about: a dropped store
// makes MP pass with every instance at r0=0 ∧ r1=0), and if the 95 % bound
// on the violation rate is small enough to mean something.

// Polled reports whether a thread of the test polls a location.
func (t *Test) Polled() bool {
	for _, th := range t.Threads {
		for _, op := range th {
			if op.Poll {
				return true
			}
		}
	}
	return false
}

// FlagSeen counts the instances in which every poll of the test read the
// value it waits for (the register of a poll keeps the last value read).
// It is zero for a test without a poll.
func (r *Result) FlagSeen() uint64 {
	m := r.Case.Test.Model()
	want := map[int]uint32{} // observation index → value the poll waits for
	for _, th := range r.Case.Test.Threads {
		for _, op := range th {
			if !op.Poll {
				continue
			}
			for i, o := range m.Obs {
				if o.Reg == op.Reg {
					want[i] = op.Until
				}
			}
		}
	}
	if len(want) == 0 {
		return 0
	}
	var n uint64
	for bin, k := range r.Hist {
		if k == 0 {
			continue
		}
		digits := m.Decode(bin)
		seen := true
		for i, v := range want {
			seen = seen && uint32(digits[i]) == v
		}
		if seen {
			n += k
		}
	}
	return n
}

// FlagShare is FlagSeen as a share of the instances counted.
func (r *Result) FlagShare() float64 {
	n := r.Instances()
	if n == 0 {
		return 0
	}
	return float64(r.FlagSeen()) / float64(n)
}

// Inconclusive says why a forbidden run without violations does not count
// as a pass under s: too few instances, a value its threads store never
// observed (vacuous, coverage.go), a polled flag seen too rarely, or a 95 %
// bound on the violation rate above the allowed maximum. It returns ""
// for a run that counts, and for a mutant (which judges nothing).
func Inconclusive(r *Result, s Settings) string {
	if r.Case.Verdict != Forbidden {
		return ""
	}
	n := r.Instances()
	if n < s.MinInstances {
		return fmt.Sprintf("inconclusive: %d instances counted, fewer than the %d required (%s)", n, s.MinInstances, EnvMinInstances)
	}
	if why := r.Vacuous(); why != "" {
		return why
	}
	if r.Case.Test.Polled() {
		seen := r.FlagSeen()
		if float64(seen) < s.MinFlagShare*float64(n) || seen == 0 {
			return fmt.Sprintf("inconclusive: flag seen in %d of %d instances, less than the required share %.3g (%s): the reads the test is about were never reached often enough",
				seen, n, s.MinFlagShare, EnvMinFlagShare)
		}
	}
	if ub := r.UpperBound95(); ub > s.MaxViolationBound {
		return fmt.Sprintf("inconclusive: the 95 %% upper bound on the violation rate is %.3g per instance over %d instances, above the allowed %.3g (%s)",
			ub, n, s.MaxViolationBound, EnvMaxViolationBound)
	}
	return ""
}
