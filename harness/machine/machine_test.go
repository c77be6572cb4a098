// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package machine

import (
	"strings"
	"testing"

	"github.com/p2pconf/p2pconf/harness/backend"
)

func TestParsePairs(t *testing.T) {
	got, err := ParsePairs(" 0-1, 1-0 ")
	if err != nil || len(got) != 2 || got[0] != [2]int{0, 1} || got[1] != [2]int{1, 0} {
		t.Fatalf("ParsePairs = %v, %v", got, err)
	}
	for _, bad := range []string{"0-0", "0-x", "01", "-1-2", "a-b"} {
		if _, err := ParsePairs(bad); err == nil || !strings.Contains(err.Error(), EnvPairs) {
			t.Errorf("ParsePairs(%q) = %v, want an error naming %s", bad, err, EnvPairs)
		}
	}
	if _, err := ParsePairs("0-0"); err == nil || !strings.Contains(err.Error(), "itself") {
		t.Errorf("0-0 error does not say why: %v", err)
	}
}

func TestReadConfigRejectsBadValues(t *testing.T) {
	for k, v := range map[string]string{
		EnvBackend: "opencl", EnvSpecTimeout: "soon", EnvLitmusBudget: "-1s", EnvMutantTrials: "many", EnvPairs: "1-1",
		"P2PCONF_LITMUS_ENV": "/nonexistent/litmus-env.json",
	} {
		t.Run(k, func(t *testing.T) {
			t.Setenv(k, v)
			if _, err := ReadConfig(); err == nil || !strings.Contains(err.Error(), k) {
				t.Errorf("%s=%q: err = %v, want one naming the variable", k, v, err)
			}
		})
	}
	t.Setenv(EnvBackend, "fake")
	c, err := ReadConfig()
	if err != nil || c.FakePreset != EnvDefaultPreset || c.LibCUDA != "libcuda.so.1" || c.LitmusEnv.Env.Validate() != nil {
		t.Errorf("defaults: %+v, %v", c, err)
	}
}

func twoGPUs() []GPU {
	return sortedGPUs([]backend.DeviceInfo{
		{Ordinal: 1, UUID: "GPU-bbbb", PCIBusID: "0000:9a:00.0"},
		{Ordinal: 0, UUID: "GPU-aaaa", PCIBusID: "0000:1b:00.0"},
	})
}

func TestSelection(t *testing.T) {
	all := twoGPUs()
	if all[0].Ordinal != 0 {
		t.Fatalf("GPUs not sorted by PCI address: %v", all)
	}
	if got, err := selectGPUs(all, []string{"GPU-bbbb"}); err != nil || len(got) != 1 || got[0].Ordinal != 1 {
		t.Errorf("select by UUID = %v, %v", got, err)
	}
	_, err := selectGPUs(all, []string{"7"})
	if err == nil || !strings.Contains(err.Error(), `"7"`) || !strings.Contains(err.Error(), "GPU-aaaa") {
		t.Errorf("unknown GPU error should name the value and what exists: %v", err)
	}
	pairs := []Pair{{A: all[0], B: all[1]}, {A: all[1], B: all[0]}}
	got, err := selectPairs(pairs, all, all, Config{Pairs: [][2]int{{1, 0}}})
	if err != nil || len(got) != 1 || got[0].ID() != "1-0" {
		t.Errorf("selectPairs = %v, %v", got, err)
	}
	if _, err := selectPairs(pairs, all, all, Config{Pairs: [][2]int{{0, 5}}}); err == nil || !strings.Contains(err.Error(), "0-5") {
		t.Errorf("pair with unknown GPU: %v", err)
	}
	if got, _ := selectPairs(pairs, all, all[:1], Config{}); len(got) != 0 {
		t.Errorf("pairs outside the GPU selection were kept: %v", got)
	}
	if got, err := selectPairs(pairs, all, all, Config{Pairs: [][2]int{{1, 0}, {0, 1}, {1, 0}}}); err != nil || len(got) != 2 {
		t.Errorf("a pair listed twice: %v, %v; want it once", got, err)
	}
	_, err = selectPairs(pairs, all, all[:1], Config{GPUs: []string{"0"}, Pairs: [][2]int{{0, 1}}})
	if err == nil || !strings.Contains(err.Error(), EnvGPUs) {
		t.Errorf("pair outside the GPU selection: %v, want an error naming %s", err, EnvGPUs)
	}
	if got, err := selectGPUs(all, []string{"1", "GPU-aaaa", "1"}); err != nil || len(got) != 2 || got[0].Ordinal != 0 || got[1].Ordinal != 1 {
		t.Errorf("selectGPUs(1, GPU-aaaa, 1) = %v, %v; want GPU0 and GPU1 once each, in PCI order", got, err)
	}
}
