// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/p2pconf/p2pconf/harness/fake"
	"github.com/p2pconf/p2pconf/harness/gpulock"
	"github.com/p2pconf/p2pconf/internal/suiterun"
)

// The checks that need a GPU to themselves, by suite: free-memory
// accounting (ipc, vmm) and measurements (bandwidth).
var exclusiveChecks = map[string][]string{
	"ipc":       {"ipc.close-then-free", "ipc.importer-killed"},
	"vmm":       {"vmm.release-while-mapped", "vmm.import-outlives-exporter-release", "vmm.fd-export-import"},
	"bandwidth": {"bandwidth.latency", "bandwidth.copy-engine"},
}

// TestForeignProcessIsNoVerdict runs those checks on the fake two-GPU
// machine with another program holding memory on GPU0 from the middle of
// the first such spec on (P2PCONF_FAKE_FOREIGN): no spec may fail, every
// spec that needs GPU0 to itself must end as an error naming the
// program's PID, and the others must still pass, so the error is not a
// blanket one. The run holds the lock of its GPUs meanwhile, which its
// helper processes must leave alone.
func TestForeignProcessIsNoVerdict(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs three suites")
	}
	root, bins := buildSuites(t, "ipc", "vmm", "bandwidth")
	for suite, ids := range exclusiveChecks {
		filter := "id:" + strings.Join(ids, " || id:")
		// With a lock directory the fake locks its GPUs too: the helper
		// processes the ipc and vmm specs start must not try to.
		specs, out := runSuite(t, root, bins[suite], suite, filter,
			"P2PCONF_FAKE=h200x2", fake.EnvForeign+"=0:512MiB", gpulock.EnvDir+"="+t.TempDir())
		onGPU0, onGPU1 := 0, 0
		for _, s := range specs {
			target := targetOf(s)
			inconclusive := hasEntry(s, `"kind":"error"`)
			switch {
			case s.State == types.SpecStateFailed && !inconclusive, s.State == types.SpecStateTimedout, s.State == types.SpecStatePanicked:
				t.Errorf("%s: %q %s with a foreign process on GPU0: %s", suite, s.FullText(), s.State, s.Failure.Message)
			case affected(suite, target):
				onGPU0++
				msg := s.Failure.Message
				if !inconclusive || !strings.Contains(msg, fmt.Sprintf("pid %d (%s", fake.ForeignPID, fake.ForeignName)) || strings.Contains(msg, "panic") {
					t.Errorf("%s: %q on %s: %s %q, want an inconclusive error naming pid %d", suite, s.FullText(), target, s.State, msg, fake.ForeignPID)
				}
				if suite == "bandwidth" && !hasContendedEntry(s) {
					t.Errorf("%s: %q on %s carries no contended finding", suite, s.FullText(), target)
				}
			case s.State == types.SpecStatePassed:
				onGPU1++
			default:
				t.Errorf("%s: %q on %s (no foreign process there): %s %s", suite, s.FullText(), target, s.State, s.Failure.Message)
			}
		}
		if onGPU0 == 0 || onGPU1 == 0 {
			t.Errorf("%s: %d specs on GPU0, %d passed on GPU1 alone; want both: the test proves nothing\n%s", suite, onGPU0, onGPU1, tail(out))
		}
	}
}

// TestSecondRunStopsNamingTheHolder holds the fake GPU0's lock and runs a
// suite on it: the suite must stop before any spec, naming this process.
func TestSecondRunStopsNamingTheHolder(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a suite")
	}
	root, bins := buildSuites(t, "ipc")
	b, err := fake.Open("h200x2", nil, fake.WithStateDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	uuid := b.Devices()[0].UUID
	_ = b.Close()
	dir := t.TempDir()
	l, err := gpulock.Acquire(context.Background(), []string{uuid}, gpulock.Options{Dir: dir, Command: []string{"holder-of-gpu0"}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	specs, out := runSuite(t, root, bins["ipc"], "ipc", "", "P2PCONF_FAKE=h200x2", gpulock.EnvDir+"="+dir)
	for _, s := range specs {
		if s.LeafNodeType == types.NodeTypeIt && s.State != types.SpecStateSkipped {
			t.Errorf("spec %q ran (%s) while another process held the GPU", s.FullText(), s.State)
		}
	}
	for _, want := range []string{"in use by another p2pconf run", fmt.Sprintf("pid %d", os.Getpid()), "holder-of-gpu0", uuid} {
		if !strings.Contains(out, want) {
			t.Errorf("the refused run's output lacks %q:\n%s", want, tail(out))
		}
	}
}

func buildSuites(t *testing.T, suites ...string) (string, map[string]string) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bins := map[string]string{}
	for _, s := range suites {
		bin, err := suiterun.Build(root, dir, s)
		if err != nil {
			t.Fatal(err)
		}
		bins[s] = bin
	}
	return root, bins
}

// runSuite runs a suite binary on the fake with the label filter and
// returns its specs (from Ginkgo's JSON report; none when it stopped
// before writing one) and its output.
func runSuite(t *testing.T, root, bin, suite, filter string, env ...string) ([]types.SpecReport, string) {
	t.Helper()
	jsonPath := filepath.Join(t.TempDir(), "report.json")
	args := []string{"-test.timeout=10m", "--ginkgo.no-color", "--ginkgo.json-report=" + jsonPath}
	if filter != "" {
		args = append(args, "--ginkgo.label-filter="+filter)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = filepath.Join(root, "suites", suite)
	cmd.Env = append(os.Environ(), append([]string{"P2PCONF_BACKEND=fake", "P2PCONF_REPORT_DIR="}, env...)...)
	out, _ := cmd.CombinedOutput()
	data, err := os.ReadFile(jsonPath)
	if err != nil {
		return nil, string(out)
	}
	var reports []types.Report
	if err := json.Unmarshal(data, &reports); err != nil {
		t.Fatalf("%s: Ginkgo JSON: %v", suite, err)
	}
	var specs []types.SpecReport
	for _, r := range reports {
		for _, s := range r.SpecReports {
			if s.LeafNodeType == types.NodeTypeIt && s.State != types.SpecStateSkipped {
				specs = append(specs, s)
			}
		}
	}
	return specs, string(out)
}

// affected says whether a check on target needs GPU0 to itself: a
// measurement needs every GPU it touches; free-memory accounting only the
// GPU whose memory it counts, the target's first (the exporter of a pair).
func affected(suite, target string) bool {
	if suite == "bandwidth" {
		return strings.Contains(target, "0")
	}
	return strings.HasPrefix(target, "0")
}

// targetOf is the spec's gpu: or pair: label value ("0", "0-1").
func targetOf(s types.SpecReport) string {
	for _, l := range s.Labels() {
		if v, ok := strings.CutPrefix(l, "gpu:"); ok {
			return v
		}
		if v, ok := strings.CutPrefix(l, "pair:"); ok {
			return v
		}
	}
	return ""
}

func hasContendedEntry(s types.SpecReport) bool { return hasEntry(s, `"name":"contended"`) }

// hasEntry reports whether one of the spec's entries holds the JSON text.
func hasEntry(s types.SpecReport, text string) bool {
	for _, e := range s.ReportEntries {
		if strings.Contains(e.Value.AsJSON, text) {
			return true
		}
	}
	return false
}

func tail(s string) string {
	if len(s) > 3000 {
		return "…" + s[len(s)-3000:]
	}
	return s
}
