// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/p2pconf/p2pconf/harness/machine"
	"github.com/p2pconf/p2pconf/harness/schedule"
)

// Environment variables that decide how long a litmus test runs and when a
// forbidden litmus pass counts.
const (
	EnvMinInstances      = "P2PCONF_LITMUS_MIN_INSTANCES"       // fewest counted instances for a verdict
	EnvMinFlagShare      = "P2PCONF_LITMUS_MIN_FLAG_SHARE"      // least share of instances that saw the polled flag set
	EnvMaxViolationBound = "P2PCONF_LITMUS_MAX_VIOLATION_BOUND" // largest 95 % upper bound on the violation rate a pass may have
	EnvProfile           = "P2PCONF_LITMUS_PROFILE"             // default, certify or space: the tests, targets and caps below
	EnvTarget            = "P2PCONF_LITMUS_TARGET"              // instances a forbidden test runs between CTAs of one GPU
	EnvLinkTarget        = "P2PCONF_LITMUS_LINK_TARGET"         // instances a forbidden test runs with the host or other GPUs
	EnvMutantHits        = "P2PCONF_LITMUS_MUTANT_HITS"         // weak outcomes after which a mutant stops
	EnvMutantBudget      = "P2PCONF_LITMUS_MUTANT_BUDGET"       // time cap of a mutant
	EnvMutantLongBudget  = "P2PCONF_LITMUS_MUTANT_LONG_BUDGET"  // longer cap of a mutant that has shown its weak outcome, but too few times
)

// Litmus profiles. Default and certify run the catalogue and the subset of
// the generated space the model picks (Spaced); space runs the whole
// generated space with smaller targets and caps, so that one H200 runs it
// in minutes.
const (
	ProfileDefault = "default"
	ProfileCertify = "certify"
	ProfileSpace   = "space"
)

// Litmus defaults. A forbidden test stops when it has counted its target
// instances, a mutant when it has shown its weak outcome MutantHits times;
// either stops at its time cap. The default targets take about a third of
// a second between CTAs of an H200 (3.1e9 instances/s) and 1.3 s with host
// threads (8e6/s), well inside the 2 s cap even at the slowest measured
// rates (1.6e9 and 7.5e6/s), so a whole H200 run stays near a minute. The
// certify profile asks ten times as much; its caps leave room for the
// slowest rates (1e10 at 1.6e9/s is 6 s, 1e8 at 7.5e6/s is 13 s).
//
// A pass with no violation but too little evidence is not a pass: it is
// inconclusive. The evidence defaults are far below the targets, so they
// only reject runs that tested nothing (a cap reached long before the
// target, a flag never seen).
const (
	DefaultTarget     = 1_000_000_000
	DefaultLinkTarget = 10_000_000
	// DefaultMutantHits follows MC Mutants (Levine et al., ASPLOS
	// 2023): a kill is reproducible with probability 1 − e^(−hits), and 12
	// expected hits give 99.999 %.
	DefaultMutantHits = 12
	DefaultBudget     = 2 * time.Second
	// A mutant that shows its weak outcome at all shows it early: of the
	// pair mutants of two H200 (NV18), 73 % showed none in 250 ms and 75 %
	// none in 2 s, so a longer default cap only costs time.
	DefaultMutantBudget = 250 * time.Millisecond
	// A mutant that has shown its weak outcome by its cap, but fewer than
	// MutantHits times, goes on to this longer cap: it is rare here, and a
	// few more seconds make its count (and its reproducibility) firm.
	DefaultMutantLongBudget = 2 * time.Second

	CertifyTarget       = 10_000_000_000
	CertifyLinkTarget   = 100_000_000
	CertifyMutantHits   = 1000
	CertifyBudget       = 30 * time.Second
	CertifyMutantBudget = 10 * time.Second
	CertifyMutantLong   = 30 * time.Second

	// The space profile runs about 3,300 cases on one GPU: a tenth of the
	// default target (0.03 s between CTAs of an H200, 0.07 s with host
	// threads at 1.5e7/s) and a fifth of the mutant cap, with no longer
	// cap, keep the whole space near five minutes.
	SpaceTarget       = 100_000_000
	SpaceLinkTarget   = 1_000_000
	SpaceMutantHits   = DefaultMutantHits
	SpaceBudget       = time.Second
	SpaceMutantBudget = 50 * time.Millisecond

	DefaultMinInstances      = 100_000
	DefaultMinFlagShare      = 1e-5
	DefaultMaxViolationBound = 1e-4

	// The fake backend interprets every access in Go: one launch counts 64
	// instances (4 iterations of 16), which is its target, so a forbidden
	// test runs one launch; its bound is 3/64 at best. A mutant stops at
	// its first weak outcome. The profile does not change these.
	FakeTarget            = 64
	FakeMutantHits        = 1
	FakeMinInstances      = 32
	FakeMaxViolationBound = 0.1
	// FakeBudget is the mutants' caps on the fake backend unless
	// P2PCONF_LITMUS_MUTANT_BUDGET is set.
	FakeBudget = time.Millisecond
	// FakeForbiddenBudget is a forbidden test's cap on the fake
	// backend unless P2PCONF_LITMUS_BUDGET is set: one that has reached its
	// target stops there, one that has not yet seen every value its threads
	// store (the Sim and a host goroutine can keep one instance order for a
	// whole launch) gets more launches.
	FakeForbiddenBudget = 200 * time.Millisecond
)

// Settings say when a litmus test stops and what a forbidden test
// needs to pass.
type Settings struct {
	Profile string // ProfileDefault, ProfileCertify or ProfileSpace
	// Target is the instances a forbidden test runs between CTAs of one
	// GPU; LinkTarget the instances it runs where the host or another GPU
	// takes part.
	Target     uint64
	LinkTarget uint64
	// MutantHits is the number of weak outcomes after which a mutant stops.
	MutantHits uint64
	// Budget caps the time of a forbidden test, MutantBudget that of a
	// mutant (P2PCONF_LITMUS_BUDGET, P2PCONF_LITMUS_MUTANT_BUDGET).
	Budget       time.Duration
	MutantBudget time.Duration
	// MutantLongBudget is the longer cap of a mutant that has shown its
	// weak outcome by MutantBudget, but fewer than MutantHits times
	// (P2PCONF_LITMUS_MUTANT_LONG_BUDGET, at least MutantBudget).
	MutantLongBudget time.Duration

	MinInstances      uint64
	MinFlagShare      float64 // fraction of counted instances, in (0, 1]
	MaxViolationBound float64 // per instance, in (0, 1]

	// PairMutantsElsewhere is true when this process's pair mutants were
	// left to the representative pair of their link class
	// (P2PCONF_PAIR_MUTANTS=representative, which p2pconf run sets on such
	// processes): a forbidden pair test then states no power verdict of its
	// own, and the merged report takes it from the same test on the
	// representative pair.
	PairMutantsElsewhere bool
}

// ReadSettings reads the litmus variables through getenv, with the
// defaults of a simulated backend (backend.Limits: the fake, whose
// instances are goroutines) when simulated is true. A malformed value is
// an error naming the variable and the value.
func ReadSettings(getenv func(string) string, simulated bool) (Settings, error) {
	s := Settings{Profile: ProfileDefault,
		Target: DefaultTarget, LinkTarget: DefaultLinkTarget, MutantHits: DefaultMutantHits,
		Budget: DefaultBudget, MutantBudget: DefaultMutantBudget, MutantLongBudget: DefaultMutantLongBudget,
		MinInstances: DefaultMinInstances, MinFlagShare: DefaultMinFlagShare,
		MaxViolationBound: DefaultMaxViolationBound}
	switch p := strings.ToLower(strings.TrimSpace(getenv(EnvProfile))); p {
	case "", ProfileDefault:
	case ProfileCertify:
		s.Profile = p
		s.Target, s.LinkTarget, s.MutantHits = CertifyTarget, CertifyLinkTarget, CertifyMutantHits
		s.Budget, s.MutantBudget, s.MutantLongBudget = CertifyBudget, CertifyMutantBudget, CertifyMutantLong
	case ProfileSpace:
		s.Profile = p
		s.Target, s.LinkTarget, s.MutantHits = SpaceTarget, SpaceLinkTarget, SpaceMutantHits
		s.Budget, s.MutantBudget, s.MutantLongBudget = SpaceBudget, SpaceMutantBudget, SpaceMutantBudget
	default:
		return s, fmt.Errorf("%s=%q: the profile is %s, %s or %s", EnvProfile, getenv(EnvProfile), ProfileDefault, ProfileCertify, ProfileSpace)
	}
	if simulated {
		s.Target, s.LinkTarget, s.MutantHits = FakeTarget, FakeTarget, FakeMutantHits
		s.Budget, s.MutantBudget, s.MutantLongBudget = FakeForbiddenBudget, FakeBudget, FakeBudget
		s.MinInstances, s.MaxViolationBound = FakeMinInstances, FakeMaxViolationBound
	}
	var err error
	for _, c := range []struct {
		name    string
		to      *uint64
		example string
	}{
		{EnvMinInstances, &s.MinInstances, "100000"},
		{EnvTarget, &s.Target, "1e9"},
		{EnvLinkTarget, &s.LinkTarget, "1e7"},
		{EnvMutantHits, &s.MutantHits, "100"},
	} {
		if *c.to, err = readCount(getenv, c.name, *c.to, c.example); err != nil {
			return s, err
		}
	}
	if s.MinFlagShare, err = readFraction(getenv, EnvMinFlagShare, s.MinFlagShare, "0.001%"); err != nil {
		return s, err
	}
	if s.MaxViolationBound, err = readFraction(getenv, EnvMaxViolationBound, s.MaxViolationBound, "1e-4"); err != nil {
		return s, err
	}
	if s.Budget, err = readDuration(getenv, machine.EnvLitmusBudget, s.Budget); err != nil {
		return s, err
	}
	if s.MutantBudget, err = readDuration(getenv, EnvMutantBudget, s.MutantBudget); err != nil {
		return s, err
	}
	long := getenv(EnvMutantLongBudget)
	if s.MutantLongBudget, err = readDuration(getenv, EnvMutantLongBudget, s.MutantLongBudget); err != nil {
		return s, err
	}
	if strings.TrimSpace(long) == "" {
		s.MutantLongBudget = max(s.MutantLongBudget, s.MutantBudget)
	} else if s.MutantLongBudget < s.MutantBudget {
		return s, fmt.Errorf("%s=%q: want a Go duration at least the mutant cap %s (%s), such as 2s", EnvMutantLongBudget, long, s.MutantBudget, EnvMutantBudget)
	}
	switch v := strings.TrimSpace(getenv(schedule.EnvPairMutants)); v {
	case "", schedule.PairMutantsHere:
	case schedule.PairMutantsRepresentative:
		s.PairMutantsElsewhere = true
	default:
		return s, fmt.Errorf("%s=%q: want %s (the pair's mutants run in its own process) or %s (they ran on the representative pair of its link class)", schedule.EnvPairMutants, v, schedule.PairMutantsHere, schedule.PairMutantsRepresentative)
	}
	return s, nil
}

// LongestBudget is the longest of the caps: a litmus spec's timeout
// grows with it.
func (s Settings) LongestBudget() time.Duration {
	return max(s.Budget, s.MutantBudget, s.MutantLongBudget)
}

// readCount reads a positive whole number, written plainly, with
// underscores (1_000_000) or in exponent form (1e9).
func readCount(getenv func(string) string, name string, def uint64, example string) (uint64, error) {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return def, nil
	}
	plain := strings.ReplaceAll(v, "_", "")
	if n, err := strconv.ParseUint(plain, 10, 64); err == nil && n > 0 {
		return n, nil
	}
	f, err := strconv.ParseFloat(plain, 64)
	if err != nil || !(f >= 1) || f != math.Trunc(f) || f > 1<<62 || strings.ContainsAny(plain, "xXpP") {
		return def, fmt.Errorf("%s=%q: want a positive whole number such as %s", name, v, example)
	}
	return uint64(f), nil
}

func readDuration(getenv func(string) string, name string, def time.Duration) (time.Duration, error) {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return def, fmt.Errorf("%s=%q: want a positive Go duration such as 10s", name, v)
	}
	return d, nil
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

// DefaultSettings are the settings on a GPU with none of the variables
// set (which ReadSettings cannot reject).
func DefaultSettings() Settings {
	s, _ := ReadSettings(func(string) string { return "" }, false)
	return s
}
