// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/p2pconf/p2pconf/harness/report"
)

// TestTicketPacksTheCause: a failing litmus result's cause line goes into
// SUMMARY.md, and the SASS excerpt its diagnosis recorded into
// sass/<result>.txt with the cause line and the JIT; a run folder's own
// sass/*.txt come along.
func TestTicketPacksTheCause(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "sass"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sass", "litmus-sass-O0.txt"), []byte("level 0 SASS\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gpu := 0
	excerpt := "// role 1: poll { ld.acquire.gpu.global.u32 y; ld.weak.global.u32 x } until y=1\n/*0050*/ LDG.E R7, desc[UR4][R4.64] ;\n"
	detail := "the weak load of x in role 1's poll loop is merged or hoisted out of the loop (1 LDG for 64 iterations); at JIT level 0: 0 of 1000000 (1700 of 1000000 at the default level)"
	doc := report.Document{SchemaVersion: report.SchemaVersion, System: report.System{Backend: "cuda", Host: "h200"}, Results: []report.Result{
		{Check: "ordering.litmus", Family: "ordering", Kind: "conf", Target: report.TargetGPU, GPU: &gpu, Variant: "mp-rel-gpu-acq-gpu-ctas",
			Spec: "ordering: MP rel.gpu/acq.gpu between CTAs of GPU0", Status: report.StatusFail, Reason: "forbidden outcome r0=1 ∧ r1=0 observed",
			Cause: "compiler", CauseDetail: detail,
			Entries: []report.Entry{{Kind: report.KindFinding, Name: report.CauseEntry, Value: map[string]any{"cause": "compiler", "detail": detail,
				"jit": "NVIDIA driver 580.159.04, CUDA 13.0", "sass_excerpt": excerpt}}}},
	}}
	tk, err := buildTicket(dir, doc)
	if err != nil {
		t.Fatal(err)
	}
	name := ticketRoot + "sass/ordering.litmus-GPU0-mp-rel-gpu-acq-gpu-ctas.txt"
	got, ok := tk.files[name]
	if !ok {
		t.Fatalf("no %s in %q", name, tk.names)
	}
	for _, want := range []string{"cause: compiler — " + detail, "JIT: NVIDIA driver 580.159.04, CUDA 13.0", "LDG.E R7"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("%s lacks %q:\n%s", name, want, got)
		}
	}
	sum := string(tk.files[ticketRoot+"SUMMARY.md"])
	for _, want := range []string{"cause: compiler — " + detail, "sass/ordering.litmus-GPU0-mp-rel-gpu-acq-gpu-ctas.txt", "`sass/*.txt`"} {
		if !strings.Contains(sum, want) {
			t.Errorf("SUMMARY.md lacks %q:\n%s", want, sum)
		}
	}
	if string(tk.files[ticketRoot+"sass/litmus-sass-O0.txt"]) != "level 0 SASS\n" {
		t.Errorf("the run folder's sass/*.txt is not packed: %q", tk.names)
	}
}

// TestVerdictPrintsTheCause: the CI log's verdict names each failure's
// cause line under the count.
func TestVerdictPrintsTheCause(t *testing.T) {
	gpu := 0
	var b strings.Builder
	printVerdict(&b, "", report.Verdict{Failed: []report.Result{
		{Check: "ordering.litmus", GPU: &gpu, Variant: "mp", Status: report.StatusFail, Cause: "hardware", CauseDetail: "every access kept"},
		{Check: "access.peer-copy", GPU: &gpu, Status: report.StatusFail},
	}})
	want := "conformance failure: 2 check result(s) failed or timed out\n  ordering.litmus GPU0 (mp): cause: hardware — every access kept\n"
	if b.String() != want {
		t.Errorf("printed %q, want %q", b.String(), want)
	}
}
