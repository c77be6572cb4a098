// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"fmt"
	"sort"
	"strings"
)

// disagreement is one place where what CUDA or NVML claim about a pair does
// not match what a check observed, or what the other source claims. The
// report shows it as one line (pair, claim, observed) with its details
// folded, so a reader sees every disagreement before any wall of text.
type disagreement struct {
	target   string // "GPU0→GPU1"
	kind     string // "claim vs result", "sources disagree", "claims disagree"
	claim    string // what was claimed, compact: "CUDA NATIVE_ATOMIC_SUPPORTED=1; NVML P2P ATOMICS=OK"
	observed string // the check and its verdict ("atomics.capability-report ✗ fail"), "" for claims alone
	details  []string
	rerun    string
}

// line is the one-line form: kind, claim, observed.
func (d disagreement) line() string {
	s := d.kind + ": claimed " + d.claim
	if d.kind == "claims disagree" {
		s = d.kind + ": " + d.claim
	}
	if d.observed != "" {
		s += " · observed " + d.observed
	}
	return s
}

// disagreements lists, per pair, every place where what CUDA or NVML claim
// does not match what was observed or what the other source claims.
func disagreements(doc Document, pairs map[tkey]Pair) []disagreement {
	var out []disagreement
	flagged := map[tkey]bool{}
	for _, r := range doc.Results {
		k, ok := keyOf(r)
		if !ok || k.b < 0 || !r.Failed() || r.Status == StatusError {
			continue
		}
		observed := fmt.Sprintf("%s %s %s", r.Check, symbol(r.Status), r.Status)
		if name := VariantName(r); name != "" {
			observed += " (" + name + ")"
		}
		details := []string{"result: " + orDash(firstNonEmpty(r.Message, r.Reason))}
		if srcs := claimSources(r); len(srcs) >= 2 {
			out = append(out, disagreement{target: r.TargetName(), kind: "sources disagree",
				claim: compactClaims(r.Entries), observed: observed,
				details: append(details, claimGroups(r.Entries)...), rerun: RerunCommand(doc.System, r)})
			flagged[k] = true
			continue
		}
		p, ok := pairs[k]
		if !ok || (r.Kind != "conf" && r.Kind != "") {
			continue
		}
		claimed, what, text := peerClaimed(p), "peer access", peerClaimText(p)
		if r.Family == "atomics" {
			claimed, what, text = atomicsClaimed(p), "native atomics", atomicsClaimText(p)
		}
		if claimed {
			out = append(out, disagreement{target: r.TargetName(), kind: "claim vs result",
				claim: what, observed: observed,
				details: append(details, "claims: "+text), rerun: RerunCommand(doc.System, r)})
			flagged[k] = true
		}
	}
	keys := make([]tkey, 0, len(pairs))
	for k := range pairs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].a < keys[j].a || (keys[i].a == keys[j].a && keys[i].b < keys[j].b) })
	for _, k := range keys {
		if flagged[k] {
			continue
		}
		for _, text := range claimConflicts(pairs[k]) {
			out = append(out, disagreement{target: targetText(k), kind: "claims disagree", claim: text,
				details: []string{"claims: " + claimDetail(pairs[k])}})
		}
	}
	return out
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// claimSources are the distinct sources of a result's claim entries.
func claimSources(r Result) []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range r.Entries {
		if e.Kind == KindClaim && e.Source != "" && !seen[e.Source] {
			seen[e.Source] = true
			out = append(out, e.Source)
		}
	}
	return out
}

// claimGroup is the claims of one source and one query: a P2P attribute
// alone, or a query asked once per operation
// ("cuDeviceGetP2PAtomicCapabilities CU_ATOMIC_OPERATION_AND").
type claimGroup struct {
	source, query string
	params        []string // one per entry; "" for a query without parameter
	values        []string
}

func groupClaims(entries []Entry) []*claimGroup {
	var groups []*claimGroup
	byKey := map[string]*claimGroup{}
	for _, e := range entries {
		if e.Kind != KindClaim {
			continue
		}
		query, param, _ := strings.Cut(e.Name, " ")
		query = strings.TrimPrefix(query, "CU_DEVICE_P2P_ATTRIBUTE_")
		if strings.HasPrefix(e.Name, "P2P ") { // NVML's "P2P ATOMICS" is one name
			query, param = e.Name, ""
		}
		param = strings.TrimPrefix(param, "CU_ATOMIC_OPERATION_")
		value := valueText(e.Value)
		if e.Source == "nvml" {
			value = nvmlShort(value)
		}
		key := e.Source + "\x00" + query
		g := byKey[key]
		if g == nil || param == "" {
			g = &claimGroup{source: e.Source, query: query}
			byKey[key] = g
			groups = append(groups, g)
		}
		g.params = append(g.params, param)
		g.values = append(g.values, value)
	}
	return groups
}

// compact is a group in a few words: "NATIVE_ATOMIC_SUPPORTED=1", or for a
// query per operation "cuDeviceGetP2PAtomicCapabilities=0 for all 13" (or
// the count of each value when they differ).
func (g *claimGroup) compact() string {
	if len(g.params) == 1 && g.params[0] == "" {
		return g.query + "=" + g.values[0]
	}
	counts := map[string]int{}
	var order []string
	for _, v := range g.values {
		if counts[v] == 0 {
			order = append(order, v)
		}
		counts[v]++
	}
	if len(order) == 1 {
		return fmt.Sprintf("%s=%s for all %d", g.query, order[0], len(g.values))
	}
	parts := make([]string, 0, len(order))
	for _, v := range order {
		parts = append(parts, fmt.Sprintf("%s for %d", v, counts[v]))
	}
	return fmt.Sprintf("%s: %s of %d", g.query, strings.Join(parts, ", "), len(g.values))
}

// compactClaims is a result's claims in one line, per source:
// "CUDA NATIVE_ATOMIC_SUPPORTED=1, cuDeviceGetP2PAtomicCapabilities=0 for
// all 13; NVML P2P ATOMICS=OK".
func compactClaims(entries []Entry) string {
	var sources []string
	bySource := map[string][]string{}
	for _, g := range groupClaims(entries) {
		if _, ok := bySource[g.source]; !ok {
			sources = append(sources, g.source)
		}
		bySource[g.source] = append(bySource[g.source], g.compact())
	}
	parts := make([]string, 0, len(sources))
	for _, s := range sources {
		parts = append(parts, strings.ToUpper(orDash(s))+" "+strings.Join(bySource[s], ", "))
	}
	return strings.Join(parts, "; ")
}

// claimGroups are a result's claims in full, one line per source and query,
// for the folded details.
func claimGroups(entries []Entry) []string {
	var out []string
	for _, g := range groupClaims(entries) {
		if len(g.params) == 1 && g.params[0] == "" {
			out = append(out, fmt.Sprintf("%s claims %s=%s", g.source, g.query, g.values[0]))
			continue
		}
		parts := make([]string, len(g.params))
		for i := range g.params {
			parts[i] = g.params[i] + "=" + g.values[i]
		}
		out = append(out, fmt.Sprintf("%s claims %s: %s", g.source, g.query, strings.Join(parts, ", ")))
	}
	return out
}
