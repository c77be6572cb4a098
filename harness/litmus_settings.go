// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Environment variables that decide when a forbidden litmus pass counts.
const (
	EnvLitmusMinInstances      = "P2PCONF_LITMUS_MIN_INSTANCES"       // fewest counted instances for a verdict
	EnvLitmusMinFlagShare      = "P2PCONF_LITMUS_MIN_FLAG_SHARE"      // least share of instances that saw the polled flag set
	EnvLitmusMaxViolationBound = "P2PCONF_LITMUS_MAX_VIOLATION_BOUND" // largest 95 % upper bound on the violation rate a pass may have
)

// Litmus defaults. A pass with no violation but too little evidence is not
// a pass: it is inconclusive. The hardware defaults are far below what a
// two-second run on an H200 gives (at least 1.6e7 instances per test, a 95 %
// bound near 2e-7, the flag of a weak-flag poll across two H200s seen in
// 0.018 % of instances), so they only reject runs that tested nothing.
const (
	DefaultLitmusMinInstances      = 100_000
	DefaultLitmusMinFlagShare      = 1e-5
	DefaultLitmusMaxViolationBound = 1e-4
	// The fake backend interprets every access in Go: one launch of its
	// 1 ms budget counts 64 instances, so its bound is 3/64 at best.
	FakeLitmusMinInstances      = 32
	FakeLitmusMaxViolationBound = 0.1
	// FakeLitmusBudget is the litmus budget on the fake backend unless
	// P2PCONF_LITMUS_BUDGET is set.
	FakeLitmusBudget = time.Millisecond
)

// LitmusSettings are the evidence a forbidden litmus test needs to pass.
type LitmusSettings struct {
	MinInstances      uint64
	MinFlagShare      float64 // fraction of counted instances, in (0, 1]
	MaxViolationBound float64 // per instance, in (0, 1]
	// FakeBudget is the litmus budget on the fake backend: FakeLitmusBudget,
	// or P2PCONF_LITMUS_BUDGET when that is set.
	FakeBudget time.Duration
}

// ReadLitmusSettings reads the litmus variables through getenv, with the
// fake backend's defaults when fake is true. A malformed value is an error
// naming the variable and the value.
func ReadLitmusSettings(getenv func(string) string, fake bool) (LitmusSettings, error) {
	s := LitmusSettings{MinInstances: DefaultLitmusMinInstances, MinFlagShare: DefaultLitmusMinFlagShare,
		MaxViolationBound: DefaultLitmusMaxViolationBound, FakeBudget: FakeLitmusBudget}
	if fake {
		s.MinInstances, s.MaxViolationBound = FakeLitmusMinInstances, FakeLitmusMaxViolationBound
	}
	if v := strings.TrimSpace(getenv(EnvLitmusMinInstances)); v != "" {
		n, err := strconv.ParseUint(strings.ReplaceAll(v, "_", ""), 10, 64)
		if err != nil || n == 0 {
			return s, fmt.Errorf("%s=%q: want a positive whole number of instances, such as 100000", EnvLitmusMinInstances, v)
		}
		s.MinInstances = n
	}
	var err error
	if s.MinFlagShare, err = readFraction(getenv, EnvLitmusMinFlagShare, s.MinFlagShare, "0.001%"); err != nil {
		return s, err
	}
	if s.MaxViolationBound, err = readFraction(getenv, EnvLitmusMaxViolationBound, s.MaxViolationBound, "1e-4"); err != nil {
		return s, err
	}
	if v := strings.TrimSpace(getenv(EnvLitmusBudget)); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return s, fmt.Errorf("%s=%q: want a positive Go duration such as 10s", EnvLitmusBudget, v)
		}
		s.FakeBudget = d
	}
	return s, nil
}

// readFraction reads a number in (0, 1], or a percentage in (0, 100] with a
// trailing %.
func readFraction(getenv func(string) string, name string, def float64, example string) (float64, error) {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return def, nil
	}
	num, scale := v, 1.0
	if strings.HasSuffix(v, "%") {
		num, scale = strings.TrimSpace(strings.TrimSuffix(v, "%")), 100
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || !(f > 0) || f/scale > 1 {
		return def, fmt.Errorf("%s=%q: want a fraction above 0 and at most 1, or a percentage with %%, such as %s", name, v, example)
	}
	return f / scale, nil
}
