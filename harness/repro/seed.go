// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package repro

import "fmt"

// seed is harness.Seed: the suites derive their data from a spec-stable
// string, and a reproducer must use the very same data (a test compares
// the two). It is repeated here so that writing a reproducer does not load
// the test framework the harness package is built on.
func seed(parts ...any) uint64 {
	var h uint64 = 1469598103934665603
	for _, b := range []byte(fmt.Sprint(parts...)) {
		h = (h ^ uint64(b)) * 1099511628211
	}
	return h
}

// seed32 is the suites' kernel pattern seed: the low 32 bits of seed.
func seed32(parts ...any) uint32 { return uint32(seed(parts...)) }

// specTimeout is the default spec timeout (P2PCONF_SPEC_TIMEOUT) in
// seconds; a recipe's timeout is the spec's factor times it.
const specTimeout = 120.0
