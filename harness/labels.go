// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
)

// Label prefixes and plain labels the suites may use. Anything else is
// rejected by the start-up check, so a typo cannot silently drop a spec from
// a label filter.
const (
	LabelID      = "id:"
	LabelSuite   = "suite:"
	LabelKind    = "kind:"
	LabelGPUs    = "gpus:"
	LabelGPU     = "gpu:"
	LabelPair    = "pair:"
	LabelLink    = "link:"
	LabelProcess = "process:"

	// ProcessMulti marks specs that run helper processes.
	ProcessMulti = "process:multi"
	// Slow marks specs that take long by design (litmus, bandwidth).
	Slow = "slow"
)

var knownPrefixes = []string{LabelID, LabelSuite, LabelKind, LabelGPUs, LabelGPU, LabelPair, LabelLink, LabelProcess}

var knownPlain = map[string]bool{Slow: true}

// linkValues are the values of link: (Pair.Link; "unknown" when NVML could
// not be read).
var linkValues = map[string]bool{"nvlink": true, "pcie": true, "none": true, "unknown": true}

// Extra labels that may be added to a check's labels.
type Extra = string

// KindLabel overrides the check's default kind (for checks such as
// ordering.litmus whose specs are either conf or mutant).
func KindLabel(k Kind) Extra { return LabelKind + string(k) }

// GPULabels are the labels of a per-GPU spec of check id on g.
func GPULabels(id string, g GPU, extra ...Extra) Labels {
	return checkLabels(id, OnGPU, []string{LabelGPU + fmt.Sprint(int(g.Ordinal))}, extra)
}

// PairLabels are the labels of a per-pair spec of check id on p.
func PairLabels(id string, p Pair, extra ...Extra) Labels {
	return checkLabels(id, OnPair, []string{LabelPair + p.ID(), LabelLink + p.Link}, extra)
}

// checkLabels builds id:, suite:, kind: and gpus: from the catalogue. An
// unknown id panics at tree construction: that is a bug in the suite.
func checkLabels(id string, scope Scope, target, extra []string) Labels {
	c, ok := LookupCheck(id)
	if !ok {
		panic(fmt.Sprintf("harness: check %q is not in the catalogue (SPECS.md)", id))
	}
	kind := LabelKind + string(c.Kinds[0])
	var rest []string
	for _, e := range extra {
		if strings.HasPrefix(e, LabelKind) {
			kind = e
			continue
		}
		rest = append(rest, e)
	}
	l := Labels{LabelID + id, LabelSuite + c.Family, kind, LabelGPUs + string(scope)}
	l = append(l, target...)
	return append(l, rest...)
}

// labelValue returns the value of the first label with prefix.
func labelValue(labels []string, prefix string) (string, int) {
	val, n := "", 0
	for _, l := range labels {
		if strings.HasPrefix(l, prefix) {
			if n == 0 {
				val = strings.TrimPrefix(l, prefix)
			}
			n++
		}
	}
	return val, n
}

// validateLabels checks one spec's labels against the catalogue. suite is
// the suite being run; it returns a list of problems.
func validateLabels(text string, labels []string, suite string) []string {
	var probs []string
	bad := func(f string, a ...any) { probs = append(probs, fmt.Sprintf("%q: ", text)+fmt.Sprintf(f, a...)) }
	for _, l := range labels {
		if knownPlain[l] || hasKnownPrefix(l) {
			continue
		}
		bad("unknown label %q", l)
	}
	id, n := labelValue(labels, LabelID)
	if n != 1 {
		bad("has %d id: labels, needs exactly one", n)
		return probs
	}
	c, ok := LookupCheck(id)
	if !ok {
		bad("id %q is not in the catalogue", id)
		return probs
	}
	if c.Family != suite {
		bad("check %s belongs to suite %s, not %s", id, c.Family, suite)
	}
	if s, n := labelValue(labels, LabelSuite); n != 1 || s != c.Family {
		bad("suite label %q (count %d) does not name the suite of %s, %s", s, n, id, c.Family)
	}
	if k, n := labelValue(labels, LabelKind); n != 1 || !c.allowsKind(Kind(k)) {
		bad("kind label %q (count %d) not allowed for %s", k, n, id)
	}
	scope, n := labelValue(labels, LabelGPUs)
	if n != 1 || !c.allowsScope(Scope(scope)) {
		bad("scope gpus:%s (count %d) not allowed for %s", scope, n, id)
	}
	if p, n := labelValue(labels, LabelProcess); n > 0 && (n != 1 || LabelProcess+p != ProcessMulti) {
		bad("process label %q (count %d): the only one is %s", p, n, ProcessMulti)
	}
	_, gpus := labelValue(labels, LabelGPU)
	_, pairs := labelValue(labels, LabelPair)
	link, links := labelValue(labels, LabelLink)
	switch Scope(scope) {
	case OnGPU:
		if gpus != 1 || pairs != 0 || links != 0 {
			bad("a per-GPU spec needs one gpu: label and no pair: or link: label")
		}
	case OnPair:
		if pairs != 1 || gpus != 0 || links != 1 || !linkValues[link] {
			bad("a pair spec needs one pair: label, one link: label (nvlink, pcie, none or unknown; found %q) and no gpu: label", link)
		}
	}
	return probs
}

func hasKnownPrefix(l string) bool {
	for _, p := range knownPrefixes {
		if strings.HasPrefix(l, p) && len(l) > len(p) {
			return true
		}
	}
	return false
}

// specKey identifies a check on its target, for the duplicate check.
func specKey(labels []string) string {
	id, _ := labelValue(labels, LabelID)
	g, _ := labelValue(labels, LabelGPU)
	p, _ := labelValue(labels, LabelPair)
	return id + "@" + g + p
}
