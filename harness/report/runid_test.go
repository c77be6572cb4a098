// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestWriteRunRefusesAFolderOfAnotherRun(t *testing.T) {
	sys, names, reps := loadFixture(t, "testdata/fake2")
	if len(names) < 2 {
		t.Fatalf("fixture has %d suites, want 2", len(names))
	}
	dir := filepath.Join(t.TempDir(), "run")
	first := testMeta(names[0])
	first.RunID = "run-A"
	if err := WriteRun(dir, sys, reps[names[0]], first); err != nil {
		t.Fatal(err)
	}
	// The same run goes on: fine.
	same := testMeta(names[1])
	same.RunID = "run-A"
	if err := WriteRun(dir, sys, reps[names[1]], same); err != nil {
		t.Fatalf("a second suite of the same run: %v", err)
	}
	before := readFile(t, filepath.Join(dir, ConformanceFile))
	other := testMeta(names[1])
	other.RunID = "run-B"
	err := WriteRun(dir, sys, reps[names[1]], other)
	var e *ErrOtherRun
	if !errors.As(err, &e) {
		t.Fatalf("a suite of another run was merged: err %v", err)
	}
	for _, want := range []string{`"run-A"`, `"run-B"`, dir, "suite " + names[1]} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q does not name %s", err, want)
		}
	}
	if after := readFile(t, filepath.Join(dir, ConformanceFile)); after != before {
		t.Error("the refused suite changed the merged file")
	}
	doc, err := ReadDocument(filepath.Join(dir, names[0]+SuiteConformanceSuffix))
	if err != nil || doc.Run.ID != "run-A" {
		t.Errorf("per-suite file carries run ID %q (%v), want run-A", doc.Run.ID, err)
	}
}

func TestLoadRunDirRefusesTwoRuns(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []struct{ name, id string }{{"access", "x"}, {"ipc", ""}, {"vmm", "y"}} {
		d := Document{SchemaVersion: SchemaVersion, Run: Run{ID: f.id}, Suites: []SuiteRun{{Name: f.name}}}
		if err := writeJSON(filepath.Join(dir, f.name+SuiteConformanceSuffix), d); err != nil {
			t.Fatal(err)
		}
	}
	_, err := LoadRunDir(dir)
	if err == nil || !strings.Contains(err.Error(), "access.conformance.json") || !strings.Contains(err.Error(), "vmm.conformance.json") {
		t.Fatalf("two runs in one folder: err %v, want one naming both files", err)
	}
	if err := os.Remove(filepath.Join(dir, "vmm"+SuiteConformanceSuffix)); err != nil {
		t.Fatal(err)
	}
	docs, err := LoadRunDir(dir)
	if err != nil || len(docs) != 2 {
		t.Fatalf("one run and a file without an ID: %d docs, %v", len(docs), err)
	}
	if m := Merge(docs); m.Run.ID != "x" {
		t.Errorf("merged run ID %q, want x", m.Run.ID)
	}
	if m := Merge([]Document{{Run: Run{ID: "a"}}, {Run: Run{ID: "b"}}}); m.Run.ID != "" {
		t.Errorf("a merge of two runs carries run ID %q", m.Run.ID)
	}
}

func TestCurrentRunID(t *testing.T) {
	t.Setenv(EnvRunID, " given ")
	if got := CurrentRunID(); got != "given" {
		t.Errorf("with %s set: %q", EnvRunID, got)
	}
	t.Setenv(EnvRunID, "")
	a, b := CurrentRunID(), CurrentRunID()
	if a == "" || a != b || !strings.Contains(a, "ppid") {
		t.Errorf("generated IDs %q and %q: want one stable ID naming the parent", a, b)
	}
}

func TestMergeShards(t *testing.T) {
	at := func(s int) *time.Time { v := time.Unix(int64(s), 0).UTC(); return &v }
	g0, g1 := 0, 1
	doc := func(gpu *int, start, end int, ok bool, reasons ...string) Document {
		return Document{SchemaVersion: SchemaVersion, Run: Run{ID: "r", Start: at(start), End: at(end)},
			Suites:  []SuiteRun{{Name: "access", Backend: "fake:h200x2", Start: at(start), End: at(end), Succeeded: ok, FailureReasons: reasons, SpecsTotal: 4, SpecsRun: 1}},
			Results: []Result{{Check: "access.local", Family: "access", Target: TargetGPU, GPU: gpu, Status: StatusPass}},
			Schedule: &Schedule{Mode: "parallel", Rounds: []ScheduleRound{{Name: "r1", Kind: "gpu", Start: at(start), End: at(end),
				Processes: []ScheduleProcess{{Shard: "r1.gpu" + string(rune('0'+*gpu)) + ".access"}}}}}}
	}
	m, err := MergeShards("access", []Shard{{"r1.gpu0.access", doc(&g0, 10, 20, true)}, {"r1.gpu1.access", doc(&g1, 11, 25, false, "interrupted")}})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Results) != 2 || m.Results[0].Shard != "r1.gpu0.access" || m.Results[1].Shard != "r1.gpu1.access" {
		t.Errorf("results %+v", m.Results)
	}
	s := m.Suites[0]
	if len(m.Suites) != 1 || s.Succeeded || !s.Start.Equal(*at(10)) || !s.End.Equal(*at(25)) || s.SpecsRun != 2 ||
		len(s.FailureReasons) != 1 || s.FailureReasons[0] != "r1.gpu1.access: interrupted" {
		t.Errorf("suite entry %+v", m.Suites)
	}
	if m.Schedule == nil || len(m.Schedule.Rounds) != 1 || len(m.Schedule.Rounds[0].Processes) != 2 || !m.Schedule.Rounds[0].End.Equal(*at(25)) {
		t.Errorf("schedule %+v", m.Schedule)
	}
	if _, err := MergeShards("access", []Shard{{"a", doc(&g0, 1, 2, true)}, {"b", doc(&g0, 1, 2, true)}}); err == nil {
		t.Error("one result in two shards was merged")
	}
	if !roundLess("r2", "r10") || roundLess("r10", "r2") {
		t.Error("rounds do not sort by number")
	}
}

func TestProgressETA(t *testing.T) {
	for _, tc := range []struct {
		elapsed     time.Duration
		done, total int
		want        string
	}{
		{10 * time.Second, 5, 20, "30s"},
		{90 * time.Second, 1, 2, "1m30s"},
		{time.Second, 4, 4, "0s"},
		{time.Second, 0, 4, "0s"},
	} {
		if got := ETA(tc.elapsed, tc.done, tc.total); got != tc.want {
			t.Errorf("ETA(%s, %d, %d) = %s, want %s", tc.elapsed, tc.done, tc.total, got, tc.want)
		}
	}
	var out strings.Builder
	p := NewProgress(&out, "access", 4)
	t0 := time.Unix(0, 0)
	p.start, p.now = t0, func() time.Time { return t0.Add(6 * time.Second) }
	_, _, reps := loadFixture(t, "testdata/fake2")
	for _, sr := range decoded(t, reps["access"]).SpecReports {
		if sr.LeafNodeType == "It" && sr.State == SpecPassed {
			p.Spec(sr)
			break
		}
	}
	if !strings.HasSuffix(strings.TrimSpace(out.String()), "[ETA 18s]") {
		t.Errorf("progress line %q lacks the ETA of 3 specs at 6 s each", out.String())
	}
}
