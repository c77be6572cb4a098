// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package checks is the check catalogue and the label grammar that ties a
// spec to it. It has no test framework in it, so the suites' fixture, the
// report writer, the command-line tools and the catalogue document
// (docs/checks.md) all read the same data and parse labels the same way.
package checks

import (
	"sort"
	"strings"
)

// Kind says how a check's result counts.
type Kind string

// Check kinds.
const (
	// Conf fails on any violation.
	Conf Kind = "conf"
	// Info records an observation and fails only on a harness error.
	Info Kind = "info"
	// Mutant is an allowed-but-weak variant of a conf check; it never fails
	// the run by itself, it shows whether its sibling could have failed.
	Mutant Kind = "mutant"
)

// Scope says what a check runs on.
type Scope string

// Check scopes.
const (
	OnGPU   Scope = "1"    // once per GPU
	OnPair  Scope = "pair" // once per ordered pair
	OnThree Scope = "3"    // once per selected triple of GPUs (label triple:A-B-C)
)

// Check is one catalogue entry.
type Check struct {
	ID     string
	Family string // the part of ID before the dot: the suite that owns it
	Scopes []Scope
	Kinds  []Kind // the first is the default
	// Variants allows several specs per check and target (litmus tests,
	// flag-handoff variants); their texts must still be unique.
	Variants bool
	// Requirement is what the check demands (MUST), or what it records.
	Requirement string
	// Source is the documentation (or observation) the requirement rests on.
	Source string
	// AppliesTo says which GPUs or pairs the check runs on.
	AppliesTo string
	// Reproducible says that `p2pconf repro` writes a standalone C
	// reproducer of the check (harness/repro); NotReproducible is the
	// reason where there can be none. Both come from the tables in repro.go.
	Reproducible    bool
	NotReproducible string
}

// AllowsScope reports whether the check may run with scope s.
func (c Check) AllowsScope(s Scope) bool {
	for _, x := range c.Scopes {
		if x == s {
			return true
		}
	}
	return false
}

// AllowsKind reports whether a spec of the check may have kind k.
func (c Check) AllowsKind(k Kind) bool {
	for _, x := range c.Kinds {
		if x == k {
			return true
		}
	}
	return false
}

var byID = func() map[string]*Check {
	m := make(map[string]*Check, len(catalogue))
	for i := range catalogue {
		c := &catalogue[i]
		c.Family, _, _ = strings.Cut(c.ID, ".")
		c.Reproducible = reproducible[c.ID]
		c.NotReproducible = notReproducible[c.ID]
		m[c.ID] = c
	}
	return m
}()

// Lookup returns the catalogue entry for id.
func Lookup(id string) (Check, bool) {
	c, ok := byID[id]
	if !ok {
		return Check{}, false
	}
	return *c, true
}

// All returns the catalogue sorted by ID.
func All() []Check {
	out := make([]Check, len(catalogue))
	copy(out, catalogue)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
