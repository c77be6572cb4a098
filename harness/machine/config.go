// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package machine

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/litmusenv"
	"github.com/p2pconf/p2pconf/harness/settings"
)

// Environment variables that configure a run. They are environment variables
// rather than flags so that helper processes (the suite binary re-executed)
// and every Ginkgo process see the same configuration.
const (
	EnvBackend       = "P2PCONF_BACKEND"       // cuda (default) or fake
	EnvFakePreset    = "P2PCONF_FAKE"          // fake preset name
	EnvFakeDefects   = "P2PCONF_FAKE_DEFECTS"  // comma list of injected fake driver defects
	EnvGPUs          = "P2PCONF_GPUS"          // ordinals or UUIDs, comma separated
	EnvPairs         = "P2PCONF_PAIRS"         // ordered pairs "0-1,1-0"
	EnvTriples       = "P2PCONF_TRIPLES"       // triples of the three-GPU specs "0-1-2,0-2-3"
	EnvReportDir     = "P2PCONF_REPORT_DIR"    // where conformance.json and friends go
	EnvLibCUDA       = "P2PCONF_LIBCUDA"       // path of libcuda (default libcuda.so.1)
	EnvSpecTimeout   = "P2PCONF_SPEC_TIMEOUT"  // default per-spec timeout, a Go duration
	EnvLitmusBudget  = "P2PCONF_LITMUS_BUDGET" // time budget per litmus test, a Go duration
	EnvMutantTrials  = "P2PCONF_MUTANT_TRIALS" // trials for mutant specs
	EnvLitmusStress  = "P2PCONF_LITMUS_STRESS" // 1 or 0: memory stress from non-testing CTAs in litmus runs
	EnvDefaultPreset = "nvlink8"               // preset used when P2PCONF_FAKE is unset
)

// DefaultSpecTimeout is a spec's timeout unless P2PCONF_SPEC_TIMEOUT says
// otherwise (the reproducers scale theirs from it too).
const DefaultSpecTimeout = 2 * time.Minute

// Config is the run's configuration, read once from the environment.
type Config struct {
	Backend     string
	FakePreset  string
	FakeDefects []string
	GPUs        []string
	Pairs       [][2]int
	ReportDir   string
	LibCUDA     string
	SpecTimeout time.Duration
	// LitmusBudget is the time each litmus test may run (short by default
	// for CI-style runs; set it long for certification).
	LitmusBudget time.Duration
	// MutantTrials is how many trials a mutant spec makes to see its weak outcome.
	MutantTrials int
	// LitmusStress turns on memory stress from non-testing CTAs.
	LitmusStress bool
	// LitmusEnv is the litmus testing environment between CTAs of one GPU
	// (P2PCONF_LITMUS_ENV, or the committed default); LitmusEnvSource says
	// which.
	LitmusEnv       litmusenv.File
	LitmusEnvSource string
}

// Limits are the limits the run's backend declared (backend.LimitsOf), for
// the specs that size their work by them: a spec never asks which backend
// it runs on.
func (c Config) Limits() backend.Limits { return backend.LimitsOf(c.Backend) }

// ReadConfig parses the environment. It checks every declared setting
// first (package settings), so a bad value anywhere is an error naming the
// variable, the value and the accepted form, returned before any GPU work.
func ReadConfig() (Config, error) {
	if err := settings.ValidateEnv(); err != nil {
		return Config{}, err
	}
	c := Config{
		Backend:      strings.TrimSpace(os.Getenv(EnvBackend)),
		FakePreset:   strings.TrimSpace(os.Getenv(EnvFakePreset)),
		ReportDir:    os.Getenv(EnvReportDir),
		LibCUDA:      os.Getenv(EnvLibCUDA),
		SpecTimeout:  DefaultSpecTimeout,
		LitmusBudget: 2 * time.Second,
		MutantTrials: 20,
	}
	if c.Backend == "" {
		c.Backend = "cuda"
	}
	if c.Backend != "cuda" && c.Backend != "fake" {
		return c, fmt.Errorf("%s=%q: the backend is cuda or fake", EnvBackend, c.Backend)
	}
	if c.Backend == "fake" && c.FakePreset == "" {
		c.FakePreset = EnvDefaultPreset
	}
	if c.LibCUDA == "" {
		c.LibCUDA = "libcuda.so.1"
	}
	c.FakeDefects = splitList(os.Getenv(EnvFakeDefects))
	c.GPUs = splitList(os.Getenv(EnvGPUs))
	pairs, err := ParsePairs(os.Getenv(EnvPairs))
	if err != nil {
		return c, err
	}
	c.Pairs = pairs
	if v := os.Getenv(EnvSpecTimeout); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return c, fmt.Errorf("%s=%q: want a positive Go duration such as 90s", EnvSpecTimeout, v)
		}
		c.SpecTimeout = d
	}
	if v := os.Getenv(EnvLitmusBudget); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return c, fmt.Errorf("%s=%q: want a positive Go duration such as 10s", EnvLitmusBudget, v)
		}
		c.LitmusBudget = d
	}
	if v := os.Getenv(EnvMutantTrials); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return c, fmt.Errorf("%s=%q: want a positive number of trials", EnvMutantTrials, v)
		}
		c.MutantTrials = n
	}
	if v := strings.ToLower(strings.TrimSpace(os.Getenv(EnvLitmusStress))); v != "" {
		switch v {
		case "1", "on", "true", "yes":
			c.LitmusStress = true
		case "0", "off", "false", "no":
		default:
			return c, fmt.Errorf("%s=%q: want 1 or 0", EnvLitmusStress, v)
		}
	}
	if c.LitmusEnv, err = litmusenv.FromEnv(os.Getenv); err != nil {
		return c, err
	}
	c.LitmusEnvSource = "committed default (harness/litmusenv/h200.json)"
	if v := strings.TrimSpace(os.Getenv(litmusenv.EnvVar)); v != "" {
		c.LitmusEnvSource = v
	}
	return c, nil
}

// ParsePairs parses "0-1,1-0" into ordered pairs of ordinals.
func ParsePairs(s string) ([][2]int, error) {
	var out [][2]int
	seen := map[[2]int]bool{}
	for _, item := range splitList(s) {
		a, b, ok := strings.Cut(item, "-")
		x, err1 := strconv.Atoi(strings.TrimSpace(a))
		y, err2 := strconv.Atoi(strings.TrimSpace(b))
		if !ok || err1 != nil || err2 != nil || x < 0 || y < 0 {
			return nil, fmt.Errorf("%s: %q is not a pair; write pairs as SRC-DST ordinals, e.g. 0-1,1-0", EnvPairs, item)
		}
		if x == y {
			return nil, fmt.Errorf("%s: %q pairs a GPU with itself; a pair needs two different GPUs", EnvPairs, item)
		}
		// A pair written twice would run once: name the slip rather than
		// take it without a word.
		if seen[[2]int{x, y}] {
			return nil, fmt.Errorf("%s: %q is named twice; name each pair once", EnvPairs, item)
		}
		seen[[2]int{x, y}] = true
		out = append(out, [2]int{x, y})
	}
	return out, nil
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
