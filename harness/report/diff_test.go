// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"strings"
	"testing"
)

func loadRun(t *testing.T, fixture string) []Document {
	t.Helper()
	dir := writeFixtureRun(t, fixture)
	docs, err := LoadInput(dir)
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

func TestDiffOnePairRegressed(t *testing.T) {
	d := Diff(loadRun(t, "testdata/fake2"), loadRun(t, "testdata/fake2-regressed"), DiffOptions{})
	if d.Regressions != 1 || len(d.NewlyFailing) != 1 {
		t.Fatalf("regressions %d, newly failing %+v", d.Regressions, d.NewlyFailing)
	}
	c := d.NewlyFailing[0]
	if c.Check != "access.peer-copy" || c.Target != "GPU0→GPU1" || !c.Regression || !strings.HasPrefix(c.Detail, "pass → fail: word 17") {
		t.Errorf("change %+v", c)
	}
	if c.Rerun != "P2PCONF_BACKEND=fake P2PCONF_FAKE=nvlink2 P2PCONF_PAIRS=0-1 go tool ginkgo --label-filter='id:access.peer-copy && pair:0-1' ./suites/access" {
		t.Errorf("rerun %q", c.Rerun)
	}
	text := d.Text()
	if !strings.Contains(text, "! access.peer-copy GPU0→GPU1: pass → fail") || !strings.Contains(text, "1 regression(s).") {
		t.Errorf("text:\n%s", text)
	}
	if n := len(d.Fixed) + len(d.SkipReasons) + len(d.Added) + len(d.Missing) + len(d.OtherStatus); n != 0 {
		t.Errorf("%d other changes between runs that differ in one pair:\n%s", n, text)
	}
	// And back: the same pair is fixed, nothing regressed.
	back := Diff(loadRun(t, "testdata/fake2-regressed"), loadRun(t, "testdata/fake2"), DiffOptions{})
	if back.Regressions != 0 || len(back.Fixed) != 1 || back.Fixed[0].Target != "GPU0→GPU1" {
		t.Errorf("reverse diff: %+v", back)
	}
}

func TestDiffIdentical(t *testing.T) {
	run := loadRun(t, "testdata/fake8")
	d := Diff(run, run, DiffOptions{})
	if d.Regressions != 0 {
		t.Errorf("identical runs: %d regressions", d.Regressions)
	}
	if n := len(d.NewlyFailing) + len(d.Fixed) + len(d.SkipReasons) + len(d.Added) + len(d.Missing) + len(d.OtherStatus) + len(d.Metrics); n != 0 {
		t.Errorf("identical runs: %d changes:\n%s", n, d.Text())
	}
	if !strings.Contains(d.Text(), "No regressions.") {
		t.Error(d.Text())
	}
}

// mutate copies docs and applies f to every result.
func mutate(docs []Document, f func(*Result) bool) []Document {
	var out []Document
	for _, d := range docs {
		var rs []Result
		for _, r := range d.Results {
			if f(&r) {
				rs = append(rs, r)
			}
		}
		d.Results = rs
		out = append(out, d)
	}
	return out
}

func TestDiffKinds(t *testing.T) {
	old := loadRun(t, "testdata/fake2")
	newer := mutate(old, func(r *Result) bool {
		switch r.Key() {
		case "access.self-is-not-a-peer GPU1": // passed, now missing
			return false
		case "access.kernel-remote-write GPU1→GPU0":
			r.Reason = "needs peer access from GPU1 to GPU0 (found cuDeviceCanAccessPeer=0, NVML read=P2P_STATUS_GPU_NOT_SUPPORTED)"
		case "access.host-mapped GPU1": // timeout → pass
			r.Status = StatusPass
		case "ordering.flag-handoff-sys GPU1→GPU0": // skip → fail: newly failing, not a regression
			r.Status, r.Reason = StatusFail, "stale data"
		case "ordering.submission-is-not-completion GPU0": // pass → skip
			r.Status, r.Reason = StatusSkip, "needs X (found Y)"
		case "bandwidth.copy-engine GPU0→GPU1":
			v := 250.0
			m := map[string]*float64{}
			for k, x := range r.Metrics {
				m[k] = x
			}
			m["bandwidth_gbps"] = &v
			r.Metrics = m
		}
		return true
	})
	d := Diff(old, newer, DiffOptions{})
	if d.Regressions != 0 {
		t.Errorf("regressions = %d, want 0 (a missing result is no regression):\n%s", d.Regressions, d.Text())
	}
	if len(d.NewlyFailing) != 1 || d.NewlyFailing[0].Regression || d.NewlyFailing[0].Check != "ordering.flag-handoff-sys" {
		t.Errorf("newly failing: %+v", d.NewlyFailing)
	}
	if len(d.Missing) != 1 || d.Missing[0].Detail != "pass before, missing now" || d.Missing[0].Why != "not run in the new run" ||
		!d.Missing[0].Incomplete || d.Incomplete != 1 {
		t.Errorf("missing: %+v", d.Missing)
	}
	if len(d.Fixed) != 1 || d.Fixed[0].Check != "access.host-mapped" {
		t.Errorf("fixed: %+v", d.Fixed)
	}
	if len(d.SkipReasons) != 1 || !strings.Contains(d.SkipReasons[0].Detail, "GPU_NOT_SUPPORTED") {
		t.Errorf("skip reasons: %+v", d.SkipReasons)
	}
	if len(d.OtherStatus) != 1 || d.OtherStatus[0].Detail != "pass → skip: needs X (found Y)" {
		t.Errorf("other: %+v", d.OtherStatus)
	}
	if len(d.Metrics) != 1 || d.Metrics[0].Detail != "bandwidth_gbps: 389.6 → 250 (-35.8%)" {
		t.Errorf("metrics: %+v", d.Metrics)
	}
	if strict := Diff(old, newer, DiffOptions{Strict: true}); strict.Regressions != 2 {
		t.Errorf("strict regressions = %d, want 2:\n%s", strict.Regressions, strict.Text())
	}
	text := d.Text()
	order := []string{"Newly failing", "Fixed", "Skip reasons changed", "Missing from the new run", "Other status changes", "Metric changes"}
	last := -1
	for _, h := range order {
		i := strings.Index(text, h)
		if i < last {
			t.Errorf("%q out of order in:\n%s", h, text)
		}
		last = i
	}
}

func TestDiffFleetKeyedByHost(t *testing.T) {
	a := loadRun(t, "testdata/fake2")
	b := mutate(loadRun(t, "testdata/fake2"), func(r *Result) bool { return true })
	for i := range b {
		b[i].System.Host = "fakehost-b"
	}
	oldFleet := append(append([]Document{}, a...), b...)
	// In the new fleet, host b's bandwidth suite did not run and host a is
	// unchanged.
	var newB []Document
	for _, doc := range mutate(b, func(r *Result) bool { return r.Family != "bandwidth" }) {
		if len(doc.Suites) > 0 && doc.Suites[0].Name == "bandwidth" {
			continue
		}
		newB = append(newB, doc)
	}
	newFleet := append(append([]Document{}, a...), newB...)
	d := Diff(oldFleet, newFleet, DiffOptions{})
	if d.Regressions != 0 || len(d.Missing) != 2 || d.Incomplete != 2 {
		t.Fatalf("regressions %d, missing %d, incomplete %d:\n%s", d.Regressions, len(d.Missing), d.Incomplete, d.Text())
	}
	for _, c := range d.Missing {
		if c.Host != "fakehost-b" || c.Why != "suite bandwidth did not run in the new run" {
			t.Errorf("missing on the wrong host or for the wrong reason: %+v", c)
		}
	}
	if !strings.Contains(d.Text(), "  [fakehost-b] bandwidth.copy-engine GPU0→GPU1: pass before, missing now: suite bandwidth did not run in the new run") {
		t.Error(d.Text())
	}
	// A host missing from the new fleet: every result there is missing, in
	// one line.
	gone := Diff(oldFleet, a, DiffOptions{})
	if gone.Regressions != 0 || gone.Incomplete != 19 {
		t.Errorf("host gone: %d regressions, %d incomplete, want 0 and 19", gone.Regressions, gone.Incomplete)
	}
	if text := gone.Text(); !strings.Contains(text, "  [fakehost-b] 19 results of ") || !strings.Contains(text, "(13 passed before): its host is not in the new run") {
		t.Error(text)
	}
}

func TestDiffWarnsAboutBackendAndDriver(t *testing.T) {
	old := loadRun(t, "testdata/fake2")
	newer := loadRun(t, "testdata/fake2")
	for i := range newer {
		newer[i].System.Backend = "cuda"
		newer[i].System.DriverVersion = "590.10"
		for j := range newer[i].Suites {
			newer[i].Suites[j].Backend = "cuda"
		}
	}
	d := Diff(old, newer, DiffOptions{})
	if len(d.Mismatches) != 1 || d.Mismatches[0] != "backends differ: old fake:nvlink2, new cuda" {
		t.Errorf("mismatches %q", d.Mismatches)
	}
	text := Diff(old, newer, DiffOptions{AllowMismatch: true}).Text()
	for _, want := range []string{"note: backends differ: old fake:nvlink2, new cuda", "driver: 580.159.04 (CUDA 13.0 (13000)) → 590.10"} {
		if !strings.Contains(text, want) {
			t.Errorf("diff text lacks %q:\n%s", want, text)
		}
	}
}
