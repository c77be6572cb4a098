// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// loadLitmusFixture reads the ordering.litmus results of a recorded H200
// run (trimmed to what power attribution reads) as the report recorded them.
func loadLitmusFixture(t *testing.T, name string) []Result {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "power", name))
	if err != nil {
		t.Fatal(err)
	}
	var rs []Result
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&rs); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return rs
}

// overclaims counts the conf passes whose power_shown is true while their
// own entries say no power was shown.
func overclaims(rs []Result) (bad, gated, passes int) {
	for _, r := range rs {
		if !isConf(r) || r.Status != StatusPass {
			continue
		}
		passes++
		shown, stated := ownPowerVerdict(r)
		if r.PowerShown != nil && *r.PowerShown {
			gated++
			if !stated || !shown {
				bad++
			}
		}
	}
	return bad, gated, passes
}

// TestPowerPerTestOnRecordedRuns replays two real H200 runs whose reports
// attributed litmus power by check ID: every forbidden pass was marked
// power-gated once any litmus mutant on the GPU or pair showed. Attributed
// test by test, no pass claims power its own entries deny, and the passes
// whose own mutants did show keep their power.
func TestPowerPerTestOnRecordedRuns(t *testing.T) {
	for _, c := range []struct {
		file                string
		passes, recordedBad int
	}{
		{"h200x1-litmus.json", 42, 12},
		{"h200x2-litmus.json", 156, 51},
	} {
		rs := loadLitmusFixture(t, c.file)
		bad, _, passes := overclaims(rs)
		if passes != c.passes || bad != c.recordedBad {
			t.Fatalf("%s as recorded: %d of %d forbidden passes overclaim power, want %d of %d", c.file, bad, passes, c.recordedBad, c.passes)
		}
		applyPower(rs)
		bad, gated, _ := overclaims(rs)
		if bad != 0 {
			t.Errorf("%s: %d passes claim power their own entries deny", c.file, bad)
		}
		if gated == 0 {
			t.Errorf("%s: no pass is power-gated, though some of their own mutants showed", c.file)
		}
		for _, r := range rs {
			if r.Kind == "mutant" && r.PowerShown != nil {
				t.Errorf("%s: mutant %q carries power_shown", c.file, r.Spec)
			}
		}
	}
}

func powerEntry(check string, v any) Entry { return Entry{Kind: KindPower, Name: check, Value: v} }

// roundTrip gives entry values the shape they have when read from a report.
func roundTrip(t *testing.T, rs []Result) []Result {
	t.Helper()
	data, err := json.Marshal(rs)
	if err != nil {
		t.Fatal(err)
	}
	var out []Result
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPowerNamedSpecs: a mutant that names its conf specs gives power to
// those alone; an unnamed power entry gives power only where its check has
// one conf spec on the target.
func TestPowerNamedSpecs(t *testing.T) {
	g := 0
	conf := func(check, spec string) Result {
		return Result{Check: check, Kind: "conf", Target: "gpu", GPU: &g, Status: StatusPass, Spec: "suite " + spec}
	}
	mutant := func(check string, e Entry) Result {
		return Result{Check: check, Kind: "mutant", Target: "gpu", GPU: &g, Status: StatusPass, Spec: "suite mutant", Entries: []Entry{e}}
	}
	rs := roundTrip(t, []Result{
		conf("ordering.litmus", "MP rel.sys/acq.sys here"),
		conf("ordering.litmus", "CoWW rlx.sys here"),
		conf("ordering.litmus", "SB F.sc.sys here"),
		mutant("ordering.litmus", powerEntry("ordering.litmus", PowerValue{Observed: true, Hits: 3, Trials: 9, For: []string{"MP rel.sys/acq.sys here"}})),
		mutant("ordering.litmus", powerEntry("ordering.litmus", PowerValue{Observed: false, Trials: 9, For: []string{"CoWW rlx.sys here"}})),
		conf("ipc.event-handoff", "handoff"),
		mutant("ipc.event-handoff-without-wait", powerEntry("ipc.event-handoff", PowerValue{Observed: true, Hits: 1, Trials: 2})),
		conf("ordering.flag-handoff-sys", "flag in A"),
		conf("ordering.flag-handoff-sys", "flag in B"),
		mutant("ordering.flag-handoff-weak", powerEntry("ordering.flag-handoff-sys", PowerValue{Observed: true, Hits: 1, Trials: 2})),
	})
	applyPower(rs)
	want := []*bool{ptr(true), ptr(false), nil, nil, nil, ptr(true), nil, nil, nil, nil}
	for i, r := range rs {
		if (r.PowerShown == nil) != (want[i] == nil) || (r.PowerShown != nil && *r.PowerShown != *want[i]) {
			t.Errorf("%s %q: power_shown %v, want %v", r.Check, r.Spec, show(r.PowerShown), show(want[i]))
		}
	}
	rows := powerRows(rs)
	if len(rows) != 4 || rows[0].verdict != "power-gated pass" || rows[1].verdict != "pass, no power shown" ||
		rows[2].verdict != "power-gated pass" || rows[3].verdict == "power-gated pass" {
		t.Errorf("power table: %+v", rows)
	}
}

func ptr(b bool) *bool { return &b }

func show(b *bool) string {
	if b == nil {
		return "none"
	}
	if *b {
		return "true"
	}
	return "false"
}

// TestPowerTestRows: the matrix's power table has one row per forbidden
// spec that mutants name (by variant key) or that has a verdict, counting
// the mutants that showed and the weak outcomes they saw.
func TestPowerTestRows(t *testing.T) {
	g := 0
	conf := func(variant string) Result {
		return Result{Check: "ordering.litmus", Kind: "conf", Target: "gpu", GPU: &g, Status: StatusPass, Spec: "ordering: " + variant, Variant: variant}
	}
	mutant := func(variant string, v PowerValue) Result {
		return Result{Check: "ordering.litmus", Kind: "mutant", Target: "gpu", GPU: &g, Status: StatusPass, Variant: variant,
			Entries: []Entry{powerEntry("ordering.litmus", v)}}
	}
	rs := roundTrip(t, []Result{
		conf("mp-rel-sys-acq-sys-ctas"),
		conf("sb-f-sc-sys-ctas"),
		conf("corr-rlx-sys-ctas"),
		mutant("mp-rlx-sys-ctas", PowerValue{Observed: true, Hits: 3, Trials: 90, For: []string{"mp-rel-sys-acq-sys-ctas"}}),
		mutant("mp-rel-cta-acq-cta-ctas", PowerValue{Observed: false, Trials: 10, For: []string{"mp-rel-sys-acq-sys-ctas"}}),
		mutant("sb-rlx-sys-ctas", PowerValue{Observed: false, Trials: 50, For: []string{"sb-f-sc-sys-ctas"}}),
	})
	applyPower(rs)
	rows := powerTests(rs)
	if len(rows) != 2 {
		t.Fatalf("%d rows, want one per named forbidden spec: %+v", len(rows), rows)
	}
	mp, sb := rows[0], rows[1]
	if mp.variant != "mp-rel-sys-acq-sys-ctas" || mp.class != "weak" || mp.mutantsText() != "1 of 2 showed" || mp.seenText() != "3 of 100" || mp.verdict != "power-gated pass" {
		t.Errorf("MP row %+v (%q, %q)", mp, mp.mutantsText(), mp.seenText())
	}
	if sb.variant != "sb-f-sc-sys-ctas" || sb.class != "none" || sb.mutantsText() != "0 of 1 showed" || sb.seenText() != "0 of 50" || sb.verdict != "pass, no power shown" {
		t.Errorf("SB row %+v (%q, %q)", sb, sb.mutantsText(), sb.seenText())
	}
}
