// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"strings"
	"testing"
	"time"
)

func TestReadLitmusSettings(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	s, err := ReadLitmusSettings(env(nil), false)
	if err != nil || s.MinInstances != DefaultLitmusMinInstances || s.MinFlagShare != DefaultLitmusMinFlagShare ||
		s.MaxViolationBound != DefaultLitmusMaxViolationBound || s.Budget != DefaultLitmusBudget ||
		s.MutantBudget != DefaultLitmusMutantBudget || s.Target != DefaultLitmusTarget || s.LinkTarget != DefaultLitmusLinkTarget ||
		s.MutantHits != DefaultLitmusMutantHits || s.Profile != LitmusProfileDefault {
		t.Fatalf("hardware defaults: %+v, %v", s, err)
	}
	if s.PairMutantsElsewhere {
		t.Errorf("pair mutants elsewhere without %s", EnvPairMutants)
	}
	for v, want := range map[string]bool{"here": false, "representative": true, " representative ": true} {
		if s, err := ReadLitmusSettings(env(map[string]string{EnvPairMutants: v}), false); err != nil || s.PairMutantsElsewhere != want {
			t.Errorf("%s=%q: elsewhere %v, %v; want %v", EnvPairMutants, v, s.PairMutantsElsewhere, err, want)
		}
	}
	s, err = ReadLitmusSettings(env(nil), true)
	if err != nil || s.MinInstances != FakeLitmusMinInstances || s.MaxViolationBound != FakeLitmusMaxViolationBound ||
		s.Budget != FakeLitmusForbiddenBudget || s.MutantBudget != FakeLitmusBudget || s.Target != FakeLitmusTarget || s.MutantHits != FakeLitmusMutantHits {
		t.Fatalf("fake defaults: %+v, %v", s, err)
	}
	// A target reached must pass the evidence rules: no violation in the
	// link target bounds the rate at 3/1e7.
	for _, n := range []float64{DefaultLitmusLinkTarget, CertifyLitmusLinkTarget} {
		if n < DefaultLitmusMinInstances || 3/n > DefaultLitmusMaxViolationBound {
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
		{LitmusProfileDefault, DefaultLitmusTarget, DefaultLitmusLinkTarget, DefaultLitmusBudget},
		{LitmusProfileCertify, CertifyLitmusTarget, CertifyLitmusLinkTarget, CertifyLitmusBudget},
	} {
		need := time.Duration(max(p.target/1.6e9, p.link/7.5e6) * float64(time.Second))
		if need > p.budget {
			t.Errorf("%s: the slowest measured rates need %s, more than the cap %s", p.name, need, p.budget)
		}
	}
	s, err = ReadLitmusSettings(env(map[string]string{EnvLitmusProfile: "Certify"}), false)
	if err != nil || s.Profile != LitmusProfileCertify || s.Target != CertifyLitmusTarget || s.LinkTarget != CertifyLitmusLinkTarget ||
		s.MutantHits != CertifyLitmusMutantHits || s.Budget != CertifyLitmusBudget || s.MutantBudget != CertifyLitmusMutantBudget ||
		s.Target < 1e10 || s.LinkTarget < 1e8 {
		t.Fatalf("certify: %+v, %v", s, err)
	}
	s, err = ReadLitmusSettings(env(map[string]string{EnvLitmusProfile: "certify", EnvLitmusBudget: "5m"}), false)
	if err != nil || s.Budget != 5*time.Minute || s.LongestBudget() != 5*time.Minute {
		t.Fatalf("certify with a budget set: %+v, %v", s, err)
	}
	s, err = ReadLitmusSettings(env(map[string]string{EnvLitmusMinInstances: "1_000", EnvLitmusMinFlagShare: "5%",
		EnvLitmusMaxViolationBound: "0.5", EnvLitmusBudget: "20ms", EnvLitmusMutantBudget: "30ms",
		EnvLitmusTarget: "2e9", EnvLitmusLinkTarget: "5_000_000", EnvLitmusMutantHits: "7"}), true)
	if err != nil || s.MinInstances != 1000 || s.MinFlagShare != 0.05 || s.MaxViolationBound != 0.5 || s.Budget != 20*time.Millisecond ||
		s.MutantBudget != 30*time.Millisecond || s.Target != 2e9 || s.LinkTarget != 5e6 || s.MutantHits != 7 {
		t.Fatalf("set values: %+v, %v", s, err)
	}
	s, err = ReadLitmusSettings(env(map[string]string{EnvLitmusMutantBudget: "5s"}), false)
	if err != nil || s.MutantLongBudget != 5*time.Second {
		t.Fatalf("a mutant cap above the default longer cap lifts it: %+v, %v", s, err)
	}
	s, err = ReadLitmusSettings(env(map[string]string{EnvLitmusMutantLongBudget: "4s"}), false)
	if err != nil || s.MutantLongBudget != 4*time.Second || s.LongestBudget() != 4*time.Second {
		t.Fatalf("longer mutant cap: %+v, %v", s, err)
	}
	for name, bad := range map[string][]string{
		EnvLitmusMinInstances:      {"0", "-3", "many", "1.5"},
		EnvLitmusMinFlagShare:      {"0", "1.5", "101%", "-0.1", "NaN", "x"},
		EnvLitmusMaxViolationBound: {"0", "2", "abc%"},
		EnvLitmusBudget:            {"0s", "fast"},
		EnvLitmusMutantBudget:      {"-1s", "1"},
		EnvLitmusMutantLongBudget:  {"0", "soon", "100ms"}, // 100ms: shorter than the 250ms mutant cap
		EnvLitmusTarget:            {"0", "1e-3", "2.5e0", "0x1p4", "Inf"},
		EnvLitmusLinkTarget:        {"lots"},
		EnvLitmusMutantHits:        {"0"},
		EnvLitmusProfile:           {"thorough"},
		EnvPairMutants:             {"elsewhere", "all"},
	} {
		for _, v := range bad {
			_, err := ReadLitmusSettings(env(map[string]string{name: v}), false)
			if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), v) {
				t.Errorf("%s=%q: want an error naming the variable and value, got %v", name, v, err)
			}
		}
	}
}
