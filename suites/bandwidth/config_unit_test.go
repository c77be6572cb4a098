// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package bandwidth

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Unit tests of the pure parts (no GPU, no Ginkgo): run them with
// go test -run 'Unit' ./suites/bandwidth/

func TestUnitParseSize(t *testing.T) {
	for in, want := range map[string]uint64{
		"4096": 4096, "4K": 4 * KiB, "4KiB": 4 * KiB, "64m": 64 * MiB, "64 MiB": 64 * MiB,
		"1G": GiB, "1GiB": GiB, "2GB": 2 * GiB, "512B": 512,
	} {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "x", "1.5G", "-4K", "4TiB", "99999999999999999999G"} {
		if got, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", in, got)
		}
	}
}

func TestUnitSizes(t *testing.T) {
	got := Sizes(GiB)
	var labels []string
	for _, s := range got {
		labels = append(labels, SizeLabel(s))
	}
	want := "4KiB 16KiB 64KiB 256KiB 1MiB 4MiB 16MiB 64MiB 256MiB 1GiB"
	if strings.Join(labels, " ") != want {
		t.Errorf("Sizes(1GiB) = %v, want %s", labels, want)
	}
	if got := Sizes(100 * MiB); SizeLabel(got[len(got)-1]) != "64MiB" {
		t.Errorf("Sizes(100MiB) ends at %s, want 64MiB", SizeLabel(got[len(got)-1]))
	}
	if got := Sizes(4 * KiB); !reflect.DeepEqual(got, []uint64{4 * KiB}) {
		t.Errorf("Sizes(4KiB) = %v", got)
	}
}

func TestUnitReadConfig(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	c, err := ReadConfig(env(nil))
	if err != nil || c.MaxSize != GiB || c.Tolerance != 0.10 || c.Baseline != nil {
		t.Fatalf("defaults: %+v, %v", c, err)
	}
	c, err = ReadConfig(env(map[string]string{EnvMaxSize: "64MiB", EnvTolerance: "7.5%"}))
	if err != nil || c.MaxSize != 64*MiB || c.Tolerance != 0.075 {
		t.Fatalf("64MiB, 7.5%%: %+v, %v", c, err)
	}
	for _, bad := range []map[string]string{
		{EnvMaxSize: "lots"}, {EnvMaxSize: "1K"}, {EnvTolerance: "-1"}, {EnvTolerance: "100"}, {EnvTolerance: "ten"},
		{EnvBaseline: filepath.Join(t.TempDir(), "missing.json")},
	} {
		_, err := ReadConfig(env(bad))
		if err == nil {
			t.Errorf("ReadConfig(%v) accepted it", bad)
			continue
		}
		for k, v := range bad {
			if !strings.Contains(err.Error(), k) || !strings.Contains(err.Error(), v) {
				t.Errorf("ReadConfig(%v): error %q does not name the variable and value", bad, err)
			}
		}
	}
	path := filepath.Join(t.TempDir(), "min.json")
	if err := os.WriteFile(path, []byte(`{"minimums":[{"applies_to":"nvlink","metric":"bandwidth_gbps.ce.uni.1GiB","gbps":350}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err = ReadConfig(env(map[string]string{EnvBaseline: path}))
	if err != nil || c.Baseline == nil || c.BaselinePath != path {
		t.Fatalf("baseline %s: %+v, %v", path, c, err)
	}
}
