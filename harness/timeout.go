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
// The multipliers were chosen as the hard-coded timeout each spec had
// before, divided by the default 2m, so that at the default settings no
// spec has less time than it had:
//
//	30s -> Timeout(0.25)   1m -> Timeout(0.5)   2m -> Timeout(1)
//
// A spec whose running time is decided by another setting (the litmus
// budget, the bandwidth sizes) adds that time with TimeoutPlus or scales
// its multiplier by it, so raising that setting never times the spec out.

// TimeoutFor is factor × the configured spec timeout.
func TimeoutFor(factor float64) time.Duration {
	return time.Duration(factor * float64(RunConfig().SpecTimeout))
}

// Timeout is the spec decorator SpecTimeout(factor × the configured spec
// timeout).
func Timeout(factor float64) SpecTimeout { return SpecTimeout(TimeoutFor(factor)) }

// TimeoutPlus is Timeout(factor) plus extra, the time another setting gives
// the spec (e.g. a multiple of the litmus budget).
func TimeoutPlus(factor float64, extra time.Duration) SpecTimeout {
	return SpecTimeout(TimeoutFor(factor) + extra)
}
