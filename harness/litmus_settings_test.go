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
		s.MaxViolationBound != DefaultLitmusMaxViolationBound || s.FakeBudget != FakeLitmusBudget {
		t.Fatalf("hardware defaults: %+v, %v", s, err)
	}
	s, err = ReadLitmusSettings(env(nil), true)
	if err != nil || s.MinInstances != FakeLitmusMinInstances || s.MaxViolationBound != FakeLitmusMaxViolationBound {
		t.Fatalf("fake defaults: %+v, %v", s, err)
	}
	// A two-second H200 run must pass the defaults: 1.6e7 instances with
	// no violation bound the rate at 3/1.6e7.
	if n := 1.6e7; n < DefaultLitmusMinInstances || 3/n > DefaultLitmusMaxViolationBound {
		t.Errorf("the hardware defaults reject a two-second H200 run")
	}
	s, err = ReadLitmusSettings(env(map[string]string{EnvLitmusMinInstances: "1_000", EnvLitmusMinFlagShare: "5%",
		EnvLitmusMaxViolationBound: "0.5", EnvLitmusBudget: "20ms"}), true)
	if err != nil || s.MinInstances != 1000 || s.MinFlagShare != 0.05 || s.MaxViolationBound != 0.5 || s.FakeBudget != 20*time.Millisecond {
		t.Fatalf("set values: %+v, %v", s, err)
	}
	for name, bad := range map[string][]string{
		EnvLitmusMinInstances:      {"0", "-3", "many", "1.5"},
		EnvLitmusMinFlagShare:      {"0", "1.5", "101%", "-0.1", "NaN", "x"},
		EnvLitmusMaxViolationBound: {"0", "2", "abc%"},
		EnvLitmusBudget:            {"0s", "fast"},
	} {
		for _, v := range bad {
			_, err := ReadLitmusSettings(env(map[string]string{name: v}), false)
			if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), v) {
				t.Errorf("%s=%q: want an error naming the variable and value, got %v", name, v, err)
			}
		}
	}
}
