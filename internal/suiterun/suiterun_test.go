// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package suiterun

import (
	"os"
	"testing"
)

// testdata/report.json was recorded from a four-spec Ginkgo v2 suite: a
// pass, a failure, a skip and a panic. The self-test's oracle keys each spec
// by its ID, target and text, and holds the skip reason or the failure's
// first line, so each of those must come out of the report.
func TestParseReport(t *testing.T) {
	b, err := os.ReadFile("testdata/report.json")
	if err != nil {
		t.Fatal(err)
	}
	specs, err := ParseReport(b)
	if err != nil {
		t.Fatal(err)
	}
	want := []Spec{
		{ID: "access.kernel-remote-write", Target: "pair:0-1", State: "passed"},
		{ID: "access.kernel-remote-write", Target: "pair:1-0", State: "failed", Reason: "words written from GPU1 into GPU0"},
		{ID: "access.enable-is-directional", Target: "pair:0-1", State: "skipped", Reason: "needs a peer pair (found none)"},
		{ID: "ordering.cross-device-handoff-without-wait", Target: "pair:0-1", State: "panicked", Reason: "Test Panicked"},
	}
	if len(specs) != len(want) {
		t.Fatalf("%d specs, want %d: %+v", len(specs), len(want), specs)
	}
	for i, w := range want {
		g := specs[i]
		if g.ID != w.ID || g.Target != w.Target || g.State != w.State || g.Reason != w.Reason || g.Text == "" {
			t.Errorf("spec %d: %+v, want %+v with its text", i, g, w)
		}
	}
	if specs[0].Text == specs[1].Text {
		t.Error("two specs of one check on two pairs share a text")
	}
	if _, err := ParseReport([]byte("{}")); err == nil {
		t.Error("a JSON object that is no Ginkgo report parsed")
	}
}
