// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import "strings"

// A pass is power-gated only if a mutant of that very test showed its weak
// outcome in the same run: one litmus mutant that showed says nothing about
// another litmus test of the same check ID, and a mutant whose outcome is
// sequentially consistent shows on every correct machine.

// PowerValue is the value of a power entry. For names the conf specs on the
// mutant's target that it gives power to, by their variant keys (reports
// written before variant keys named them by the text that ends their spec
// names, which still matches); without For the entry gives power to its check's one conf spec on
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
	// FindingPowerFromLinkClass is stated instead by a forbidden pair spec
	// whose mutants ran on the representative pair of its link class (p2pconf
	// run --mutants representative): its verdict is that of the same spec
	// there (see linkClassPower).
	FindingPowerFromLinkClass = "power from link class"
)

// ownPowerVerdict reads a result's own power verdict, if it states one.
func ownPowerVerdict(r Result) (shown, stated bool) {
	if fromLinkClass(r) {
		return false, false
	}
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

// names reports whether a power entry names result r: by its variant key,
// or by the text its spec name ends with (older reports).
func names(r Result, named []string) bool {
	for _, n := range named {
		if n != "" && (n == r.Variant || strings.HasSuffix(r.Spec, n)) {
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
				if names(results[i], list) {
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
	// Last: a result that borrows its verdict gets it here, whatever the
	// loop above gave it.
	linkClassPower(results)
}

// fromLinkClass reports whether a result leaves its power verdict to the
// representative pair of its link class.
func fromLinkClass(r Result) bool {
	for _, e := range r.Entries {
		if e.Kind == KindFinding && e.Name == FindingPowerFromLinkClass {
			return true
		}
	}
	return false
}

// linkClassPower gives each result that leaves its power verdict to its
// link class the verdict of the same spec (check and variant key, which
// name the test and its placement by role, not by GPU) on a pair of the same
// link whose own mutants ran: the one in the same direction (source below
// destination or above it) if there is one, else the other. PowerFrom
// names that pair. Without such a pair in the document the verdict is
// false: nothing here showed the pass could fail.
func linkClassPower(results []Result) {
	type key struct{ check, variant, link string }
	donors := map[key][]int{}
	for i, r := range results {
		results[i].PowerFrom = ""
		// A donor states its own verdict, so its PowerShown is set (and a
		// result that borrows never states one).
		if _, stated := ownPowerVerdict(r); stated && isConf(r) && r.Src != nil && r.Dst != nil {
			k := key{r.Check, r.Variant, r.Link}
			donors[k] = append(donors[k], i)
		}
	}
	for i, r := range results {
		if !isConf(r) || !fromLinkClass(r) || r.Src == nil || r.Dst == nil {
			continue
		}
		shown := false
		results[i].PowerShown = &shown
		best := -1
		for _, d := range donors[key{r.Check, r.Variant, r.Link}] {
			same := (*results[d].Src < *results[d].Dst) == (*r.Src < *r.Dst)
			if best < 0 || same && (*results[best].Src < *results[best].Dst) != (*r.Src < *r.Dst) {
				best = d
			}
		}
		if best >= 0 {
			v := *results[best].PowerShown
			results[i].PowerShown, results[i].PowerFrom = &v, results[best].TargetName()
		}
	}
}
