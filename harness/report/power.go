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
