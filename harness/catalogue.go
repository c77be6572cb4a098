// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import "github.com/p2pconf/p2pconf/harness/checks"

// The catalogue and its vocabulary live in harness/checks, which has no
// test framework in it; these names keep the suites' spelling.

// Kind says how a check's result counts.
type Kind = checks.Kind

// Check kinds.
const (
	Conf   = checks.Conf
	Info   = checks.Info
	Mutant = checks.Mutant
)

// Scope says what a check runs on.
type Scope = checks.Scope

// Check scopes.
const (
	OnGPU   = checks.OnGPU
	OnPair  = checks.OnPair
	OnThree = checks.OnThree
)

// CheckInfo is one catalogue entry.
type CheckInfo = checks.Check

// LookupCheck returns the catalogue entry for id.
func LookupCheck(id string) (CheckInfo, bool) { return checks.Lookup(id) }

// Checks returns the catalogue sorted by ID.
func Checks() []CheckInfo { return checks.All() }
