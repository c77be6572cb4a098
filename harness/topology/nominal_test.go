// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package topology

import (
	"errors"
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
)

// mockLink is one NVLink of a mock GPU.
type mockLink struct {
	active  bool
	version uint32
	remote  string // the remote PCI bus ID exactly as NVML writes it
	kind    nvml.IntNvLinkDeviceType
}

// mockGPU is a mock NVML device with the calls the nominal rates make.
type mockGPU struct {
	ref       GPURef
	links     []mockLink // nil: no NVLink (NOT_SUPPORTED)
	gen, w    int
	remoteErr nvml.Return // returned by GetNvLinkRemotePciInfo when set
	typeErr   nvml.Return // returned by GetNvLinkRemoteDeviceType when set
	maxGenErr nvml.Return // returned by GetMaxPcieLinkGeneration when set
}

func remotePCI(bus string) nvml.PciInfo {
	var p nvml.PciInfo
	for i, c := range []byte(bus) {
		p.BusId[i] = int8(c)
	}
	return p
}

func (f mockGPU) device(nvlinkP2P nvml.GpuP2PStatus) *mock.Device {
	return &mock.Device{
		GetNvLinkStateFunc: func(l int) (nvml.EnableState, nvml.Return) {
			switch {
			case f.links == nil:
				return 0, nvml.ERROR_NOT_SUPPORTED
			case l >= len(f.links):
				return 0, nvml.ERROR_INVALID_ARGUMENT
			case !f.links[l].active:
				return nvml.FEATURE_DISABLED, nvml.SUCCESS
			}
			return nvml.FEATURE_ENABLED, nvml.SUCCESS
		},
		GetNvLinkVersionFunc: func(l int) (uint32, nvml.Return) { return f.links[l].version, nvml.SUCCESS },
		GetNvLinkRemotePciInfoFunc: func(l int) (nvml.PciInfo, nvml.Return) {
			if f.remoteErr != 0 {
				return nvml.PciInfo{}, f.remoteErr
			}
			return remotePCI(f.links[l].remote), nvml.SUCCESS
		},
		GetNvLinkRemoteDeviceTypeFunc: func(l int) (nvml.IntNvLinkDeviceType, nvml.Return) {
			if f.typeErr != 0 {
				return nvml.NVLINK_DEVICE_TYPE_UNKNOWN, f.typeErr
			}
			return f.links[l].kind, nvml.SUCCESS
		},
		GetCurrPcieLinkGenerationFunc: func() (int, nvml.Return) { return f.gen, nvml.SUCCESS },
		GetCurrPcieLinkWidthFunc:      func() (int, nvml.Return) { return f.w, nvml.SUCCESS },
		GetMaxPcieLinkGenerationFunc: func() (int, nvml.Return) {
			if f.maxGenErr != 0 {
				return 0, f.maxGenErr
			}
			return 5, nvml.SUCCESS
		},
		GetP2PStatusFunc: func(nvml.Device, nvml.GpuP2PCapsIndex) (nvml.GpuP2PStatus, nvml.Return) {
			return nvlinkP2P, nvml.SUCCESS
		},
	}
}

// machineWith is an NVML whose GPUs answer nvlinkP2P for every NVLINK P2P
// status; machine answers OK.
func machineWith(nvlinkP2P nvml.GpuP2PStatus, gpus ...mockGPU) nvml.Interface {
	devs := map[string]nvml.Device{}
	for _, g := range gpus {
		devs[g.ref.UUID] = g.device(nvlinkP2P)
	}
	return &mock.Interface{DeviceGetHandleByUUIDFunc: func(u string) (nvml.Device, nvml.Return) {
		if d, found := devs[u]; found {
			return d, nvml.SUCCESS
		}
		return nil, nvml.ERROR_NOT_FOUND
	}}
}

func machine(gpus ...mockGPU) nvml.Interface { return machineWith(nvml.P2P_STATUS_OK, gpus...) }

var (
	refA = GPURef{Name: "GPU0", UUID: "GPU-a", PCIBusID: "0000:1b:00.0"}
	refB = GPURef{Name: "GPU1", UUID: "GPU-b", PCIBusID: "0000:2b:00.0"}
)

func nvlinks(n int, l mockLink) []mockLink {
	out := make([]mockLink, n)
	for i := range out {
		out[i] = l
	}
	return out
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestNominalDirectNVLink(t *testing.T) {
	toB := mockLink{active: true, version: 6, remote: "00000000:2B:00.0", kind: nvml.NVLINK_DEVICE_TYPE_GPU}
	a := mockGPU{ref: refA, links: []mockLink{toB, toB, {active: true, version: 6, remote: "00000000:3B:00.0"}, {}}, gen: 5, w: 16}
	b := mockGPU{ref: refB, links: nvlinks(2, mockLink{active: true, version: 6, remote: "00000000:1B:00.0"}), gen: 5, w: 16}
	n, err := PairNominal(machine(a, b), refA, refB)
	if err != nil || !near(n.GBps, 2*26.5625) || !strings.Contains(n.Path, "2 × NVLink 4.0") {
		t.Fatalf("PairNominal = %+v, %v; want 2 NVLink 4.0 links, 53.125 GB/s", n, err)
	}
}

// TestNominalNVSwitchBaseboard is two H200s of an NVSwitch baseboard as NVML
// describes them: 18 active NVLink 4.0 links (version enum 6) whose remote
// PCI address is the switch placeholder FFFFFFF:FF:FF.0 and remote type
// SWITCH, so no link's far end is the peer. nvidia-smi calls the pair NV18.
func TestNominalNVSwitchBaseboard(t *testing.T) {
	sw := mockLink{active: true, version: 6, remote: "FFFFFFF:FF:FF.0", kind: nvml.NVLINK_DEVICE_TYPE_SWITCH}
	a := mockGPU{ref: refA, links: nvlinks(18, sw), gen: 5, w: 16}
	b := mockGPU{ref: refB, links: nvlinks(18, sw), gen: 5, w: 16}
	n, err := PairNominal(machine(a, b), refA, refB)
	want := "18 × NVLink 4.0 at 26.5625 GB/s per direction, through NVSwitch"
	if err != nil || !near(n.GBps, 18*26.5625) || n.Path != want {
		t.Fatalf("PairNominal = %+v, %v; want %q, 478.125 GB/s", n, err, want)
	}

	// The peer's side counts when it has fewer switch links.
	b.links = append(nvlinks(12, sw), nvlinks(6, mockLink{})...)
	n, err = PairNominal(machine(a, b), refA, refB)
	if err != nil || !near(n.GBps, 12*26.5625) || !strings.Contains(n.Path, "GPU1's side") {
		t.Fatalf("PairNominal with 12 links on GPU1 = %+v, %v; want GPU1's 12 links", n, err)
	}

	// Switch links count only where NVML says the pair talks over NVLink.
	n, err = PairNominal(machineWith(nvml.P2P_STATUS_NOT_SUPPORTED, a, b), refA, refB)
	if err != nil || !strings.HasPrefix(n.Path, "PCIe Gen5 x16") {
		t.Fatalf("PairNominal without NVLINK P2P = %+v, %v; want the PCIe link", n, err)
	}

	// Without the remote type a switch link cannot be told apart: PCIe.
	a.typeErr = nvml.ERROR_FUNCTION_NOT_FOUND
	n, err = PairNominal(machine(a, b), refA, refB)
	if err != nil || !strings.HasPrefix(n.Path, "PCIe Gen5 x16") {
		t.Fatalf("PairNominal without the remote type = %+v, %v; want the PCIe link", n, err)
	}
	a.typeErr = nvml.ERROR_UNKNOWN
	_, err = PairNominal(machine(a, b), refA, refB)
	if err == nil || errors.Is(err, ErrNominalUnavailable) || !strings.Contains(err.Error(), "nvmlDeviceGetNvLinkRemoteDeviceType(GPU0, link 0)") {
		t.Errorf("a failing remote type: %v; want an error of the machine naming the call", err)
	}
}

func TestNominalPCIe(t *testing.T) {
	a := mockGPU{ref: refA, gen: 5, w: 16}
	b := mockGPU{ref: refB, gen: 4, w: 16}
	lib := machine(a, b)
	n, err := PairNominal(lib, refA, refB)
	if err != nil || !near(n.GBps, 16*16*128.0/130/8) || !strings.Contains(n.Path, "Gen4 x16 of GPU1") {
		t.Fatalf("PairNominal = %+v, %v; want GPU1's Gen4 x16", n, err)
	}
	n, err = HostNominal(lib, refB)
	if err != nil || !strings.Contains(n.Path, "below the link's maximum Gen5") {
		t.Fatalf("HostNominal = %+v, %v; want a note that Gen4 is below the maximum", n, err)
	}
	b.maxGenErr = nvml.ERROR_NOT_SUPPORTED
	n, err = HostNominal(machine(b), refB)
	if err != nil || strings.Contains(n.Path, "maximum") || !near(n.GBps, 16*16*128.0/130/8) {
		t.Fatalf("HostNominal without the maximum = %+v, %v; want the rate without the note", n, err)
	}
}

func TestNominalUnavailable(t *testing.T) {
	future := mockGPU{ref: refA, links: nvlinks(1, mockLink{active: true, version: 8, remote: "00000000:2B:00.0"})}
	_, err := PairNominal(machine(future, mockGPU{ref: refB}), refA, refB)
	if !errors.Is(err, ErrNominalUnavailable) || !strings.Contains(err.Error(), "NVLink 6.0") {
		t.Errorf("unknown link version: %v; want ErrNominalUnavailable naming NVLink 6.0", err)
	}
	noPCIe := &mock.Device{
		GetCurrPcieLinkGenerationFunc: func() (int, nvml.Return) { return 0, nvml.ERROR_FUNCTION_NOT_FOUND },
	}
	lib := &mock.Interface{DeviceGetHandleByUUIDFunc: func(string) (nvml.Device, nvml.Return) { return noPCIe, nvml.SUCCESS }}
	if _, err := HostNominal(lib, refA); !errors.Is(err, ErrNominalUnavailable) || !strings.Contains(err.Error(), "nvmlDeviceGetCurrPcieLinkGeneration(GPU0)") {
		t.Errorf("a driver without the PCIe calls: %v; want ErrNominalUnavailable naming the call", err)
	}
	if _, err := HostNominal(machine(mockGPU{ref: refA, gen: 9, w: 16}), refA); !errors.Is(err, ErrNominalUnavailable) || !strings.Contains(err.Error(), "generation 9") {
		t.Errorf("an unknown PCIe generation: %v; want ErrNominalUnavailable naming it", err)
	}
	broken := mockGPU{ref: refA, links: nvlinks(1, mockLink{active: true, version: 6}), remoteErr: nvml.ERROR_UNKNOWN}
	_, err = PairNominal(machine(broken, mockGPU{ref: refB}), refA, refB)
	if err == nil || errors.Is(err, ErrNominalUnavailable) || !strings.Contains(err.Error(), "nvmlDeviceGetNvLinkRemotePciInfo(GPU0, link 0)") {
		t.Errorf("an NVML failure: %v; want an error of the machine naming the call", err)
	}
	if _, err := PairNominal(machine(), refA, refB); err == nil || errors.Is(err, ErrNominalUnavailable) {
		t.Errorf("an unknown UUID: %v; want an error", err)
	}
	bad := refB
	bad.PCIBusID = "GPU1"
	if _, err := PairNominal(machine(), refA, bad); err == nil || !strings.Contains(err.Error(), `"GPU1"`) {
		t.Errorf("a malformed bus ID: %v; want an error quoting it", err)
	}
}
