// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/p2pconf/p2pconf/harness/report"
)

func TestParseRunFlags(t *testing.T) {
	f, err := parseRunFlags([]string{"--run=n1", "--suites", "access,ipc", "--label-filter", "id:a", "-j", "3", "--serial",
		"--ginkgo.v", "--dry-run", "--", "--run", "x"})
	if err != nil {
		t.Fatal(err)
	}
	if f.run != "n1" || f.suites != "access,ipc" || f.filter != "id:a" || f.limit != 3 || !f.serial || !f.dryRun ||
		!slices.Equal(f.extra, []string{"--ginkgo.v", "--run", "x"}) {
		t.Errorf("parsed %+v", f)
	}
	if f, _ := parseRunFlags([]string{"--ginkgo.label-filter=a && b"}); f.filter != "a && b" {
		t.Errorf("--ginkgo.label-filter: %q", f.filter)
	}
	if f, _ := parseRunFlags([]string{"--mutants", "representative"}); f.mutants != "representative" {
		t.Errorf("--mutants: %q", f.mutants)
	}
	for _, bad := range [][]string{{"--run"}, {"--run", "a/b"}, {"-j", "x"}, {"-j=-1"}, {"--mutants=some"}} {
		if _, err := parseRunFlags(bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

func TestRunFolderNeverReusesARun(t *testing.T) {
	root := t.TempDir()
	var msg bytes.Buffer
	dir, err := runFolder(root, "nightly", "", &msg)
	if err != nil || dir != filepath.Join(root, "reports", "nightly") || msg.Len() != 0 {
		t.Fatalf("a fresh name: %s, %v, %q", dir, err, msg.String())
	}
	// An empty folder of that name is no earlier run.
	if dir, err = runFolder(root, "nightly", "", &msg); err != nil || !strings.HasSuffix(dir, "nightly") {
		t.Fatalf("an empty folder: %s, %v", dir, err)
	}
	for _, want := range []string{"nightly.2", "nightly.3"} {
		if err := os.WriteFile(filepath.Join(dir, report.ConformanceFile), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
		msg.Reset()
		dir, err = runFolder(root, "nightly", "", &msg)
		if err != nil || filepath.Base(dir) != want {
			t.Fatalf("name taken: %s, %v; want %s", dir, err, want)
		}
		if !strings.Contains(msg.String(), "holds an earlier run") || !strings.Contains(msg.String(), want) {
			t.Errorf("the run does not say where it writes: %q", msg.String())
		}
	}
	explicit := filepath.Join(root, "reports", "nightly")
	if _, err := runFolder(root, "", explicit, &msg); err == nil || !strings.Contains(err.Error(), "never merged") {
		t.Errorf("a non-empty P2PCONF_REPORT_DIR was accepted: %v", err)
	}
	if dir, err := runFolder(root, "", filepath.Join(root, "fresh"), &msg); err != nil || dir != filepath.Join(root, "fresh") {
		t.Errorf("a fresh P2PCONF_REPORT_DIR: %s, %v", dir, err)
	}
}

// TestRunInParallelEqualsSerial runs two suites on the fake backend with the
// scheduler and serially, and compares: the same results with the same
// statuses, processes on different GPUs overlapping in time, every result
// carrying a shard that ran on its GPUs. A second run into the same folder
// is refused.
func TestRunInParallelEqualsSerial(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs two suites several times; skipped with -short")
	}
	for _, tc := range []struct {
		preset, gpus, suites string
		nGPUs                int
		pairRounds           int
		pairLanes            int
	}{
		{"h200x2", "", "access,atomics", 2, 2, 1},
		{"nvlink8", "0,1,2,3", "access", 4, 6, 2},
	} {
		t.Run(tc.preset, func(t *testing.T) {
			t.Setenv("P2PCONF_BACKEND", "fake")
			t.Setenv("P2PCONF_FAKE", tc.preset)
			t.Setenv("P2PCONF_GPUS", tc.gpus)
			t.Setenv("P2PCONF_PAIRS", "")
			t.Setenv(report.EnvRunID, "")
			base := t.TempDir()
			runOnce := func(dir string, flags ...string) (int, string, report.Document) {
				t.Setenv("P2PCONF_REPORT_DIR", dir)
				var out bytes.Buffer
				code := run(append([]string{"run", "--suites", tc.suites, "--ginkgo.no-color"}, flags...), &out, &out)
				doc, err := report.ReadDocument(filepath.Join(dir, report.ConformanceFile))
				if err != nil {
					t.Fatalf("run %v: exit %d, %v\n%s", flags, code, err, out.String())
				}
				return code, out.String(), doc
			}
			parCode, parOut, par := runOnce(filepath.Join(base, "parallel"))
			serCode, _, ser := runOnce(filepath.Join(base, "serial"), "--serial")
			if parCode != serCode {
				t.Errorf("exit %d in parallel, %d serially\n%s", parCode, serCode, parOut)
			}
			statuses := func(d report.Document) map[string]string {
				m := map[string]string{}
				for _, r := range d.Results {
					m[r.Key()] = r.Status
				}
				return m
			}
			ps, ss := statuses(par), statuses(ser)
			if len(ps) == 0 || len(ps) != len(par.Results) {
				t.Fatalf("parallel run: %d results, %d keys", len(par.Results), len(ps))
			}
			for k, s := range ss {
				if ps[k] != s {
					t.Errorf("%s: %q in parallel, %q serially", k, ps[k], s)
				}
			}
			for k := range ps {
				if _, ok := ss[k]; !ok {
					t.Errorf("%s ran only in parallel", k)
				}
			}
			if tc.gpus != "" && par.System.Selection != "P2PCONF_GPUS="+tc.gpus {
				t.Errorf("merged selection %q, want the run's P2PCONF_GPUS=%s", par.System.Selection, tc.gpus)
			}
			checkSchedule(t, par, tc.nGPUs, tc.pairRounds, tc.pairLanes)
			if ser.Schedule == nil || ser.Schedule.Mode != "serial" || len(ser.Schedule.Rounds) != 1 {
				t.Errorf("serial schedule: %+v", ser.Schedule)
			}
			// The folder now holds a run: a second one is refused.
			t.Setenv("P2PCONF_REPORT_DIR", filepath.Join(base, "parallel"))
			var out bytes.Buffer
			if code := run([]string{"run", "--suites", "access"}, &out, &out); code != exitUsage || !strings.Contains(out.String(), "never merged") {
				t.Errorf("a second run into a used folder: exit %d\n%s", code, out.String())
			}
		})
	}
}

func checkSchedule(t *testing.T, d report.Document, nGPUs, pairRounds, pairLanes int) {
	t.Helper()
	s := d.Schedule
	if s == nil || s.Mode != "parallel" {
		t.Fatalf("schedule %+v", s)
	}
	shards := map[string]report.ScheduleProcess{}
	kinds := map[string]int{}
	for _, r := range s.Rounds {
		kinds[r.Kind]++
		lanes := map[string]bool{}
		for _, p := range r.Processes {
			shards[p.Shard] = p
			lanes[p.Lane] = true
			if p.ExitCode != 0 && p.Results < p.Specs {
				t.Errorf("process %s: exit %d, %d of %d results", p.Shard, p.ExitCode, p.Results, p.Specs)
			}
		}
		want := map[string]int{"gpu": nGPUs, "pair": pairLanes}[r.Kind]
		if want > 0 && len(lanes) != want {
			t.Errorf("round %s (%s): %d lanes, want %d", r.Name, r.Kind, len(lanes), want)
		}
		if r.Kind == "gpu" && !overlapping(r.Processes) {
			t.Errorf("round %s: no two processes on different GPUs ran at the same time: %+v", r.Name, r.Processes)
		}
	}
	if kinds["pair"] != pairRounds || kinds["gpu"] != 1 {
		t.Errorf("rounds by kind %v, want 1 gpu and %d pair rounds", kinds, pairRounds)
	}
	for _, r := range d.Results {
		p, ok := shards[r.Shard]
		if !ok {
			t.Errorf("%s: shard %q is not in the schedule", r.Key(), r.Shard)
			continue
		}
		var need []int
		switch {
		case r.GPU != nil:
			need = []int{*r.GPU}
		case r.Src != nil:
			need = []int{*r.Src, *r.Dst}
		}
		for _, g := range need {
			if len(p.GPUs) > 0 && !slices.Contains(p.GPUs, g) {
				t.Errorf("%s ran in %s on GPUs %v", r.Key(), r.Shard, p.GPUs)
			}
		}
		if r.Src != nil && p.Pairs != fmt.Sprintf("%d-%d", *r.Src, *r.Dst) {
			t.Errorf("%s ran in %s with pairs %q", r.Key(), r.Shard, p.Pairs)
		}
	}
}

// overlapping reports whether two processes of different lanes ran at the
// same time.
func overlapping(ps []report.ScheduleProcess) bool {
	for i, p := range ps {
		for _, q := range ps[i+1:] {
			if p.Lane != q.Lane && p.Start.Before(*q.End) && q.Start.Before(*p.End) {
				return true
			}
		}
	}
	return false
}

// TestRunLeavesPairMutantsToTheRepresentativePair runs the pair litmus
// tests of three fake NVSwitch GPUs with the default --mutants: the
// mutants run on GPU0→GPU1 and GPU1→GPU0 only, and every forbidden pass on
// the other pairs says so and takes the power verdict of the same test on
// the representative pair in its direction, which the report names.
func TestRunLeavesPairMutantsToTheRepresentativePair(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the ordering suite; skipped with -short")
	}
	t.Setenv("P2PCONF_BACKEND", "fake")
	t.Setenv("P2PCONF_FAKE", "nvlink8")
	t.Setenv("P2PCONF_GPUS", "0,1,2")
	t.Setenv("P2PCONF_PAIRS", "")
	t.Setenv(report.EnvRunID, "")
	dir := t.TempDir()
	t.Setenv("P2PCONF_REPORT_DIR", dir)
	var out bytes.Buffer
	if code := run([]string{"run", "--suites", "ordering", "--label-filter", "id:ordering.litmus && gpus:pair", "--ginkgo.no-color"}, &out, &out); code != 0 {
		t.Fatalf("exit %d\n%s", code, out.String())
	}
	if !strings.Contains(out.String(), "pair litmus mutants left to their link class's representative pairs") {
		t.Errorf("the run does not say that it left pair mutants out:\n%s", out.String())
	}
	doc, err := report.ReadDocument(filepath.Join(dir, report.ConformanceFile))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Schedule == nil || doc.Schedule.Mutants != "representative" {
		t.Errorf("schedule %+v: want mutants representative", doc.Schedule)
	}
	representative := func(r report.Result) bool { return *r.Src+*r.Dst == 1 }
	own := map[string]bool{} // variant and direction -> the representative's verdict
	borrowed := 0
	for _, r := range doc.Results {
		if r.Src == nil || r.Status != report.StatusPass {
			continue
		}
		up := *r.Src < *r.Dst
		switch {
		case r.Kind == "mutant" && !representative(r):
			t.Errorf("%s: a mutant ran on a pair that is not the representative", r.Spec)
		case r.Kind == "conf" && representative(r):
			if r.PowerFrom != "" || r.PowerShown == nil {
				t.Errorf("%s: power %v from %q on the representative pair", r.Spec, r.PowerShown, r.PowerFrom)
			} else {
				own[fmt.Sprint(r.Variant, up)] = *r.PowerShown
			}
		}
	}
	for _, r := range doc.Results {
		if r.Src == nil || r.Status != report.StatusPass || r.Kind != "conf" || representative(r) {
			continue
		}
		up := *r.Src < *r.Dst
		want, from := own[fmt.Sprint(r.Variant, up)], "GPU1→GPU0"
		if up {
			from = "GPU0→GPU1"
		}
		if r.PowerShown == nil || *r.PowerShown != want || r.PowerFrom != from {
			t.Errorf("%s: power %v from %q, want %v from %s", r.Spec, r.PowerShown, r.PowerFrom, want, from)
		}
		borrowed++
	}
	if borrowed == 0 || len(own) == 0 {
		t.Fatalf("%d passes took power from %d representative verdicts", borrowed, len(own))
	}
	md, err := os.ReadFile(filepath.Join(dir, "matrix.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%d conf results ran on pairs whose mutants were left", borrowed); !strings.Contains(string(md), want) {
		t.Errorf("matrix.md does not say %q", want)
	}
}
