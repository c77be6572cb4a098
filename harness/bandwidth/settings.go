// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package bandwidth

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Environment variables of the bandwidth suite.
const (
	EnvMaxSize   = "P2PCONF_BW_MAX_SIZE"  // largest transfer, e.g. 1GiB (default) or 64MiB
	EnvBaseline  = "P2PCONF_BASELINE"     // baseline file that turns on the bandwidth gate
	EnvTolerance = "P2PCONF_BW_TOLERANCE" // allowed drop below a previous run, percent (default 10)
	// EnvLinkEfficiencyMin is the least share of the link's nominal rate,
	// percent, that bandwidth.link-efficiency accepts (default 60).
	EnvLinkEfficiencyMin = "P2PCONF_LINK_EFFICIENCY_MIN"
	// EnvSweep chooses which pairs sweep every transfer size:
	// "representative" (default) or "all".
	EnvSweep = "P2PCONF_BW_SWEEP"
)

// Bandwidth defaults.
const (
	// DefaultMaxSize keeps the bandwidth suite near a minute on one H200.
	DefaultMaxSize = GiB
	// DefaultTolerance is the drop below a previous run that the gate allows.
	DefaultTolerance = 0.10
	// DefaultLinkEfficiencyMin is 60 %: two H200 reach 83 % of their 18
	// links' nominal, and a path that lost half its links or staged through
	// the host falls far below.
	DefaultLinkEfficiencyMin = 0.60
)

// Settings configure the bandwidth suite: how far its sizes go and
// what, if anything, its figures are gated against.
type Settings struct {
	MaxSize      uint64
	Tolerance    float64 // fraction, 0.10 for 10 %
	BaselinePath string
	Baseline     *Baseline // nil: the specs only record
	// LinkEfficiencyMin is a fraction, 0.60 for 60 %.
	LinkEfficiencyMin float64
	// SweepAll makes every pair sweep every size. Otherwise only the
	// representative pair of each link class (harness.RepresentativePair) and its
	// reverse do, and the other pairs measure the largest size: on eight
	// GPUs the bandwidth suite, which runs alone, would otherwise take
	// minutes measuring 56 pairs of one kind of link size by size.
	SweepAll bool
}

// ReadSettings reads the bandwidth variables through getenv (and
// the baseline file, which is parsed here so a bad one fails before any GPU
// work). A malformed value is an error naming the variable and the value.
func ReadSettings(getenv func(string) string) (Settings, error) {
	s := Settings{MaxSize: DefaultMaxSize, Tolerance: DefaultTolerance, LinkEfficiencyMin: DefaultLinkEfficiencyMin}
	if v := strings.TrimSpace(getenv(EnvMaxSize)); v != "" {
		n, err := ParseSize(v)
		if err != nil || n < MinTransferSize {
			return s, fmt.Errorf("%s=%q: want a byte size of at least 4KiB, such as 4MiB, 256MiB or 1GiB (sizes are measured from 4KiB by powers of four up to it)", EnvMaxSize, v)
		}
		s.MaxSize = n
	}
	if v := strings.TrimSpace(getenv(EnvTolerance)); v != "" {
		f, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
		if err != nil || !(f >= 0 && f < 100) {
			return s, fmt.Errorf("%s=%q: want a percentage from 0 to below 100, such as 10 or 7.5%%", EnvTolerance, v)
		}
		s.Tolerance = f / 100
	}
	if v := strings.TrimSpace(getenv(EnvLinkEfficiencyMin)); v != "" {
		f, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
		if err != nil || !(f > 0 && f <= 100) {
			return s, fmt.Errorf("%s=%q: want a percentage above 0 and at most 100, such as 60 or 75%%", EnvLinkEfficiencyMin, v)
		}
		s.LinkEfficiencyMin = f / 100
	}
	switch v := strings.TrimSpace(getenv(EnvSweep)); v {
	case "", "representative":
	case "all":
		s.SweepAll = true
	default:
		return s, fmt.Errorf("%s=%q: want representative (every size on one pair per link class and its reverse, the largest on the others) or all", EnvSweep, v)
	}
	if v := strings.TrimSpace(getenv(EnvBaseline)); v != "" {
		data, err := os.ReadFile(v)
		if err != nil {
			return s, fmt.Errorf("%s=%q: %w", EnvBaseline, v, err)
		}
		b, err := ParseBaseline(data, v)
		if err != nil {
			return s, fmt.Errorf("%s=%q: %w", EnvBaseline, v, err)
		}
		s.BaselinePath, s.Baseline = v, b
	}
	return s, nil
}
