// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package doccheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	// Every package that declares settings.
	_ "github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/harness/settings"
)

var (
	mdLink = regexp.MustCompile(`\]\(([^)#\s]+)(#[^)]*)?\)`)
	// repoPath is a path in backticks that names a file of the project:
	// folders, then a file with an extension the project has.
	repoPath = regexp.MustCompile("`((?:[a-z][a-z0-9_.-]*/)+[A-Za-z0-9_.-]+\\.(?:go|md|sh|json|c|h|ptx|yaml|yml|sbatch|txt|html))`")
)

// docs lists the project's Markdown files (the CHANGELOG records the past,
// where files had other names).
func docs(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") && d.Name() != "CHANGELOG.md" {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEveryCitedFileExists: each relative link of a doc, and each project
// path a doc writes in backticks, names a file or folder of the project.
func TestEveryCitedFileExists(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cited := 0
	for _, doc := range docs(t, root) {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, doc)
		for i, line := range strings.Split(string(data), "\n") {
			var paths []string
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				if l := m[1]; !strings.Contains(l, "://") && !strings.HasPrefix(l, "mailto:") {
					paths = append(paths, filepath.Join(filepath.Dir(doc), l))
				}
			}
			for _, m := range repoPath.FindAllStringSubmatch(line, -1) {
				// A path from the root: it starts with one of the
				// project's top folders (others, such as run/x.json in a
				// run folder, are relative to something the text names).
				p := m[1]
				top, _, _ := strings.Cut(p, "/")
				if st, err := os.Stat(filepath.Join(root, top)); err == nil && st.IsDir() && !strings.HasPrefix(p, "dist/out/") {
					paths = append(paths, filepath.Join(root, p))
				}
			}
			for _, p := range paths {
				cited++
				if _, err := os.Stat(p); err != nil {
					r, _ := filepath.Rel(root, p)
					t.Errorf("%s:%d cites %s, which the project does not have", rel, i+1, r)
				}
			}
		}
	}
	if cited < 30 {
		t.Fatalf("only %d citations found: the scan is broken", cited)
	}
}

// readmeDefaults find what docs/usage.md's settings table says the default of a
// setting is, in the forms it writes: "`X` (default", "default `X`",
// "(default X" or "default X" where X is a number or a duration.
var readmeDefaults = []*regexp.Regexp{
	regexp.MustCompile("`([^`]+)` \\(default"),
	regexp.MustCompile("[Dd]efault:? `([^`]+)`"),
	regexp.MustCompile(`[Dd]efault:? ([0-9][^,;:)\s]*)`),
}

// TestDocumentedDefaultsEqualTheCode: where docs/usage.md's settings table gives a
// setting's default, it is the default the setting's declaration has (the
// value the code uses), and every declared user setting has a row.
func TestDocumentedDefaultsEqualTheCode(t *testing.T) {
	data, err := os.ReadFile("../../docs/usage.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "| `P2PCONF_") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(line, "| `"), "=")
		name, _, _ = strings.Cut(name, "`")
		rows[name] = line
	}
	compared := 0
	for _, s := range settings.All() {
		row, ok := rows[s.Name]
		if s.Internal {
			continue
		}
		if !ok {
			t.Errorf("%s is declared but docs/usage.md's settings table has no row for it", s.Name)
			continue
		}
		var m []string
		for _, re := range readmeDefaults {
			if m = re.FindStringSubmatch(row); m != nil {
				break
			}
		}
		if m == nil || s.Default == "" {
			continue
		}
		compared++
		if m[1] != s.Default {
			t.Errorf("docs/usage.md says %s defaults to %q; the code's default is %q", s.Name, m[1], s.Default)
		}
	}
	t.Logf("%d documented defaults compared with the code's", compared)
	if compared < 10 {
		t.Fatalf("only %d defaults compared: the scan is broken", compared)
	}
}
