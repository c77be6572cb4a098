// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/p2pconf/p2pconf/harness/bandwidth"
	"github.com/p2pconf/p2pconf/harness/gpulock"
	"github.com/p2pconf/p2pconf/harness/litmus"
	"github.com/p2pconf/p2pconf/harness/machine"
	"github.com/p2pconf/p2pconf/harness/schedule"
	"github.com/p2pconf/p2pconf/harness/settings"
)

// TestSuiteReadersAgreeWithTheDeclarations: the bandwidth and litmus
// settings are parsed in this package and checked, before any spec tree,
// by their declarations in harness/suitesettings. For every variable and
// a spread of values the two must agree, or a value the pass let through
// would fail the suite later (or one it refused would have worked).
func TestSuiteReadersAgreeWithTheDeclarations(t *testing.T) {
	dir := t.TempDir()
	baseline := filepath.Join(dir, "baseline.json")
	if err := os.WriteFile(baseline, []byte(`{"kind":"p2pconf-bandwidth-baseline","minimums":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	array := filepath.Join(dir, "array.json")
	if err := os.WriteFile(array, []byte(`[]`), 0o644); err != nil {
		t.Fatal(err)
	}
	values := []string{"", "0", "1", "-1", "2", "10", "60", "99.9", "100", "150", "7.5%", "100%", "200%", "0.5", "1e-4", "1e9", "1_000",
		"1.5", "abc", "NaN", "0x10", "1XB", "1KiB", "4KiB", "64MiB", "1GiB", "2s", "0s", "-1s", "banana",
		"default", "certify", "fast", "here", "representative", "all", "some",
		baseline, array, dir, filepath.Join(dir, "missing")}
	readers := map[string]func(func(string) string) error{
		"bandwidth": func(g func(string) string) error { _, err := bandwidth.ReadSettings(g); return err },
		"litmus":    func(g func(string) string) error { _, err := litmus.ReadSettings(g, false); return err },
	}
	names := map[string]string{
		bandwidth.EnvMaxSize: "bandwidth", bandwidth.EnvBaseline: "bandwidth", bandwidth.EnvTolerance: "bandwidth", bandwidth.EnvLinkEfficiencyMin: "bandwidth", bandwidth.EnvSweep: "bandwidth",
		litmus.EnvMinInstances: "litmus", litmus.EnvMinFlagShare: "litmus", litmus.EnvMaxViolationBound: "litmus", litmus.EnvProfile: "litmus",
		litmus.EnvTarget: "litmus", litmus.EnvLinkTarget: "litmus", litmus.EnvMutantHits: "litmus", machine.EnvLitmusBudget: "litmus",
		litmus.EnvMutantBudget: "litmus", schedule.EnvPairMutants: "litmus",
	}
	for name, suite := range names {
		if _, ok := settings.Lookup(name); !ok {
			t.Errorf("%s is read by the %s settings but not declared", name, suite)
			continue
		}
		for _, v := range values {
			readErr := readers[suite](func(k string) string {
				if k == name {
					return v
				}
				return ""
			})
			checkErr := settings.Check(name, v)
			if (readErr == nil) != (checkErr == nil) {
				t.Errorf("%s=%q: the %s reader says %v, the declaration %v", name, v, suite, readErr, checkErr)
			}
		}
	}
}

// TestDeclaredDefaultsAreTheCodes: setting a variable to its declared
// default (the one docs/usage.md shows) reads the same as leaving it unset.
func TestDeclaredDefaultsAreTheCodes(t *testing.T) {
	n := 0
	for _, s := range settings.All() {
		if s.Default == "" || s.Internal {
			continue
		}
		only := func(k string) string {
			if k == s.Name {
				return s.Default
			}
			return ""
		}
		none := func(string) string { return "" }
		bw0, err0 := bandwidth.ReadSettings(none)
		bw1, err1 := bandwidth.ReadSettings(only)
		lit0, err2 := litmus.ReadSettings(none, false)
		lit1, err3 := litmus.ReadSettings(only, false)
		if err := errors.Join(err0, err1, err2, err3); err != nil {
			t.Errorf("%s=%s: %v", s.Name, s.Default, err)
			continue
		}
		for _, k := range []string{s.Name, machine.EnvBackend} {
			t.Setenv(k, "")
		}
		cfg0, err4 := machine.ReadConfig()
		t.Setenv(s.Name, s.Default)
		cfg1, err5 := machine.ReadConfig()
		if s.Name == machine.EnvFakePreset {
			t.Setenv(machine.EnvBackend, "fake")
			cfg0.FakePreset = machine.EnvDefaultPreset
			cfg1, err5 = machine.ReadConfig()
			cfg1.Backend = cfg0.Backend
		}
		lock0, err6 := gpulock.OptionsFromEnv()
		lock1 := lock0
		if s.Name == gpulock.EnvWait {
			t.Setenv(s.Name, s.Default)
			lock1, err6 = gpulock.OptionsFromEnv()
		}
		if err := errors.Join(err4, err5, err6); err != nil {
			t.Errorf("%s=%s: %v", s.Name, s.Default, err)
			continue
		}
		if !reflect.DeepEqual(bw0, bw1) || !reflect.DeepEqual(lit0, lit1) || !reflect.DeepEqual(cfg0, cfg1) || lock0.Wait != lock1.Wait {
			t.Errorf("%s=%s reads otherwise than the variable unset: the declared default is not the code's", s.Name, s.Default)
		}
		n++
	}
	if n < 15 {
		t.Fatalf("only %d defaults checked", n)
	}
}
