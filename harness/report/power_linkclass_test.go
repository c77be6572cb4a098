// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"strings"
	"testing"
)

// litmusPairResult is a passing forbidden litmus result on src→dst with
// the given own power finding ("" for none).
func litmusPairResult(src, dst int, link, variant, finding string) Result {
	r := Result{Check: "ordering.litmus", Family: "ordering", Kind: "conf", Target: "pair", Src: &src, Dst: &dst,
		Link: link, Variant: variant, Status: StatusPass}
	if finding != "" {
		r.Entries = append(r.Entries, Entry{Kind: KindFinding, Name: finding})
	}
	return r
}

// TestPowerFromLinkClass checks that a pass whose mutants ran on the
// representative pair takes the verdict of the same test there, in the
// same direction, names that pair, and that without such a pair (another
// link class, another test, or none in the document) it is not
// power-gated.
func TestPowerFromLinkClass(t *testing.T) {
	rs := []Result{
		litmusPairResult(0, 1, "nvlink", "MP", FindingPowerShown),
		litmusPairResult(1, 0, "nvlink", "MP", FindingNoPowerShown),
		litmusPairResult(0, 1, "nvlink", "SB", FindingNoPowerShown),
		litmusPairResult(2, 3, "nvlink", "MP", FindingPowerFromLinkClass),
		litmusPairResult(3, 2, "nvlink", "MP", FindingPowerFromLinkClass),
		litmusPairResult(2, 3, "nvlink", "SB", FindingPowerFromLinkClass),
		litmusPairResult(0, 2, "pcie", "MP", FindingPowerFromLinkClass),
		litmusPairResult(2, 3, "nvlink", "LB", FindingPowerFromLinkClass),
	}
	attributePower(rs)
	want := []struct {
		shown bool
		from  string
	}{
		{true, ""}, {false, ""}, {false, ""},
		{true, "GPU0→GPU1"}, // same direction as 0→1
		{false, "GPU1→GPU0"},
		{false, "GPU0→GPU1"},
		{false, ""}, // no pcie pair ran mutants
		{false, ""}, // no LB test ran mutants anywhere
	}
	for i, w := range want {
		r := rs[i]
		if r.PowerShown == nil || *r.PowerShown != w.shown || r.PowerFrom != w.from {
			t.Errorf("%s %s %s: power shown %v from %q, want %v from %q", r.TargetName(), r.Link, r.Variant, r.PowerShown, r.PowerFrom, w.shown, w.from)
		}
	}
	// Only one direction ran mutants: both directions take its verdict.
	one := []Result{litmusPairResult(1, 0, "nvlink", "MP", FindingPowerShown), litmusPairResult(2, 3, "nvlink", "MP", FindingPowerFromLinkClass)}
	attributePower(one)
	if one[1].PowerShown == nil || !*one[1].PowerShown || one[1].PowerFrom != "GPU1→GPU0" {
		t.Errorf("with only GPU1→GPU0 as donor: %v from %q", one[1].PowerShown, one[1].PowerFrom)
	}
	// A result with the finding never donates, even with a verdict set.
	chain := []Result{litmusPairResult(2, 3, "nvlink", "MP", FindingPowerFromLinkClass), litmusPairResult(4, 5, "nvlink", "MP", FindingPowerFromLinkClass)}
	attributePower(chain)
	for _, r := range chain {
		if r.PowerShown == nil || *r.PowerShown || r.PowerFrom != "" {
			t.Errorf("%s: power %v from %q with no pair that ran mutants", r.TargetName(), r.PowerShown, r.PowerFrom)
		}
	}

	text := borrowedPowerText(rs)
	for _, part := range []string{"5 conf results", "(GPU0→GPU1, GPU1→GPU0)", "1 power-gated, 2 not", "2 found no such result"} {
		if !strings.Contains(text, part) {
			t.Errorf("borrowed power text %q lacks %q", text, part)
		}
	}
	if got := borrowedPowerText(rs[:3]); got != "" {
		t.Errorf("borrowed power text without such results: %q", got)
	}
}
