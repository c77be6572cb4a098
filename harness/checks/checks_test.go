// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package checks

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocumentIsCurrent fails when docs/checks.md was not regenerated after
// the catalogue changed.
func TestDocumentIsCurrent(t *testing.T) {
	path := filepath.Join("..", "..", DocumentPath)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s: %v (generate it with make docs)", path, err)
	}
	if string(b) != Document() {
		t.Fatalf("%s is stale: regenerate it with make docs (go run ./cmd/checksdoc > %s)", DocumentPath, DocumentPath)
	}
}

// TestDocumentListsEveryCheck: every catalogue ID has its row, with text in
// every column, and the document names no ID the catalogue lacks.
func TestDocumentListsEveryCheck(t *testing.T) {
	doc := Document()
	rows := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\| ([a-z]+\.[a-z0-9-]+) \|(.*)\|$`).FindAllStringSubmatch(doc, -1) {
		rows[m[1]] = true
		for i, col := range strings.Split(m[2], " | ") {
			if strings.TrimSpace(col) == "" {
				t.Errorf("%s: column %d is empty", m[1], i+2)
			}
		}
	}
	for _, c := range All() {
		if !rows[c.ID] {
			t.Errorf("the document has no row for %s", c.ID)
		}
		if c.Requirement == "" || c.Source == "" || c.AppliesTo == "" {
			t.Errorf("%s lacks its requirement, source or applies-to text", c.ID)
		}
	}
	if len(rows) != len(catalogue) {
		t.Errorf("the document has %d rows, the catalogue %d checks", len(rows), len(catalogue))
	}
}

func TestFormatAndValidate(t *testing.T) {
	l, err := Format("access.peer-copy", OnPair, []string{LabelPair + PairID(0, 1), LabelLink + "nvlink"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if probs := Validate("x", l, "access"); len(probs) > 0 {
		t.Errorf("Format's labels are invalid: %v", probs)
	}
	p := Parse(l)
	if p.ID != "access.peer-copy" || p.Suite != "access" || p.Kind != "conf" || p.Scope != "pair" ||
		p.Src == nil || *p.Src != 0 || p.Dst == nil || *p.Dst != 1 || p.Link != "nvlink" || p.SpecKey() != "access.peer-copy@0-1" {
		t.Errorf("Parse(%v) = %+v", l, p)
	}
	g, _ := Format("ordering.litmus", OnGPU, []string{GPULabel(3)}, []string{KindLabel(Mutant), Slow})
	if p := Parse(g); p.Kind != "mutant" || p.GPU == nil || *p.GPU != 3 {
		t.Errorf("Parse(%v) = %+v", g, p)
	}
	if _, err := Format("access.nope", OnGPU, nil, nil); err == nil {
		t.Error("Format accepted an ID the catalogue lacks")
	}
}

func TestTripleLabels(t *testing.T) {
	l, err := Format("ordering.litmus", OnThree, []string{LabelTriple + TripleID(0, 2, 3), LabelLink + "pcie"}, []string{Slow})
	if err != nil {
		t.Fatal(err)
	}
	if probs := Validate("x", l, "ordering"); len(probs) > 0 {
		t.Errorf("Format's triple labels are invalid: %v", probs)
	}
	p := Parse(l)
	if p.Scope != "3" || p.Triple != "0-2-3" || len(p.TripleGPUs) != 3 || p.TripleGPUs[2] != 3 || p.GPU != nil || p.Src != nil ||
		p.Link != "pcie" || p.SpecKey() != "ordering.litmus@0-2-3" {
		t.Errorf("Parse(%v) = %+v", l, p)
	}
	for _, bad := range [][]string{
		{"id:ordering.litmus", "suite:ordering", "kind:conf", "gpus:3", "link:nvlink"},                                // no triple:
		{"id:ordering.litmus", "suite:ordering", "kind:conf", "gpus:3", "triple:0-1", "link:nvlink"},                  // two GPUs
		{"id:ordering.litmus", "suite:ordering", "kind:conf", "gpus:3", "triple:0-1-1", "link:nvlink"},                // a GPU twice
		{"id:ordering.litmus", "suite:ordering", "kind:conf", "gpus:3", "triple:0-1-2"},                               // no link:
		{"id:ordering.litmus", "suite:ordering", "kind:conf", "gpus:3", "triple:0-1-2", "link:nvlink", "pair:0-1"},    // a pair: too
		{"id:ordering.litmus", "suite:ordering", "kind:conf", "gpus:pair", "pair:0-1", "link:nvlink", "triple:0-1-2"}, // a pair spec with a triple:
		{"id:access.peer-copy", "suite:access", "kind:conf", "gpus:3", "triple:0-1-2", "link:nvlink"},                 // a check without the scope
	} {
		if probs := Validate("x", bad, Parse(bad).Suite); len(probs) == 0 {
			t.Errorf("Validate accepted %v", bad)
		}
	}
	for s, ok := range map[string]bool{"0-1-2": true, "7-0-3": true, "0-1": false, "0-1-2-3": false, "a-b-c": false, "-1-2-3": false, "01-2-3": false, "1-2-1": false} {
		if _, got := ParseTripleID(s); got != ok {
			t.Errorf("ParseTripleID(%q) ok = %v, want %v", s, got, ok)
		}
	}
}

func TestReproducibilityTablesNameCatalogueChecks(t *testing.T) {
	for id := range reproducible {
		if _, ok := Lookup(id); !ok {
			t.Errorf("reproducible names %q, which is not in the catalogue", id)
		}
		if notReproducible[id] != "" {
			t.Errorf("%s is both reproducible and not (%q)", id, notReproducible[id])
		}
	}
	for id, why := range notReproducible {
		if _, ok := Lookup(id); !ok || why == "" {
			t.Errorf("notReproducible names %q (in the catalogue: %v) with reason %q", id, ok, why)
		}
	}
}

// TestVariantKeys: a variant key is validated with the other labels, and
// the specs that share a check and target each need their own.
func TestVariantKeys(t *testing.T) {
	target := []string{LabelPair + PairID(0, 1), LabelLink + "nvlink"}
	spec := func(extra ...string) []string {
		l, err := Format("access.peer-copy", OnPair, target, extra)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	if probs := Validate("ok", spec(VariantLabel("4kib-12b-peer")), "access"); len(probs) != 0 {
		t.Errorf("a good key: %q", probs)
	}
	for _, bad := range [][]string{
		{VariantLabel("4 KiB")}, {VariantLabel("Peer")}, {VariantLabel("-peer")}, {VariantLabel("a--b")},
		{VariantLabel(strings.Repeat("a", MaxVariantKey+1))}, {VariantLabel("a"), VariantLabel("b")},
	} {
		if probs := Validate("bad", spec(bad...), "access"); len(probs) != 1 || !strings.Contains(probs[0], "variant label") {
			t.Errorf("%q: %q, want one problem with the variant label", bad, probs)
		}
	}
	labels := func(all ...[]string) map[string]Labels {
		m := map[string]Labels{}
		for i, l := range all {
			m[fmt.Sprint("spec ", i)] = Parse(l)
		}
		return m
	}
	if probs := TargetSpecs("access.peer-copy", labels(spec(VariantLabel("a")), spec(VariantLabel("b")))); len(probs) != 0 {
		t.Errorf("two keys: %q", probs)
	}
	if probs := TargetSpecs("access.peer-copy", labels(spec())); len(probs) != 0 {
		t.Errorf("one spec needs no key: %q", probs)
	}
	if probs := TargetSpecs("access.peer-copy", labels(spec(VariantLabel("a")), spec())); len(probs) != 1 || !strings.Contains(probs[0], `"spec 1": access.peer-copy@0-1 has 2 specs; each needs its own variant key`) {
		t.Errorf("a spec without its key: %q", probs)
	}
	if probs := TargetSpecs("access.peer-copy", labels(spec(VariantLabel("a")), spec(VariantLabel("a")))); len(probs) != 1 || !strings.Contains(probs[0], `variant "a" is declared by 2 specs`) {
		t.Errorf("a key twice: %q", probs)
	}
	staged := func() []string {
		l, _ := Format("access.staged-copy", OnPair, target, nil)
		return l
	}
	if probs := TargetSpecs("access.staged-copy", labels(staged(), staged())); len(probs) != 1 || !strings.Contains(probs[0], "only a check with variants may") {
		t.Errorf("two specs of a check without variants: %q", probs)
	}
}
