// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package preflight

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/p2pconf/p2pconf/harness/report"
)

func ip(v int) *int             { return &v }
func bp(v bool) *bool           { return &v }
func fp(v float64) *float64     { return &v }
func tp(t time.Time) *time.Time { return &t }

// twoGPUs is a clean two-GPU NVLink machine as a report records it.
func twoGPUs() report.System {
	sys := report.System{Backend: "cuda", Host: "node1", DriverVersion: "580.159.04",
		GPUs: []report.GPU{{Ordinal: 0, Name: "NVIDIA H200", UUID: "GPU-a", PCIBusID: "00000000:1B:00.0", TotalMemory: 141 << 30, NVMLIndex: ip(0)},
			{Ordinal: 1, Name: "NVIDIA H200", UUID: "GPU-b", PCIBusID: "00000000:43:00.0", TotalMemory: 141 << 30, NVMLIndex: ip(1)}}}
	for _, p := range [][2]int{{0, 1}, {1, 0}} {
		pr := report.Pair{Src: p[0], Dst: p[1], Link: "nvlink"}
		pr.CUDA.CanAccessPeer = bp(true)
		pr.NVML.Read, pr.NVML.Write, pr.NVML.TopologyLevel, pr.NVML.NVLinkCount = "P2P_STATUS_OK", "P2P_STATUS_OK", "SYS", 18
		sys.Pairs = append(sys.Pairs, pr)
	}
	sys.Platform = &report.Platform{
		GPUs: []report.PlatformGPU{{GPU: 0, Virtualization: "NONE", NVLinks: "18 of 18 active: 18 × NVLink 4.0", PCIe: "Gen5 x16 of max Gen5 x16"},
			{GPU: 1, Virtualization: "NONE", NVLinks: "18 of 18 active: 18 × NVLink 4.0", PCIe: "Gen5 x16 of max Gen5 x16"}},
		Paths: []report.PlatformPath{{Src: 0, Dst: 1, ACS: "no bridge between them"}}}
	return sys
}

// cleanDoc has every profile check passing on both GPUs and both pairs.
func cleanDoc() report.Document {
	start := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	doc := report.Document{System: twoGPUs(), Run: report.Run{Start: tp(start), End: tp(start.Add(8 * time.Second))}}
	for _, s := range Suites() {
		doc.Suites = append(doc.Suites, report.SuiteRun{Name: s, Succeeded: true})
	}
	for _, role := range Profile {
		switch role.Check {
		case "health.no-xid", "health.fabric", "access.local-copy":
			for g := 0; g < 2; g++ {
				doc.Results = append(doc.Results, report.Result{Check: role.Check, Kind: "conf", Target: "gpu", GPU: ip(g), Status: report.StatusPass})
			}
		default:
			for _, p := range [][2]int{{0, 1}, {1, 0}} {
				r := report.Result{Check: role.Check, Kind: "conf", Target: "pair", Src: ip(p[0]), Dst: ip(p[1]), Status: report.StatusPass}
				if role.Check == "bandwidth.link-efficiency" {
					r.Metrics = map[string]*float64{"bandwidth_gbps": fp(396), "link_efficiency.ce.uni": fp(0.83)}
				}
				doc.Results = append(doc.Results, r)
			}
		}
	}
	return doc
}

// set changes the result of check on the pair src→dst (or GPU src when
// dst < 0).
func set(doc *report.Document, check string, src, dst int, status, reason string) {
	for i, r := range doc.Results {
		if r.Check != check {
			continue
		}
		if dst < 0 && r.GPU != nil && *r.GPU == src || dst >= 0 && r.Src != nil && *r.Src == src && *r.Dst == dst {
			doc.Results[i].Status, doc.Results[i].Reason = status, reason
		}
	}
}

func TestJudge(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*report.Document)
		node   Status
		target string // the target whose verdict is checked, and First's
		check  string
	}{
		{"clean", func(*report.Document) {}, Pass, "", ""},
		{"peer store dropped", func(d *report.Document) {
			set(d, "access.kernel-remote-write", 0, 1, report.StatusFail, "GPU1's buffer: word 0 is 0xdead")
		}, Fail, "0-1", "access.kernel-remote-write"},
		{"refused enable where claims say yes", func(d *report.Document) {
			set(d, "access.capability-per-direction", 1, 0, report.StatusFail, "cuCtxEnablePeerAccess: 217 PEER_ACCESS_UNSUPPORTED")
		}, Fail, "1-0", "access.capability-per-direction"},
		{"below the floor", func(d *report.Document) {
			set(d, "bandwidth.link-efficiency", 0, 1, report.StatusFail, "GPU0→GPU1 moves less than 60 % of its nominal rate")
		}, Warn, "0-1", "bandwidth.link-efficiency"},
		{"above the link", func(d *report.Document) {
			set(d, "bandwidth.link-efficiency", 0, 1, report.StatusFail, "GPU0→GPU1 moves more than the link carries: 900 GB/s")
		}, Fail, "0-1", "bandwidth.link-efficiency"},
		{"wrong data in the bandwidth check is no degradation", func(d *report.Document) {
			set(d, "bandwidth.link-efficiency", 0, 1, report.StatusFail, "GPU1's memory after 4 batches: 1 of 1024 words differ")
		}, Fail, "0-1", "bandwidth.link-efficiency"},
		{"counters grew", func(d *report.Document) {
			set(d, "health.link-errors", 1, 0, report.StatusFail, "replay counter grew by 3")
		}, Warn, "1-0", "health.link-errors"},
		{"harness error", func(d *report.Document) {
			set(d, "access.peer-copy", 0, 1, report.StatusError, "cuMemAlloc: out of memory")
		}, Unknown, "0-1", "access.peer-copy"},
		{"xid", func(d *report.Document) {
			set(d, "health.no-xid", 1, -1, report.StatusFail, "Xid 79 on GPU1")
		}, Fail, "1", "health.no-xid"},
		{"fail wins over unknown", func(d *report.Document) {
			set(d, "access.peer-copy", 0, 1, report.StatusError, "cuMemAlloc: out of memory")
			set(d, "ordering.flag-handoff-sys", 1, 0, report.StatusFail, "stale data after the flag")
		}, Fail, "1-0", "ordering.flag-handoff-sys"},
		{"suite missing", func(d *report.Document) {
			d.Suites = d.Suites[1:]
		}, Unknown, "node", "suite access"},
		{"suite not launched on this machine is not missing", func(d *report.Document) {
			d.Schedule = &report.Schedule{Rounds: []report.ScheduleRound{{Processes: []report.ScheduleProcess{{Suite: "health"}, {Suite: "access"}}}}}
			d.Suites = d.Suites[:1] // access only: health was launched and left nothing
		}, Unknown, "node", "suite health"},
		{"contended", func(d *report.Document) {
			for i, r := range d.Results {
				if r.Check == "bandwidth.link-efficiency" {
					d.Results[i].Contended = true
				}
			}
		}, Unknown, "0-1", "bandwidth.link-efficiency"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := cleanDoc()
			tc.change(&doc)
			v := Judge(doc, Options{})
			if v.Verdict != tc.node {
				t.Fatalf("node verdict %s, want %s (%s)", v.Verdict, tc.node, v.Summary)
			}
			if tc.node == Pass {
				if v.First != nil || v.Action != "none" || len(v.Pairs) != 2 || len(v.GPUs) != 2 {
					t.Fatalf("clean run: first %+v, action %q, %d pairs, %d GPUs", v.First, v.Action, len(v.Pairs), len(v.GPUs))
				}
				if v.Pairs[0].Bandwidth == nil || *v.Pairs[0].Bandwidth != 396 {
					t.Fatalf("pair 0-1 bandwidth %v, want 396", v.Pairs[0].Bandwidth)
				}
				return
			}
			if v.First == nil || v.First.Target != tc.target || v.First.Check != tc.check {
				t.Fatalf("first problem %+v, want %s %s", v.First, tc.target, tc.check)
			}
			if !strings.Contains(v.Summary, tc.target+" "+tc.check) || v.Action == "" || v.Action == "none" {
				t.Fatalf("summary %q, action %q", v.Summary, v.Action)
			}
			if got := DrainReason(v); got != "p2pconf: "+tc.target+" "+tc.check {
				t.Fatalf("drain reason %q", got)
			}
			for _, p := range v.Pairs {
				if p.ID == tc.target && p.Verdict == Fail && (p.NCCL == nil || p.NCCL.Setting == "") {
					t.Fatalf("failing pair %s has no NCCL setting", p.ID)
				}
				if p.ID == tc.target && (strings.Contains(p.Action, "see the causes") || p.Action == "") {
					t.Fatalf("pair %s: action %q points at causes none of the rules named", p.ID, p.Action)
				}
				if p.ID != tc.target && tc.name != "fail wins over unknown" && tc.name != "contended" && p.Verdict != Pass {
					t.Fatalf("pair %s is %s, want PASS", p.ID, p.Verdict)
				}
			}
		})
	}
}

// A pair without a peer-access claim whose probes skipped (and whose
// claims check passed) passes: nothing claims P2P there, and nothing works.
func TestJudgeNoClaimPasses(t *testing.T) {
	doc := cleanDoc()
	for i := range doc.System.Pairs {
		doc.System.Pairs[i].CUDA.CanAccessPeer = bp(false)
	}
	for i, r := range doc.Results {
		if r.Src != nil && r.Check != "access.capability-per-direction" {
			doc.Results[i].Status, doc.Results[i].Reason = report.StatusSkip, "needs cuDeviceCanAccessPeer=1 (found 0)"
		}
	}
	v := Judge(doc, Options{})
	if v.Verdict != Pass || !strings.Contains(v.Pairs[0].Action, "claims no peer access") {
		t.Fatalf("verdict %s, pair action %q", v.Verdict, v.Pairs[0].Action)
	}
	// With the claim, probes that all skipped are no pass.
	doc.System.Pairs[0].CUDA.CanAccessPeer = bp(true)
	for i, r := range doc.Results {
		if r.Check == "access.capability-per-direction" {
			doc.Results[i].Status = report.StatusSkip
		}
	}
	if v := Judge(doc, Options{}); v.Verdict != Unknown || v.Pairs[0].Verdict != Unknown {
		t.Fatalf("claimed pair with every probe skipped: node %s, pair %s", v.Verdict, v.Pairs[0].Verdict)
	}
}

// fakeSysfs writes the files the rules read for the GPU at bdf.
func fakeSysfs(t *testing.T, root, bdf, groupType string, bar1 uint64) {
	t.Helper()
	dev := filepath.Join(root, "sys/bus/pci/devices", bdf)
	if err := os.MkdirAll(filepath.Join(dev, "iommu_group"), 0o755); err != nil {
		t.Fatal(err)
	}
	if groupType != "" {
		if err := os.WriteFile(filepath.Join(dev, "iommu_group", "type"), []byte(groupType+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := "0x00000000fb000000 0x00000000fbffffff 0x0000000000040200\n" +
		"0x0000210000000000 " + "0x" + strings.TrimLeft(hex(0x210000000000+bar1-1), "0") + " 0x000000000014220c\n" +
		"0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
	if err := os.WriteFile(filepath.Join(dev, "resource"), []byte(res), 0o644); err != nil {
		t.Fatal(err)
	}
}

func hex(v uint64) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 16)
	for i := 15; i >= 0; i-- {
		out[i] = digits[v&0xf]
		v >>= 4
	}
	return string(out)
}

func rules(cs []Cause) string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Rule)
		if c.Finding == "" || c.Fix == "" || c.Source == "" {
			panic("a cause without finding, fix or source: " + c.Rule)
		}
	}
	return strings.Join(out, ",")
}

func TestCauses(t *testing.T) {
	failing := []Outcome{{Check: "access.kernel-remote-write", Verdict: Fail}}
	for _, tc := range []struct {
		name   string
		sys    func(*report.System)
		sysfs  func(t *testing.T, root string)
		checks []Outcome
		want   string
	}{
		{"healthy machine names no cause", nil, func(t *testing.T, root string) {
			fakeSysfs(t, root, "0000:1b:00.0", "identity", 256<<30)
			fakeSysfs(t, root, "0000:43:00.0", "identity", 256<<30)
		}, failing, ""},
		{"ACS redirect on a bridge", func(s *report.System) {
			s.Platform.Paths[0].ACS = "0000:00:01.0 SrcValid+ ReqRedir+ CmpltRedir+"
			s.Platform.Paths[0].Redirects = []string{"0000:00:01.0"}
		}, nil, failing, "acs-redirect"},
		{"IOMMU translating", nil, func(t *testing.T, root string) {
			fakeSysfs(t, root, "0000:1b:00.0", "DMA-FQ", 256<<30)
			fakeSysfs(t, root, "0000:43:00.0", "DMA", 256<<30)
		}, failing, "iommu-translated"},
		{"VM passthrough", func(s *report.System) { s.Platform.GPUs[1].Virtualization = "PASSTHROUGH" }, nil, failing, "virtualized"},
		{"hypervisor CPU flag", nil, func(t *testing.T, root string) {
			if err := os.MkdirAll(filepath.Join(root, "proc"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, "proc/cpuinfo"), []byte("processor\t: 0\nflags\t\t: fpu vme hypervisor lahf_lm\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, failing, "virtualized"},
		{"a pass-through VM with only a health check failing names no cause", func(s *report.System) { s.Platform.GPUs[1].Virtualization = "PASSTHROUGH" },
			nil, []Outcome{{Check: "health.link-errors", Verdict: Warn}}, ""},
		{"small BAR1", nil, func(t *testing.T, root string) {
			fakeSysfs(t, root, "0000:1b:00.0", "identity", 256<<20)
		}, failing, "bar1-small"},
		{"NVML P2P status", func(s *report.System) { s.Pairs[0].NVML.Read = "P2P_STATUS_CHIPSET_NOT_SUPPORTED" }, nil, failing, "nvml-p2p-status"},
		{"interposed driver library", func(s *report.System) {
			s.Env = map[string]string{"P2PCONF_LIBCUDA": "/tmp/libcuda-shim.so"}
		}, nil, failing, "driver-library"},
		{"links down", func(s *report.System) { s.Platform.GPUs[0].NVLinks = "16 of 18 active: 16 × NVLink 4.0" }, nil, failing, "links-inactive"},
		{"links-up failed", nil, nil, []Outcome{{Check: "health.links-up", Verdict: Fail, Reason: "12 of 18 links active"}}, "links-inactive"},
		{"PCIe trained down under a slow pair", func(s *report.System) {
			s.Platform.GPUs[0].PCIe = "Gen3 x16 of max Gen5 x16 (below maximum)"
		}, nil, []Outcome{{Check: "bandwidth.link-efficiency", Verdict: Warn}}, "pcie-downtrained"},
		{"PCIe below max with no slow pair says nothing", func(s *report.System) {
			s.Platform.GPUs[0].PCIe = "Gen3 x16 of max Gen5 x16 (below maximum)"
		}, nil, failing, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sys := twoGPUs()
			if tc.sys != nil {
				tc.sys(&sys)
			}
			root := t.TempDir()
			if tc.sysfs != nil {
				tc.sysfs(t, root)
			}
			if got := rules(Causes(sys, 0, 1, tc.checks, root)); got != tc.want {
				t.Fatalf("causes %q, want %q", got, tc.want)
			}
		})
	}
}

func TestGPUCauses(t *testing.T) {
	doc := cleanDoc()
	doc.System.Env = map[string]string{"P2PCONF_LIBCUDA": "/tmp/libcuda-shim.so"}
	set(&doc, "access.local-copy", 0, -1, report.StatusFail, "word 8388608 differs")
	v := Judge(doc, Options{})
	if v.Verdict != Fail || v.First.Target != "0" || v.First.Check != "access.local-copy" || !strings.Contains(v.First.Cause, "P2PCONF_LIBCUDA=/tmp/libcuda-shim.so") {
		t.Fatalf("verdict %s, first %+v", v.Verdict, v.First)
	}
	if !strings.Contains(v.Summary, "likely cause: the suites loaded the CUDA driver from P2PCONF_LIBCUDA") {
		t.Fatalf("summary %q", v.Summary)
	}
	if got := rules(GPUCauses(twoGPUs(), 0, nil, "")); got != "" {
		t.Fatalf("a clean GPU has causes %q", got)
	}
	// A local copy that fails in a pass-through VM is not the hypervisor's
	// doing: it never leaves the GPU.
	vm := twoGPUs()
	vm.Platform.GPUs[0].Virtualization = "PASSTHROUGH"
	if got := rules(GPUCauses(vm, 0, []Outcome{{Check: "access.local-copy", Verdict: Fail}}, "")); got != "" {
		t.Fatalf("a local-copy failure in a VM has causes %q", got)
	}
}

func TestSysfsReaders(t *testing.T) {
	root := t.TempDir()
	fakeSysfs(t, root, "0000:1b:00.0", "DMA-FQ", 256<<30)
	if got := IOMMUGroupType(root, "00000000:1B:00.0"); got != "DMA-FQ" {
		t.Fatalf("IOMMU group type %q", got)
	}
	if got := BAR1Size(root, "00000000:1B:00.0"); got != 256<<30 {
		t.Fatalf("BAR1 %d", got)
	}
	if IOMMUGroupType(root, "00000000:99:00.0") != "" || BAR1Size(root, "garbage") != 0 || BAR1Size("", "00000000:1B:00.0") != 0 {
		t.Fatal("a missing device must read as unknown")
	}
}

func TestNCCL(t *testing.T) {
	sys := twoGPUs()
	if a := NCCLFor(sys, 0, 1); a.Setting != "NCCL_P2P_DISABLE=1" || !strings.Contains(a.Source, "env.html") {
		t.Fatalf("NVLink pair: %+v", a)
	}
	for level, want := range map[string]string{"PXB": "NCCL_P2P_LEVEL=PIX", "PHB": "NCCL_P2P_LEVEL=PXB", "NODE": "NCCL_P2P_LEVEL=PXB",
		"SYS": "NCCL_P2P_LEVEL=PHB", "PIX": "NCCL_P2P_LEVEL=NVL", "": "NCCL_P2P_DISABLE=1"} {
		sys.Pairs[0].Link, sys.Pairs[0].NVML.TopologyLevel = "pcie", level
		if a := NCCLFor(sys, 0, 1); a.Setting != want {
			t.Errorf("PCIe pair at %q: %s, want %s", level, a.Setting, want)
		}
	}
}

func TestTextfile(t *testing.T) {
	doc := cleanDoc()
	set(&doc, "access.kernel-remote-write", 0, 1, report.StatusFail, "dropped")
	v := Judge(doc, Options{})
	v.Tool.Version = "v0.1.0"
	dir := t.TempDir()
	path, err := WriteTextfile(dir, v)
	if err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || ents[0].Name() != TextfileName {
		t.Fatalf("textfile folder holds %v, want only %s", ents, TextfileName)
	}
	f, _ := os.Open(path)
	defer f.Close()
	parser := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := parser.TextToMetricFamilies(f)
	if err != nil {
		t.Fatal(err)
	}
	find := func(name string, labels map[string]string) float64 {
		t.Helper()
		fam, ok := fams[name]
		if !ok {
			t.Fatalf("no %s", name)
		}
	next:
		for _, m := range fam.Metric {
			if m.TimestampMs != nil {
				t.Fatalf("%s carries a timestamp", name)
			}
			got := map[string]string{}
			for _, l := range m.Label {
				got[l.GetName()] = l.GetValue()
			}
			for k, want := range labels {
				if got[k] != want {
					continue next
				}
			}
			return m.GetGauge().GetValue()
		}
		t.Fatalf("no %s with %v", name, labels)
		return 0
	}
	if got := find("p2pconf_preflight_node_verdict", map[string]string{"Hostname": "node1"}); got != 3 {
		t.Fatalf("node verdict %v, want 3 (FAIL)", got)
	}
	pair01 := map[string]string{"Hostname": "node1", "gpu": "0", "UUID": "GPU-a", "pci_bus_id": "00000000:1B:00.0", "device": "nvidia0",
		"modelName": "NVIDIA H200", "peer_gpu": "1", "peer_UUID": "GPU-b"}
	withCheck := map[string]string{"check": "access.kernel-remote-write"}
	for k, v := range pair01 {
		withCheck[k] = v
	}
	if got := find("p2pconf_preflight_pair_check_verdict", withCheck); got != 3 {
		t.Fatalf("0-1 kernel-remote-write %v, want 3", got)
	}
	if got := find("p2pconf_preflight_copy_bandwidth_bytes_per_second", map[string]string{"gpu": "1", "peer_gpu": "0", "engine": "copy", "direction": "unidirectional"}); got != 396e9 {
		t.Fatalf("1-0 copy bandwidth %v", got)
	}
	if got := find("p2pconf_preflight_link_efficiency_ratio", map[string]string{"gpu": "1"}); got != 0.83 {
		t.Fatalf("1-0 efficiency %v", got)
	}
	if got := find("p2pconf_build_info", map[string]string{"version": "v0.1.0"}); got != 1 {
		t.Fatalf("build info %v", got)
	}
	if got := find("p2pconf_preflight_last_run_timestamp_seconds", nil); got != float64(v.End.Unix()) {
		t.Fatalf("last run %v", got)
	}
	for name := range fams {
		if !model.LegacyValidation.IsValidMetricName(name) {
			t.Fatalf("metric name %q", name)
		}
	}
}

func TestDoors(t *testing.T) {
	doc := cleanDoc()
	v := Judge(doc, Options{})
	end := *v.End
	if code, line := StatusLine(v, end.Add(time.Minute), time.Hour); code != ExitOK || !strings.HasPrefix(line, "p2pconf PASS") || strings.Contains(line, "\n") {
		t.Fatalf("fresh pass: %d %q", code, line)
	}
	if code, _ := StatusLine(v, end.Add(2*time.Hour), time.Hour); code != ExitUnknown {
		t.Fatalf("stale pass: %d, want %d", code, ExitUnknown)
	}
	set(&doc, "access.peer-copy", 1, 0, report.StatusFail, "word 3 differs")
	v = Judge(doc, Options{})
	if code, line := StatusLine(v, end, 0); code != ExitProblem || !strings.Contains(line, "1-0 access.peer-copy") {
		t.Fatalf("fail: %d %q", code, line)
	}
	path := filepath.Join(t.TempDir(), "features.d", FeaturesFileName)
	if err := WriteFeatures(path, v, 2*time.Hour); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	for _, want := range []string{"# +expiry-time=2026-03-01T12:00:08Z\n", LabelPrefix + "preflight.verdict=FAIL\n",
		LabelPrefix + "preflight.pairs-failing=1\n", LabelPrefix + "preflight.failing=1-0\n", LabelPrefix + "preflight.version=unknown\n"} {
		if !strings.Contains(string(data), want) {
			t.Fatalf("features file lacks %q:\n%s", want, data)
		}
	}
	if got := labelValue("v0.1.0+dirty/with spaces and a very long tail that goes on and on and on past sixty-three"); len(got) > 63 || strings.ContainsAny(got, "+/ ") {
		t.Fatalf("label value %q", got)
	}
	vp := filepath.Join(t.TempDir(), VerdictFile)
	if err := Write(vp, v); err != nil {
		t.Fatal(err)
	}
	back, err := Read(filepath.Dir(vp))
	if err != nil || back.Verdict != Fail || back.First.Check != "access.peer-copy" {
		t.Fatalf("read back %+v, %v", back.First, err)
	}
}

func TestProfile(t *testing.T) {
	f := Filter()
	for _, r := range Profile {
		if !strings.Contains(f, "id:"+r.Check) || r.Action == "" || r.Probe == "" {
			t.Fatalf("profile entry %+v", r)
		}
	}
	if got := strings.Join(Suites(), ","); got != "access,atomics,bandwidth,health,ordering" {
		t.Fatalf("suites %s", got)
	}
}

// A run on some of the machine's GPUs (P2PCONF_GPUS=0) is judged on those:
// the GPU it did not select and the pairs with it are no UNKNOWN, and the
// verdict names the selection.
func TestJudgeSpeaksForTheSelectedGPUsOnly(t *testing.T) {
	doc := cleanDoc()
	var kept []report.Result
	for _, r := range doc.Results {
		if r.GPU != nil && *r.GPU == 0 {
			kept = append(kept, r)
		}
	}
	doc.Results = kept
	if v := Judge(doc, Options{}); v.Verdict != Unknown {
		t.Fatalf("all GPUs judged: verdict %s, want UNKNOWN for GPU1 and the pairs", v.Verdict)
	}
	v := Judge(doc, Options{GPUs: []int{0}})
	if v.Verdict != Pass || len(v.GPUs) != 1 || len(v.Pairs) != 0 || !slices.Equal(v.Selected, []int{0}) {
		t.Fatalf("GPU0 selected: verdict %s (%s), %d GPUs, %d pairs, selected %v", v.Verdict, v.Summary, len(v.GPUs), len(v.Pairs), v.Selected)
	}
	if v := Judge(cleanDoc(), Options{GPUs: []int{0, 1}}); v.Verdict != Pass || v.Selected != nil {
		t.Fatalf("every GPU selected: verdict %s, selected %v (want none named)", v.Verdict, v.Selected)
	}
}

// dcgmExporterSample is one GPU metric line as dcgm-exporter 4.5.3-4.8.2
// writes it for the fixture's GPU0 (the label names and value forms of
// internal/pkg/rendermetrics/render_metrics.go and
// internal/pkg/collector/base_collector.go; the value is made up).
const dcgmExporterSample = `DCGM_FI_DEV_SM_CLOCK{gpu="0",UUID="GPU-a",pci_bus_id="00000000:1B:00.0",device="nvidia0",modelName="NVIDIA H200",Hostname="node1"} 1980
`

// TestTextfileJoinsDCGMExporter holds every per-GPU and per-pair metric of
// the textfile to dcgm-exporter's label names and value forms: a query that
// joins on any of gpu, UUID, pci_bus_id, device, modelName or Hostname
// matches the sample line of the same GPU.
func TestTextfileJoinsDCGMExporter(t *testing.T) {
	sp := expfmt.NewTextParser(model.LegacyValidation)
	sample, err := sp.TextToMetricFamilies(strings.NewReader(dcgmExporterSample))
	if err != nil {
		t.Fatal(err)
	}
	dcgm := map[string]string{}
	for _, l := range sample["DCGM_FI_DEV_SM_CLOCK"].GetMetric()[0].GetLabel() {
		dcgm[l.GetName()] = l.GetValue()
	}
	if len(dcgm) != 6 {
		t.Fatalf("sample labels %v", dcgm)
	}
	doc := cleanDoc()
	v := Judge(doc, Options{})
	path, err := WriteTextfile(t.TempDir(), v)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	parser := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := parser.TextToMetricFamilies(f)
	if err != nil {
		t.Fatal(err)
	}
	forms := map[string]*regexp.Regexp{
		"gpu": regexp.MustCompile(`^[0-9]+$`), "UUID": regexp.MustCompile(`^GPU-`),
		"pci_bus_id": regexp.MustCompile(`^[0-9A-F]{8}:[0-9A-F]{2}:[0-9A-F]{2}\.[0-7]$`),
		"device":     regexp.MustCompile(`^nvidia[0-9]+$`), "modelName": regexp.MustCompile(`^NVIDIA `),
		"Hostname": regexp.MustCompile(`.`),
	}
	perGPU, joined := 0, 0
	for name, fam := range fams {
		for _, m := range fam.GetMetric() {
			got := map[string]string{}
			for _, l := range m.GetLabel() {
				got[l.GetName()] = l.GetValue()
			}
			if _, ok := got["gpu"]; !ok {
				continue
			}
			perGPU++
			for k := range dcgm {
				if !forms[k].MatchString(got[k]) {
					t.Errorf("%s %v: %s=%q is not dcgm-exporter's form %s", name, got, k, got[k], forms[k])
				}
			}
			if got["gpu"] != dcgm["gpu"] {
				continue
			}
			joined++
			for k, want := range dcgm {
				if got[k] != want {
					t.Errorf("%s %v: %s=%q, dcgm-exporter writes %q for the same GPU", name, got, k, got[k], want)
				}
			}
		}
	}
	if perGPU == 0 || joined == 0 {
		t.Fatalf("%d per-GPU samples, %d of GPU0; want some of each", perGPU, joined)
	}
}

// TestDeviceNameNeedsNVML: without an NVML index the device label is empty
// (Prometheus reads no label) rather than guessed from the CUDA ordinal.
func TestDeviceNameNeedsNVML(t *testing.T) {
	if got := DeviceName(report.GPU{Ordinal: 3}); got != "" {
		t.Errorf("DeviceName without NVML = %q, want empty", got)
	}
	if got := DeviceName(report.GPU{Ordinal: 3, NVMLIndex: ip(5)}); got != "nvidia5" {
		t.Errorf("DeviceName(NVML index 5) = %q, want nvidia5", got)
	}
}
