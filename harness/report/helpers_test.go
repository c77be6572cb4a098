// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"
)

// testMeta keeps fixture output independent of the machine and build.
func testMeta(suite string) RunMeta {
	return RunMeta{Suite: suite, ToolVersion: "v0.0.0-test", Commit: "0123456789abcdef", Args: []string{"p2pconf-fixture", "--ginkgo.v"}}
}

// loadFixture reads a recorded run: system.json and each suite's Ginkgo
// JSON report (<suite>.ginkgo.json), as the file's bytes.
func loadFixture(t *testing.T, dir string) (System, []string, map[string][]byte) {
	t.Helper()
	var sys System
	data, err := os.ReadFile(filepath.Join(dir, "system.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &sys); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"+SuiteGinkgoSuffix))
	raw := map[string][]byte{}
	var names []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(f), SuiteGinkgoSuffix)
		names = append(names, name)
		raw[name] = data
	}
	sort.Strings(names)
	if len(names) == 0 {
		t.Fatalf("no fixtures in %s", dir)
	}
	return sys, names, raw
}

// decoded decodes a Ginkgo JSON report holding one suite.
func decoded(t *testing.T, data []byte) SuiteReport {
	t.Helper()
	reps, err := DecodeGinkgoJSON(data)
	if err != nil || len(reps) != 1 {
		t.Fatalf("decoding a Ginkgo report: %v (%d suites)", err, len(reps))
	}
	return reps[0]
}

// own converts a Ginkgo report built in a test to the package's types the
// way package ginkgoadapt does (it cannot be imported here: it imports this
// package): through Ginkgo's JSON encoding.
func own(t *testing.T, r types.Report) SuiteReport {
	t.Helper()
	data, err := json.MarshalIndent([]types.Report{r}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return decoded(t, data)
}

// writeFixtureRun writes every suite of a recorded run into a fresh run
// folder with WriteRun, as the suite binaries would one after the other.
func writeFixtureRun(t *testing.T, fixture string) string {
	t.Helper()
	sys, names, reps := loadFixture(t, fixture)
	dir := filepath.Join(t.TempDir(), "run")
	for _, n := range names {
		if err := WriteRun(dir, sys, reps[n], testMeta(n)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// artifactDir is where tests leave files worth looking at: P2PCONF_ARTIFACTS
// when set (CI keeps it), else the test's temporary folder.
func artifactDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("P2PCONF_ARTIFACTS"); d != "" {
		d = filepath.Join(d, t.Name())
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func findResult(t *testing.T, doc Document, key string) Result {
	t.Helper()
	for _, r := range doc.Results {
		if r.Key() == key {
			return r
		}
	}
	var keys []string
	for _, r := range doc.Results {
		keys = append(keys, r.Key())
	}
	t.Fatalf("no result %q; have:\n%s", key, strings.Join(keys, "\n"))
	return Result{}
}

// checkGolden compares got with testdata/golden/name (rewritten by -update).
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want := readFile(t, path)
	if got != want {
		t.Errorf("%s differs from the golden file (go test -run %s -update rewrites it); got:\n%s", name, t.Name(), got)
	}
}
