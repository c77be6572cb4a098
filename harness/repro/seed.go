// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package repro

import (
	"time"

	"github.com/p2pconf/p2pconf/harness/machine"
)

// seed is the suites' data seed (machine.Seed): the suites derive their
// data from a spec-stable string, and a reproducer uses the very same data.
func seed(parts ...any) uint64 { return machine.Seed(parts...) }

// seed32 is the suites' kernel pattern seed: the low 32 bits of seed.
func seed32(parts ...any) uint32 { return uint32(seed(parts...)) }

// specTimeout is the default spec timeout (P2PCONF_SPEC_TIMEOUT) in
// seconds; a recipe's timeout is the spec's factor times it.
const specTimeout = float64(machine.DefaultSpecTimeout / time.Second)
