// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package checks

import (
	"fmt"
	"regexp"
	"sort"
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
	// LabelVariant declares a spec's variant key where a check has several
	// specs on one target: "variant:4-kib-no-peer". The key names the
	// variant in every report, diff, JUnit case and `p2pconf repro
	// --variant`; unlike the spec's text it holds no GPU names and does not
	// change when the text is reworded.
	LabelVariant = "variant:"

	// ProcessMulti marks specs that run helper processes.
	ProcessMulti = "process:multi"
	// Slow marks specs that take long by design (litmus, bandwidth).
	Slow = "slow"
)

var knownPrefixes = []string{LabelID, LabelSuite, LabelKind, LabelGPUs, LabelGPU, LabelPair, LabelTriple, LabelLink, LabelProcess, LabelVariant}

var knownPlain = map[string]bool{Slow: true}

// variantKey is the form of a variant key: short lower-case words of
// letters and digits joined by hyphens, in parts joined by dots (the
// generated litmus space: "wrc.tb-01-2.scope-cta.relaxed").
var variantKey = regexp.MustCompile(`^[a-z0-9]+([.-][a-z0-9]+)*$`)

// MaxVariantKey is the longest variant key allowed, in bytes.
const MaxVariantKey = 64

// ValidVariantKey reports whether key is a well-formed variant key.
func ValidVariantKey(key string) bool {
	return len(key) <= MaxVariantKey && variantKey.MatchString(key)
}

// VariantLabel is the label that declares a spec's variant key.
func VariantLabel(key string) string { return LabelVariant + key }

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
	// Variant is the declared variant key (variant: label), "" when none.
	Variant string
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
		case LabelVariant:
			set(&l.Variant, prefix, s)
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

// TargetSpecs checks the specs that share one check and target (labels of
// each, keyed by spec text): several are allowed only for a check with
// variants, and then each must declare its own variant key. A spec with a
// malformed variant label is left to Validate.
func TargetSpecs(id string, specs map[string]Labels) []string {
	if len(specs) < 2 {
		return nil
	}
	var probs []string
	texts := make([]string, 0, len(specs))
	for t := range specs {
		texts = append(texts, t)
	}
	sort.Strings(texts)
	if c, ok := Lookup(id); ok && !c.Variants {
		return []string{fmt.Sprintf("check %s has %d specs on the same target (%s); only a check with variants may", id, len(specs), specs[texts[0]].SpecKey())}
	}
	byKey := map[string][]string{}
	for _, t := range texts {
		l := specs[t]
		if l.Variant == "" {
			probs = append(probs, fmt.Sprintf("%q: %s has %d specs; each needs its own variant key (a variant: label)", t, l.SpecKey(), len(specs)))
			continue
		}
		byKey[l.Variant] = append(byKey[l.Variant], t)
	}
	for k, ts := range byKey {
		if len(ts) > 1 {
			probs = append(probs, fmt.Sprintf("%s: variant %q is declared by %d specs (%s); variant keys must be unique", specs[ts[0]].SpecKey(), k, len(ts), strings.Join(quoteAll(ts), ", ")))
		}
	}
	sort.Strings(probs)
	return probs
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = strconv.Quote(x)
	}
	return out
}

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
	if n := l.Count[LabelVariant]; n > 1 || (n == 1 && !ValidVariantKey(l.Variant)) {
		bad("variant label %q (count %d): a spec declares at most one variant key, lower-case letters and digits in words joined by hyphens, at most %d bytes (such as variant:4-kib-no-peer)", l.Variant, n, MaxVariantKey)
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
