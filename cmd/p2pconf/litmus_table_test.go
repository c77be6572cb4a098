// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/p2pconf/p2pconf/harness/litmus"
	"github.com/p2pconf/p2pconf/harness/machine"
	"github.com/p2pconf/p2pconf/harness/pldi26"
	"github.com/p2pconf/p2pconf/harness/report"
)

// tableRun writes a conformance.json holding results on GPU 0 for one row
// of each kind the table's summary counts, with the weak outcomes given,
// and returns its path.
func tableRun(t *testing.T, weak func(r pldi26.Row) float64) string {
	t.Helper()
	rows, err := pldi26.Rows()
	if err != nil {
		t.Fatal(err)
	}
	gpu := 0
	doc := report.Document{SchemaVersion: report.SchemaVersion}
	picked := map[string]bool{}
	for _, r := range rows {
		kind := r.Base + "/" + r.Strengthened + "/" + map[bool]string{true: "h100", false: "-"}[r.Seen["h100"]]
		if picked[kind] {
			continue
		}
		picked[kind] = true
		key, err := litmus.PublishedKey(r)
		if err != nil {
			t.Fatal(err)
		}
		name := "weak_outcomes"
		if r.Base == "forbidden" {
			name = "violations"
		}
		w, n, rate := weak(r), 1e6, 1e9
		doc.Results = append(doc.Results, report.Result{Check: litmus.CheckID, Kind: "mutant", Target: "gpu", GPU: &gpu, Variant: key, Status: "pass",
			Metrics: map[string]*float64{name: &w, "instances": &n, "instances_per_second": &rate}})
	}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "conformance.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLitmusTable: every row the run holds is found by its generated key;
// the summary counts the H100's rows shown here, and says loudly when a
// row both models forbid, or one only the strengthened model forbids, was
// seen.
func TestLitmusTable(t *testing.T) {
	quiet := tableRun(t, func(r pldi26.Row) float64 {
		if r.Base == "allowed" && r.Strengthened == "allowed" {
			return 5
		}
		return 0
	})
	code, out, errOut := p2pconf(t, "litmus", "table", quiet)
	if code != exitOK {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	for _, want := range []string{"rows ran here", "this GPU showed", "Rows both models forbid: 98; seen here: 0.",
		"Rows the base model allows and the strengthened model forbids:", "seen here: 0."} {
		if !strings.Contains(out, want) {
			t.Errorf("the summary lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "VIOLATION") || strings.Contains(out, "REFUTES") {
		t.Errorf("a quiet run was reported loudly:\n%s", out)
	}
	loud := tableRun(t, func(r pldi26.Row) float64 { return 1 })
	code, out, _ = p2pconf(t, "litmus", "table", "-json", loud)
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var sum tableSummary
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil {
		t.Fatal(err)
	}
	if len(sum.BothForbidSeen) == 0 || len(sum.OnlyStrongSeen) == 0 || sum.H100SeenHere != sum.H100Seen {
		t.Errorf("a run that saw every outcome is summarised as %+v", sum)
	}
	if sum.Rows != len(lines)-1 {
		t.Errorf("%d rows printed, the summary says %d", len(lines)-1, sum.Rows)
	}
}

// TestPublishedKeysInSpace: every row of the table has its generated case
// in the space a run lists, under the key the table looks up, with the
// table's base verdict.
func TestPublishedKeysInSpace(t *testing.T) {
	rows, err := pldi26.Rows()
	if err != nil {
		t.Fatal(err)
	}
	verdicts := map[string]string{}
	for _, c := range litmus.RunGPUCases(machine.GPU{}, litmus.ProfileSpace) {
		verdicts[c.Key()] = c.Verdict.String()
	}
	for _, r := range rows {
		key, err := litmus.PublishedKey(r)
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := verdicts[key]; !ok {
			t.Errorf("%s: no generated case %s", r.Name, key)
		} else if v != r.Base {
			t.Errorf("%s: the generated case %s is %s, the table says %s", r.Name, key, v, r.Base)
		}
	}
}
