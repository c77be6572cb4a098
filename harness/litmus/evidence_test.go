// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"strings"
	"testing"
)

// mpResult is a run of MP rel.sys/acq.sys between CTAs with the given
// counts of (r0, r1) outcomes.
func mpResult(t *testing.T, counts map[[2]uint32]uint64) *Result {
	t.Helper()
	a, _ := twoGPUs()
	var c Case
	for _, k := range GPUCases(a) {
		if k.Test.Name() == "MP rel.sys/acq.sys" && k.Place.Kind == CTAs {
			c = k
		}
	}
	m := c.Test.Model()
	r := &Result{Case: c, Hist: make([]uint64, m.Bins)}
	for v, n := range counts {
		r.Hist[m.Encode(v[:])] += n
	}
	return r
}

func TestInconclusive(t *testing.T) {
	s := Settings{MinInstances: 64, MinFlagShare: 0.01, MaxViolationBound: 0.1}
	// A dropped store: the reader never sees the flag, so it never reads x
	// after it; no violation, and nothing tested: neither stored value was
	// ever observed.
	dropped := mpResult(t, map[[2]uint32]uint64{{0, 0}: 64})
	if why := Inconclusive(dropped, s); !strings.HasPrefix(why, "vacuous: values 1 of x, 1 of y never observed in 64 instances") {
		t.Errorf("flag never seen: %q", why)
	}
	few := mpResult(t, map[[2]uint32]uint64{{1, 1}: 10})
	if why := Inconclusive(few, s); !strings.Contains(why, "10 instances counted, fewer than the 64") {
		t.Errorf("too few instances: %q", why)
	}
	rare := mpResult(t, map[[2]uint32]uint64{{1, 1}: 1, {0, 0}: 999})
	if why := Inconclusive(rare, s); !strings.Contains(why, "flag seen in 1 of 1000") {
		t.Errorf("flag seen in 0.1 %%, 1 %% required: %q", why)
	}
	wide := mpResult(t, map[[2]uint32]uint64{{1, 1}: 64})
	if why := Inconclusive(wide, Settings{MinInstances: 1, MinFlagShare: 0.01, MaxViolationBound: 0.01}); !strings.Contains(why, "95 % upper bound") {
		t.Errorf("3/64 above 0.01: %q", why)
	}
	good := mpResult(t, map[[2]uint32]uint64{{1, 1}: 60, {0, 0}: 4})
	if why := Inconclusive(good, s); why != "" || good.FlagSeen() != 60 {
		t.Errorf("a run that saw the flag in 60 of 64: %q, flag seen %d", why, good.FlagSeen())
	}
	// A test without a poll has no flag to see.
	sb := &Result{Case: ctasCase(findTest(t, "SB F.sc.sys"))}
	sb.Hist = make([]uint64, sb.Case.Test.Model().Bins)
	sb.Hist[sb.Case.Test.Model().Encode([]uint32{0, 1})] = 50 // T0 ran first
	sb.Hist[sb.Case.Test.Model().Encode([]uint32{1, 0})] = 50 // T1 ran first
	if sb.Case.Test.Polled() || sb.FlagSeen() != 0 || Inconclusive(sb, s) != "" {
		t.Errorf("SB: polled %v, flag seen %d, %q", sb.Case.Test.Polled(), sb.FlagSeen(), Inconclusive(sb, s))
	}
}
