// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package bandwidth

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadSettings(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	s, err := ReadSettings(env(nil))
	if err != nil || s.MaxSize != GiB || s.Tolerance != 0.10 || s.Baseline != nil || s.LinkEfficiencyMin != 0.60 || s.SweepAll {
		t.Fatalf("defaults: %+v, %v", s, err)
	}
	s, err = ReadSettings(env(map[string]string{EnvMaxSize: "64MiB", EnvTolerance: "7.5%", EnvLinkEfficiencyMin: "75%", EnvSweep: "all"}))
	if err != nil || s.MaxSize != 64*MiB || s.Tolerance != 0.075 || s.LinkEfficiencyMin != 0.75 || !s.SweepAll {
		t.Fatalf("64MiB, 7.5%%: %+v, %v", s, err)
	}
	for _, bad := range []map[string]string{
		{EnvMaxSize: "lots"}, {EnvMaxSize: "1K"}, {EnvTolerance: "-1"}, {EnvTolerance: "100"}, {EnvTolerance: "ten"},
		{EnvLinkEfficiencyMin: "0"}, {EnvLinkEfficiencyMin: "101"}, {EnvLinkEfficiencyMin: "most"}, {EnvSweep: "some"},
		{EnvBaseline: filepath.Join(t.TempDir(), "missing.json")},
		{EnvBaseline: writeBaselineFile(t, "bad.json", `{"minimums":[{"applies_to":"nvlink","metric":"bandwidth_gbps.ce.uni.1GB","gbps":350}]}`)},
	} {
		_, err := ReadSettings(env(bad))
		if err == nil {
			t.Errorf("ReadSettings(%v) accepted it", bad)
			continue
		}
		for k, v := range bad {
			if !strings.Contains(err.Error(), k) || !strings.Contains(err.Error(), v) {
				t.Errorf("ReadSettings(%v): error %q does not name the variable and value", bad, err)
			}
		}
	}
	path := writeBaselineFile(t, "min.json", `{"minimums":[{"applies_to":"nvlink","metric":"bandwidth_gbps.ce.uni.1GiB","gbps":350}]}`)
	s, err = ReadSettings(env(map[string]string{EnvBaseline: path}))
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
