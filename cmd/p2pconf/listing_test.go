// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/p2pconf/p2pconf/harness/gpulock"
)

// listingBinary writes a stand-in for a suite binary: a script that waits
// delay, then writes a Ginkgo JSON report of one spec named after the
// suite to the --ginkgo.json-report path, or fails with exit 1 when fail.
func listingBinary(t *testing.T, dir, name string, delay time.Duration, fail bool) suiteBinary {
	t.Helper()
	body := fmt.Sprintf(`#!/bin/sh
sleep %.1f
for a; do case "$a" in --ginkgo.json-report=*) out="${a#*=}";; esac; done
`, delay.Seconds())
	if fail {
		body += fmt.Sprintf("echo '%s: cannot list' >&2\nexit 1\n", name)
	} else {
		body += fmt.Sprintf(`printf '%%s' '[{"SpecReports":[{"LeafNodeType":"It","LeafNodeText":"a spec of %s","LeafNodeLabels":["id:%s.check","gpu:0"],"State":"passed"}]}]' > "$out"
`, name, name)
	}
	bin := filepath.Join(dir, name+".test")
	if err := os.WriteFile(bin, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return suiteBinary{Name: name, Dir: dir, Bin: bin}
}

// The suites list at once, and their specs come back in the suites' order
// whichever listing ends first.
func TestListSpecsListsAtOnceInSuiteOrder(t *testing.T) {
	dir := t.TempDir()
	set := suiteSet{Suites: []suiteBinary{
		listingBinary(t, dir, "slow", time.Second, false),
		listingBinary(t, dir, "fast", 0, false),
		listingBinary(t, dir, "also", time.Second, false),
	}}
	// Each listing first waits until all three have started: one after
	// another, the first would wait in vain and fail.
	meet := t.TempDir()
	for i, s := range set.Suites {
		body, err := os.ReadFile(s.Bin)
		if err != nil {
			t.Fatal(err)
		}
		wait := fmt.Sprintf(`: > %[1]q/%[2]d
i=0; while [ "$(ls %[1]q | wc -l)" -lt 3 ]; do i=$((i+1)); [ $i -le 3000 ] || { echo "listed alone" >&2; exit 1; }; sleep 0.1; done
`, meet, i)
		if err := os.WriteFile(s.Bin, []byte(strings.Replace(string(body), "\n", "\n"+wait, 1)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	specs, err := listSpecs(set, os.Environ(), "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range specs {
		got = append(got, s.Suite+":"+s.ID)
	}
	if want := "slow:slow.check fast:fast.check also:also.check"; strings.Join(got, " ") != want {
		t.Errorf("listed %v, want %s", got, want)
	}
}

// A listing that fails makes the run incomplete, naming the first failing
// suite in the suites' order, not the first to fail in time.
func TestListSpecsNamesTheFirstFailingSuite(t *testing.T) {
	dir := t.TempDir()
	set := suiteSet{Suites: []suiteBinary{
		listingBinary(t, dir, "ok", 0, false),
		listingBinary(t, dir, "later", time.Second/2, true),
		listingBinary(t, dir, "sooner", 0, true),
	}}
	_, err := listSpecs(set, os.Environ(), "")
	if err == nil {
		t.Fatal("a failing listing gave no error")
	}
	if !strings.Contains(err.Error(), "listing the specs of later") || !strings.Contains(err.Error(), "later: cannot list") {
		t.Errorf("error %q, want the listing of later and its output", err)
	}
	var se statusError
	if !errors.As(err, &se) || se.code != exitIncomplete {
		t.Errorf("error %#v for a failed listing, want exit %d (incomplete)", err, exitIncomplete)
	}
}

// A listing takes no GPU lock: while another run holds the GPUs, a suite
// binary still lists its specs, while the same binary asked to run one is
// refused, naming the lock.
func TestListingTakesNoGPULock(t *testing.T) {
	bin := healthSuite(t)
	t.Setenv("P2PCONF_BACKEND", "fake")
	t.Setenv("P2PCONF_FAKE", "h200x2")
	t.Setenv("P2PCONF_FAKE_STATE", t.TempDir())
	t.Setenv(gpulock.EnvDir, t.TempDir())
	t.Setenv(gpulock.EnvWait, "0s")
	t.Setenv(gpulock.EnvHeld, "")
	release, err := holdGPUs(io.Discard)
	if err != nil {
		t.Fatalf("holding the fake GPUs as another run: %v", err)
	}
	defer release()
	// The suite processes below are not this run's: nothing hands the
	// lock down to them.
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, gpulock.EnvHeld+"=") {
			env = append(env, kv)
		}
	}
	suite := suiteBinary{Name: "health", Dir: filepath.Join("..", "..", "suites", "health"), Bin: bin}
	specs, err := listSpecs(suiteSet{Suites: []suiteBinary{suite}}, env, "")
	if err != nil {
		t.Fatalf("listing while another run holds the GPUs: %v", err)
	}
	if len(specs) == 0 {
		t.Fatal("the listing found no specs")
	}
	cmd := exec.Command(bin, "--ginkgo.label-filter=id:health.links-up")
	cmd.Dir, cmd.Env = suite.Dir, env
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "exclusive use of") {
		t.Errorf("running a spec while another run holds the GPUs: %v\n%s\nwant a refusal naming the lock", err, tail(out, 1500))
	}
}
