// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"strings"
	"testing"
)

// litmusRun is a run of two suites on two GPUs: access, and ordering with
// three litmus specs per GPU told apart by variants whose GPU names the
// stored Variant leaves out.
func litmusRun(backend string, gpus ...string) Document {
	d := Document{System: System{Backend: backend, Host: "n1"}}
	for i, name := range gpus {
		d.System.GPUs = append(d.System.GPUs, GPU{Ordinal: i, Name: name})
	}
	d.Suites = []SuiteRun{{Name: "access", Backend: backend}, {Name: "ordering", Backend: backend}}
	for g := range gpus {
		d.Results = append(d.Results, Result{Check: "access.host-mapped", Family: "access", Kind: "conf", Target: TargetGPU, GPU: intp(g), Status: StatusPass})
		for _, test := range []string{"MP", "SB", "LB"} {
			spec := "ordering: memory-model litmus test " + test + " rlx.sys between CTAs of " + gpuName(g) + " never shows the forbidden outcome"
			r := Result{Check: "ordering.litmus", Family: "ordering", Kind: "conf", Target: TargetGPU, GPU: intp(g), Status: StatusPass, Spec: spec,
				Variant: strings.ToLower(test) + "-rlx-sys-ctas"}
			d.Results = append(d.Results, r)
		}
	}
	return d
}

func withoutSuite(d Document, suite string) Document {
	out := d
	out.Suites, out.Results = nil, nil
	for _, s := range d.Suites {
		if s.Name != suite {
			out.Suites = append(out.Suites, s)
		}
	}
	for _, r := range d.Results {
		if r.Family != suite {
			out.Results = append(out.Results, r)
		}
	}
	return out
}

// TestDiffSuiteDidNotRun: a suite missing from the new run is no
// regression; its results are missing, for that reason, in one line.
func TestDiffSuiteDidNotRun(t *testing.T) {
	old := litmusRun("cuda", "NVIDIA H200", "NVIDIA H200")
	d := Diff([]Document{old}, []Document{withoutSuite(old, "ordering")}, DiffOptions{})
	if d.Regressions != 0 || len(d.Missing) != 6 || d.Incomplete != 6 {
		t.Fatalf("regressions %d, missing %d, incomplete %d:\n%s", d.Regressions, len(d.Missing), d.Incomplete, d.Text())
	}
	text := d.Text()
	for _, want := range []string{
		"Missing from the new run, not regressions (6):\n  6 results of ordering.litmus (6 passed before): suite ordering did not run in the new run\n",
		"No regressions.\n6 result(s) of the old run missing from the new run: the new run is incomplete.",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("diff text lacks %q:\n%s", want, text)
		}
	}
}

// TestDiffPrintsVariantsWhole: a change to one of several specs of a check
// on a GPU names the spec with its GPU, and keeps the stored key.
func TestDiffPrintsVariantsWhole(t *testing.T) {
	old := litmusRun("cuda", "NVIDIA H200", "NVIDIA H200")
	newer := litmusRun("cuda", "NVIDIA H200", "NVIDIA H200")
	var changed Result
	for i := range newer.Results {
		r := &newer.Results[i]
		if r.Check == "ordering.litmus" && *r.GPU == 1 && strings.Contains(r.Spec, " SB ") {
			r.Status, r.Reason = StatusFail, "forbidden outcome seen 3 times"
			changed = *r
		}
	}
	d := Diff([]Document{old}, []Document{newer}, DiffOptions{})
	if d.Regressions != 1 || d.NewlyFailing[0].Key != changed.Key() || d.NewlyFailing[0].Key != "ordering.litmus GPU1 (sb-rlx-sys-ctas)" {
		t.Fatalf("regression %+v (the key must stay the stored one)", d.NewlyFailing)
	}
	want := "! ordering.litmus GPU1 (memory-model litmus test SB rlx.sys between CTAs of GPU1 never shows the forbidden outcome): pass → fail: forbidden outcome seen 3 times"
	if text := d.Text(); !strings.Contains(text, want) {
		t.Errorf("diff text lacks %q:\n%s", want, text)
	}
}

// TestDiffRefusesOtherSystems: a hardware run and a fake run, or runs on
// different GPU sets, are not comparable unless asked; a fake defect is.
func TestDiffRefusesOtherSystems(t *testing.T) {
	hw := litmusRun("cuda", "NVIDIA H200", "NVIDIA H200")
	for _, tc := range []struct {
		name string
		new  Document
		want string
	}{
		{"fake against hardware", litmusRun("fake:h200x2", "NVIDIA H200", "NVIDIA H200"), "backends differ: old cuda, new fake:h200x2"},
		{"other GPUs", litmusRun("cuda", "NVIDIA H100", "NVIDIA H100"), "GPU sets differ: old GPU0 NVIDIA H200, GPU1 NVIDIA H200; new GPU0 NVIDIA H100, GPU1 NVIDIA H100"},
		{"fewer GPUs", litmusRun("cuda", "NVIDIA H200"), "GPU sets differ: old GPU0 NVIDIA H200, GPU1 NVIDIA H200; new GPU0 NVIDIA H200"},
	} {
		d := Diff([]Document{hw}, []Document{tc.new}, DiffOptions{})
		if len(d.Mismatches) != 1 || d.Mismatches[0] != tc.want {
			t.Errorf("%s: mismatches %q, want %q", tc.name, d.Mismatches, tc.want)
		}
		allowed := Diff([]Document{hw}, []Document{tc.new}, DiffOptions{AllowMismatch: true})
		if len(allowed.Mismatches) != 0 || !strings.Contains(allowed.Text(), "note: "+tc.want) {
			t.Errorf("%s with AllowMismatch: %q\n%s", tc.name, allowed.Mismatches, allowed.Text())
		}
	}
	// With AllowMismatch, the results of a GPU the new run lacks are
	// missing for that reason and do not make it incomplete.
	fewer := Diff([]Document{hw}, []Document{litmusRun("cuda", "NVIDIA H200")}, DiffOptions{AllowMismatch: true})
	if len(fewer.Missing) != 4 || fewer.Incomplete != 0 || fewer.Missing[0].Why != "GPU1 not in the new run" {
		t.Errorf("fewer GPUs: missing %+v, incomplete %d", fewer.Missing, fewer.Incomplete)
	}
	fake := litmusRun("fake:h200x2", "fake", "fake")
	defect := litmusRun("fake:h200x2+peer-store-dropped", "fake", "fake")
	d := Diff([]Document{fake}, []Document{defect}, DiffOptions{})
	if len(d.Mismatches) != 0 || !strings.Contains(d.Text(), "note: backends differ in injected defects only") {
		t.Errorf("a fake defect is comparable: %q\n%s", d.Mismatches, d.Text())
	}
}

func TestVariantName(t *testing.T) {
	r := Result{Family: "ordering", Spec: "ordering: flag handoff hands data from GPU0 to GPU1", Variant: "rel-acq-in-writer"}
	if got := VariantName(r); got != "flag handoff hands data from GPU0 to GPU1" {
		t.Errorf("VariantName = %q", got)
	}
	if got := VariantName(Result{Spec: "x"}); got != "" {
		t.Errorf("VariantName without a variant = %q", got)
	}
}

// TestDiffMissingByLabelFilter: a suite that ran with another label filter
// explains its missing results; a check this p2pconf no longer has is an
// expected absence that leaves the new run complete.
func TestDiffMissingByLabelFilter(t *testing.T) {
	old := litmusRun("cuda", "NVIDIA H200")
	old.Results = append(old.Results, Result{Check: "access.retired-check", Family: "access", Kind: "conf", Target: TargetGPU, GPU: intp(0), Status: StatusPass})
	newer := litmusRun("cuda", "NVIDIA H200")
	newer.Suites[1].LabelFilter = "!kind:mutant"
	var kept []Result
	for _, r := range newer.Results {
		if r.Family != "ordering" || !strings.Contains(r.Spec, " LB ") {
			kept = append(kept, r)
		}
	}
	newer.Results = kept
	// One litmus spec gone from GPU0 while others ran there: the text changed.
	d := Diff([]Document{old}, []Document{newer}, DiffOptions{})
	byCheck := map[string]Change{}
	for _, c := range d.Missing {
		byCheck[c.Check] = c
	}
	if c := byCheck["ordering.litmus"]; c.Why != "the check ran on GPU0 but not this spec (its text changed?)" || !c.Incomplete {
		t.Errorf("litmus spec missing: %+v", c)
	}
	if c := byCheck["access.retired-check"]; c.Why != "this p2pconf has no check access.retired-check" || c.Incomplete {
		t.Errorf("retired check: %+v", c)
	}
	// All litmus specs gone from the GPU: then the filter is the reason.
	var noLitmus []Result
	for _, r := range newer.Results {
		if r.Check != "ordering.litmus" {
			noLitmus = append(noLitmus, r)
		}
	}
	newer.Results = append(noLitmus, Result{Check: "ordering.other", Family: "ordering", Kind: "conf", Target: TargetGPU, GPU: intp(0), Status: StatusPass})
	d = Diff([]Document{old}, []Document{newer}, DiffOptions{})
	filtered := 0
	for _, c := range d.Missing {
		if c.Check == "ordering.litmus" {
			filtered++
			if c.Why != `suite ordering ran with label filter "!kind:mutant" in the new run, "" in the old` {
				t.Errorf("filtered litmus spec: %+v", c)
			}
		}
	}
	if filtered != 3 {
		t.Errorf("%d litmus specs missing, want 3:\n%s", filtered, d.Text())
	}
}
