// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/p2pconf/p2pconf/harness/report"
)

func TestTuneRejectsBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"tune", "-envs", "0"},
		{"tune", "-time", "-1s"},
		{"tune", "-focus", "("},
		{"tune", "-gpu", "0,1"},
		{"tune", "-min-speed", "2"},
		{"tune", "extra"},
		{"tune", "-suite-binary", "/nonexistent/ordering.test"},
	} {
		var out, errOut bytes.Buffer
		if code := run(args, &out, &errOut); code != exitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args, code, exitUsage, errOut.String())
		}
	}
	t.Setenv("P2PCONF_LITMUS_ENV", "/nonexistent/env.json")
	var out, errOut bytes.Buffer
	if code := run([]string{"tune"}, &out, &errOut); code != exitUsage || strings.Count(strings.TrimSpace(errOut.String()), "\n") != 0 {
		t.Errorf("a missing environment file: exit %d, stderr %q; want exit 2 and one line", code, errOut.String())
	}
}

// mutantScore reads a mutant spec's metrics as the litmus package writes
// them (harness.Metric entries in the Ginkgo JSON report).
func TestMutantScore(t *testing.T) {
	entry := func(name string, v float64, detail string) report.ReportEntry {
		b, _ := json.Marshal(report.Entry{Kind: report.KindMetric, Name: name, Value: v, Detail: detail})
		return report.ReportEntry{Name: report.EntryName, Value: report.ReportEntryValue{AsJSON: string(b)}}
	}
	sp := report.SpecReport{ReportEntries: []report.ReportEntry{
		entry("instances", 1e9, "MP once rlx.gpu between CTAs of GPU0: 65536 per iteration"),
		entry("weak_outcomes", 2e7, "MP once rlx.gpu between CTAs of GPU0: allowed weak outcome r0=1 ∧ r1=0"),
		entry("weak_outcomes_per_second", 6.8e7, "MP once rlx.gpu between CTAs of GPU0"),
		entry("instances_per_second", 5.5e9, "MP once rlx.gpu between CTAs of GPU0: counted instances per second of launch time"),
	}}
	s, ok := mutantScore(sp)
	if !ok || s.Test != "MP once rlx.gpu" || s.Placement != "between CTAs" || s.WeakOutcomes != 2e7 || s.Instances != 1e9 || s.WeakPerSecond != 6.8e7 || s.InstancesPerSecond != 5.5e9 {
		t.Errorf("score %+v, ok %v", s, ok)
	}
	if _, ok := mutantScore(report.SpecReport{ReportEntries: sp.ReportEntries[:1]}); ok {
		t.Error("a spec without weak outcomes (a forbidden test) was scored")
	}
}
