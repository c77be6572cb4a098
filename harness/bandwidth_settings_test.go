// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/p2pconf/p2pconf/harness/report"
)

func TestReadBandwidthSettings(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	s, err := ReadBandwidthSettings(env(nil))
	if err != nil || s.MaxSize != report.GiB || s.Tolerance != 0.10 || s.Baseline != nil || s.LinkEfficiencyMin != 0.60 || s.SweepAll {
		t.Fatalf("defaults: %+v, %v", s, err)
	}
	s, err = ReadBandwidthSettings(env(map[string]string{EnvBWMaxSize: "64MiB", EnvBWTolerance: "7.5%", EnvLinkEfficiencyMin: "75%", EnvBWSweep: "all"}))
	if err != nil || s.MaxSize != 64*report.MiB || s.Tolerance != 0.075 || s.LinkEfficiencyMin != 0.75 || !s.SweepAll {
		t.Fatalf("64MiB, 7.5%%: %+v, %v", s, err)
	}
	for _, bad := range []map[string]string{
		{EnvBWMaxSize: "lots"}, {EnvBWMaxSize: "1K"}, {EnvBWTolerance: "-1"}, {EnvBWTolerance: "100"}, {EnvBWTolerance: "ten"},
		{EnvLinkEfficiencyMin: "0"}, {EnvLinkEfficiencyMin: "101"}, {EnvLinkEfficiencyMin: "most"}, {EnvBWSweep: "some"},
		{EnvBaseline: filepath.Join(t.TempDir(), "missing.json")},
		{EnvBaseline: writeBaselineFile(t, "bad.json", `{"minimums":[{"applies_to":"nvlink","metric":"bandwidth_gbps.ce.uni.1GB","gbps":350}]}`)},
	} {
		_, err := ReadBandwidthSettings(env(bad))
		if err == nil {
			t.Errorf("ReadBandwidthSettings(%v) accepted it", bad)
			continue
		}
		for k, v := range bad {
			if !strings.Contains(err.Error(), k) || !strings.Contains(err.Error(), v) {
				t.Errorf("ReadBandwidthSettings(%v): error %q does not name the variable and value", bad, err)
			}
		}
	}
	path := writeBaselineFile(t, "min.json", `{"minimums":[{"applies_to":"nvlink","metric":"bandwidth_gbps.ce.uni.1GiB","gbps":350}]}`)
	s, err = ReadBandwidthSettings(env(map[string]string{EnvBaseline: path}))
	if err != nil || s.Baseline == nil || s.BaselinePath != path {
		t.Fatalf("baseline %s: %+v, %v", path, s, err)
	}
}

func writeBaselineFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
