// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"strings"
	"testing"
)

func TestContendedResultIsMarked(t *testing.T) {
	gpu := 0
	entries := []Entry{{Kind: KindMetric, Name: "latency_us.single", Value: 3.0, Unit: "µs"},
		{Kind: KindFinding, Name: FindingContended, Value: "pid 4242 (hold, compute, 512 MiB)"}}
	r := Result{Check: "bandwidth.latency", Family: "bandwidth", Kind: "info", Target: TargetGPU, GPU: &gpu,
		Status: StatusError, Reason: "inconclusive: latency needs the GPU to itself", Entries: entries}
	if !isContended(r.Entries) || isContended(entries[:1]) {
		t.Fatal("isContended does not go by the contended finding")
	}
	r.Contended = true
	doc := Document{SchemaVersion: SchemaVersion, System: System{GPUs: []GPU{{Ordinal: 0}}}, Results: []Result{r}}
	for name, out := range map[string]string{"markdown": Markdown(doc), "html": HTML(doc)} {
		if !strings.Contains(out, SymError+SymContended) {
			t.Errorf("%s: no %q cell for a contended error", name, SymError+SymContended)
		}
		if !strings.Contains(out, "contended") {
			t.Errorf("%s: the legend does not explain %s", name, SymContended)
		}
	}
	r.Contended = false
	doc.Results = []Result{r}
	if out := Markdown(doc); strings.Contains(out, legendContended) || strings.Contains(out, SymError+SymContended) {
		t.Error("a run without contended results shows the contended mark or legend")
	}
}
