// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"
)

func TestConvertStatusesReasonsAndEntries(t *testing.T) {
	sys, _, reps := loadFixture(t, "testdata/fake2")
	doc := Convert(sys, decoded(t, reps["access"]), testMeta("access"))

	if got := len(doc.Results); got != 12 {
		t.Errorf("access has %d results, want 12 (the spec left out by the label filter must not appear)", got)
	}
	for _, r := range doc.Results {
		if r.Check == "access.mutant-demo" {
			t.Errorf("unselected spec reported: %+v", r)
		}
	}
	skip := findResult(t, doc, "access.kernel-remote-write GPU1→GPU0")
	if skip.Status != StatusSkip || !strings.HasPrefix(skip.Reason, "needs peer access from GPU1 to GPU0 (found cuDeviceCanAccessPeer=0") {
		t.Errorf("skip = %s %q", skip.Status, skip.Reason)
	}
	fail := findResult(t, doc, "access.peer-copy GPU1→GPU0")
	if fail.Status != StatusFail || strings.Contains(fail.Reason, "\n") || !strings.Contains(fail.Message, "kept its poison") {
		t.Errorf("fail: status %s, reason %q, message %q", fail.Status, fail.Reason, fail.Message)
	}
	if fail.Step != "checking every word on GPU0" || fail.Location == "" || fail.Timeline == "" {
		t.Errorf("fail lacks step/location/timeline: %q %q %d", fail.Step, fail.Location, len(fail.Timeline))
	}
	if *fail.Src != 1 || *fail.Dst != 0 || fail.GPU != nil || fail.Target != TargetPair || fail.Link != "pcie" {
		t.Errorf("fail target: %+v", fail)
	}
	tmo := findResult(t, doc, "access.host-mapped GPU1")
	if tmo.Status != StatusTimeout || tmo.Step != "waiting for the kernel on GPU1 to write the host buffer" || *tmo.GPU != 1 || tmo.Src != nil {
		t.Errorf("timeout: %+v", tmo)
	}
	if e := findResult(t, doc, "access.enable-is-directional GPU0→GPU1"); e.Status != StatusError {
		t.Errorf("a panicking spec is a harness error, got %s", e.Status)
	}
	capr := findResult(t, doc, "access.capability-per-direction GPU0→GPU1")
	if len(capr.Entries) != 2 || capr.Entries[0].Kind != KindClaim || capr.Entries[0].Source != "cuda" {
		t.Errorf("claim entries: %+v", capr.Entries)
	}
	if doc.Summary.Pass != 7 || doc.Summary.Fail != 1 || doc.Summary.Skip != 2 || doc.Summary.Timeout != 1 || doc.Summary.Error != 1 {
		t.Errorf("summary %+v", doc.Summary)
	}
	if doc.Suites[0].Name != "access" || doc.Suites[0].LabelFilter != "!kind:mutant" || doc.Suites[0].Succeeded {
		t.Errorf("suite %+v", doc.Suites[0])
	}

	ord := Convert(sys, decoded(t, reps["ordering"]), testMeta("ordering"))
	lit := findResult(t, ord, "ordering.flag-handoff-sys GPU0→GPU1")
	if v := lit.Metrics["instances_per_second"]; v == nil || *v != 1.25e6 {
		t.Errorf("metric instances_per_second = %v", v)
	}
	if v, ok := lit.Metrics["forbidden_upper_bound"]; !ok || v != nil {
		t.Errorf("a metric without a number must be null, got %v (present %v)", v, ok)
	}
	if mut := findResult(t, ord, "ordering.flag-handoff-weak GPU0→GPU1"); mut.Power == nil || !*mut.Power || mut.Kind != "mutant" {
		t.Errorf("power: %+v", mut)
	}
	if lit.PowerShown == nil || !*lit.PowerShown {
		t.Errorf("the conf check a mutant gave power to must say so: %v", lit.PowerShown)
	}
	if other := findResult(t, ord, "ordering.submission-is-not-completion GPU0"); other.PowerShown != nil {
		t.Errorf("no mutant names this check: %v", other.PowerShown)
	}
}

// TestConvertInProcessEntries covers ReportAfterSuite in the process that
// ran the specs: entry values are the Entry itself, AsJSON is empty until
// the report is encoded on its way to Convert.
func TestConvertInProcessEntries(t *testing.T) {
	sr := spec{id: "bandwidth.latency", suite: "bandwidth", kind: "info", text: "latency GPU0→GPU1", gpu: -1, src: 0, dst: 1, link: "nvlink",
		state: types.SpecStatePassed, entries: []Entry{{Kind: KindMetric, Name: "latency_us", Value: 2.5}, {Kind: KindMetric, Name: "latency_us", Value: 3}}}.report(0)
	if sr.ReportEntries[0].Value.AsJSON != "" {
		t.Fatal("fixture entry already encoded")
	}
	doc := Convert(System{Backend: "cuda"}, own(t, types.Report{SpecReports: types.SpecReports{sr}}), testMeta(""))
	r := doc.Results[0]
	if v := r.Metrics["latency_us"]; v == nil || *v != 2.5 {
		t.Errorf("latency_us = %v", v)
	}
	if v := r.Metrics["latency_us#2"]; v == nil || *v != 3 {
		t.Errorf("a repeated metric name gets #2: %v", r.Metrics)
	}
	if doc.Suites[0].Name != "bandwidth" {
		t.Errorf("suite name from the specs' suite: label = %q", doc.Suites[0].Name)
	}
}

func TestConvertSuiteNodeFailureAndInterrupt(t *testing.T) {
	specs := []spec{
		{id: "", suite: "ipc", text: "", gpu: -1, src: -1, dst: -1, state: types.SpecStateFailed, node: types.NodeTypeBeforeSuite,
			msg: "loading libcuda.so.1: libcuda.so.1: cannot open shared object file: No such file or directory"},
		{id: "ipc.event-flags", suite: "ipc", kind: "conf", text: "event flags on GPU0", gpu: 0, src: -1, dst: -1, state: types.SpecStateSkipped},
	}
	r := suiteReport("ipc", "", specs)
	r.SpecialSuiteFailureReasons = []string{"Interrupted by User"}
	doc := Convert(System{Backend: "cuda"}, own(t, r), testMeta("ipc"))
	if len(doc.Results) != 2 {
		t.Fatalf("results: %+v", doc.Results)
	}
	setup := findResult(t, doc, "ipc.(BeforeSuite) system")
	if setup.Status != StatusFail || setup.Kind != "setup" || !strings.Contains(setup.Reason, "libcuda.so.1") {
		t.Errorf("setup: %+v", setup)
	}
	notRun := findResult(t, doc, "ipc.event-flags GPU0")
	if notRun.Status != StatusError || notRun.Reason != "not run: Interrupted by User" {
		t.Errorf("a spec an interrupt kept from running: %s %q", notRun.Status, notRun.Reason)
	}
	if got := RerunCommand(doc.System, setup); got != "go tool ginkgo ./suites/ipc" {
		t.Errorf("rerun of a setup node: %q", got)
	}
}

// TestConformanceJSONSchema reads conformance.json as plain JSON, the way
// other tools will, and checks the documented layout.
func TestConformanceJSONSchema(t *testing.T) {
	dir := writeFixtureRun(t, "testdata/fake2")
	var doc map[string]any
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(dir, ConformanceFile))), &doc); err != nil {
		t.Fatal(err)
	}
	if doc["schema_version"] != float64(SchemaVersion) {
		t.Errorf("schema_version = %v", doc["schema_version"])
	}
	wantKeys := map[string][]string{
		"tool":   {"name", "version", "commit"},
		"run":    {"start", "end", "host", "args", "label_filter", "seed"},
		"system": {"backend", "host", "driver_version", "cuda_driver_version", "gpus", "pairs"},
	}
	for obj, keys := range wantKeys {
		m, _ := doc[obj].(map[string]any)
		for _, k := range keys {
			if _, ok := m[k]; !ok {
				t.Errorf("%s.%s missing", obj, k)
			}
		}
	}
	if sys := doc["system"].(map[string]any); sys["backend"] != "fake:nvlink2" {
		t.Errorf("system.backend = %v", sys["backend"])
	}
	pair := doc["system"].(map[string]any)["pairs"].([]any)[0].(map[string]any)
	if _, ok := pair["cuda"].(map[string]any)["can_access_peer"].(bool); !ok {
		t.Errorf("pairs[0].cuda.can_access_peer is not a bool: %v", pair["cuda"])
	}
	results := doc["results"].([]any)
	if len(results) != 19 {
		t.Errorf("%d results, want 19", len(results))
	}
	for _, x := range results {
		r := x.(map[string]any)
		for _, k := range []string{"check", "family", "kind", "gpu", "src", "dst", "status", "reason", "message", "metrics", "entries", "duration_ms", "spec"} {
			if _, ok := r[k]; !ok {
				t.Errorf("result %v lacks %q", r["check"], k)
			}
		}
		if _, ok := r["duration_ms"].(float64); !ok {
			t.Errorf("duration_ms is not a number: %v", r["duration_ms"])
		}
		switch r["status"] {
		case "pass", "fail", "skip", "timeout", "error":
		default:
			t.Errorf("status %v", r["status"])
		}
		if r["check"] == "bandwidth.copy-engine" && r["src"] == float64(0) {
			if m := r["metrics"].(map[string]any); m["bandwidth_gbps"] != 389.6 {
				t.Errorf("bandwidth_gbps = %#v, want the number 389.6", m["bandwidth_gbps"])
			}
			if r["gpu"] != nil {
				t.Errorf("gpu of a pair result must be null, got %v", r["gpu"])
			}
		}
		if r["check"] == "ordering.flag-handoff-sys" && r["src"] == float64(0) {
			m := r["metrics"].(map[string]any)
			if v, ok := m["forbidden_upper_bound"]; !ok || v != nil {
				t.Errorf("forbidden_upper_bound = %v (present %v), want null", v, ok)
			}
		}
	}
	sum := doc["summary"].(map[string]any)
	for k, want := range map[string]float64{"pass": 13, "fail": 1, "skip": 3, "timeout": 1, "error": 1, "total": 19} {
		if sum[k] != want {
			t.Errorf("summary.%s = %v, want %v", k, sum[k], want)
		}
	}
	if !strings.Contains(readFile(t, filepath.Join(dir, ConformanceFile)), `"bandwidth_gbps": 389.6`) {
		t.Error("numbers must be written as JSON numbers")
	}
}

func TestRunFolderFilesAndProgressiveMerge(t *testing.T) {
	sys, names, reps := loadFixture(t, "testdata/fake2")
	dir := filepath.Join(t.TempDir(), "run")
	for i, n := range names {
		if err := WriteRun(dir, sys, reps[n], testMeta(n)); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{n + SuiteGinkgoSuffix, n + SuiteJUnitSuffix, n + SuiteConformanceSuffix,
			ConformanceFile, JUnitFile, MatrixMDFile, MatrixHTMLFile} {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				t.Errorf("after suite %s: %v", n, err)
			}
		}
		merged, err := ReadDocument(filepath.Join(dir, ConformanceFile))
		if err != nil {
			t.Fatal(err)
		}
		if len(merged.Suites) != i+1 {
			t.Errorf("after %d suites the merged document has %d", i+1, len(merged.Suites))
		}
	}
	// The Ginkgo JSON written is Ginkgo's own format and reads back.
	var rs []types.Report
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(dir, "access"+SuiteGinkgoSuffix))), &rs); err != nil || len(rs) != 1 {
		t.Fatalf("access.ginkgo.json: %v", err)
	}
	// Re-rendering from the per-suite files gives the same merged view.
	before := readFile(t, filepath.Join(dir, MatrixMDFile))
	if _, err := RenderDir(dir); err != nil {
		t.Fatal(err)
	}
	if after := readFile(t, filepath.Join(dir, MatrixMDFile)); after != before {
		t.Error("RenderDir changed matrix.md")
	}
	// With only Ginkgo's JSON left, the run is still readable, as backend
	// "unknown", never as hardware.
	only := t.TempDir()
	if err := os.WriteFile(filepath.Join(only, "access"+SuiteGinkgoSuffix), []byte(readFile(t, filepath.Join(dir, "access"+SuiteGinkgoSuffix))), 0o644); err != nil {
		t.Fatal(err)
	}
	doc, err := RenderDir(only)
	if err != nil {
		t.Fatal(err)
	}
	if doc.System.Backend != "unknown" || len(doc.Results) != 12 { // the fixture's description names no backend
		t.Errorf("from Ginkgo JSON alone: backend %q, %d results", doc.System.Backend, len(doc.Results))
	}
	if !strings.Contains(readFile(t, filepath.Join(only, MatrixMDFile)), "NOT A HARDWARE RESULT") {
		t.Error("a report of unknown origin must not look like a hardware result")
	}
}

func TestJUnitShape(t *testing.T) {
	dir := writeFixtureRun(t, "testdata/fake2")
	var suites reporters.JUnitTestSuites
	written := readFile(t, filepath.Join(dir, JUnitFile))
	if err := xml.Unmarshal([]byte(written), &suites); err != nil {
		t.Fatal(err)
	}
	// The file is what Ginkgo's own JUnit types encode, byte for byte.
	if again, err := xml.MarshalIndent(suites, "", "  "); err != nil || xml.Header+string(again)+"\n" != written {
		t.Errorf("junit.xml is not what Ginkgo's JUnit types write (%v):\n%s", err, written)
	}
	if len(suites.TestSuites) != 3 || suites.Tests != 19 {
		t.Fatalf("%d suites, %d tests", len(suites.TestSuites), suites.Tests)
	}
	names := map[string]bool{}
	var access reporters.JUnitTestSuite
	for _, s := range suites.TestSuites {
		if !strings.Contains(s.Name, "[fake:nvlink2]") || !strings.Contains(s.Name, "fakehost-a") {
			t.Errorf("suite name %q must name the backend and host", s.Name)
		}
		have := map[string]bool{}
		for _, p := range s.Properties.Properties {
			have[p.Name] = true
		}
		for _, p := range []string{"backend", "driver", "cuda_driver_version", "host", "label_filter", "gpu0", "gpu1"} {
			if !have[p] {
				t.Errorf("suite %s lacks property %s", s.Name, p)
			}
		}
		if s.Properties.WithName("backend") != "fake:nvlink2" {
			t.Errorf("backend property %q", s.Properties.WithName("backend"))
		}
		for _, c := range s.TestCases {
			if names[c.Name] {
				t.Errorf("duplicate test case name %q", c.Name)
			}
			names[c.Name] = true
			if c.Classname != strings.Fields(s.Name)[0] {
				t.Errorf("classname %q in suite %q", c.Classname, s.Name)
			}
		}
		if strings.HasPrefix(s.Name, "access ") {
			access = s
		}
	}
	if access.Failures != 2 || access.Errors != 1 || access.Skipped != 2 {
		t.Errorf("access: %d failures, %d errors, %d skipped", access.Failures, access.Errors, access.Skipped)
	}
	byName := map[string]reporters.JUnitTestCase{}
	for _, c := range access.TestCases {
		byName[c.Name] = c
	}
	f, ok := byName["access.peer-copy: GPU1→GPU0 [pcie]"]
	if !ok || f.Failure == nil {
		t.Fatalf("no failing case access.peer-copy: GPU1→GPU0 [pcie]; have %v", names)
	}
	if strings.Contains(f.Failure.Message, "\n") || !strings.HasPrefix(f.Failure.Message, "word 3 of 1027") {
		t.Errorf("failure message must be one line: %q", f.Failure.Message)
	}
	for _, want := range []string{"kept its poison", "step: checking every word on GPU0",
		"rerun: P2PCONF_BACKEND=fake P2PCONF_FAKE=nvlink2 P2PCONF_PAIRS=1-0 go tool ginkgo --label-filter='id:access.peer-copy && pair:1-0' ./suites/access"} {
		if !strings.Contains(f.Failure.Description, want) {
			t.Errorf("failure body lacks %q:\n%s", want, f.Failure.Description)
		}
	}
	s := byName["access.kernel-remote-write: GPU1→GPU0 [pcie]"]
	if s.Skipped == nil || !strings.HasPrefix(s.Skipped.Message, "needs peer access") {
		t.Errorf("skip message must be the reason: %+v", s.Skipped)
	}
	if tc := byName["access.host-mapped: GPU1"]; tc.Failure == nil || tc.Failure.Type != StatusTimeout {
		t.Errorf("timeout case: %+v", tc)
	}
	if tc := byName["access.enable-is-directional: GPU0→GPU1 [nvlink]"]; tc.Error == nil {
		t.Errorf("harness error case: %+v", tc)
	}
}

func TestMatrixMarkdown(t *testing.T) {
	dir := writeFixtureRun(t, "testdata/fake2")
	md := readFile(t, filepath.Join(dir, MatrixMDFile))
	checkGolden(t, "fake2.matrix.md", md)
	for _, want := range []string{
		"# p2pconf conformance matrix — fakehost-a — fake:nvlink2",
		"NOT A HARDWARE RESULT",
		"GPU(row) → GPU(column)",
		"| **GPU1** | –¹ | X |",
		"¹ needs peer access from GPU1 to GPU0",
		"`P2PCONF_BACKEND=fake P2PCONF_FAKE=nvlink2 P2PCONF_PAIRS=1-0 go tool ginkgo --label-filter='id:access.peer-copy && pair:1-0' ./suites/access`",
		"`P2PCONF_BACKEND=fake P2PCONF_FAKE=nvlink2 P2PCONF_GPUS=1 go tool ginkgo --label-filter='id:access.host-mapped && gpu:1' ./suites/access`",
		"| *all per-GPU checks* | ✓ | T |",
		"| **GPU0** | X | 389.6 |",
		"| ordering.flag-handoff-sys | — | GPU0→GPU1 | weak | 1 of 1 showed | 412 of 1000000 | power-gated pass |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("matrix.md lacks %q", want)
		}
	}
	order := []string{"## Failures", "## Disagreements", "## Claimed vs observed", "## access", "## Bandwidth", "## Power", "## Environment"}
	last := -1
	for _, h := range order {
		i := strings.Index(md, h)
		if i < last {
			t.Errorf("section %q out of order", h)
		}
		last = i
	}
}

func TestMatrixDisagreementsFirst(t *testing.T) {
	dir := writeFixtureRun(t, "testdata/fake8")
	md := readFile(t, filepath.Join(dir, MatrixMDFile))
	dis := md[strings.Index(md, "## Disagreements"):strings.Index(md, "## Claimed vs observed")]
	for _, want := range []string{
		"**GPU2→GPU6** — sources disagree: claimed ",
		" · observed access.capability-per-direction ✗ fail\n",
		"**GPU3→GPU5** — claim vs result: claimed peer access · observed access.peer-copy ✗ fail",
		"   - claims: CUDA cuDeviceCanAccessPeer=1, NVML read=OK write=OK",
		"**GPU7→GPU0** — claim vs result",
	} {
		if !strings.Contains(dis, want) {
			t.Errorf("disagreements lack %q:\n%s", want, dis)
		}
	}
	if strings.Index(md, "## Disagreements") > strings.Index(md, "## access") {
		t.Error("disagreements must come before the family grids")
	}
	if !strings.Contains(md, "`PA --na NV18`") {
		t.Error("claimed grid must show NVML's refusal on GPU2→GPU6")
	}
}

func TestMatrixHTMLSelfContained(t *testing.T) {
	dir := writeFixtureRun(t, "testdata/fake8")
	page := readFile(t, filepath.Join(dir, MatrixHTMLFile))
	for _, banned := range []string{"<script", "http://", "https://", "<link", "@import", "src="} {
		if strings.Contains(page, banned) {
			t.Errorf("matrix.html contains %q; it must load and run nothing", banned)
		}
	}
	if !strings.Contains(page, "<style>") || !strings.Contains(page, "<title>p2pconf conformance matrix — fakehost-8 — fake:nvlink8</title>") {
		t.Error("matrix.html lacks its inline style or title")
	}
	for _, grid := range []string{"claimed", "observed", "access", "access.peer-copy"} {
		if n := gridRows(page, grid); n != 8 {
			t.Errorf("grid %s has %d rows, want 8", grid, n)
		}
	}
	if !strings.Contains(page, `<td class="fail" title="access.capability-per-direction: fail`) {
		t.Error("failed cells carry the checks in their title")
	}
}

func TestAtomicWrites(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "conformance.json")
	if err := WriteFileAtomic(path, []byte("old")); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(path, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path); got != "new" {
		t.Errorf("content %q", got)
	}
	// A write that cannot finish leaves the old file whole and no temp file.
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	err := WriteFileAtomic(path, []byte("partial"))
	_ = os.Chmod(dir, 0o755)
	if err == nil && os.Geteuid() != 0 {
		t.Error("writing into a read-only folder succeeded")
	}
	if err != nil && readFile(t, path) != "new" {
		t.Error("a failed write damaged the old file")
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

// TestInterruptedRunLeavesValidFiles: a temp file from a writer killed
// mid-write is ignored, and suites finishing at the same moment both land
// in the merged files.
func TestInterruptedRunLeavesValidFiles(t *testing.T) {
	sys, names, reps := loadFixture(t, "testdata/fake2")
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".ipc.conformance.json.tmp123"), []byte(`{"schema_ver`), 0o644); err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, len(names))
	for _, n := range names {
		go func(n string) { errs <- WriteRun(dir, sys, reps[n], testMeta(n)) }(n)
	}
	for range names {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	doc, err := ReadDocument(filepath.Join(dir, ConformanceFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Suites) != len(names) || len(doc.Results) != 19 {
		t.Errorf("concurrent suites: merged %d suites, %d results", len(doc.Suites), len(doc.Results))
	}
}

func TestWriteRunNeedsAFolder(t *testing.T) {
	if err := WriteRun("", System{}, nil, RunMeta{}); err == nil || !strings.Contains(err.Error(), "P2PCONF_REPORT_DIR") {
		t.Errorf("WriteRun without a folder: %v", err)
	}
}

func TestResolveDir(t *testing.T) {
	root := t.TempDir()
	pkg := filepath.Join(root, "suites", "access")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, RootMarker), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(pkg)
	if got, want := ResolveDir("reports/run1"), filepath.Join(root, "reports", "run1"); got != want {
		t.Errorf("ResolveDir = %s, want %s", got, want)
	}
	if got := ResolveDir("/abs/run"); got != "/abs/run" {
		t.Errorf("absolute dir changed: %s", got)
	}
}

func TestProgressLine(t *testing.T) {
	_, _, reps := loadFixture(t, "testdata/fake2")
	var out strings.Builder
	p := NewProgress(&out, "access", 12)
	for _, sr := range decoded(t, reps["access"]).SpecReports {
		p.Spec(sr)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 12 {
		t.Fatalf("%d lines for 12 selected specs:\n%s", len(lines), out.String())
	}
	for _, want := range []string{
		"[access 1/12] pass access.self-is-not-a-peer GPU0 (0.0s)",
		"[access 7/12] pass access.peer-copy GPU0→GPU1 (1.2s)",
		"[access 8/12] fail access.peer-copy GPU1→GPU0: word 3 of 1027 copied GPU1→GPU0 is 0x00000000, want 0x9e3779b9 (seed 7, size 4 KiB+3 words) (0.9s)",
		"[access 10/12] skip access.kernel-remote-write GPU1→GPU0: needs peer access from GPU1 to GPU0",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("progress lacks %q:\n%s", want, out.String())
		}
	}
}

func TestFleetView(t *testing.T) {
	a := writeFixtureRun(t, "testdata/fake2")
	b := writeFixtureRun(t, "testdata/fake8")
	var docs []Document
	for _, d := range []string{a, b} {
		ds, err := LoadInput(d)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, ds...)
	}
	hosts := ByHost(docs)
	if len(hosts) != 2 {
		t.Fatalf("%d hosts", len(hosts))
	}
	out := t.TempDir()
	if err := WriteFleet(out, hosts); err != nil {
		t.Fatal(err)
	}
	md := readFile(t, filepath.Join(out, FleetMDFile))
	for _, want := range []string{"p2pconf fleet — 2 hosts", "## access", "rerun on fakehost-8: `P2PCONF_BACKEND=fake P2PCONF_FAKE=nvlink8 P2PCONF_PAIRS=3-5 go tool ginkgo --label-filter='id:access.peer-copy && pair:3-5' ./suites/access`"} {
		if !strings.Contains(md, want) {
			t.Errorf("fleet.md lacks %q", want)
		}
	}
	for _, f := range []string{FleetJSONFile, FleetHTMLFile, JUnitFile, "hosts/fakehost-a/matrix.html", "hosts/fakehost-8/conformance.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	back, err := LoadInput(filepath.Join(out, FleetJSONFile))
	if err != nil || len(back) != 2 {
		t.Errorf("fleet.json reads back as %d documents: %v", len(back), err)
	}
	var js reporters.JUnitTestSuites
	if err := xml.Unmarshal([]byte(readFile(t, filepath.Join(out, JUnitFile))), &js); err != nil {
		t.Fatal(err)
	}
	if js.Tests != 19+184 {
		t.Errorf("fleet JUnit: %d tests", js.Tests)
	}
	for _, s := range js.TestSuites {
		host := strings.Fields(s.Name)[2]
		for _, c := range s.TestCases {
			if !strings.HasPrefix(c.Name, "["+host+"] ") {
				t.Errorf("fleet case %q in suite %q does not start with its host", c.Name, s.Name)
			}
		}
	}
}

func TestRerunCommandBackends(t *testing.T) {
	src, dst, gpu := 2, 3, 5
	pair := Result{Check: "ipc.mem-handle-roundtrip", Family: "ipc", Kind: "conf", Src: &src, Dst: &dst}
	for backend, want := range map[string]string{
		"cuda":       "P2PCONF_PAIRS=2-3 go tool ginkgo --label-filter='id:ipc.mem-handle-roundtrip && pair:2-3' ./suites/ipc",
		"fake:mixed": "P2PCONF_BACKEND=fake P2PCONF_FAKE=mixed P2PCONF_PAIRS=2-3 go tool ginkgo --label-filter='id:ipc.mem-handle-roundtrip && pair:2-3' ./suites/ipc",
		"fake:nvlink8+drop-peer-stores+lying-caps": "P2PCONF_BACKEND=fake P2PCONF_FAKE=nvlink8 P2PCONF_FAKE_DEFECTS=drop-peer-stores,lying-caps P2PCONF_PAIRS=2-3 go tool ginkgo --label-filter='id:ipc.mem-handle-roundtrip && pair:2-3' ./suites/ipc",
	} {
		if got := RerunCommand(System{Backend: backend}, pair); got != want {
			t.Errorf("%s:\n got %s\nwant %s", backend, got, want)
		}
	}
	one := Result{Check: "vmm.granularity", Family: "vmm", Kind: "conf", GPU: &gpu}
	if got := RerunCommand(System{Backend: "cuda"}, one); got != "P2PCONF_GPUS=5 go tool ginkgo --label-filter='id:vmm.granularity && gpu:5' ./suites/vmm" {
		t.Errorf("per-GPU rerun: %s", got)
	}
	sys := Result{Check: "ordering.litmus", Family: "ordering", Kind: "conf"}
	if got := RerunCommand(System{Backend: "cuda"}, sys); got != "go tool ginkgo --label-filter='id:ordering.litmus' ./suites/ordering" {
		t.Errorf("machine-wide rerun: %s", got)
	}
}

// TestCheckOnGPUsAndPairs: a "1, pair" check shows in the per-GPU rows and
// in its own pair grid.
func TestCheckOnGPUsAndPairs(t *testing.T) {
	g0, g1, a, b := 0, 1, 0, 1
	doc := Document{SchemaVersion: SchemaVersion, System: System{Backend: "cuda", Host: "h"}, Results: []Result{
		{Check: "ipc.event-handoff", Family: "ipc", Kind: "conf", Target: TargetGPU, GPU: &g0, Status: StatusPass},
		{Check: "ipc.event-handoff", Family: "ipc", Kind: "conf", Target: TargetGPU, GPU: &g1, Status: StatusPass},
		{Check: "ipc.event-handoff", Family: "ipc", Kind: "conf", Target: TargetPair, Src: &a, Dst: &b, Status: StatusFail, Reason: "stale data"},
	}}
	doc.Summary = Summarize(doc.Results)
	md := Markdown(doc)
	for _, want := range []string{"| ipc.event-handoff | ✓ | ✓ |", "ipc.event-handoff [conf] — GPU(row) → GPU(column)", "| **GPU0** | X | ✗ |"} {
		if !strings.Contains(md, want) {
			t.Errorf("matrix.md lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "NOT A HARDWARE RESULT") {
		t.Error("a cuda run is a hardware result")
	}
}

func TestBackendFromDescription(t *testing.T) {
	for desc, want := range map[string]string{"access [fake:nvlink8]": "fake:nvlink8", "ipc [cuda]": "cuda", "access": "unknown", "x []": "unknown"} {
		if got := backendFromDescription(desc); got != want {
			t.Errorf("%q: %q, want %q", desc, got, want)
		}
	}
}

// TestInconclusiveIsAnError: a spec that records an inconclusive error and
// then fails is an error with that message; nothing shown mentions a panic.
func TestInconclusiveIsAnError(t *testing.T) {
	why := "inconclusive: free memory accounting needs the GPU to itself, but another program uses it (GPU0: pid 4242 (other) holds 512 MiB); an error, not a verdict on the GPU"
	s := spec{id: "vmm.release-while-mapped", suite: "vmm", kind: "conf", text: "vmm: the driver keeps memory on GPU0 alive", gpu: 0, src: -1, dst: -1,
		state: types.SpecStateFailed, msg: why, dur: 1e9,
		entries: []Entry{{Kind: KindError, Name: ErrorInconclusive, Value: why}}}
	doc := Convert(fakeSystem(2, "fake:h200x2", "n1"), own(t, suiteReport("vmm", "", []spec{s})), testMeta("vmm"))
	r := findResult(t, doc, "vmm.release-while-mapped GPU0")
	if r.Status != StatusError || r.Reason != why || r.Message != why || doc.Summary.Error != 1 || doc.Summary.Fail != 0 {
		t.Errorf("status %s, reason %q, message %q, summary %+v", r.Status, r.Reason, r.Message, doc.Summary)
	}
	if !strings.HasPrefix(r.Timeline, "[ERROR] "+why) {
		t.Errorf("timeline:\n%s", r.Timeline)
	}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"conformance.json": string(data), "junit.xml": string(JUnit(doc)), "matrix.md": Markdown(doc), "matrix.html": HTML(doc)} {
		for _, bad := range []string{"panic", "Panicked", "goroutine", "Test Panicked"} {
			if strings.Contains(text, bad) {
				t.Errorf("%s mentions %q", name, bad)
			}
		}
	}
}
