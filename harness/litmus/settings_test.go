// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"strings"
	"testing"
	"time"

	"github.com/p2pconf/p2pconf/harness/machine"
	"github.com/p2pconf/p2pconf/harness/schedule"
)

func TestReadSettings(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	s, err := ReadSettings(env(nil), false)
	if err != nil || s.MinInstances != DefaultMinInstances || s.MinFlagShare != DefaultMinFlagShare ||
		s.MaxViolationBound != DefaultMaxViolationBound || s.Budget != DefaultBudget ||
		s.MutantBudget != DefaultMutantBudget || s.Target != DefaultTarget || s.LinkTarget != DefaultLinkTarget ||
		s.MutantHits != DefaultMutantHits || s.Profile != ProfileDefault {
		t.Fatalf("hardware defaults: %+v, %v", s, err)
	}
	if s.PairMutantsElsewhere {
		t.Errorf("pair mutants elsewhere without %s", schedule.EnvPairMutants)
	}
	for v, want := range map[string]bool{"here": false, "representative": true, " representative ": true} {
		if s, err := ReadSettings(env(map[string]string{schedule.EnvPairMutants: v}), false); err != nil || s.PairMutantsElsewhere != want {
			t.Errorf("%s=%q: elsewhere %v, %v; want %v", schedule.EnvPairMutants, v, s.PairMutantsElsewhere, err, want)
		}
	}
	s, err = ReadSettings(env(nil), true)
	if err != nil || s.MinInstances != FakeMinInstances || s.MaxViolationBound != FakeMaxViolationBound ||
		s.Budget != FakeForbiddenBudget || s.MutantBudget != FakeBudget || s.Target != FakeTarget || s.MutantHits != FakeMutantHits {
		t.Fatalf("fake defaults: %+v, %v", s, err)
	}
	// A target reached must pass the evidence rules: no violation in the
	// link target bounds the rate at 3/1e7.
	for _, n := range []float64{DefaultLinkTarget, CertifyLinkTarget} {
		if n < DefaultMinInstances || 3/n > DefaultMaxViolationBound {
			t.Errorf("the evidence defaults reject a run that reached the target %g", n)
		}
	}
	// The caps leave room for the slowest rates measured on an H200:
	// 1.6e9 instances/s between CTAs, 7.5e6/s with host threads.
	for _, p := range []struct {
		name         string
		target, link float64
		budget       time.Duration
	}{
		{ProfileDefault, DefaultTarget, DefaultLinkTarget, DefaultBudget},
		{ProfileCertify, CertifyTarget, CertifyLinkTarget, CertifyBudget},
	} {
		need := time.Duration(max(p.target/1.6e9, p.link/7.5e6) * float64(time.Second))
		if need > p.budget {
			t.Errorf("%s: the slowest measured rates need %s, more than the cap %s", p.name, need, p.budget)
		}
	}
	s, err = ReadSettings(env(map[string]string{EnvProfile: "Certify"}), false)
	if err != nil || s.Profile != ProfileCertify || s.Target != CertifyTarget || s.LinkTarget != CertifyLinkTarget ||
		s.MutantHits != CertifyMutantHits || s.Budget != CertifyBudget || s.MutantBudget != CertifyMutantBudget ||
		s.Target < 1e10 || s.LinkTarget < 1e8 {
		t.Fatalf("certify: %+v, %v", s, err)
	}
	s, err = ReadSettings(env(map[string]string{EnvProfile: "certify", machine.EnvLitmusBudget: "5m"}), false)
	if err != nil || s.Budget != 5*time.Minute || s.LongestBudget() != 5*time.Minute {
		t.Fatalf("certify with a budget set: %+v, %v", s, err)
	}
	s, err = ReadSettings(env(map[string]string{EnvMinInstances: "1_000", EnvMinFlagShare: "5%",
		EnvMaxViolationBound: "0.5", machine.EnvLitmusBudget: "20ms", EnvMutantBudget: "30ms",
		EnvTarget: "2e9", EnvLinkTarget: "5_000_000", EnvMutantHits: "7"}), true)
	if err != nil || s.MinInstances != 1000 || s.MinFlagShare != 0.05 || s.MaxViolationBound != 0.5 || s.Budget != 20*time.Millisecond ||
		s.MutantBudget != 30*time.Millisecond || s.Target != 2e9 || s.LinkTarget != 5e6 || s.MutantHits != 7 {
		t.Fatalf("set values: %+v, %v", s, err)
	}
	s, err = ReadSettings(env(map[string]string{EnvMutantBudget: "5s"}), false)
	if err != nil || s.MutantLongBudget != 5*time.Second {
		t.Fatalf("a mutant cap above the default longer cap lifts it: %+v, %v", s, err)
	}
	s, err = ReadSettings(env(map[string]string{EnvMutantLongBudget: "4s"}), false)
	if err != nil || s.MutantLongBudget != 4*time.Second || s.LongestBudget() != 4*time.Second {
		t.Fatalf("longer mutant cap: %+v, %v", s, err)
	}
	for name, bad := range map[string][]string{
		EnvMinInstances:         {"0", "-3", "many", "1.5"},
		EnvMinFlagShare:         {"0", "1.5", "101%", "-0.1", "NaN", "x"},
		EnvMaxViolationBound:    {"0", "2", "abc%"},
		machine.EnvLitmusBudget: {"0s", "fast"},
		EnvMutantBudget:         {"-1s", "1"},
		EnvMutantLongBudget:     {"0", "soon", "100ms"}, // 100ms: shorter than the 250ms mutant cap
		EnvTarget:               {"0", "1e-3", "2.5e0", "0x1p4", "Inf"},
		EnvLinkTarget:           {"lots"},
		EnvMutantHits:           {"0"},
		EnvProfile:              {"thorough"},
		schedule.EnvPairMutants: {"elsewhere", "all"},
	} {
		for _, v := range bad {
			_, err := ReadSettings(env(map[string]string{name: v}), false)
			if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), v) {
				t.Errorf("%s=%q: want an error naming the variable and value, got %v", name, v, err)
			}
		}
	}
}
