// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
)

// Spec timeouts derive from the run's configuration (P2PCONF_SPEC_TIMEOUT,
// RunConfig().SpecTimeout, 2m by default) so that a slow machine or a
// debugging run can give every spec more time with one setting. A spec
// states how long it needs relative to that setting with a multiplier:
// Timeout(0.5) is half the configured timeout, one minute at the default.
// The multipliers are the fixed timeout each spec had before it derived one
// from the configuration, divided by the default 2m, so that at the default
// settings every spec has exactly the time it had:
//
//	fixed 30s -> Timeout(0.25)   fixed 1m -> Timeout(0.5)
//	fixed 2m, or the configured timeout -> Timeout(1)
//
// A spec whose running time is decided by another setting adds that time
// or scales by it, so raising that setting never times the spec out: the
// litmus specs take TimeoutPlus(1, 3 × the longer litmus cap) and the flag
// handoffs TimeoutPlus(0.5, the budget), as before; the bandwidth specs
// that sweep the sizes take Timeout(largest size / its 1 GiB default, at
// least 1).

// TimeoutFor is factor × the configured spec timeout.
func TimeoutFor(factor float64) time.Duration { return scaleTimeout(RunConfig().SpecTimeout, factor) }

// scaleTimeout is factor × base, rounded up to the next second so that a
// fractional multiplier never gives a spec a fraction of a second less than
// the table above promises.
func scaleTimeout(base time.Duration, factor float64) time.Duration {
	d := time.Duration(factor * float64(base))
	if r := d % time.Second; r != 0 {
		d += time.Second - r
	}
	return d
}

// Timeout is the spec decorator SpecTimeout(factor × the configured spec
// timeout).
func Timeout(factor float64) SpecTimeout { return SpecTimeout(TimeoutFor(factor)) }

// TimeoutPlus is Timeout(factor) plus extra, the time another setting gives
// the spec (e.g. a multiple of the litmus budget).
func TimeoutPlus(factor float64, extra time.Duration) SpecTimeout {
	return SpecTimeout(TimeoutFor(factor) + extra)
}
