// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"os"
	"strings"
	"testing"

	"github.com/p2pconf/p2pconf/internal/suiterun"
)

const capabilityMessage = "GPU0→GPU1: CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED=1 (every atomic native) but cuDeviceGetP2PAtomicCapabilities does not cover every operation with all its types: INTEGER_ADD=0"

// baseline is a small reviewed run: two passes, a skip and an expected
// failure.
func baseline() []suiterun.Spec {
	return []suiterun.Spec{
		{ID: "atomics.concurrent-sys-rmw", Target: "pair:0-1", Text: "add u32", Variant: "add-u32", State: "passed"},
		{ID: "atomics.concurrent-sys-rmw", Target: "pair:0-1", Text: "add u64", Variant: "add-u64", State: "passed"},
		{ID: "atomics.host-native", Target: "gpu:0", Text: "host", State: "skipped", Reason: "needs HOST_NATIVE_ATOMIC_SUPPORTED=1 on GPU0"},
		{ID: "atomics.capability-report", Target: "pair:0-1", Text: "caps", State: "failed", Reason: capabilityMessage},
	}
}

func oracleOf(t *testing.T, specs []suiterun.Spec) Oracle {
	t.Helper()
	got, probs := observe(specs)
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	return merge(Oracle{}, map[string]map[string]map[string]Outcome{"h200x2": {"atomics": got}})
}

func check(t *testing.T, want Oracle, specs []suiterun.Spec) []string {
	t.Helper()
	got, probs := observe(specs)
	return append(probs, compare(want, map[string]map[string]map[string]Outcome{"h200x2": {"atomics": got}}, "")...)
}

func TestTheBaselineMatchesItself(t *testing.T) {
	want := oracleOf(t, baseline())
	if probs := check(t, want, baseline()); len(probs) != 0 {
		t.Errorf("problems: %v", probs)
	}
	// It survives the file format.
	back, err := decode(want.encode())
	if err != nil {
		t.Fatal(err)
	}
	if probs := check(t, back, baseline()); len(probs) != 0 || len(diff(want, back)) != 0 {
		t.Errorf("after encoding: %v %v", probs, diff(want, back))
	}
}

// One spec starts skipping while another stops: the counts stay the same,
// the oracle must still see both.
func TestASwapOfSkipsShows(t *testing.T) {
	want := oracleOf(t, baseline())
	run := baseline()
	run[1].State, run[1].Reason = "skipped", "needs HOST_NATIVE_ATOMIC_SUPPORTED=1 on GPU0"
	run[2].State, run[2].Reason = "passed", ""
	probs := check(t, want, run)
	if len(probs) != 2 || !strings.Contains(strings.Join(probs, "\n"), "variant:add-u64: skipped (needs HOST") ||
		!strings.Contains(strings.Join(probs, "\n"), "atomics.host-native gpu:0: passed, expected skipped") {
		t.Errorf("problems: %q", probs)
	}
}

func TestAChangedSkipReasonShows(t *testing.T) {
	want := oracleOf(t, baseline())
	run := baseline()
	run[2].Reason = "needs CUDA 13.0"
	if probs := check(t, want, run); len(probs) != 1 || !strings.Contains(probs[0], `skipped because "needs CUDA 13.0"`) {
		t.Errorf("problems: %q", probs)
	}
}

// The expected failure must fail saying what the defect is, not just fail.
func TestAnExpectedFailureMustMatchItsMessage(t *testing.T) {
	want := oracleOf(t, baseline())
	run := baseline()
	run[3].Reason = "cuDeviceGetP2PAtomicCapabilities: CUDA_ERROR_INVALID_VALUE"
	probs := check(t, want, run)
	if len(probs) != 1 || !strings.Contains(probs[0], "expected a message matching") {
		t.Errorf("problems: %q", probs)
	}
	run[3].State, run[3].Reason = "panicked", capabilityMessage
	if probs := check(t, want, run); len(probs) != 1 || !strings.Contains(probs[0], "panicked") {
		t.Errorf("a panic with the same message: %q", probs)
	}
}

func TestADisappearingSpecShows(t *testing.T) {
	want := oracleOf(t, baseline())
	run := baseline()[:3]
	if probs := check(t, want, run); len(probs) != 1 || !strings.Contains(probs[0], "atomics.capability-report pair:0-1: expected to failed, did not run") {
		t.Errorf("problems: %q", probs)
	}
	run = append(baseline(), suiterun.Spec{ID: "atomics.counter-as-flag", Target: "pair:0-1", Text: "flag", State: "passed"})
	if probs := check(t, want, run); len(probs) != 1 || !strings.Contains(probs[0], "has no expectation") {
		t.Errorf("a new spec: %q", probs)
	}
	if probs := check(t, want, append(baseline(), baseline()[0])); len(probs) == 0 {
		t.Error("two specs with one key went unnoticed")
	}
}

func TestUpdateShowsOnlyWhatChanges(t *testing.T) {
	old := oracleOf(t, baseline())
	run := baseline()
	run[0].State, run[0].Reason = "skipped", "needs CUDA 13.0"
	next := oracleOf(t, run)
	d := diff(old, next)
	if len(d) != 2 || !strings.HasPrefix(d[0], "- h200x2 atomics atomics.concurrent-sys-rmw pair:0-1 variant:add-u32 = {\"state\":\"passed\"}") ||
		!strings.HasPrefix(d[1], "+ h200x2 atomics atomics.concurrent-sys-rmw pair:0-1 variant:add-u32 = {\"state\":\"skipped\"") {
		t.Errorf("diff: %q", d)
	}
	if len(diff(old, old)) != 0 {
		t.Error("no change shows a diff")
	}
}

// The committed expectation holds the reviewed baseline: every spec keyed
// by check, target and variant, and the h200x2 capability-report failures
// with their message.
func TestTheCommittedExpectation(t *testing.T) {
	b, err := os.ReadFile("testdata/expected.json")
	if err != nil {
		t.Fatal(err)
	}
	o, err := decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if got := o.count("failed"); got != 2 {
		t.Errorf("%d expected failures, want 2 (atomics.capability-report on h200x2)", got)
	}
	for key, v := range o["h200x2"]["atomics"] {
		if v.State == "failed" && (!strings.HasPrefix(key, "atomics.capability-report pair:") || !strings.Contains(v.Message, "NATIVE_ATOMIC_SUPPORTED=1")) {
			t.Errorf("expected failure %s: %+v", key, v)
		}
	}
	for preset, suites := range o {
		for suite, specs := range suites {
			for key, v := range specs {
				if v.State == "skipped" && v.Reason == "" {
					t.Errorf("%s %s %s: a skip without its reason", preset, suite, key)
				}
			}
		}
	}
}
