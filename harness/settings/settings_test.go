// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package settings_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	// Every package that declares settings: the suites' fixture links
	// them all but the reproducers' and the command's.
	_ "github.com/p2pconf/p2pconf/harness"
	_ "github.com/p2pconf/p2pconf/harness/repro"

	"github.com/p2pconf/p2pconf/harness/settings"
)

var nameRE = regexp.MustCompile(`"(P2PCONF_[A-Z0-9_]+)"`)

// TestEveryNameInTheCodeIsDeclared: a P2PCONF_* name that Go code reads but
// no package declared would escape the validation pass.
func TestEveryNameInTheCodeIsDeclared(t *testing.T) {
	seen := 0
	walk(t, func(path string, data []byte) {
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return
		}
		for _, m := range nameRE.FindAllSubmatch(data, -1) {
			seen++
			if _, ok := settings.Lookup(string(m[1])); !ok {
				t.Errorf("%s: %s is not declared: add a settings.Declare line to the package that reads it", path, m[1])
			}
		}
	})
	if seen < 20 {
		t.Fatalf("found only %d P2PCONF_ names in the code: the walk is broken", seen)
	}
}

// TestScriptNamesAreNotNearMisses: the deployment scripts' own variables
// (P2PCONF_RUN, P2PCONF_NODES, ...) are not declared, so they must not be
// near misses of a declared name, which the pass refuses as typos.
func TestScriptNamesAreNotNearMisses(t *testing.T) {
	any := regexp.MustCompile(`P2PCONF_[A-Z0-9_]*[A-Z0-9]`)
	walk(t, func(path string, data []byte) {
		if strings.HasPrefix(path, "harness/settings/") || strings.HasPrefix(path, "cmd/p2pconf/") || strings.HasPrefix(path, "tests/badinput/") {
			return // their tests name typos on purpose
		}
		for _, m := range any.FindAll(data, -1) {
			if u := settings.Unknown([]string{string(m) + "=x"}); len(u) > 0 {
				t.Errorf("%s: %s", path, u[0])
			}
		}
	})
}

func walk(t *testing.T, visit func(path string, data []byte)) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "reports") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, ".sh") && !strings.HasSuffix(p, ".sbatch") &&
			!strings.HasSuffix(p, ".yaml") && !strings.HasSuffix(p, ".md") && d.Name() != "Makefile" {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		visit(rel, data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestValidate(t *testing.T) {
	env := map[string]string{
		"P2PCONF_SPEC_TIMEOUT": "banana",
		"P2PCONF_BW_MAX_SIZE":  " 64MiB ",
		"P2PCONF_LOCK_WAIT":    "0",
		"P2PCONF_GPUS":         "0,,1",
	}
	err := settings.Validate(func(k string) string { return env[k] })
	want := `P2PCONF_GPUS="0,,1": an empty item; want GPU ordinals or UUIDs, comma separated, such as 0,1 or GPU-8b1e…` + "\n" +
		`P2PCONF_SPEC_TIMEOUT="banana": not a Go duration; want a positive Go duration such as 90s`
	if err == nil || err.Error() != want || !settings.IsSetting(err) {
		t.Fatalf("Validate: %v\nwant:\n%s", err, want)
	}
	if err := settings.Validate(func(string) string { return "" }); err != nil {
		t.Fatalf("nothing set: %v", err)
	}
}

func TestUnknownNamesANearMiss(t *testing.T) {
	got := settings.Unknown([]string{"P2PCONF_BW_MAXSIZE=1", "P2PCONF_NODES=4", "HOME=/root", "P2PCONF_GPUS=0"})
	if len(got) != 1 || got[0] != "P2PCONF_BW_MAXSIZE is not a p2pconf setting (did you mean P2PCONF_BW_MAX_SIZE?)" {
		t.Fatalf("Unknown: %q", got)
	}
}

func TestKinds(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		check func(string) error
		good  []string
		bad   []string
	}{
		{"duration", settings.Duration(false), []string{"1s", "90m"}, []string{"0", "-1s", "10", "banana"}},
		{"duration or zero", settings.Duration(true), []string{"0", "1s"}, []string{"-1s", "x"}},
		{"count", settings.Count, []string{"1", "1e9", "1_000"}, []string{"0", "-1", "1.5", "abc", "0x10", "1e30"}},
		{"fraction", settings.Fraction, []string{"1", "1e-4", "50%", "100%"}, []string{"0", "2", "200%", "-1", "x", "NaN"}},
		{"percent", settings.Percent(0, 100, true, false), []string{"0", "10", "99.9%"}, []string{"100", "-10", "x", "NaN"}},
		{"natural", settings.Natural(1), []string{"1", "20"}, []string{"0", "-1", "1.5"}},
		{"one of", settings.OneOf("a", "b"), []string{"a", "B"}, []string{"c", "ab"}},
		{"bool", settings.Bool, []string{"1", "off", "YES"}, []string{"2", "maybe"}},
		{"list", settings.List(settings.Natural(0)), []string{"0", "0,1"}, []string{"0,", ",1", "a"}},
		{"printable", settings.Printable, []string{"node-1"}, []string{"a\x1b[2Jb", "a\nb"}},
		{"readable file", settings.ReadableFile, []string{file}, []string{dir, empty, filepath.Join(dir, "missing"), "/dev/null"}},
		{"writable dir", settings.WritableDir, []string{dir, filepath.Join(dir, "new", "deeper")},
			[]string{file, filepath.Join(file, "sub"), "/sys/p2pconf-report"}},
	} {
		for _, v := range tc.good {
			if err := tc.check(v); err != nil {
				t.Errorf("%s: %q refused: %v", tc.name, v, err)
			}
		}
		for _, v := range tc.bad {
			if err := tc.check(v); err == nil {
				t.Errorf("%s: %q accepted", tc.name, v)
			}
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("the writable-dir check left files behind: %v", ents)
	}
}
