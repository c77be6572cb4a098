// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package timemodel

import (
	"math"
	"testing"

	"github.com/p2pconf/p2pconf/harness/schedule"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func testModel() Config {
	return Config{
		ProcessStartS: 1, DefaultSpecS: 0.5,
		Litmus: Litmus{Check: "ordering.litmus", RateWithinGPU: 1e9, RateHost: 1e6, RateLink: 1e8, OverheadS: 0.1,
			Profile: "default", Profiles: map[string]LitmusProfile{
				"default": {Target: 2e9, LinkTarget: 1e7, CapS: 3, MutantCapS: 0.5, MutantS: map[Placement]float64{AcrossGPU: 0.25, WithHost: 9}},
				"certify": {Target: 1e10, LinkTarget: 1e8, CapS: 4, MutantCapS: 2},
			}},
		Checks: map[string]float64{"a.x/gpu": 2, "a.x/gpu/mutant": 3, "a.y": 7},
	}
}

func spec(id, kind, text string, gpu int, pair []int) schedule.Spec {
	return schedule.Spec{ID: id, Kind: kind, Text: text, GPU: gpu, Pair: pair}
}

func TestSpecSeconds(t *testing.T) {
	c := testModel()
	for _, tc := range []struct {
		name string
		s    schedule.Spec
		want float64
	}{
		{"within GPU: target/rate", spec("ordering.litmus", "conf", "between CTAs of GPU0", 0, nil), 0.1 + 2},
		{"host: link target at host rate, capped", spec("ordering.litmus", "conf", "T1 on the host", 0, nil), 0.1 + 3},
		{"link: link target at link rate", spec("ordering.litmus", "conf", "GPU0→GPU1", -1, []int{0, 1}), 0.1 + 0.1},
		{"mutant without a figure runs to its cap", spec("ordering.litmus", "mutant", "GPU0", 0, nil), 0.1 + 0.5},
		{"mutant with its placement's figure", spec("ordering.litmus", "mutant", "GPU0→GPU1", -1, []int{0, 1}), 0.1 + 0.25},
		{"mutant figure above the cap is capped", spec("ordering.litmus", "mutant", "host", 0, nil), 0.1 + 0.5},
		{"check and scope", spec("a.x", "conf", "", 0, nil), 2},
		{"check, scope and kind", spec("a.x", "mutant", "", 0, nil), 3},
		{"check alone", spec("a.y", "conf", "", -1, []int{0, 1}), 7},
		{"unknown check", spec("a.z", "conf", "", 0, nil), 0.5},
	} {
		if got := c.SpecSeconds(tc.s); !near(got, tc.want) {
			t.Errorf("%s: %g s, want %g", tc.name, got, tc.want)
		}
	}
	cert, err := c.WithProfile("certify")
	if err != nil {
		t.Fatal(err)
	}
	if got := cert.SpecSeconds(spec("ordering.litmus", "conf", "GPU0", 0, nil)); !near(got, 0.1+4) {
		t.Errorf("certify within GPU: %g s, want the 4 s cap plus overhead", got)
	}
	if _, err := c.WithProfile("nope"); err == nil {
		t.Error("an unknown profile was accepted")
	}
}

func TestPredictHonoursTheLimit(t *testing.T) {
	c := testModel()
	proc := func(n int) schedule.Process {
		p := schedule.Process{}
		for i := 0; i < n; i++ {
			p.Specs = append(p.Specs, spec("a.y", "conf", "", -1, []int{0, 1}))
		}
		return p
	}
	// Lanes of 1+7, 1+14 and 1+7 seconds.
	plan := schedule.Plan{Rounds: []schedule.Round{
		{Name: "r0", Lanes: []schedule.Lane{{Processes: []schedule.Process{proc(1)}}, {Processes: []schedule.Process{proc(2)}}, {Processes: []schedule.Process{proc(1)}}}},
		{Name: "r1", Lanes: []schedule.Lane{{Processes: []schedule.Process{proc(1), proc(1)}}}},
	}}
	p := c.Predict(plan, 0)
	if !near(p.Rounds[0].Seconds, 15) || p.Rounds[0].Parallel != 3 || !near(p.Rounds[1].Seconds, 16) || !near(p.Seconds, 31) || !near(p.BusySeconds, 47) {
		t.Errorf("unlimited: %+v", p)
	}
	// Two slots: 8 and 15 start, the third lane (8) follows the first.
	p = c.Predict(plan, 2)
	if !near(p.Rounds[0].Seconds, 16) || p.Rounds[0].Parallel != 2 {
		t.Errorf("limit 2: round 0 %g s on %d slots, want 16 on 2", p.Rounds[0].Seconds, p.Rounds[0].Parallel)
	}
	p = c.Predict(plan, 1)
	if !near(p.Seconds, p.BusySeconds) {
		t.Errorf("limit 1: %g s, want the serial %g", p.Seconds, p.BusySeconds)
	}
}

// A process's start grows with its GPUs (each further GPU's context), a
// process naming no GPUs has its lane's, and a suite may start at its own
// cost.
func TestProcessStartCountsGPUs(t *testing.T) {
	c := testModel()
	c.ProcessStartPerGPUS = 0.25
	c.SuiteStartS = map[string]float64{"slow": 2}
	one := spec("a.y", "conf", "", 0, nil) // 7 s
	for _, tc := range []struct {
		name string
		lane schedule.Lane
		want float64
	}{
		{"one GPU", schedule.Lane{GPUs: []int{0}, Processes: []schedule.Process{{Suite: "s", GPUs: []int{0}, Specs: []schedule.Spec{one}}}}, 1 + 7},
		{"a pair", schedule.Lane{GPUs: []int{0, 1}, Processes: []schedule.Process{{Suite: "s", GPUs: []int{0, 1}, Specs: []schedule.Spec{one}}}}, 1 + 0.25 + 7},
		{"the lane's eight GPUs", schedule.Lane{GPUs: []int{0, 1, 2, 3, 4, 5, 6, 7}, Processes: []schedule.Process{{Suite: "s", Specs: []schedule.Spec{one}}}}, 1 + 7*0.25 + 7},
		{"a suite's own start", schedule.Lane{GPUs: []int{0, 1}, Processes: []schedule.Process{{Suite: "slow", GPUs: []int{0, 1}, Specs: []schedule.Spec{one}}}}, 2 + 0.25 + 7},
	} {
		if got := c.LaneSeconds(tc.lane); !near(got, tc.want) {
			t.Errorf("%s: %g s, want %g", tc.name, got, tc.want)
		}
	}
}

func TestEmbeddedModel(t *testing.T) {
	c := H200()
	if c.Litmus.RateWithinGPU != 3.1e9 || c.Litmus.RateLink != 2e9 || c.Litmus.RateHost != 1.5e7 {
		t.Errorf("H200 litmus rates %+v", c.Litmus)
	}
	d := c.Litmus.Profiles["default"]
	if d.Target != 1e9 || d.LinkTarget != 1e7 {
		t.Errorf("default profile targets %+v", d)
	}
	if len(c.Checks) == 0 {
		t.Error("no per-check durations")
	}
	if _, err := Parse([]byte(`{"litmus":{"profile":"default","profiles":{"default":{"cap_s":1,"mutant_cap_s":1}}}}`)); err == nil {
		t.Error("a model without litmus rates was accepted")
	}
	if _, err := Parse([]byte(`{"bogus":1}`)); err == nil {
		t.Error("a model with an unknown field was accepted")
	}
}
