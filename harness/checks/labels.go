// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package checks

import (
	"fmt"
	"strconv"
	"strings"
)

// Label prefixes and plain labels the suites may use. Anything else is
// rejected by Validate, so a typo cannot silently drop a spec from a label
// filter.
const (
	LabelID      = "id:"
	LabelSuite   = "suite:"
	LabelKind    = "kind:"
	LabelGPUs    = "gpus:"
	LabelGPU     = "gpu:"
	LabelPair    = "pair:"
	LabelTriple  = "triple:"
	LabelLink    = "link:"
	LabelProcess = "process:"
	// LabelVariant names one spec among several of a check on one target
	// ("variant:prefetch").
	LabelVariant = "variant:"

	// ProcessMulti marks specs that run helper processes.
	ProcessMulti = "process:multi"
	// Slow marks specs that take long by design (litmus, bandwidth).
	Slow = "slow"
)

var knownPrefixes = []string{LabelID, LabelSuite, LabelKind, LabelGPUs, LabelGPU, LabelPair, LabelTriple, LabelLink, LabelProcess, LabelVariant}

var knownPlain = map[string]bool{Slow: true}

// LinkValues are the values of link: ("unknown" when NVML could not be read).
var LinkValues = map[string]bool{"nvlink": true, "pcie": true, "none": true, "unknown": true}

// KindLabel overrides a check's default kind (for checks such as
// ordering.litmus whose specs are either conf or mutant).
func KindLabel(k Kind) string { return LabelKind + string(k) }

// GPULabel is the target label of a per-GPU spec: "gpu:0".
func GPULabel(ordinal int) string { return LabelGPU + strconv.Itoa(ordinal) }

// PairID is "0-1", as in P2PCONF_PAIRS and the pair: label.
func PairID(src, dst int) string { return fmt.Sprintf("%d-%d", src, dst) }

// TripleID is "0-1-2", as the triple: label writes three GPUs in role
// order.
func TripleID(a, b, c int) string { return fmt.Sprintf("%d-%d-%d", a, b, c) }

// ParseTripleID reads "0-1-2" into three distinct ordinals; ok is false
// for anything else.
func ParseTripleID(s string) (v [3]int, ok bool) {
	parts := strings.Split(s, "-")
	if len(parts) != 3 {
		return v, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || strconv.Itoa(n) != p {
			return v, false
		}
		v[i] = n
	}
	return v, v[0] != v[1] && v[1] != v[2] && v[0] != v[2]
}

// Format builds a spec's labels: id:, suite:, kind: and gpus: from the
// catalogue, then the target labels, then extra (a kind: among extra
// replaces the default kind). An id that is not in the catalogue is an
// error.
func Format(id string, scope Scope, target, extra []string) ([]string, error) {
	c, ok := Lookup(id)
	if !ok {
		return nil, fmt.Errorf("check %q is not in the catalogue (harness/checks/catalogue.go)", id)
	}
	kind := KindLabel(c.Kinds[0])
	var rest []string
	for _, e := range extra {
		if strings.HasPrefix(e, LabelKind) {
			kind = e
			continue
		}
		rest = append(rest, e)
	}
	l := []string{LabelID + id, LabelSuite + c.Family, kind, LabelGPUs + string(scope)}
	l = append(l, target...)
	return append(l, rest...), nil
}

// Labels is a spec's labels, parsed. Each field holds the value of the
// first label with its prefix; the counts say how many there were, for
// Validate.
type Labels struct {
	ID, Suite, Kind, Scope, Link, Process string
	// GPU is the gpu: ordinal; Src and Dst the pair: ordinals. Nil when the
	// label is absent or malformed.
	GPU, Src, Dst *int
	// Pair is the raw pair: value ("0-1"), GPUText the raw gpu: value.
	Pair, GPUText string
	// Triple is the raw triple: value ("0-1-2"); TripleGPUs its ordinals in
	// role order, nil when the label is absent or malformed.
	Triple     string
	TripleGPUs []int
	// Count is how many labels had each prefix.
	Count map[string]int
	// Unknown lists labels that are neither a known plain label nor have a
	// known prefix and a value.
	Unknown []string
	// All is every label, in order.
	All []string
}

// Parse reads a spec's labels. It never fails: what is missing or
// malformed shows in the result, and Validate says what is wrong.
func Parse(all []string) Labels {
	l := Labels{All: all, Count: map[string]int{}}
	set := func(dst *string, prefix, s string) {
		if l.Count[prefix] == 0 {
			*dst = strings.TrimPrefix(s, prefix)
		}
		l.Count[prefix]++
	}
	for _, s := range all {
		if knownPlain[s] {
			continue
		}
		prefix := knownPrefix(s)
		switch prefix {
		case "":
			l.Unknown = append(l.Unknown, s)
		case LabelID:
			set(&l.ID, prefix, s)
		case LabelSuite:
			set(&l.Suite, prefix, s)
		case LabelKind:
			set(&l.Kind, prefix, s)
		case LabelGPUs:
			set(&l.Scope, prefix, s)
		case LabelLink:
			set(&l.Link, prefix, s)
		case LabelProcess:
			set(&l.Process, prefix, s)
		case LabelGPU:
			set(&l.GPUText, prefix, s)
		case LabelPair:
			set(&l.Pair, prefix, s)
		case LabelTriple:
			set(&l.Triple, prefix, s)
		}
	}
	if n, err := strconv.Atoi(l.GPUText); err == nil && l.GPUText != "" {
		l.GPU = &n
	}
	if a, b, ok := strings.Cut(l.Pair, "-"); ok {
		x, err1 := strconv.Atoi(a)
		y, err2 := strconv.Atoi(b)
		if err1 == nil && err2 == nil && x >= 0 && y >= 0 {
			l.Src, l.Dst = &x, &y
		}
	}
	if v, ok := ParseTripleID(l.Triple); ok {
		l.TripleGPUs = v[:]
	}
	return l
}

// knownPrefix is the known prefix of l, when l has a value after it.
func knownPrefix(l string) string {
	for _, p := range knownPrefixes {
		if strings.HasPrefix(l, p) && len(l) > len(p) {
			return p
		}
	}
	return ""
}

// SpecKey identifies a check on its target, for the duplicate check:
// "access.peer-copy@0-1".
func (l Labels) SpecKey() string { return l.ID + "@" + l.GPUText + l.Pair + l.Triple }

// Validate checks one spec's labels against the catalogue. text names the
// spec in the problems, suite is the suite being run.
func Validate(text string, labels []string, suite string) []string {
	var probs []string
	bad := func(f string, a ...any) { probs = append(probs, fmt.Sprintf("%q: ", text)+fmt.Sprintf(f, a...)) }
	l := Parse(labels)
	for _, u := range l.Unknown {
		bad("unknown label %q", u)
	}
	if n := l.Count[LabelID]; n != 1 {
		bad("has %d id: labels, needs exactly one", n)
		return probs
	}
	c, ok := Lookup(l.ID)
	if !ok {
		bad("id %q is not in the catalogue", l.ID)
		return probs
	}
	if c.Family != suite {
		bad("check %s belongs to suite %s, not %s", l.ID, c.Family, suite)
	}
	if n := l.Count[LabelSuite]; n != 1 || l.Suite != c.Family {
		bad("suite label %q (count %d) does not name the suite of %s, %s", l.Suite, n, l.ID, c.Family)
	}
	if n := l.Count[LabelKind]; n != 1 || !c.AllowsKind(Kind(l.Kind)) {
		bad("kind label %q (count %d) not allowed for %s", l.Kind, n, l.ID)
	}
	if n := l.Count[LabelGPUs]; n != 1 || !c.AllowsScope(Scope(l.Scope)) {
		bad("scope gpus:%s (count %d) not allowed for %s", l.Scope, n, l.ID)
	}
	if n := l.Count[LabelProcess]; n > 0 && (n != 1 || LabelProcess+l.Process != ProcessMulti) {
		bad("process label %q (count %d): the only one is %s", l.Process, n, ProcessMulti)
	}
	gpus, pairs, triples, links := l.Count[LabelGPU], l.Count[LabelPair], l.Count[LabelTriple], l.Count[LabelLink]
	switch Scope(l.Scope) {
	case OnGPU:
		if gpus != 1 || pairs != 0 || triples != 0 || links != 0 {
			bad("a per-GPU spec needs one gpu: label and no pair:, triple: or link: label")
		}
	case OnPair:
		if pairs != 1 || gpus != 0 || triples != 0 || links != 1 || !LinkValues[l.Link] {
			bad("a pair spec needs one pair: label, one link: label (nvlink, pcie, none or unknown; found %q) and no gpu: or triple: label", l.Link)
		}
	case OnThree:
		if triples != 1 || l.TripleGPUs == nil || gpus != 0 || pairs != 0 || links != 1 || !LinkValues[l.Link] {
			bad("a three-GPU spec needs one triple: label of three distinct GPUs (such as triple:0-1-2; found %q), one link: label (nvlink, pcie, none or unknown; found %q) and no gpu: or pair: label", l.Triple, l.Link)
		}
	}
	return probs
}
