// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package bandwidth

import (
	"errors"
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
)

// fakeLink is one NVLink of a mock GPU.
type fakeLink struct {
	active  bool
	version uint32
	remote  string
	kind    nvml.IntNvLinkDeviceType
}

// fakeGPU is a mock NVML device with the calls links.go makes.
type fakeGPU struct {
	ref       GPURef
	links     []fakeLink // nil: no NVLink (NOT_SUPPORTED)
	gen, w    int
	remoteErr nvml.Return // returned by GetNvLinkRemotePciInfo when set
}

func pciInfo(bus string) nvml.PciInfo {
	var p nvml.PciInfo
	for i, c := range []byte(bus) {
		p.BusId[i] = int8(c)
	}
	return p
}

func (f fakeGPU) device(peerOK func(nvml.Device) bool) *mock.Device {
	d := &mock.Device{
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
			return pciInfo(f.links[l].remote), nvml.SUCCESS
		},
		GetNvLinkRemoteDeviceTypeFunc: func(l int) (nvml.IntNvLinkDeviceType, nvml.Return) { return f.links[l].kind, nvml.SUCCESS },
		GetCurrPcieLinkGenerationFunc: func() (int, nvml.Return) { return f.gen, nvml.SUCCESS },
		GetCurrPcieLinkWidthFunc:      func() (int, nvml.Return) { return f.w, nvml.SUCCESS },
		GetMaxPcieLinkGenerationFunc:  func() (int, nvml.Return) { return 5, nvml.SUCCESS },
	}
	d.GetP2PStatusFunc = func(o nvml.Device, _ nvml.GpuP2PCapsIndex) (nvml.GpuP2PStatus, nvml.Return) {
		if peerOK(o) {
			return nvml.P2P_STATUS_OK, nvml.SUCCESS
		}
		return nvml.P2P_STATUS_NOT_SUPPORTED, nvml.SUCCESS
	}
	return d
}

func machine(gpus ...fakeGPU) nvml.Interface {
	devs := map[string]nvml.Device{}
	ok := func(nvml.Device) bool { return true }
	for _, g := range gpus {
		devs[g.ref.UUID] = g.device(ok)
	}
	return &mock.Interface{DeviceGetHandleByUUIDFunc: func(u string) (nvml.Device, nvml.Return) {
		if d, found := devs[u]; found {
			return d, nvml.SUCCESS
		}
		return nil, nvml.ERROR_NOT_FOUND
	}}
}

var (
	refA = GPURef{Name: "GPU0", UUID: "GPU-a", PCIBusID: "0000:1b:00.0"}
	refB = GPURef{Name: "GPU1", UUID: "GPU-b", PCIBusID: "0000:2b:00.0"}
)

func links(n int, l fakeLink) []fakeLink {
	out := make([]fakeLink, n)
	for i := range out {
		out[i] = l
	}
	return out
}

func TestUnitNominalDirectNVLink(t *testing.T) {
	toB := fakeLink{active: true, version: 6, remote: "00000000:2B:00.0", kind: nvml.NVLINK_DEVICE_TYPE_GPU}
	a := fakeGPU{ref: refA, links: []fakeLink{toB, toB, {active: true, version: 6, remote: "00000000:3B:00.0"}, {}}, gen: 5, w: 16}
	b := fakeGPU{ref: refB, links: links(2, fakeLink{active: true, version: 6, remote: "00000000:1B:00.0"}), gen: 5, w: 16}
	n, err := PairNominal(machine(a, b), refA, refB)
	if err != nil || !near(n.GBps, 2*26.5625) || !strings.Contains(n.Path, "2 × NVLink 4.0") {
		t.Fatalf("PairNominal = %+v, %v; want 2 NVLink 4.0 links, 53.125 GB/s", n, err)
	}
}

func TestUnitNominalNVSwitch(t *testing.T) {
	sw := fakeLink{active: true, version: 6, remote: "00000000:C0:00.0", kind: nvml.NVLINK_DEVICE_TYPE_SWITCH}
	a := fakeGPU{ref: refA, links: links(18, sw)}
	b := fakeGPU{ref: refB, links: links(18, sw)}
	n, err := PairNominal(machine(a, b), refA, refB)
	if err != nil || !near(n.GBps, 18*26.5625) || !strings.Contains(n.Path, "NVSwitch") {
		t.Fatalf("PairNominal = %+v, %v; want 18 links through NVSwitch, 478.125 GB/s (reference §12)", n, err)
	}
}

func TestUnitNominalPCIe(t *testing.T) {
	a := fakeGPU{ref: refA, gen: 5, w: 16}
	b := fakeGPU{ref: refB, gen: 4, w: 16}
	lib := machine(a, b)
	n, err := PairNominal(lib, refA, refB)
	if err != nil || !near(n.GBps, 16*16*128.0/130/8) || !strings.Contains(n.Path, "Gen4 x16 of GPU1") {
		t.Fatalf("PairNominal = %+v, %v; want GPU1's Gen4 x16", n, err)
	}
	n, err = HostNominal(lib, refB)
	if err != nil || !strings.Contains(n.Path, "below the link's maximum Gen5") {
		t.Fatalf("HostNominal = %+v, %v; want a note that Gen4 is below the maximum", n, err)
	}
}

func TestUnitNominalUnsupported(t *testing.T) {
	future := fakeGPU{ref: refA, links: links(1, fakeLink{active: true, version: 8, remote: "00000000:2B:00.0"})}
	_, err := PairNominal(machine(future, fakeGPU{ref: refB}), refA, refB)
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "NVLink 6.0") {
		t.Errorf("unknown link version: %v; want ErrUnsupported naming NVLink 6.0", err)
	}
	bare := &mock.Interface{DeviceGetHandleByUUIDFunc: func(string) (nvml.Device, nvml.Return) { return &mock.Device{}, nvml.SUCCESS }}
	if _, err := HostNominal(bare, refA); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "panicked") {
		t.Errorf("a mock without the PCIe calls: %v; want ErrUnsupported", err)
	}
	broken := fakeGPU{ref: refA, links: links(1, fakeLink{active: true, version: 6}), remoteErr: nvml.ERROR_UNKNOWN}
	_, err = PairNominal(machine(broken, fakeGPU{ref: refB}), refA, refB)
	if err == nil || errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "nvmlDeviceGetNvLinkRemotePciInfo(GPU0, link 0)") {
		t.Errorf("an NVML failure: %v; want an error of the machine naming the call", err)
	}
	if _, err := PairNominal(machine(), refA, refB); err == nil || errors.Is(err, ErrUnsupported) {
		t.Errorf("an unknown UUID: %v; want an error", err)
	}
}
