// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/p2pconf/p2pconf/harness/report"
)

// recordedMachine makes topo read a system recorded with
// `P2PCONF_BACKEND=fake P2PCONF_FAKE=<preset> p2pconf topo -json`.
func recordedMachine(t *testing.T, name string) {
	t.Helper()
	var sys report.System
	readJSON(t, filepath.Join("testdata", name), &sys)
	old := openMachine
	closed := false
	openMachine = func() (report.System, func(), error) { return sys, func() { closed = true }, nil }
	t.Cleanup(func() {
		openMachine = old
		if !closed {
			t.Error("topo did not close the backend")
		}
	})
}

func TestTopoRecordedH200(t *testing.T) {
	recordedMachine(t, "topo-h200x2.json")
	code, out, errOut := p2pconf(t, "topo")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"backend fake:h200x2 · host fakehost-topo · driver 580.159.04 · CUDA 13.0 (13000)",
		"NOTE: Backend \"fake:h200x2\": these results do not come from GPU hardware.",
		"GPU1  NVIDIA H200",
		"CUDA cuDeviceCanAccessPeer — GPU(row) → GPU(column)",
		"link — GPU(row) → GPU(column)\nsrc \\ dst  GPU0  GPU1\nGPU0       X     NV18\nGPU1       NV18  X\n",
		"GPU0→GPU1: atomics: CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED=1 (every atomic native) but cuDeviceGetP2PAtomicCapabilities does not cover every operation with all its types: INTEGER_ADD=0",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("topo output lacks %q:\n%s", want, out)
		}
	}
}

func TestTopoRecordedMixedJSON(t *testing.T) {
	recordedMachine(t, "topo-mixed.json")
	code, out, _ := p2pconf(t, "topo", "-json")
	var sys report.System
	if err := json.Unmarshal([]byte(out), &sys); err != nil || code != 0 {
		t.Fatalf("topo -json: exit %d, %v\n%s", code, err, out)
	}
	if len(sys.GPUs) != 4 || len(sys.Pairs) != 12 || sys.Backend != "fake:mixed" {
		t.Errorf("topo -json: %d GPUs, %d pairs, backend %q", len(sys.GPUs), len(sys.Pairs), sys.Backend)
	}
}

func TestTopoUnreadableNVMLExits1(t *testing.T) {
	var sys report.System
	readJSON(t, filepath.Join("testdata", "topo-h200x2.json"), &sys)
	sys.Pairs[0].NVML.Error = "nvmlDeviceGetP2PStatus: ERROR_UNKNOWN"
	old := openMachine
	openMachine = func() (report.System, func(), error) { return sys, nil, nil }
	defer func() { openMachine = old }()
	code, _, errOut := p2pconf(t, "topo")
	if code != 1 || !strings.Contains(errOut, "GPU0→GPU1: NVML could not tell: nvmlDeviceGetP2PStatus: ERROR_UNKNOWN") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// TestTopoUnreadableClaimsAllListed: every unreadable claim is named, and
// a cuDeviceCanAccessPeer without an answer is one.
func TestTopoUnreadableClaimsAllListed(t *testing.T) {
	var sys report.System
	readJSON(t, filepath.Join("testdata", "topo-h200x2.json"), &sys)
	sys.Pairs[0].NVML.Error = "nvmlDeviceGetP2PStatus: ERROR_UNKNOWN"
	sys.Pairs[1].CUDA.CanAccessPeer = nil
	old := openMachine
	openMachine = func() (report.System, func(), error) { return sys, nil, nil }
	defer func() { openMachine = old }()
	code, _, errOut := p2pconf(t, "topo")
	if code != 1 || !strings.Contains(errOut, "GPU0→GPU1: NVML could not tell") ||
		!strings.Contains(errOut, "GPU1→GPU0: cuDeviceCanAccessPeer gave no answer") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

func TestTopoOpenError(t *testing.T) {
	old := openMachine
	openMachine = func() (report.System, func(), error) {
		return report.System{}, nil, errors.New("cuda: load libcuda.so.1: cannot open shared object file")
	}
	defer func() { openMachine = old }()
	code, _, errOut := p2pconf(t, "topo")
	if code != 2 || !strings.Contains(errOut, "p2pconf topo: opening the machine: cuda: load libcuda.so.1") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// TestTopoFakeBackend opens the machine the way the suites do, through the
// harness, on the in-memory backend.
func TestTopoFakeBackend(t *testing.T) {
	t.Setenv("P2PCONF_BACKEND", "fake")
	t.Setenv("P2PCONF_FAKE", "mixed")
	t.Setenv("P2PCONF_GPUS", "")
	t.Setenv("P2PCONF_PAIRS", "")
	code, out, errOut := p2pconf(t, "topo")
	if code != 0 {
		t.Fatalf("topo on the fake backend: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "backend fake:mixed") || !strings.Contains(out, "GPU3") {
		t.Errorf("topo on fake:mixed:\n%s", out)
	}
}
