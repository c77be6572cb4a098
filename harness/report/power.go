// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"encoding/json"
	"fmt"
)

// powerRow is one power entry: a mutant on a target, the conf check it
// gives power to, and what that check's result on the target now means.
type powerRow struct {
	mutant, target, conf string
	observed             bool
	evidence, verdict    string
}

func powerRows(results []Result) []powerRow {
	byKey := map[string]Result{}
	for _, r := range results {
		byKey[r.Check+" "+r.TargetName()] = r
	}
	var rows []powerRow
	for _, r := range results {
		for _, e := range r.Entries {
			if e.Kind != KindPower {
				continue
			}
			row := powerRow{mutant: r.Check, target: r.TargetName(), conf: e.Name, observed: truthy(e.Value),
				evidence: valueText(e.Value), verdict: "conf check not run here"}
			if e.Detail != "" {
				row.evidence += " (" + e.Detail + ")"
			}
			if c, ok := byKey[e.Name+" "+r.TargetName()]; ok {
				row.verdict = c.Status
				if c.Status == StatusPass && c.PowerShown != nil {
					row.verdict = "pass, no power shown"
					if *c.PowerShown {
						row.verdict = "power-gated pass"
					}
				}
			}
			rows = append(rows, row)
		}
	}
	return rows
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
