// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/p2pconf/p2pconf/internal/suiterun"
)

// Oracle is the reviewed expectation: per preset, per suite, every spec by
// its key (check ID, target, variant) with the outcome it must have. Keeping
// each spec's own outcome, not counts, is what makes a spec that starts
// skipping while another stops, a spec that disappears or a failure for
// another reason visible.
type Oracle map[string]map[string]map[string]Outcome

// Outcome is one spec's expected (or observed) outcome.
type Outcome struct {
	State string `json:"state"` // passed, skipped, failed, ...
	// Reason is the skip reason, exactly.
	Reason string `json:"reason,omitempty"`
	// Message is, for an expected failure, a regular expression the first
	// line of the failure message must match (the whole line); for an
	// observed failure, that line itself.
	Message string `json:"message,omitempty"`
}

// specKey names a spec within a suite's run on a preset: "check target",
// and " variant:key" for a spec that declares its variant key (the suites
// make every spec that shares a check and target declare one). The key
// does not hold the spec's text, so rewording a spec keeps its
// expectation. A spec without a target label runs once per machine; one
// without an id is named by its text.
func specKey(s suiterun.Spec) string {
	id, target := s.ID, s.Target
	if id == "" {
		id = "(no id) " + s.Text
	}
	if target == "" {
		target = "machine"
	}
	k := id + " " + target
	if s.Variant != "" {
		k += " variant:" + s.Variant
	}
	return k
}

// observe turns a run's specs into outcomes by key. Two specs with one key
// are a problem: the oracle could not tell them apart.
func observe(specs []suiterun.Spec) (map[string]Outcome, []string) {
	out := map[string]Outcome{}
	var probs []string
	for _, s := range specs {
		k := specKey(s)
		if _, dup := out[k]; dup {
			probs = append(probs, fmt.Sprintf("two specs share the key %q", k))
		}
		o := Outcome{State: s.State}
		switch s.State {
		case "passed":
		case "skipped":
			o.Reason = s.Reason
		default:
			o.Message = s.Reason
		}
		out[k] = o
	}
	return out, probs
}

// expectationOf turns observed outcomes into an expectation: a failure's
// message becomes a pattern that matches that exact line.
func expectationOf(got map[string]Outcome) map[string]Outcome {
	out := make(map[string]Outcome, len(got))
	for k, o := range got {
		if o.Message != "" {
			o.Message = "^" + regexp.QuoteMeta(o.Message) + "$"
		}
		out[k] = o
	}
	return out
}

// compareSuite checks one suite's observed outcomes on a preset against the
// expectation, spec by spec.
func compareSuite(preset, suite string, want, got map[string]Outcome) []string {
	var probs []string
	where := suite + " on " + preset
	for k, w := range want {
		g, ok := got[k]
		switch {
		case !ok:
			probs = append(probs, fmt.Sprintf("%s: %s: expected to %s, did not run", where, k, w.State))
		case g.State != w.State:
			detail := g.Reason + g.Message
			if detail != "" {
				detail = " (" + detail + ")"
			}
			probs = append(probs, fmt.Sprintf("%s: %s: %s%s, expected %s", where, k, g.State, detail, w.State))
		case w.State == "skipped" && g.Reason != w.Reason:
			probs = append(probs, fmt.Sprintf("%s: %s: skipped because %q, expected %q", where, k, g.Reason, w.Reason))
		case w.State != "passed" && w.State != "skipped":
			if w.Message == "" {
				probs = append(probs, fmt.Sprintf("%s: %s: the expected failure has no message pattern", where, k))
				break
			}
			re, err := regexp.Compile(w.Message)
			if err != nil {
				probs = append(probs, fmt.Sprintf("%s: %s: message pattern %q: %v", where, k, w.Message, err))
			} else if !re.MatchString(g.Message) {
				probs = append(probs, fmt.Sprintf("%s: %s: failed with %q, expected a message matching %q", where, k, g.Message, w.Message))
			}
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			probs = append(probs, fmt.Sprintf("%s: %s: %s but has no expectation; review it and run -update -write", where, k, g.State))
		}
	}
	sort.Strings(probs)
	return probs
}

// compare checks every suite that ran against the oracle, and that every
// expected suite ran (only restricts both to one suite).
func compare(want Oracle, got map[string]map[string]map[string]Outcome, only string) []string {
	var probs []string
	for preset, suites := range want {
		for suite, w := range suites {
			if only != "" && suite != only {
				continue
			}
			g, ok := got[preset][suite]
			if !ok {
				probs = append(probs, fmt.Sprintf("%s on %s: expected to run, did not", suite, preset))
				continue
			}
			probs = append(probs, compareSuite(preset, suite, w, g)...)
		}
	}
	for preset, suites := range got {
		for suite := range suites {
			if _, ok := want[preset][suite]; !ok {
				probs = append(probs, fmt.Sprintf("%s on %s: ran but has no expectation; review it and run -update -write", suite, preset))
			}
		}
	}
	sort.Strings(probs)
	return probs
}

// merge is the new oracle after a run: the old one with the suites that ran
// replaced by their observed outcomes as expectations.
func merge(old Oracle, got map[string]map[string]map[string]Outcome) Oracle {
	out := Oracle{}
	for preset, suites := range old {
		out[preset] = map[string]map[string]Outcome{}
		for suite, specs := range suites {
			out[preset][suite] = specs
		}
	}
	for preset, suites := range got {
		if out[preset] == nil {
			out[preset] = map[string]map[string]Outcome{}
		}
		for suite, specs := range suites {
			out[preset][suite] = expectationOf(specs)
		}
	}
	return out
}

// lines renders the oracle one spec per line ("preset suite key = outcome"),
// sorted, for the diff -update shows.
func (o Oracle) lines() []string {
	var out []string
	for preset, suites := range o {
		for suite, specs := range suites {
			for k, v := range specs {
				out = append(out, preset+" "+suite+" "+k+" = "+marshal(v))
			}
		}
	}
	sort.Strings(out)
	return out
}

// diff lists what changes from old to new, one spec per line: "-" for an
// expectation removed or replaced, "+" for one added or its replacement.
func diff(old, new Oracle) []string {
	a, b := old.lines(), new.lines()
	inA, inB := map[string]bool{}, map[string]bool{}
	for _, l := range a {
		inA[l] = true
	}
	for _, l := range b {
		inB[l] = true
	}
	var out []string
	for _, l := range a {
		if !inB[l] {
			out = append(out, "- "+l)
		}
	}
	for _, l := range b {
		if !inA[l] {
			out = append(out, "+ "+l)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i][2:] < out[j][2:] })
	return out
}

// encode writes the oracle as JSON with one spec per line, sorted, so a
// review of a change reads like the diff.
func (o Oracle) encode() []byte {
	var buf bytes.Buffer
	buf.WriteString("{\n")
	presets := sortedKeys(o)
	for i, preset := range presets {
		fmt.Fprintf(&buf, "  %s: {\n", quote(preset))
		suites := sortedKeys(o[preset])
		for j, suite := range suites {
			fmt.Fprintf(&buf, "    %s: {\n", quote(suite))
			keys := sortedKeys(o[preset][suite])
			for k, key := range keys {
				fmt.Fprintf(&buf, "      %s: %s%s\n", quote(key), marshal(o[preset][suite][key]), comma(k, len(keys)))
			}
			fmt.Fprintf(&buf, "    }%s\n", comma(j, len(suites)))
		}
		fmt.Fprintf(&buf, "  }%s\n", comma(i, len(presets)))
	}
	buf.WriteString("}\n")
	return buf.Bytes()
}

func decode(b []byte) (Oracle, error) {
	var o Oracle
	if err := json.Unmarshal(b, &o); err != nil {
		return nil, err
	}
	return o, nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func quote(s string) string { return marshal(s) }

// marshal is compact JSON that leaves <, > and & as they are (spec texts
// and messages hold them).
func marshal(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // strings and Outcome values always encode
	return strings.TrimSuffix(buf.String(), "\n")
}

func comma(i, n int) string {
	if i < n-1 {
		return ","
	}
	return ""
}

// count adds up the states of an oracle's specs.
func (o Oracle) count(state string) int {
	n := 0
	for _, suites := range o {
		for _, specs := range suites {
			for _, v := range specs {
				if v.State == state {
					n++
				}
			}
		}
	}
	return n
}

// stateSummary is "2612 passed, 394 skipped, 2 failed".
func (o Oracle) stateSummary() string {
	states := map[string]bool{}
	for _, suites := range o {
		for _, specs := range suites {
			for _, v := range specs {
				states[v.State] = true
			}
		}
	}
	var parts []string
	for _, s := range sortedKeys(states) {
		parts = append(parts, fmt.Sprintf("%d %s", o.count(s), s))
	}
	return strings.Join(parts, ", ")
}
