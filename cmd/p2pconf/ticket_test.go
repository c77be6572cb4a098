// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/p2pconf/p2pconf/harness/report"
	"github.com/p2pconf/p2pconf/internal/suiterun"
)

// fakeDefectRun runs the access suite's peer-copy specs on GPU0→GPU1 of the
// fake two-H200 machine with a driver defect that drops one direction of
// every peer copy, and returns the run folder.
func fakeDefectRun(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the access suite")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	bin, err := suiterun.Build(root, t.TempDir(), "access")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run-peer-copy")
	cmd := exec.Command(bin, "--ginkgo.no-color", "--ginkgo.label-filter=id:access.peer-copy && pair:0-1")
	cmd.Dir = filepath.Join(root, "suites", "access")
	cmd.Env = append(os.Environ(), "P2PCONF_BACKEND=fake", "P2PCONF_FAKE=h200x2", "P2PCONF_FAKE_DEFECTS=peer-copy-one-way-dropped",
		"P2PCONF_PAIRS=0-1", "P2PCONF_REPORT_DIR="+dir)
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("the access suite passed with the defect peer-copy-one-way-dropped:\n%s", out)
	}
	return dir
}

// untar reads a .tar.gz into name → content.
func untar(t *testing.T, path string) map[string]string {
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
	out := map[string]string{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Uname != "" || h.Gname != "" || h.Uid != 0 || h.Gid != 0 {
			t.Errorf("%s carries an owner (%s:%s %d:%d)", h.Name, h.Uname, h.Gname, h.Uid, h.Gid)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out[h.Name] = string(b)
	}
}

func TestTicketOfAFakeDefectRun(t *testing.T) {
	dir := fakeDefectRun(t)
	archive := filepath.Join(t.TempDir(), "ticket.tar.gz")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"ticket", dir, "-o", archive}, &stdout, &stderr); code != exitOK {
		t.Fatalf("ticket: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	files := untar(t, archive)
	for _, name := range []string{"SUMMARY.md", "environment.md", "conformance.json", "junit.xml", "repro/access.peer-copy_0-1.c"} {
		if files["p2pconf-ticket/"+name] == "" {
			t.Errorf("the archive has no %s (it has %v)", name, keys(files))
		}
	}
	sum := files["p2pconf-ticket/SUMMARY.md"]
	for _, want := range []string{
		"# p2pconf: 8 conformance failures on ",
		"these results come from p2pconf's simulated driver",
		"| 1 | `access.peer-copy` | GPU0 (NVIDIA H200) → GPU1 (NVIDIA H200), nvlink | 8 |",
		"| driver | 580.159.04 |",
		"| CUDA driver API | 13.0 (13000) |",
		"| kernel | ",
		"**The claim** (what the check demands): cuMemcpyPeerAsync MUST move seeded data exactly",
		"| claimed (driver and NVML for these GPUs) | observed |",
		"| cuDeviceCanAccessPeer = true |",
		"NVML P2P read P2P_STATUS_OK",
		"first bad data, access: cuMemcpyPeerAsync moves 4 B GPU0→GPU1 and GPU1→GPU0 exactly, without peer access: first at word 0 (byte offset 0x0): want 0x",
		"got 0xdeadbeef",
		"[`repro/access.peer-copy_0-1.c`](repro/access.peer-copy_0-1.c) (10 specs, written by `p2pconf repro access.peer-copy --pair 0-1`)",
		"cc -O2 -o repro repro/access.peer-copy_0-1.c -ldl && ./repro",
		"**Rerun in the suite:** `P2PCONF_BACKEND=fake P2PCONF_FAKE=h200x2 P2PCONF_FAKE_DEFECTS=peer-copy-one-way-dropped P2PCONF_PAIRS=0-1 go tool ginkgo",
	} {
		if !strings.Contains(sum, want) {
			t.Errorf("SUMMARY.md lacks %q:\n%s", want, sum)
		}
	}
	if src := files["p2pconf-ticket/repro/access.peer-copy_0-1.c"]; !strings.Contains(src, " * Build:  cc -O2 -o repro repro.c -ldl") {
		t.Errorf("the reproducer has no build line in its header")
	}
	if !strings.Contains(files["p2pconf-ticket/conformance.json"], `"repro": "p2pconf repro access.peer-copy --pair 0-1 --variant `) {
		t.Errorf("conformance.json of the run does not carry the repro command of its failures")
	}
	// What the ticket writes itself names nothing of this host beyond what
	// the run recorded: not the run folder's path.
	for name, data := range files {
		if (name == "p2pconf-ticket/SUMMARY.md" || strings.HasPrefix(name, "p2pconf-ticket/repro/")) && strings.Contains(data, filepath.Dir(dir)) {
			t.Errorf("%s contains the run folder's path %s", name, filepath.Dir(dir))
		}
	}

	// --redact: no host name, no UUID.
	host := regexp.MustCompile(`"host": "([^"]+)"`).FindStringSubmatch(files["p2pconf-ticket/conformance.json"])
	if code := run([]string{"ticket", "--redact", "-o", archive, dir}, &stdout, &stderr); code != exitOK {
		t.Fatalf("ticket --redact: exit %d\n%s", code, stderr.String())
	}
	uuid := regexp.MustCompile(`GPU-[0-9a-f]{8}-`)
	for name, data := range untar(t, archive) {
		if uuid.MatchString(data) {
			t.Errorf("--redact: %s still has a GPU UUID", name)
		}
		if host != nil && regexp.MustCompile(`\b`+regexp.QuoteMeta(host[1])+`\b`).MatchString(data) {
			t.Errorf("--redact: %s still names the host %q", name, host[1])
		}
	}
}

func TestTicketUsage(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"ticket"}, &stdout, &stderr); code != exitUsage {
		t.Errorf("ticket without a folder: exit %d, want 2", code)
	}
	if code := run([]string{"ticket", filepath.Join(t.TempDir(), "missing")}, &stdout, &stderr); code != exitUsage {
		t.Errorf("ticket of a missing folder: exit %d, want 2", code)
	}
}

func TestReproCommand(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run([]string{"repro", "access.peer-copy", "--pair", "1-0", "--variant", "4 KiB + 12 B", "-o", dir}, &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("repro: exit %d\n%s", code, stderr.String())
	}
	src, err := os.ReadFile(filepath.Join(dir, "access.peer-copy_1-0.c"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"p2pconf reproducer: access.peer-copy on GPU1→GPU0", "enum { A = 1, B = 0 };", "moves 4 KiB + 12 B"} {
		if !strings.Contains(string(src), want) {
			t.Errorf("the reproducer lacks %q", want)
		}
	}
	for _, args := range [][]string{
		{"repro"},
		{"repro", "access.peer-copy"},
		{"repro", "no.such-check", "--gpu", "0"},
		{"repro", "access.peer-copy", "--pair", "0-1", "--gpu", "0"},
		{"repro", "access.peer-copy", "--gpu", "0"},
		{"repro", "bandwidth.latency", "--pair", "0-1"},
	} {
		if code := run(args, &stdout, &stderr); code != exitUsage {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

func TestReproAllWritesEveryReproducerAndTheRunner(t *testing.T) {
	// The machine as topo opens it, stubbed: opening the fake backend here
	// would fix the machine for the rest of the test binary.
	old := openMachine
	openMachine = func() (report.System, func(), error) {
		return report.System{GPUs: []report.GPU{{Ordinal: 0}, {Ordinal: 1}}, Pairs: []report.Pair{{Src: 0, Dst: 1}, {Src: 1, Dst: 0}}}, nil, nil
	}
	defer func() { openMachine = old }()
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"repro", "--all", "-o", dir}, &stdout, &stderr); code != exitOK {
		t.Fatalf("repro --all: exit %d\n%s", code, stderr.String())
	}
	for _, name := range []string{"run-all.sh", "access.peer-copy_0-1.c", "access.peer-copy_1-0.c", "access.uva-owner_0.c", "access.uva-owner_1.c", "atomics.capability-report_1-0.c"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("repro --all wrote no %s", name)
		}
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
