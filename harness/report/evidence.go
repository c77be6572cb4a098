// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// FindingEvidence is the finding in which a forbidden litmus result names
// its evidence classes: weak (a weakened mutant of its shape showed its
// weak outcome), interleaving (for one-location tests, a mutant showed the
// threads' accesses interleave), checker (a fake defect makes its outcome
// occur; no hardware evidence). Its value holds "classes" (a list, empty
// for none), "why" when it has no weak evidence, and "from_link_class" when
// its mutants ran on the representative pair of its link class.
const FindingEvidence = "evidence classes"

// Evidence classes, in the order reports list them.
var evidenceOrder = []string{"weak", "interleaving", "checker"}

// evidenceOf reads a result's evidence finding: its classes, whether it
// borrows the mutant-based ones from its link class, and whether it states
// any at all.
func evidenceOf(r Result) (classes []string, fromLinkClass, stated bool) {
	for _, e := range r.Entries {
		if e.Kind != KindFinding || e.Name != FindingEvidence {
			continue
		}
		stated = true
		m, ok := e.Value.(map[string]any)
		if !ok { // a Go value not yet through JSON
			if data, err := json.Marshal(e.Value); err == nil {
				_ = json.Unmarshal(data, &m)
			}
		}
		list, _ := m["classes"].([]any)
		for _, c := range list {
			if s, ok := c.(string); ok {
				classes = append(classes, s)
			}
		}
		fromLinkClass, _ = m["from_link_class"].(bool)
	}
	return classes, fromLinkClass, stated
}

// EvidenceClasses is a result's evidence classes: its own, and for a pair
// result whose mutants ran on the representative pair of its link class
// (PowerFrom, set by attributePower), the weak and interleaving classes of
// the same spec there.
func EvidenceClasses(r Result, results []Result) (classes []string, stated bool) {
	classes, borrow, stated := evidenceOf(r)
	if !stated || !borrow || r.PowerFrom == "" {
		return classes, stated
	}
	for _, d := range results {
		if d.Check == r.Check && d.Variant == r.Variant && d.TargetName() == r.PowerFrom {
			donor, _, _ := evidenceOf(d)
			for _, c := range donor {
				if c != "checker" && !slices.Contains(classes, c) {
					classes = append(classes, c)
				}
			}
		}
	}
	return classes, stated
}

// evidenceText counts, over the passes that name their evidence classes,
// each class on its own (a pass may have several; they are never merged),
// and the passes with none; "" when no result names any.
func evidenceText(results []Result) string {
	counts := map[string]int{}
	passes, none := 0, 0
	for _, r := range results {
		if !isConf(r) || r.Status != StatusPass {
			continue
		}
		classes, stated := EvidenceClasses(r, results)
		if !stated {
			continue
		}
		passes++
		if len(classes) == 0 {
			none++
		}
		for _, c := range classes {
			counts[c]++
		}
	}
	if passes == 0 {
		return ""
	}
	var parts []string
	for _, c := range evidenceOrder {
		parts = append(parts, fmt.Sprintf("%s %d", c, counts[c]))
	}
	return fmt.Sprintf("Evidence classes of the %d forbidden litmus passes, each counted on its own (a pass may have several): %s; none %d. "+
		"weak: a weakened mutant of the same shape and placement showed its weak outcome in this run; interleaving: a mutant showed the threads' accesses to the one location interleave; "+
		"checker: a fake-backend defect makes the forbidden outcome occur and the check flags it (no hardware evidence). Each pass's entry says which it has, or why none.",
		passes, strings.Join(parts, ", "), none)
}
