// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package doccheck

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// outsideMarks are the ways the project's text once cited documents that are
// not part of it. A reader of the code or of a report cannot open them, so a
// source must be public (CUDA, PTX or NVML documentation, a paper) or one of
// the project's own documents: docs/litmus.md, docs/observations.md, a
// committed report.
var outsideMarks = []string{"reference/", "reference §", "reference field failures", "cuda-p2p-facts", "field-failures", "DESIGN.md"}

// citedFiles are the kinds of file whose text a reader sees: code and its
// comments, documentation, scripts, PTX and deployment files.
var citedFiles = []string{".go", ".md", ".sh", ".h", ".c", ".ptx", ".yaml", ".yml", ".sbatch"}

// outsideCitations returns each line of text (1-based, with its text) that
// cites a document outside the project. "litmus.md" counts unless it is the
// project's own docs/litmus.md or a relative link to it from docs/.
func outsideCitations(text string) []string {
	var out []string
	for i, line := range strings.Split(text, "\n") {
		if citesOutside(line) {
			out = append(out, fmt.Sprintf("%d: %s", i+1, strings.TrimSpace(line)))
		}
	}
	return out
}

func citesOutside(line string) bool {
	for _, m := range outsideMarks {
		if strings.Contains(line, m) {
			return true
		}
	}
	for rest := line; ; {
		i := strings.Index(rest, "litmus.md")
		if i < 0 {
			return false
		}
		before := rest[:i]
		if !strings.HasSuffix(before, "docs/") && !strings.HasSuffix(before, "](") {
			return true
		}
		rest = rest[i+len("litmus.md"):]
	}
}

func TestOutsideCitationsFindsEveryForm(t *testing.T) {
	for _, line := range []string{
		"// flag handoff (reference/litmus.md, family A)",
		`Source: "litmus.md A (message passing)"`,
		"see reference §12 (396 GB/s)",
		"NVML error counters; reference field failures §7.",
		"table of cuda-p2p-facts §9",
		"as in field-failures.md",
		"helper processes (DESIGN.md §4)",
		"docs/litmus.md A, then litmus.md B",
	} {
		if got := outsideCitations("ok\n" + line + "\n"); len(got) != 1 {
			t.Errorf("outsideCitations(%q) = %q, want the line", line, got)
		}
	}
	for _, line := range []string{
		`Source: "docs/litmus.md A (message passing)"`,
		"see [docs/litmus.md](litmus.md), F cumulativity",
		"## Reference figures (two H200 on NV18)",
		"a baseline is the reference figure; docs/observations.md, two H200: bandwidth",
	} {
		if got := outsideCitations(line); len(got) != 0 {
			t.Errorf("outsideCitations(%q) = %q, want nothing", line, got)
		}
	}
}

// TestNoCitationOutsideTheProject walks the repository and fails for every
// line that cites a document outside it. The recorded runs under
// reports/examples are data written by older code and stay as they were
// recorded; their README is the project's text and is checked.
func TestNoCitationOutsideTheProject(t *testing.T) {
	root := filepath.Join("..", "..")
	self := filepath.Join(root, "internal", "doccheck", "citations_test.go")
	examples := filepath.Join(root, "reports", "examples")
	files := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if path == self || !slices.Contains(citedFiles, filepath.Ext(path)) {
			return nil
		}
		if strings.HasPrefix(path, examples+string(filepath.Separator)) && path != filepath.Join(examples, "README.md") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		for _, line := range outsideCitations(string(b)) {
			rel, _ := filepath.Rel(root, path)
			t.Errorf("%s:%s cites a document outside the project (cite the public source or docs/litmus.md, docs/observations.md)", rel, line)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 300 {
		t.Fatalf("walked %d files under %s; the walk missed the tree", files, root)
	}
}
