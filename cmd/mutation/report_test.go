// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/p2pconf/p2pconf/harness/checks"
	"github.com/p2pconf/p2pconf/harness/fake"
	"github.com/p2pconf/p2pconf/harness/proc"
)

// testdata/report.json was recorded from a four-spec Ginkgo v2.34 suite: a
// pass, a failure (pair 1-0), a skip and a panic (a mutant spec, pair 0-1).
func TestReadReport(t *testing.T) {
	sum, err := readReport("testdata/report.json")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Passed != 1 || sum.Failed != 2 || sum.Skipped != 1 || sum.SuiteSucceeded {
		t.Errorf("summary %+v", sum)
	}
	f := failures(sum)
	if len(f) != 2 {
		t.Fatalf("failures %+v", f)
	}
	if f[0].Name() != "access.kernel-remote-write[1-0]" || f[0].Message != "words written from GPU1 into GPU0" {
		t.Errorf("first failure %q: %q", f[0].Name(), f[0].Message)
	}
	if f[1].Name() != "ordering.cross-device-handoff-without-wait[0-1]" || f[1].Message != "panic: boom" {
		t.Errorf("second failure %q: %q", f[1].Name(), f[1].Message)
	}
	if f[0].cause() != causeOwn || f[1].cause() != "panic" {
		t.Errorf("causes %q and %q, want %q and panic", f[0].cause(), f[1].cause(), causeOwn)
	}
	if _, err := readReport("report_test.go"); err == nil {
		t.Error("a Go file parsed as a report")
	}
}

func TestNewFailuresIgnoreTheBaseline(t *testing.T) {
	run, err := readReport("testdata/report.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := newFailures(run, run); len(got) != 0 {
		t.Errorf("the same run against itself: %v", got)
	}
	base := run
	base.Specs = append([]specResult(nil), run.Specs...)
	for i := range base.Specs {
		if base.Specs[i].Pair == "1-0" {
			base.Specs[i].State = 0 // passed in the baseline
		}
	}
	got := groupByID(newFailures(base, run))
	if len(got) != 1 || got[0] != "access.kernel-remote-write [1-0]" {
		t.Errorf("new failures %v", got)
	}
}

func TestSelectDefects(t *testing.T) {
	all, err := selectDefects("", "")
	if err != nil || len(all) != len(fake.Defects()) {
		t.Fatalf("all: %d, %v", len(all), err)
	}
	vmm, _ := selectDefects("", "vmm")
	for _, d := range vmm {
		if d.Suite != "vmm" {
			t.Errorf("suite filter let %s (%s) through", d.Name, d.Suite)
		}
	}
	if _, err := selectDefects("no-such-defect", ""); err == nil {
		t.Error("an unknown defect was accepted")
	}
}

func TestSuiteNotBuiltIsNotCaughtAndNotAnError(t *testing.T) {
	m := newMutator(t.TempDir(), t.TempDir(), time.Minute, false, &bytes.Buffer{})
	o := m.try(fake.DefectInfo{Name: "stream-wait-ignored", Suite: "ordering", Preset: "h200x2",
		Catchers: []string{"ordering.cross-device-event-handoff"}}, "h200x2", 3)
	if o.caught() || o.err != nil || o.note != "suite ordering not built yet" {
		t.Fatalf("%+v", o)
	}
	if o := m.try(fake.DefectInfo{Name: "x", Suite: "ordering"}, "h200x2", 1); o.err == nil {
		t.Error("a defect without catchers was tried")
	}
}

// own is a failure of a spec's own assertion.
func own(id, pair string) specResult {
	return specResult{ID: id, Pair: pair, State: types.SpecStateFailed, FailedIn: types.NodeTypeIt}
}

func TestOnlyADeclaredCatchersOwnAssertionCatches(t *testing.T) {
	catchers := []string{"access.peer-copy", "access.staged-copy"}
	panicked := own("access.peer-copy", "0-1")
	panicked.State = types.SpecStatePanicked
	cleanup := own("access.peer-copy", "1-0")
	cleanup.FailedIn = types.NodeTypeCleanupAfterEach
	poisoned := own("access.staged-copy", "0-1")
	poisoned.Poisoned = true
	timedOut := own("access.staged-copy", "1-0")
	timedOut.State = types.SpecStateTimedout
	undeclared := own("access.uva-owner", "")
	for _, tc := range []struct {
		name   string
		failed []specResult
		want   []string
	}{
		{"crash, cleanup, poisoned context, timeout and an undeclared spec", []specResult{panicked, cleanup, poisoned, timedOut, undeclared}, nil},
		{"an own assertion", []specResult{undeclared, own("access.peer-copy", "1-0")}, []string{"access.peer-copy"}},
		{"two catchers, several pairs", []specResult{own("access.staged-copy", "0-1"), own("access.peer-copy", "0-1"), own("access.peer-copy", "1-0")},
			[]string{"access.peer-copy", "access.staged-copy"}},
	} {
		caught, other := judge(tc.failed, catchers, nil)
		if !slices.Equal(caught, tc.want) {
			t.Errorf("%s: caught by %v, want %v", tc.name, caught, tc.want)
		}
		if len(caught) == 0 && len(other) != len(tc.failed) {
			t.Errorf("%s: %d failures shown, want %d", tc.name, len(other), len(tc.failed))
		}
	}
	if caught, _ := judge([]specResult{own("access.peer-copy", "0-1")}, catchers, []string{"access.peer-copy"}); len(caught) != 0 {
		t.Errorf("a catcher that fails without the defect caught it: %v", caught)
	}
	wantCauses := map[string]specResult{"panic": panicked, "in DeferCleanup (Each)": cleanup, "poisoned context": poisoned,
		"timedout": timedOut, causeOwn: undeclared}
	for want, s := range wantCauses {
		if got := s.cause(); got != want {
			t.Errorf("cause of %+v: %q, want %q", s, got, want)
		}
	}
}

// TestCleanupDriverErrorCatches: a spec whose body passed and whose own
// cleanup (DeferCleanup) failed with a driver call's error catches the
// defect; a cleanup failure without one, a poisoned one, or a driver error
// in another node around the spec does not.
func TestCleanupDriverErrorCatches(t *testing.T) {
	catchers := []string{"access.enable-errors"}
	cleanup := func(msg string) specResult {
		s := own("access.enable-errors", "0-1")
		s.FailedIn, s.Message = types.NodeTypeCleanupAfterEach, msg
		return s
	}
	const refused = "disable peer access GPU1→GPU0: cuCtxDisablePeerAccess: CUDA_ERROR_PEER_ACCESS_NOT_ENABLED (705)"
	counted := cleanup(refused)
	if c := counted.cause(); c != causeCleanup {
		t.Errorf("cause of a refused release: %q, want %q", c, causeCleanup)
	}
	if caught, other := judge([]specResult{counted}, catchers, nil); !slices.Equal(caught, catchers) || len(other) != 0 {
		t.Errorf("a refused release: caught by %v (others %v), want %v", caught, other, catchers)
	}
	if caught, _ := judge([]specResult{counted}, catchers, catchers); len(caught) != 0 {
		t.Errorf("a refused release of a catcher that fails without the defect caught it: %v", caught)
	}
	undeclared := counted
	undeclared.ID = "access.peer-copy"
	if own, rest := splitOwn([]specResult{undeclared}); len(own) != 1 || len(rest) != 0 {
		t.Errorf("an undeclared spec's refused release is not listed as also caught: %v, %v", own, rest)
	}
	leak := cleanup("the spec left 2 more file descriptors open than it found: /dev/nvidia0")
	poisoned := cleanup(refused)
	poisoned.Poisoned = true
	afterEach := cleanup(refused)
	afterEach.FailedIn = types.NodeTypeAfterEach
	setup := cleanup(refused)
	setup.FailedIn = types.NodeTypeBeforeEach
	noFunc := cleanup("free 4096 bytes on GPU0: CUDA_ERROR_INVALID_VALUE")
	for name, s := range map[string]specResult{"leak check": leak, "poisoned context": poisoned, "AfterEach": afterEach,
		"BeforeEach": setup, "a code without the driver call": noFunc} {
		if s.counts() {
			t.Errorf("%s: cause %q counts", name, s.cause())
		}
		if caught, _ := judge([]specResult{s}, catchers, nil); len(caught) != 0 {
			t.Errorf("%s: caught by %v", name, caught)
		}
	}
	if c := poisoned.cause(); c != "poisoned context" {
		t.Errorf("a poisoned cleanup: cause %q", c)
	}
}

func TestUnprovenCatchers(t *testing.T) {
	base := runSummary{Specs: []specResult{{ID: "a.pass", State: types.SpecStatePassed},
		own("a.fails", "0-1"), {ID: "a.fails", State: types.SpecStatePassed}, {ID: "a.skips", State: types.SpecStateSkipped}}}
	got := unprovenCatchers(base, []string{"a.pass", "a.fails", "a.skips", "a.absent"})
	if !slices.Equal(got, []string{"a.fails", "a.skips", "a.absent"}) {
		t.Errorf("unproven %v", got)
	}
}

func TestReportListsMissesSoleCatchersAndScore(t *testing.T) {
	d := fake.DefectInfo{Name: "peer-copy-corrupts", Suite: "access", Preset: "h200x2", Catchers: []string{"access.peer-copy", "access.staged-copy"}}
	caughtAlways := outcome{defect: d, preset: "h200x2", runs: []runVerdict{
		{seed: 1, caught: []string{"access.peer-copy"}, other: []specResult{own("access.uva-owner", "")}},
		{seed: 2, caught: []string{"access.peer-copy"}}}}
	panicOnly := outcome{defect: fake.DefectInfo{Name: "y", Suite: "ordering", Preset: "h200x2", Catchers: []string{"ordering.litmus"}},
		preset: "h200x2", runs: []runVerdict{{seed: 1, other: []specResult{{ID: "ordering.litmus", Pair: "0-1", State: types.SpecStatePanicked, FailedIn: types.NodeTypeIt}}}}}
	var out, errs bytes.Buffer
	code := printResults(&out, &errs, []outcome{caughtAlways, panicOnly})
	if code != 1 {
		t.Errorf("exit %d with catchers that missed", code)
	}
	for _, want := range []string{
		"peer-copy-corrupts (access on h200x2): caught in 2/2 run(s)",
		"expected: access.peer-copy, access.staged-copy",
		"seed 1: caught by access.peer-copy; also failed (own assertion, not counted): access.uva-owner",
		"misses: access.staged-copy (seeds 1 2)",
		"y (ordering on h200x2): MISSED in 0/1 run(s)",
		"seed 1: caught by none; also failed (panic, not counted): ordering.litmus [0-1]",
		"access.peer-copy is the only catcher of peer-copy-corrupts",
		"mutation score 1/2",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	all := caughtAlways
	all.defect.Catchers = []string{"access.peer-copy"}
	if code := printResults(&out, &errs, []outcome{all}); code != 0 {
		t.Errorf("exit %d when every declared catcher caught the defect:\n%s", code, out.String())
	}
	if code := printResults(&out, &errs, []outcome{{defect: d, err: errors.New("boom")}}); code != 1 {
		t.Errorf("exit %d with a harness error", code)
	}
}

// Every defect names catchers from the check catalogue, of the suite it is
// injected into, and the fast subset are real defects.
func TestDefectsDeclareCataloguedCatchers(t *testing.T) {
	for _, d := range fake.Defects() {
		if len(d.Catchers) == 0 {
			t.Errorf("%s declares no catcher", d.Name)
		}
		for _, id := range d.Catchers {
			c, ok := checks.Lookup(id)
			if !ok {
				t.Errorf("%s: catcher %s is not in the catalogue", d.Name, id)
			} else if c.Family != d.Suite {
				t.Errorf("%s (suite %s): catcher %s belongs to %s", d.Name, d.Suite, id, c.Family)
			}
		}
	}
	if _, err := selectDefects(strings.Join(fastDefects, ","), ""); err != nil {
		t.Error(err)
	}
}

func TestSuiteEnv(t *testing.T) {
	t.Setenv(fake.EnvState, "/somewhere")
	t.Setenv(fake.EnvDefects, "free-leaks")
	t.Setenv("P2PCONF_BASELINE", "/somewhere/conformance.json")
	env := strings.Join(suiteEnv("mixed", "", "/tmp/r", "/tmp/s"), "\n")
	for _, want := range []string{"P2PCONF_BACKEND=fake", "P2PCONF_FAKE=mixed", "P2PCONF_FAKE_DEFECTS=\n",
		"P2PCONF_REPORT_DIR=/tmp/r", "P2PCONF_FAKE_STATE=/tmp/s"} {
		if !strings.Contains(env+"\n", want) {
			t.Errorf("env lacks %q", want)
		}
	}
	if strings.Contains(env, "/somewhere") || strings.Contains(env, "free-leaks") {
		t.Error("the caller's fake state or defects leaked into the suite's environment")
	}
}

func TestGatedDefectNeedsTheCleanRunsReport(t *testing.T) {
	m := newMutator(t.TempDir(), t.TempDir(), time.Minute, false, &bytes.Buffer{})
	if _, err := m.gateEnv("bandwidth", "h200x2"); err == nil || !strings.Contains(err.Error(), "no report to gate against") {
		t.Errorf("without the clean run's report: %v", err)
	}
	dir := m.reportDir("bandwidth", "h200x2", "", m.seed)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "conformance.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	env, err := m.gateEnv("bandwidth", "h200x2")
	if err != nil || len(env) != 2 || env[0] != "P2PCONF_BASELINE="+filepath.Join(dir, "conformance.json") ||
		env[1] != "P2PCONF_BW_TOLERANCE="+GateTolerance {
		t.Errorf("gate env %q, %v", env, err)
	}
}

// The first spec to quote a poisoned context faulted itself; a later one
// quoting the same fault inherited it; a helper process's own fault (another
// address) is not the main process's.
func TestPoisonIsInheritedOnlyFromAnEarlierSpec(t *testing.T) {
	at := func(ms int) time.Time { return time.Unix(0, 0).Add(time.Duration(ms) * time.Millisecond) }
	spec := func(ms int, msg string) types.SpecReport {
		return types.SpecReport{State: types.SpecStateFailed, StartTime: at(ms), LeafNodeType: types.NodeTypeIt,
			Failure: types.Failure{Message: msg, FailureNodeType: types.NodeTypeIt}}
	}
	main := "cuStreamQuery: CUDA_ERROR_ILLEGAL_ADDRESS (700): GPU0's context is " + poisonMark + ": GPU0 load at 0x1000: no access"
	helper := `helper failed: "GPU0's context is ` + poisonMark + `: GPU0 load at 0x2000: no access"`
	specs := types.SpecReports{spec(1, helper), spec(2, main), spec(3, "cuMemAlloc: "+main), spec(4, "an assertion")}
	origins := poisonOrigins(specs)
	for i, want := range []bool{false, false, true, false} {
		if got := inherited(specs[i], origins); got != want {
			t.Errorf("spec %d: inherited %v, want %v", i, got, want)
		}
	}
	if f := quotedFaults(helper); len(f) != 1 || f[0] != "GPU0 load at 0x2000: no access" {
		t.Errorf("quoted faults %q", f)
	}
}

// A helper's failure is the spec's own only when the helper failed in its
// check step; in a setup step it proves nothing about the check.
func TestHelperFailureCountsOnlyInItsCheckStep(t *testing.T) {
	at := func(step string) specResult {
		s := own("access.enable-errors", "0-1")
		s.HelperStep, s.HelperFailed = failedHelperStep(`the report of helper access.peer-probe: helper access.peer-probe failed in step ` + strconv.Quote(step) + `: boom`)
		return s
	}
	if c := at("fill GPU1's buffer").cause(); c != "helper failed outside its check" {
		t.Errorf("setup step: cause %q", c)
	}
	if c := at(proc.CheckStepPrefix + "kernel on GPU0 reads GPU1's memory").cause(); c != causeOwn {
		t.Errorf("check step: cause %q", c)
	}
	s := own("vmm.fd-export-import", "")
	s.HelperStep, s.HelperFailed = failedHelperStep("helper vmm.importer crashed before its first step")
	if !s.HelperFailed || s.cause() == causeOwn {
		t.Errorf("a helper that crashed before its first step: %+v, cause %q", s, s.cause())
	}
	if _, failed := failedHelperStep("an assertion about data"); failed {
		t.Error("an assertion was read as a helper failure")
	}
}

// Specs of other suites that catch a defect on their own assertion are
// shown and count against a sole catcher.
func TestAlsoCaughtIsShownAndNotSole(t *testing.T) {
	d := fake.DefectInfo{Name: "peer-copy-corrupts", Suite: "access", Preset: "h200x2", Catchers: []string{"access.peer-copy"}}
	o := outcome{defect: d, preset: "h200x2", suites: []string{"access", "ordering"}, runs: []runVerdict{
		{seed: 1, caught: []string{"access.peer-copy"}, also: []specResult{own("ordering.cross-device-event-handoff", "0-1")}}}}
	var out, errs bytes.Buffer
	if code := printResults(&out, &errs, []outcome{o}); code != 0 {
		t.Errorf("exit %d:\n%s", code, out.String())
	}
	for _, want := range []string{"injected into: access, ordering", "also caught by: ordering.cross-device-event-handoff [0-1]"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "only catcher") {
		t.Errorf("a defect caught by two checks has a sole catcher:\n%s", out.String())
	}
}

// TestNewFailuresKeyOnTheDeclaredVariant: a spec is the same spec in the
// baseline and the run when its check, target and variant key agree, even
// if its text was reworded; two variants on one target stay apart.
func TestNewFailuresKeyOnTheDeclaredVariant(t *testing.T) {
	spec := func(text, variant string) specResult {
		s := own("access.peer-copy", "0-1")
		s.Text, s.Target, s.Variant = text, "pair:0-1", variant
		return s
	}
	base := runSummary{Specs: []specResult{spec("copies 4 B from GPU0 to GPU1", "4b")}}
	run := runSummary{Specs: []specResult{spec("copies 4 bytes from GPU0 to GPU1", "4b"), spec("copies 1 GiB from GPU0 to GPU1", "1gib")}}
	got := newFailures(base, run)
	if len(got) != 1 || got[0].Variant != "1gib" {
		t.Errorf("new failures %+v, want only the 1gib variant (the 4b one failed in the baseline under another text)", got)
	}
}
