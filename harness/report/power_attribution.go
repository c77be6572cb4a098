// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import "strings"

// A pass is power-gated only if a mutant of that very test showed its weak
// outcome in the same run: one litmus mutant that showed says nothing about
// another litmus test of the same check ID, and a mutant whose outcome is
// sequentially consistent shows on every correct machine.

// PowerValue is the value of a power entry. For names the conf specs on the
// mutant's target that it gives power to, by the text that ends their spec
// names; without For the entry gives power to its check's one conf spec on
// the target (and to none where the check has several there).
type PowerValue struct {
	Observed bool     `json:"observed"`
	Hits     uint64   `json:"hits"`   // trials or instances that showed the weak outcome
	Trials   uint64   `json:"trials"` // trials or instances run
	For      []string `json:"for,omitempty"`
}

// Findings with which a conf spec states its own power verdict, from the
// mutants of the same test that ran before it in the same process. A spec's
// own verdict is what its power_shown says.
const (
	FindingPowerShown   = "power shown"
	FindingNoPowerShown = "no power shown"
)

// ownPowerVerdict reads a result's own power verdict, if it states one.
func ownPowerVerdict(r Result) (shown, stated bool) {
	for _, e := range r.Entries {
		if e.Kind != KindFinding {
			continue
		}
		switch e.Name {
		case FindingPowerShown:
			shown, stated = true, true
		case FindingNoPowerShown:
			stated = true
		}
	}
	return shown, stated
}

// powerFor reads the conf specs a power entry names (nil: none named).
func powerFor(v any) []string {
	var out []string
	switch x := v.(type) {
	case PowerValue:
		return x.For
	case *PowerValue:
		return x.For
	case map[string]any:
		list, _ := x["for"].([]any)
		for _, s := range list {
			if t, ok := s.(string); ok {
				out = append(out, t)
			}
		}
	}
	return out
}

// names reports whether a spec's text ends with one of the named texts.
func names(spec string, named []string) bool {
	for _, n := range named {
		if n != "" && strings.HasSuffix(spec, n) {
			return true
		}
	}
	return false
}

func isConf(r Result) bool { return r.Kind == "conf" || r.Kind == "" }

// attributePower sets PowerShown on every conf result, test by test: its
// own stated verdict if it has one; otherwise whether a mutant that names it
// showed; otherwise, where its check has only this conf spec on the target,
// whether a mutant giving power to the check there without naming specs
// showed. Everything else (mutants, info checks, conf specs no mutant gives
// power to) has none.
func attributePower(results []Result) {
	type key struct{ check, target string }
	confs := map[key][]int{}
	for i := range results {
		results[i].PowerShown = nil
		if isConf(results[i]) {
			k := key{results[i].Check, results[i].TargetName()}
			confs[k] = append(confs[k], i)
		}
	}
	named := map[int]bool{}
	unnamed := map[key]bool{}
	for _, r := range results {
		for _, e := range r.Entries {
			if e.Kind != KindPower {
				continue
			}
			k, seen := key{e.Name, r.TargetName()}, truthy(e.Value)
			list := powerFor(e.Value)
			if len(list) == 0 {
				unnamed[k] = unnamed[k] || seen
				continue
			}
			for _, i := range confs[k] {
				if names(results[i].Spec, list) {
					named[i] = named[i] || seen
				}
			}
		}
	}
	for k, idx := range confs {
		for _, i := range idx {
			v, ok := ownPowerVerdict(results[i])
			if !ok {
				v, ok = named[i]
			}
			if !ok && len(idx) == 1 {
				v, ok = unnamed[k]
			}
			if ok {
				results[i].PowerShown = &v
			}
		}
	}
}
