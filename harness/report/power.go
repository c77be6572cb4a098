// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// powerRow is one mutant and one conf spec it gives power to, on a target:
// whether the mutant showed its weak outcome, and what the conf spec's
// result on the target now means. The table is per test, as power is.
type powerRow struct {
	mutant, target, conf string
	observed             bool
	evidence, verdict    string
}

func powerRows(results []Result) []powerRow {
	confs := map[string][]Result{}
	for _, r := range results {
		if isConf(r) {
			k := r.Check + " " + r.TargetName()
			confs[k] = append(confs[k], r)
		}
	}
	var rows []powerRow
	for _, r := range results {
		for _, e := range r.Entries {
			if e.Kind != KindPower {
				continue
			}
			row := powerRow{mutant: withVariant(r.Check, r), target: r.TargetName(), conf: e.Name, observed: truthy(e.Value),
				evidence: valueText(withoutFor(e.Value))}
			if e.Detail != "" {
				row.evidence += " (" + e.Detail + ")"
			}
			cands := confs[e.Name+" "+r.TargetName()]
			list := powerFor(e.Value)
			if len(list) == 0 {
				switch len(cands) {
				case 0:
					row.verdict = "conf check not run here"
				case 1:
					row.conf, row.verdict = withVariant(e.Name, cands[0]), confVerdict(cands[0])
				default:
					row.verdict = fmt.Sprintf("no power given: the check has %d conf specs here and the mutant names none", len(cands))
				}
				rows = append(rows, row)
				continue
			}
			for _, name := range list {
				one := row
				one.conf, one.verdict = e.Name+" — "+name, "conf spec not run here"
				for _, c := range cands {
					if names(c, []string{name}) {
						one.conf, one.verdict = withVariant(e.Name, c), confVerdict(c)
						break
					}
				}
				rows = append(rows, one)
			}
		}
	}
	return rows
}

// withoutFor drops the list of named specs from a power value: each row
// names its one conf spec already.
func withoutFor(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := make(map[string]any, len(m))
	for k, x := range m {
		if k != "for" {
			out[k] = x
		}
	}
	return out
}

func withVariant(check string, r Result) string {
	if r.Variant == "" {
		return check
	}
	return check + " — " + r.Variant
}

// confVerdict says what a conf result means given its own power.
func confVerdict(c Result) string {
	if c.Status != StatusPass || c.PowerShown == nil {
		return c.Status
	}
	if *c.PowerShown {
		return "power-gated pass"
	}
	return "pass, no power shown"
}

// valueText renders an entry value compactly: strings as they are,
// everything else as JSON.
func valueText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}

// borrowedPowerText says in one sentence how the conf results whose
// mutants ran on the representative pair of their link class got their
// power verdicts (see linkClassPower), or "" when there are none: the power
// table lists mutants, so without this line those verdicts would show
// nowhere beside the table.
func borrowedPowerText(results []Result) string {
	from := map[string]bool{}
	var shown, notShown, orphan int
	for _, r := range results {
		if !isConf(r) || !fromLinkClass(r) {
			continue
		}
		switch {
		case r.PowerFrom == "":
			orphan++
		case r.PowerShown != nil && *r.PowerShown:
			shown++
			from[r.PowerFrom] = true
		default:
			notShown++
			from[r.PowerFrom] = true
		}
	}
	if shown+notShown+orphan == 0 {
		return ""
	}
	pairs := make([]string, 0, len(from))
	for p := range from {
		pairs = append(pairs, p)
	}
	sort.Strings(pairs)
	text := fmt.Sprintf("%d conf results ran on pairs whose mutants were left to the representative pair of their link class (p2pconf run --mutants representative); they take the power verdict of the same test there", shown+notShown+orphan)
	if len(pairs) > 0 {
		text += " (" + strings.Join(pairs, ", ") + ")"
	}
	text += fmt.Sprintf(": %d power-gated, %d not", shown, notShown)
	if orphan > 0 {
		text += fmt.Sprintf("; %d found no such result in this report and are not power-gated", orphan)
	}
	return text + "."
}

// powerTest is one forbidden (conf) result that mutants give power to, or
// that states a power verdict: the matrix's one row per test and
// placement. The rows of powerRows (mutant by conf spec, with the
// evidence) stay in conformance.json and fold in matrix.html.
type powerTest struct {
	check, variant, target string
	class                  string   // evidenceClass
	mutants                []string // their variant keys (or checks), ✓ or ✗ after each
	showed                 int      // how many of them showed their weak outcome
	from                   string   // the pair whose verdict it takes (PowerFrom)
	hits, trials           uint64
	verdict                string
}

// mutantsText is "2 of 7 showed" (of the mutants that give the row power),
// or where the verdict comes from the link class's representative pair.
func (p powerTest) mutantsText() string {
	switch {
	case p.from != "":
		return "those of " + p.from
	case len(p.mutants) == 0:
		return "none ran"
	}
	return fmt.Sprintf("%d of %d showed", p.showed, len(p.mutants))
}

// evidenceClass names the kind of evidence that the pass of a forbidden
// result could have failed: "weak" when a mutant of the same shape and
// placement showed its weak outcome in this run, "none" when none did,
// "" when the result has no power verdict.
func evidenceClass(r Result) string {
	switch {
	case r.PowerShown == nil:
		return ""
	case *r.PowerShown:
		return "weak"
	}
	return "none"
}

// powerTests lists one row per conf result that a power entry names or
// that has a power verdict, with the mutants that name it (✓ when the
// mutant showed its weak outcome) and the weak outcomes they saw.
func powerTests(results []Result) []powerTest {
	confs := map[string][]int{} // check and target -> conf results there
	for i, r := range results {
		if isConf(r) {
			k := r.Check + " " + r.TargetName()
			confs[k] = append(confs[k], i)
		}
	}
	rows := map[int]*powerTest{}
	row := func(i int) *powerTest {
		if rows[i] == nil {
			r := results[i]
			rows[i] = &powerTest{check: r.Check, variant: r.Variant, target: r.TargetName(), class: evidenceClass(r),
				from: r.PowerFrom, verdict: confVerdict(r)}
		}
		return rows[i]
	}
	for _, m := range results {
		for _, e := range m.Entries {
			if e.Kind != KindPower {
				continue
			}
			cands := confs[e.Name+" "+m.TargetName()]
			list := powerFor(e.Value)
			var named []int
			for _, i := range cands {
				if (len(list) == 0 && len(cands) == 1) || (len(list) > 0 && names(results[i], list)) {
					named = append(named, i)
				}
			}
			seen := truthy(e.Value)
			hits, trials := powerCounts(e.Value)
			name := m.Check
			if m.Variant != "" {
				name = m.Variant
			}
			for _, i := range named {
				p := row(i)
				mark := " ✗"
				if seen {
					mark = " ✓"
					p.hits += hits
					p.showed++
				}
				p.trials += trials
				p.mutants = append(p.mutants, name+mark)
			}
		}
	}
	for i, r := range results {
		if isConf(r) && r.PowerShown != nil {
			row(i)
		}
	}
	idx := make([]int, 0, len(rows))
	for i := range rows {
		idx = append(idx, i)
	}
	sort.Ints(idx) // results are sorted by family, check, target and variant
	out := make([]powerTest, 0, len(idx))
	for _, i := range idx {
		out = append(out, *rows[i])
	}
	return out
}

// powerCounts reads the hits and trials of a power value (0 where it has
// none).
func powerCounts(v any) (hits, trials uint64) {
	switch x := v.(type) {
	case PowerValue:
		return x.Hits, x.Trials
	case *PowerValue:
		return x.Hits, x.Trials
	case map[string]any:
		if n := number(x["hits"]); n != nil {
			hits = uint64(*n)
		}
		if n := number(x["trials"]); n != nil {
			trials = uint64(*n)
		}
	}
	return hits, trials
}

// seenText is "3 of 1200000" (weak outcomes of the mutants that showed
// theirs, of the instances all of them ran), or "—" when none ran.
func (p powerTest) seenText() string {
	if p.trials == 0 && p.hits == 0 {
		return "—"
	}
	return fmt.Sprintf("%d of %d", p.hits, p.trials)
}
