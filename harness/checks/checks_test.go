// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package checks

import (
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
