// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/p2pconf/p2pconf/harness/report"
	"github.com/p2pconf/p2pconf/internal/sentences"
)

// TestReportsHaveNoBrokenSentences runs every suite on the fake eight-GPU
// NVLink machine, narrowed to one GPU, one pair and one triple (every spec
// shape: per GPU, per pair, per triple, every variant but most atomic
// operations, whose specs share one sentence), and reads every
// text of the four reports for a sentence with a hole where a name was
// ("between CTAs of never shows", "T0 on , T1", "in 's memory", "( )").
func TestReportsHaveNoBrokenSentences(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs every suite; skipped with -short")
	}
	t.Setenv("P2PCONF_BACKEND", "fake")
	t.Setenv("P2PCONF_FAKE", "nvlink8")
	t.Setenv("P2PCONF_GPUS", "0,1")
	t.Setenv("P2PCONF_PAIRS", "")
	t.Setenv("P2PCONF_TRIPLES", "0-1-2")
	t.Setenv(report.EnvRunID, "")
	dir := t.TempDir()
	t.Setenv("P2PCONF_REPORT_DIR", dir)
	var out bytes.Buffer
	// The contention checks run one spec per operation, all with one
	// sentence: two operations stand for them.
	filter := "!gpu:1 && !pair:1-0 && (!id:atomics.concurrent-sys-rmw && !id:atomics.intra-gpu-sys-rmw || variant:add-u32 || variant:cas-b64)"
	run([]string{"run", "--label-filter", filter, "--ginkgo.no-color"}, &out, &out)
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%v\n%s", err, out.String())
		}
		return b
	}
	doc, err := report.ReadDocument(filepath.Join(dir, report.ConformanceFile))
	if err != nil {
		t.Fatal(err)
	}
	shapes := map[string]bool{}
	for _, r := range doc.Results {
		shapes[r.Target] = true
	}
	if len(doc.Results) < 300 || !shapes[report.TargetGPU] || !shapes[report.TargetPair] || !shapes[report.TargetTriple] {
		t.Fatalf("%d results on %v: not every spec shape ran\n%s", len(doc.Results), shapes, out.String())
	}
	var found []string
	inJSON, err := sentences.InJSON(read(report.ConformanceFile))
	if err != nil {
		t.Fatal(err)
	}
	found = append(found, prefixed(report.ConformanceFile, inJSON)...)
	inXML, err := sentences.InXML(read(report.JUnitFile))
	if err != nil {
		t.Fatal(err)
	}
	found = append(found, prefixed(report.JUnitFile, inXML)...)
	found = append(found, prefixed(report.MatrixMDFile, sentences.Find(string(read(report.MatrixMDFile))))...)
	found = append(found, prefixed(report.MatrixHTMLFile, sentences.InHTML(string(read(report.MatrixHTMLFile))))...)
	if len(found) > 0 {
		if len(found) > 40 {
			found = append(found[:40], "…")
		}
		t.Errorf("%d broken sentences in the reports of %d results:\n  %s", len(found), len(doc.Results), strings.Join(found, "\n  "))
	}
}

func prefixed(file string, found []string) []string {
	out := make([]string, len(found))
	for i, f := range found {
		out[i] = file + ": " + f
	}
	return out
}
