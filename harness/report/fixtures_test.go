// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"
)

// The fixtures in testdata/ are Ginkgo JSON reports built by hand here (no
// GPU run produced them), in exactly the form Ginkgo's --json-report and
// WriteRun write. Regenerate them and the golden files with
//
//	go test ./harness/report -run TestFixtures -update
var update = flag.Bool("update", false, "rewrite testdata fixtures and golden files")

var t0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

// spec is one hand-written spec outcome.
type spec struct {
	id, suite, kind, text string
	gpu                   int // -1: none
	src, dst              int // -1: none
	link                  string
	state                 types.SpecState
	msg, step             string
	dur                   time.Duration
	entries               []Entry
	extraLabels           []string
	node                  types.NodeType
}

func (s spec) report(i int) types.SpecReport {
	labels := []string{"id:" + s.id, "suite:" + s.suite, "kind:" + s.kind}
	switch {
	case s.src >= 0:
		labels = append(labels, "gpus:pair", fmt.Sprintf("pair:%d-%d", s.src, s.dst), "link:"+s.link)
	case s.gpu >= 0:
		labels = append(labels, "gpus:1", fmt.Sprintf("gpu:%d", s.gpu))
	default:
		labels = append(labels, "gpus:3+")
	}
	labels = append(labels, s.extraLabels...)
	start := t0.Add(time.Duration(i) * 2 * time.Second)
	node := s.node
	if node == 0 {
		node = types.NodeTypeIt
	}
	sr := types.SpecReport{
		ContainerHierarchyTexts:  []string{s.suite},
		ContainerHierarchyLabels: [][]string{{}},
		LeafNodeType:             node,
		LeafNodeLocation:         types.CodeLocation{FileName: "/src/p2pconf/suites/" + s.suite + "/" + s.suite + "_test.go", LineNumber: 40 + i},
		LeafNodeText:             s.text,
		State:                    s.state,
		StartTime:                start,
		EndTime:                  start.Add(s.dur),
		RunTime:                  s.dur,
		ParallelProcess:          1,
		NumAttempts:              1,
		IsSerial:                 true,
	}
	if node == types.NodeTypeIt {
		sr.LeafNodeLabels = labels
	}
	if s.step != "" {
		sr.SpecEvents = types.SpecEvents{{SpecEventType: types.SpecEventByStart, Message: s.step,
			CodeLocation:     sr.LeafNodeLocation,
			TimelineLocation: types.TimelineLocation{Time: start.Add(s.dur / 2)}}}
	}
	if s.msg != "" {
		sr.Failure = types.Failure{Message: s.msg, Location: types.CodeLocation{FileName: sr.LeafNodeLocation.FileName, LineNumber: 50 + i},
			FailureNodeType: node, FailureNodeLocation: sr.LeafNodeLocation,
			TimelineLocation: types.TimelineLocation{Time: start.Add(s.dur)}}
		if s.state == types.SpecStateTimedout {
			sr.Failure.ProgressReport = types.ProgressReport{CurrentStepText: s.step}
		}
	}
	for _, e := range s.entries {
		sr.ReportEntries = append(sr.ReportEntries, types.ReportEntry{Name: EntryName, Value: types.WrapEntryValue(e),
			Time: start, TimelineLocation: types.TimelineLocation{Time: start}})
	}
	return sr
}

func suiteReport(name, labelFilter string, specs []spec) types.Report {
	r := types.Report{
		SuitePath: "/src/p2pconf/suites/" + name, SuiteDescription: name, SuiteLabels: []string{"suite:" + name},
		SuiteSucceeded: true, StartTime: t0, SuiteConfig: types.SuiteConfig{RandomSeed: 1740823200, LabelFilter: labelFilter},
		PreRunStats: types.PreRunStats{TotalSpecs: len(specs)},
	}
	for i, s := range specs {
		sr := s.report(i)
		if sr.State.Is(types.SpecStateFailureStates) {
			r.SuiteSucceeded = false
		}
		if sr.State != types.SpecStateSkipped || s.msg != "" {
			r.PreRunStats.SpecsThatWillRun++
		}
		r.SpecReports = append(r.SpecReports, sr)
		if sr.EndTime.After(r.EndTime) {
			r.EndTime = sr.EndTime
		}
	}
	r.RunTime = r.EndTime.Sub(r.StartTime)
	return r
}

func ip(v int) *int     { return &v }
func bp(v bool) *bool   { return &v }
func num(v float64) any { return json.Number(fmt.Sprint(v)) }

// fakeSystem is an all-NVLink machine of n GPUs; lying pairs claim what
// they cannot do.
func fakeSystem(n int, backend, host string) System {
	s := System{Backend: backend, Host: host, DriverVersion: "580.159.04", CUDAVersion: 13000, NVMLVersion: "13.580.159.04",
		Kernel: "6.8.0-fake", IOMMU: "off", Env: map[string]string{"P2PCONF_BACKEND": backend}}
	for i := 0; i < n; i++ {
		s.GPUs = append(s.GPUs, GPU{Ordinal: i, Name: "NVIDIA H200", UUID: fmt.Sprintf("GPU-%08x-0000-4000-8000-%012x", i, i),
			PCIBusID: fmt.Sprintf("00000000:%02X:00.0", 0x18+8*i), ComputeCapability: 90, SMCount: 132, TotalMemory: 150754820096})
	}
	for a := 0; a < n; a++ {
		for b := 0; b < n; b++ {
			if a == b {
				continue
			}
			p := Pair{Src: a, Dst: b, Link: "nvlink"}
			p.CUDA.CanAccessPeer, p.CUDA.AccessSupported = bp(true), ip(1)
			p.CUDA.NativeAtomicSupported, p.CUDA.PartialNativeAtomic, p.CUDA.PerformanceRank = ip(1), ip(0), ip(0)
			p.CUDA.CudaArrayAccessSupported = ip(1)
			p.CUDA.AtomicCapabilities = map[string]string{"CU_ATOMIC_OPERATION_INTEGER_ADD": "SIGNED|UNSIGNED|SCALAR_32|SCALAR_64"}
			p.NVML.Read, p.NVML.Write, p.NVML.NVLink, p.NVML.Atomics = "P2P_STATUS_OK", "P2P_STATUS_OK", "P2P_STATUS_OK", "P2P_STATUS_OK"
			p.NVML.PCI, p.NVML.TopologyLevel, p.NVML.NVLinkCount = "P2P_STATUS_OK", "TOPOLOGY_NODE", 18
			s.Pairs = append(s.Pairs, p)
		}
	}
	return s
}

func claims(a, b int, cuda, nvml string) []Entry {
	return []Entry{
		{Kind: KindClaim, Source: "cuda", Name: "cuDeviceCanAccessPeer", Value: cuda, Detail: fmt.Sprintf("accessor GPU%d, owner GPU%d", a, b)},
		{Kind: KindClaim, Source: "nvml", Name: "P2P_CAPS_INDEX_READ", Value: nvml},
	}
}

// fake2 is a two-GPU fake run: passes, a failure, skips with reasons, a
// timeout, a harness error, per-GPU and per-pair specs, claim, metric,
// finding and power entries, and one spec the label filter left out.
// regressed flips access.peer-copy GPU0→GPU1 to a failure.
func fake2(regressed bool) (System, map[string]types.Report) {
	sys := fakeSystem(2, "fake:nvlink2", "fakehost-a")
	// GPU1→GPU0 has no peer access on this preset.
	sys.Pairs[1].CUDA.CanAccessPeer, sys.Pairs[1].CUDA.AccessSupported = bp(false), ip(0)
	sys.Pairs[1].NVML.Read, sys.Pairs[1].NVML.Write = "P2P_STATUS_CHIPSET_NOT_SUPPORTED", "P2P_STATUS_CHIPSET_NOT_SUPPORTED"
	sys.Pairs[1].Link = "pcie"
	sys.Pairs[1].NVML.NVLinkCount = 0
	noPeer := "needs peer access from GPU1 to GPU0 (found cuDeviceCanAccessPeer=0, NVML read=P2P_STATUS_CHIPSET_NOT_SUPPORTED)"
	copy01 := spec{id: "access.peer-copy", suite: "access", kind: "conf", text: "copies with cuMemcpyPeerAsync from GPU0 to GPU1 move every word",
		gpu: -1, src: 0, dst: 1, link: "nvlink", state: types.SpecStatePassed, dur: 1200 * time.Millisecond,
		entries: []Entry{{Kind: KindMetric, Source: "host", Name: "copied_bytes", Value: num(67108880), Unit: "B"}}}
	if regressed {
		copy01.state = types.SpecStateFailed
		copy01.msg = "word 17 of 16777220 copied GPU0→GPU1 is 0xdeadbeef, want 0x5eed0011 (seed 7, size 64 MiB)\nfirst bad offset 68"
		copy01.step = "checking every word on GPU1"
	}
	access := []spec{
		{id: "access.self-is-not-a-peer", suite: "access", kind: "conf", text: "GPU0 is not its own peer", gpu: 0, src: -1, dst: -1, state: types.SpecStatePassed, dur: 30 * time.Millisecond},
		{id: "access.self-is-not-a-peer", suite: "access", kind: "conf", text: "GPU1 is not its own peer", gpu: 1, src: -1, dst: -1, state: types.SpecStatePassed, dur: 30 * time.Millisecond},
		{id: "access.host-mapped", suite: "access", kind: "conf", text: "a kernel on GPU0 reads and writes mapped pinned host memory", gpu: 0, src: -1, dst: -1, state: types.SpecStatePassed, dur: 300 * time.Millisecond},
		{id: "access.host-mapped", suite: "access", kind: "conf", text: "a kernel on GPU1 reads and writes mapped pinned host memory", gpu: 1, src: -1, dst: -1,
			state: types.SpecStateTimedout, msg: "A spec timeout occurred", step: "waiting for the kernel on GPU1 to write the host buffer", dur: 30 * time.Second},
		{id: "access.capability-per-direction", suite: "access", kind: "conf", text: "CUDA and NVML agree on peer access from GPU0 to GPU1", gpu: -1, src: 0, dst: 1, link: "nvlink",
			state: types.SpecStatePassed, dur: 20 * time.Millisecond, entries: claims(0, 1, "1", "P2P_STATUS_OK")},
		{id: "access.capability-per-direction", suite: "access", kind: "conf", text: "CUDA and NVML agree on peer access from GPU1 to GPU0", gpu: -1, src: 1, dst: 0, link: "pcie",
			state: types.SpecStatePassed, dur: 20 * time.Millisecond, entries: claims(1, 0, "0", "P2P_STATUS_CHIPSET_NOT_SUPPORTED")},
		copy01,
		{id: "access.peer-copy", suite: "access", kind: "conf", text: "copies with cuMemcpyPeerAsync from GPU1 to GPU0 move every word", gpu: -1, src: 1, dst: 0, link: "pcie",
			state: types.SpecStateFailed, msg: "word 3 of 1027 copied GPU1→GPU0 is 0x00000000, want 0x9e3779b9 (seed 7, size 4 KiB+3 words)\nthe destination kept its poison in 12 words", step: "checking every word on GPU0", dur: 900 * time.Millisecond},
		{id: "access.kernel-remote-write", suite: "access", kind: "conf", text: "a kernel on GPU0 stores into GPU1's memory", gpu: -1, src: 0, dst: 1, link: "nvlink", state: types.SpecStatePassed, dur: 400 * time.Millisecond},
		{id: "access.kernel-remote-write", suite: "access", kind: "conf", text: "a kernel on GPU1 stores into GPU0's memory", gpu: -1, src: 1, dst: 0, link: "pcie", state: types.SpecStateSkipped, msg: noPeer},
		{id: "access.enable-is-directional", suite: "access", kind: "conf", text: "enabling GPU0→GPU1 lets GPU0 in and keeps GPU1 out", gpu: -1, src: 0, dst: 1, link: "nvlink",
			state: types.SpecStatePanicked, msg: "Test Panicked", step: "starting the helper process", dur: 50 * time.Millisecond, extraLabels: []string{"process:multi"}},
		{id: "access.enable-is-directional", suite: "access", kind: "conf", text: "enabling GPU1→GPU0 lets GPU1 in and keeps GPU0 out", gpu: -1, src: 1, dst: 0, link: "pcie", state: types.SpecStateSkipped, msg: noPeer, extraLabels: []string{"process:multi"}},
		{id: "access.mutant-demo", suite: "access", kind: "mutant", text: "a spec the label filter leaves out", gpu: 0, src: -1, dst: -1, state: types.SpecStateSkipped},
	}
	ordering := []spec{
		{id: "ordering.flag-handoff-sys", suite: "ordering", kind: "conf", text: "a st.release.sys flag from GPU0 publishes its data to GPU1", gpu: -1, src: 0, dst: 1, link: "nvlink", state: types.SpecStatePassed, dur: 2 * time.Second,
			entries: []Entry{{Kind: KindMetric, Source: "litmus", Name: "instances_per_second", Value: num(1.25e6)}, {Kind: KindMetric, Source: "litmus", Name: "forbidden_upper_bound", Value: nil, Detail: "no instances counted"}}},
		{id: "ordering.flag-handoff-sys", suite: "ordering", kind: "conf", text: "a st.release.sys flag from GPU1 publishes its data to GPU0", gpu: -1, src: 1, dst: 0, link: "pcie", state: types.SpecStateSkipped, msg: noPeer},
		{id: "ordering.flag-handoff-weak", suite: "ordering", kind: "mutant", text: "a relaxed flag from GPU0 lets GPU1 see stale data", gpu: -1, src: 0, dst: 1, link: "nvlink", state: types.SpecStatePassed, dur: 2 * time.Second,
			entries: []Entry{{Kind: KindPower, Name: "ordering.flag-handoff-sys", Value: map[string]any{"observed": true, "hits": 412, "trials": 1000000}, Detail: "stale reads in 412 of 1000000 instances"}}},
		{id: "ordering.submission-is-not-completion", suite: "ordering", kind: "conf", text: "an event after a queued copy on GPU0 is not ready when the call returns", gpu: 0, src: -1, dst: -1, state: types.SpecStatePassed, dur: 100 * time.Millisecond,
			entries: []Entry{{Kind: KindFinding, Source: "cuda", Name: "cuEventQuery", Value: "CUDA_ERROR_NOT_READY (600)"}}},
		{id: "ordering.submission-is-not-completion", suite: "ordering", kind: "conf", text: "an event after a queued copy on GPU1 is not ready when the call returns", gpu: 1, src: -1, dst: -1, state: types.SpecStatePassed, dur: 100 * time.Millisecond},
	}
	bandwidth := []spec{
		{id: "bandwidth.copy-engine", suite: "bandwidth", kind: "info", text: "copy-engine bandwidth from GPU0 to GPU1", gpu: -1, src: 0, dst: 1, link: "nvlink", state: types.SpecStatePassed, dur: 5 * time.Second,
			entries: []Entry{{Kind: KindMetric, Source: "ce", Name: "bandwidth_gbps", Value: num(389.6), Unit: "GB/s"}, {Kind: KindMetric, Source: "ce", Name: "latency_us", Value: num(2.1), Unit: "us"}}},
		{id: "bandwidth.copy-engine", suite: "bandwidth", kind: "info", text: "copy-engine bandwidth from GPU1 to GPU0", gpu: -1, src: 1, dst: 0, link: "pcie", state: types.SpecStatePassed, dur: 5 * time.Second,
			entries: []Entry{{Kind: KindMetric, Source: "ce", Name: "bandwidth_gbps", Value: num(24.8), Unit: "GB/s"}, {Kind: KindMetric, Source: "ce", Name: "latency_us", Value: num(9.7), Unit: "us"}}},
	}
	return sys, map[string]types.Report{
		"access":    suiteReport("access", "!kind:mutant", access),
		"ordering":  suiteReport("ordering", "", ordering),
		"bandwidth": suiteReport("bandwidth", "", bandwidth),
	}
}

// fake8 is an eight-GPU NVLink fake run over every ordered pair: one pair
// whose sources disagree, one claimed pair whose copy fails, a skip on one
// GPU and a timeout.
func fake8() (System, map[string]types.Report) {
	sys := fakeSystem(8, "fake:nvlink8", "fakehost-8")
	// GPU2→GPU6: NVML says no, CUDA says yes.
	for i := range sys.Pairs {
		if sys.Pairs[i].Src == 2 && sys.Pairs[i].Dst == 6 {
			sys.Pairs[i].NVML.Read, sys.Pairs[i].NVML.Write = "P2P_STATUS_NOT_SUPPORTED", "P2P_STATUS_NOT_SUPPORTED"
		}
	}
	var access, atomics []spec
	for g := 0; g < 8; g++ {
		access = append(access, spec{id: "access.uva-owner", suite: "access", kind: "conf", text: fmt.Sprintf("allocations on GPU%d name GPU%d as owner", g, g), gpu: g, src: -1, dst: -1, state: types.SpecStatePassed, dur: 10 * time.Millisecond})
		hm := spec{id: "access.host-mapped", suite: "access", kind: "conf", text: fmt.Sprintf("a kernel on GPU%d uses mapped host memory", g), gpu: g, src: -1, dst: -1, state: types.SpecStatePassed, dur: 40 * time.Millisecond}
		if g == 6 {
			hm.state, hm.msg = types.SpecStateSkipped, "needs CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY=1 (found 0 on GPU6)"
		}
		access = append(access, hm)
	}
	for a := 0; a < 8; a++ {
		for b := 0; b < 8; b++ {
			if a == b {
				continue
			}
			capSpec := spec{id: "access.capability-per-direction", suite: "access", kind: "conf", text: fmt.Sprintf("CUDA and NVML agree on peer access from GPU%d to GPU%d", a, b),
				gpu: -1, src: a, dst: b, link: "nvlink", state: types.SpecStatePassed, dur: 15 * time.Millisecond, entries: claims(a, b, "1", "P2P_STATUS_OK")}
			if a == 2 && b == 6 {
				capSpec.state = types.SpecStateFailed
				capSpec.msg = "GPU2→GPU6: cuDeviceCanAccessPeer=1 but NVML P2P read status is P2P_STATUS_NOT_SUPPORTED"
				capSpec.entries = claims(a, b, "1", "P2P_STATUS_NOT_SUPPORTED")
			}
			copySpec := spec{id: "access.peer-copy", suite: "access", kind: "conf", text: fmt.Sprintf("copies from GPU%d to GPU%d move every word", a, b),
				gpu: -1, src: a, dst: b, link: "nvlink", state: types.SpecStatePassed, dur: 800 * time.Millisecond,
				entries: []Entry{{Kind: KindMetric, Source: "ce", Name: "bandwidth_gbps", Value: num(float64(370 + a*3 + b))}}}
			if a == 3 && b == 5 {
				copySpec.state = types.SpecStateFailed
				copySpec.msg = "word 1024 of 16777216 copied GPU3→GPU5 is 0x00000000, want 0x1b873593 (seed 7, size 64 MiB)"
				copySpec.step = "checking every word on GPU5"
				copySpec.entries = []Entry{{Kind: KindMetric, Source: "ce", Name: "bandwidth_gbps", Value: nil}}
			}
			atom := spec{id: "atomics.concurrent-sys-rmw", suite: "atomics", kind: "conf", text: fmt.Sprintf("concurrent .sys atomics from GPU%d and GPU%d on GPU%d's memory are exact", a, b, a),
				gpu: -1, src: a, dst: b, link: "nvlink", state: types.SpecStatePassed, dur: 3 * time.Second}
			if a == 7 && b == 0 {
				atom.state, atom.msg, atom.step = types.SpecStateTimedout, "A node timeout occurred", "waiting for the kernels on GPU7 and GPU0"
			}
			access = append(access, capSpec, copySpec)
			atomics = append(atomics, atom)
		}
	}
	return sys, map[string]types.Report{
		"access":  suiteReport("access", "", access),
		"atomics": suiteReport("atomics", "", atomics),
	}
}

func writeFixture(t *testing.T, dir string, sys System, reps map[string]types.Report) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	data, _ := json.MarshalIndent(sys, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "system.json"), append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, r := range reps {
		data, err := json.MarshalIndent([]types.Report{r}, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+SuiteGinkgoSuffix), append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFixtures rewrites testdata with -update and otherwise checks that the
// files on disk are what the builders above produce.
func TestFixtures(t *testing.T) {
	sys2, reps2 := fake2(false)
	_, reg2 := fake2(true)
	sys8, reps8 := fake8()
	sets := []struct {
		dir  string
		sys  System
		reps map[string]types.Report
	}{
		{"testdata/fake2", sys2, reps2},
		{"testdata/fake2-regressed", sys2, reg2},
		{"testdata/fake8", sys8, reps8},
	}
	for _, s := range sets {
		if *update {
			writeFixture(t, s.dir, s.sys, s.reps)
			continue
		}
		for name := range s.reps {
			if _, err := os.Stat(filepath.Join(s.dir, name+SuiteGinkgoSuffix)); err != nil {
				t.Errorf("fixture missing (run with -update): %v", err)
			}
		}
	}
}
