// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"archive/tar"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/p2pconf/p2pconf/harness/report"
)

// TestDistTarball builds the dist tarball with dist/build.sh around a
// stand-in suite (testdata/distsuite), checks its layout, unpacks it and
// runs run.sh with a PATH that has no Go, as on a GPU node.
func TestDistTarball(t *testing.T) {
	for _, tool := range []string{"go", "bash", "tar", "gzip"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s (found: not on PATH)", tool)
		}
	}
	if testing.Short() {
		t.Skip("builds binaries; skipped with -short")
	}
	out := t.TempDir()
	const version = "v9.9.9-test"
	build := exec.Command("bash", filepath.Join("..", "..", "dist", "build.sh"), "--out", out, "--version", version, "./cmd/p2pconf/testdata/distsuite")
	if msg, err := build.CombinedOutput(); err != nil {
		t.Fatalf("dist/build.sh: %v\n%s", err, msg)
	}
	top := "p2pconf-" + version + "-linux-amd64"
	tarball := filepath.Join(out, top+".tar.gz")
	entries := listTarball(t, tarball)
	suite := top + "/cmd/p2pconf/testdata/distsuite/"
	for name, mode := range map[string]os.FileMode{
		top + "/run.sh":               0o755,
		top + "/sanitize.sh":          0o755,
		top + "/sanitize-allow.txt":   0o644,
		top + "/bin/p2pconf":          0o755,
		top + "/suites.txt":           0o644,
		top + "/VERSION":              0o644,
		top + "/README.md":            0o644,
		top + "/LICENSE":              0o644,
		top + "/" + report.RootMarker: 0o644,
		suite + "distsuite.test":      0o755,
		suite + "testdata/marker.txt": 0o644,
	} {
		got, ok := entries[name]
		if !ok {
			t.Errorf("tarball lacks %s", name)
			continue
		}
		if got.Perm() != mode {
			t.Errorf("%s has mode %v, want %v", name, got.Perm(), mode)
		}
	}
	for name := range entries {
		if !strings.HasPrefix(name, top+"/") && name != top+"/" {
			t.Errorf("%s is outside the top folder %s", name, top)
		}
	}

	unpacked := t.TempDir()
	if msg, err := exec.Command("tar", "-C", unpacked, "-xzf", tarball).CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, msg)
	}
	home := filepath.Join(unpacked, top)
	if got := strings.TrimSpace(readString(t, filepath.Join(home, "suites.txt"))); got != "cmd/p2pconf/testdata/distsuite distsuite" {
		t.Errorf("suites.txt = %q", got)
	}
	run := exec.Command("./run.sh", "--run=t1", "--label-filter=!kind:mutant", "--ginkgo.no-color")
	run.Dir = home
	// The fake backend: p2pconf run opens the driver before it builds
	// or runs anything, and this machine may have no GPU.
	run.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir(), "P2PCONF_BACKEND=fake"}
	msg, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("run.sh: %v\n%s", err, msg)
	}
	reports := filepath.Join(home, "reports", "t1")
	for _, f := range []string{report.ConformanceFile, report.JUnitFile, report.MatrixMDFile, report.MatrixHTMLFile,
		"dist" + report.SuiteConformanceSuffix, "dist" + report.SuiteGinkgoSuffix, "ginkgo/distsuite.json", "ginkgo/distsuite.junit.xml"} {
		if _, err := os.Stat(filepath.Join(reports, f)); err != nil {
			t.Errorf("run folder lacks %s: %v\n%s", f, err, msg)
		}
	}
	doc, err := report.ReadDocument(filepath.Join(reports, report.ConformanceFile))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Tool.Version != version || doc.System.Backend != "fake:dist" || doc.Summary.Pass != 2 || doc.Summary.Total != 2 {
		t.Errorf("run report: tool %q, backend %q, summary %+v\n%s", doc.Tool.Version, doc.System.Backend, doc.Summary, msg)
	}

	for _, r := range doc.Results {
		// Entries reach the report from the process that ran the spec.
		if r.Check == "dist.report-dir" && (r.Metrics["bandwidth_gbps"] == nil || *r.Metrics["bandwidth_gbps"] != 123.4) {
			t.Errorf("dist.report-dir metrics: %v", r.Metrics)
		}
	}

	v, err := exec.Command(filepath.Join(home, "bin", "p2pconf"), "version").Output()
	if err != nil || !strings.HasPrefix(string(v), "p2pconf "+version+" ") {
		t.Errorf("bin/p2pconf version: %q %v", v, err)
	}
	// A label filter that matches nothing is not a green run: bad input,
	// exit 2, whether it names a check the catalogue lacks (found before
	// anything runs) or one these suites do not have.
	for filter, want := range map[string]string{"id:no.such-check": `no check "no.such-check" in the catalogue`, "id:access.peer-copy": "selects no spec"} {
		empty := exec.Command("./run.sh", "--run=t2", "--label-filter="+filter)
		empty.Dir = home
		empty.Env = run.Env
		msg, err := empty.CombinedOutput()
		if processExit(err) != exitUsage || !strings.Contains(string(msg), want) {
			t.Errorf("run.sh with the filter %s: %v, want exit 2 and %q\n%s", filter, err, want, msg)
		}
	}
}

func listTarball(t *testing.T, path string) map[string]os.FileMode {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	out := map[string]os.FileMode{}
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		out[h.Name] = h.FileInfo().Mode()
		names = append(names, h.Name)
	}
	sort.Strings(names)
	t.Logf("tarball:\n  %s", strings.Join(names, "\n  "))
	return out
}

func readString(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
