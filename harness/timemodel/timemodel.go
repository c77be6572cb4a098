// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package timemodel predicts how long a planned run takes on real GPUs, so
// the scheduler's wall time on machines nobody here has (eight GPUs behind
// NVSwitch) can be computed from the spec list of a fake preset. The
// durations are configuration, not code: h200.json holds the figures
// measured on one and two H200 (per-spec means per check and scope, the
// litmus instance rates, the cost of starting a suite process) and the
// litmus stop-on-evidence targets and caps of each profile, and a run may
// load its own figures instead (p2pconf plan -model FILE).
package timemodel

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/p2pconf/p2pconf/harness/schedule"
)

//go:embed h200.json
var h200JSON []byte

// Config is a model's figures. Times are seconds, rates instances per
// second.
type Config struct {
	Name   string `json:"name"`
	Source string `json:"source"`
	// ProcessStartS is what a suite process on one GPU costs beyond its
	// specs (driver initialisation, the GPU's context and kernels, the
	// spec tree, writing the report, releasing the context).
	ProcessStartS float64 `json:"process_start_s"`
	// ProcessStartPerGPUS is what each further GPU of a process adds: its
	// context is created and its kernels loaded at the start, and the
	// context released at the end, one GPU after another.
	ProcessStartPerGPUS float64 `json:"process_start_per_gpu_s"`
	// SuiteStartS replaces ProcessStartS for the suites named: the
	// ordering suite's one-GPU process cost 0.76 s beyond its 103 specs on
	// an H200, where the others cost 0.23–0.29 s.
	SuiteStartS map[string]float64 `json:"suite_start_s,omitempty"`
	// DefaultSpecS is the duration of a spec whose check has no figure.
	DefaultSpecS float64 `json:"default_spec_s"`
	Litmus       Litmus  `json:"litmus"`
	// Checks are per-spec durations keyed "check/scope" (scope gpu, pair,
	// triple or system) or "check/scope/kind"; the longer key wins.
	Checks map[string]float64 `json:"checks"`
}

// Litmus models litmus specs that stop on evidence: a forbidden test runs
// until it has counted its target instances or reaches its cap; a mutant
// until it has shown its weak outcome a number of times or reaches its cap.
type Litmus struct {
	Check string `json:"check"` // the litmus check ID, ordering.litmus
	// Instance rates: between CTAs of one GPU, with host threads taking
	// part, and across a GPU link.
	RateWithinGPU float64 `json:"rate_within_gpu"`
	RateHost      float64 `json:"rate_host"`
	RateLink      float64 `json:"rate_link"`
	// OverheadS is a litmus spec's time outside the counted runs (setup,
	// allocation, checking the result).
	OverheadS float64 `json:"overhead_s"`
	// Profile names the entry of Profiles in use.
	Profile  string                   `json:"profile"`
	Profiles map[string]LitmusProfile `json:"profiles"`
}

// LitmusProfile is one set of stop-on-evidence targets and caps.
type LitmusProfile struct {
	Target     float64 `json:"target"`       // instances between CTAs of one GPU
	LinkTarget float64 `json:"link_target"`  // instances with the host or another GPU
	CapS       float64 `json:"cap_s"`        // a forbidden test's time cap
	MutantCapS float64 `json:"mutant_cap_s"` // a mutant's time cap
	// MutantLongCapS is the longer cap of a mutant that has shown its weak
	// outcome by MutantCapS, but fewer times than its target (0: none).
	MutantLongCapS float64 `json:"mutant_long_cap_s,omitempty"`
	// MutantS is a mutant's mean time per placement (within-gpu, host,
	// link): some mutants show their weak outcomes often and stop early,
	// others never do and run to the cap, a few show them rarely and run
	// on to the longer cap. A placement without a figure runs to the cap.
	MutantS map[Placement]float64 `json:"mutant_s"`
}

// H200 is the model measured on H200s (h200.json).
func H200() Config {
	c, err := Parse(h200JSON)
	if err != nil {
		panic(fmt.Sprintf("timemodel: the embedded h200.json: %v", err))
	}
	return c
}

// Load reads a model from a JSON file of Config's layout.
func Load(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("time model: %w", err)
	}
	c, err := Parse(data)
	if err != nil {
		return c, fmt.Errorf("time model %s: %w", path, err)
	}
	return c, nil
}

// Parse decodes and checks a model.
func Parse(data []byte) (Config, error) {
	var c Config
	if t := strings.TrimSpace(string(data)); t == "" {
		return c, errors.New("an empty file, want a time model (a JSON object; timemodel.H200 has the fields)")
	} else if t[0] != '{' {
		return c, errors.New("not a JSON object, want a time model (timemodel.H200 has the fields)")
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, fmt.Errorf("decoding the model: %w", err)
	}
	if _, err := c.profile(); err != nil {
		return c, err
	}
	l := c.Litmus
	if l.RateWithinGPU <= 0 || l.RateHost <= 0 || l.RateLink <= 0 {
		return c, fmt.Errorf("the litmus rates must be positive (within GPU %g, host %g, link %g)", l.RateWithinGPU, l.RateHost, l.RateLink)
	}
	return c, nil
}

// WithProfile returns c using the litmus profile name (default, certify, space).
func (c Config) WithProfile(name string) (Config, error) {
	c.Litmus.Profile = name
	_, err := c.profile()
	return c, err
}

func (c Config) profile() (LitmusProfile, error) {
	p, ok := c.Litmus.Profiles[c.Litmus.Profile]
	if !ok {
		var names []string
		for n := range c.Litmus.Profiles {
			names = append(names, n)
		}
		return p, fmt.Errorf("timemodel: no litmus profile %q (have %s)", c.Litmus.Profile, strings.Join(names, ", "))
	}
	if p.CapS <= 0 || p.MutantCapS <= 0 {
		return p, fmt.Errorf("timemodel: litmus profile %q: the caps must be positive", c.Litmus.Profile)
	}
	return p, nil
}

// Placement is where a litmus test's agents run.
type Placement string

// Litmus placements.
const (
	WithinGPU Placement = "within-gpu" // CTAs of one GPU
	WithHost  Placement = "host"       // host threads take part
	AcrossGPU Placement = "link"       // agents on two or three GPUs
)

// PlacementOf tells where a litmus spec's agents run: its text names the
// host when host threads take part; a pair or triple spec crosses a link.
func PlacementOf(s schedule.Spec) Placement {
	switch {
	case strings.Contains(strings.ToLower(s.Text), "host"):
		return WithHost
	case s.Scope() == "pair" || s.Scope() == "triple":
		return AcrossGPU
	}
	return WithinGPU
}

// SpecSeconds is the model's duration of one spec.
func (c Config) SpecSeconds(s schedule.Spec) float64 {
	if s.ID == c.Litmus.Check && c.Litmus.Check != "" {
		return c.litmusSeconds(s)
	}
	for _, k := range []string{s.ID + "/" + s.Scope() + "/" + s.Kind, s.ID + "/" + s.Scope(), s.ID} {
		if v, ok := c.Checks[k]; ok {
			return v
		}
	}
	return c.DefaultSpecS
}

func (c Config) litmusSeconds(s schedule.Spec) float64 {
	p, err := c.profile()
	if err != nil {
		return c.DefaultSpecS
	}
	l := c.Litmus
	rate, target := l.RateWithinGPU, p.Target
	place := PlacementOf(s)
	switch place {
	case WithHost:
		rate, target = l.RateHost, p.LinkTarget
	case AcrossGPU:
		rate, target = l.RateLink, p.LinkTarget
	}
	if s.Kind == "mutant" {
		run, ok := p.MutantS[place]
		if !ok {
			run = p.MutantCapS
		}
		return l.OverheadS + min(run, max(p.MutantCapS, p.MutantLongCapS))
	}
	return l.OverheadS + min(p.CapS, target/rate)
}

// ProcessSeconds is one process on gpus GPUs: its start plus its specs.
func (c Config) ProcessSeconds(p schedule.Process, gpus int) float64 {
	t := c.ProcessStartS
	if v, ok := c.SuiteStartS[p.Suite]; ok {
		t = v
	}
	t += c.ProcessStartPerGPUS * float64(max(gpus-1, 0))
	for _, s := range p.Specs {
		t += c.SpecSeconds(s)
	}
	return t
}

// LaneSeconds is a lane: its processes one after another, each on the
// GPUs it selects (the lane's when it names none).
func (c Config) LaneSeconds(l schedule.Lane) float64 {
	t := 0.0
	for _, p := range l.Processes {
		gpus := len(p.GPUs)
		if gpus == 0 {
			gpus = len(l.GPUs)
		}
		t += c.ProcessSeconds(p, gpus)
	}
	return t
}

// RoundTime is a round's predicted figures.
type RoundTime struct {
	Round schedule.Round
	// Parallel is how many lanes run at once (the lanes, or the limit).
	Parallel int
	Seconds  float64
	// BusySeconds is the sum of the lanes' times: Seconds would be that
	// without parallelism.
	BusySeconds float64
}

// Prediction is a plan's predicted wall time.
type Prediction struct {
	Rounds      []RoundTime
	Seconds     float64
	BusySeconds float64 // the same work one process at a time
}

// Predict gives the plan's wall time when at most limit processes run at
// once (0: no limit). Lanes of a round start in plan order, each on the
// first free slot, as the runner starts them.
func (c Config) Predict(p schedule.Plan, limit int) Prediction {
	var out Prediction
	for _, r := range p.Rounds {
		slots := len(r.Lanes)
		if limit > 0 && limit < slots {
			slots = limit
		}
		free := make([]float64, slots)
		rt := RoundTime{Round: r, Parallel: slots}
		for _, l := range r.Lanes {
			i := earliest(free)
			d := c.LaneSeconds(l)
			free[i] += d
			rt.BusySeconds += d
		}
		for _, f := range free {
			rt.Seconds = max(rt.Seconds, f)
		}
		out.Rounds = append(out.Rounds, rt)
		out.Seconds += rt.Seconds
		out.BusySeconds += rt.BusySeconds
	}
	return out
}

func earliest(free []float64) int {
	best := 0
	for i, f := range free {
		if f < free[best] {
			best = i
		}
	}
	return best
}
