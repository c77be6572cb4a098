// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package topology

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"

	"github.com/p2pconf/p2pconf/harness/backend"
)

// box is a small machine for the mocks: GPUs by NVML index, with bus
// numbers, NVLink link targets and a P2P status per ordered pair.
type box struct {
	bus      []uint32
	uuid     []string
	links    [][]int // links[i][l] = NVML index of link l's far end, -1 = link down, toSwitch = an NVSwitch
	noNVLink []bool  // GetNvLinkState answers NOT_SUPPORTED
	status   func(a, b int, idx nvml.GpuP2PCapsIndex) (nvml.GpuP2PStatus, nvml.Return)
	level    func(a, b int) nvml.GpuTopologyLevel
	linkErr  nvml.Return // returned by GetNvLinkState(0) of GPU 0 when set
}

func (bx *box) lib() *mock.Interface {
	devs := make([]*mock.Device, len(bx.bus))
	index := map[nvml.Device]int{}
	for i := range bx.bus {
		i := i
		addr := PCIAddress{Bus: bx.bus[i]}
		d := &mock.Device{
			GetPciInfoFunc: func() (nvml.PciInfo, nvml.Return) { return PciInfo(addr, 0x233010de), nvml.SUCCESS },
			GetUUIDFunc:    func() (string, nvml.Return) { return bx.uuid[i], nvml.SUCCESS },
			GetNameFunc:    func() (string, nvml.Return) { return "NVIDIA H200", nvml.SUCCESS },
		}
		d.GetNvLinkStateFunc = func(l int) (nvml.EnableState, nvml.Return) {
			if i == 0 && l == 0 && bx.linkErr != nvml.SUCCESS {
				return 0, bx.linkErr
			}
			if bx.noNVLink != nil && bx.noNVLink[i] {
				return 0, nvml.ERROR_NOT_SUPPORTED
			}
			if l >= len(bx.links[i]) {
				return 0, nvml.ERROR_INVALID_ARGUMENT
			}
			if bx.links[i][l] == -1 {
				return nvml.FEATURE_DISABLED, nvml.SUCCESS
			}
			return nvml.FEATURE_ENABLED, nvml.SUCCESS
		}
		d.GetNvLinkRemotePciInfoFunc = func(l int) (nvml.PciInfo, nvml.Return) {
			if bx.links[i][l] == toSwitch {
				return switchPCI, nvml.SUCCESS
			}
			return PciInfo(PCIAddress{Bus: bx.bus[bx.links[i][l]]}, 0x233010de), nvml.SUCCESS
		}
		d.GetNvLinkRemoteDeviceTypeFunc = func(l int) (nvml.IntNvLinkDeviceType, nvml.Return) {
			if bx.links[i][l] == toSwitch {
				return nvml.NVLINK_DEVICE_TYPE_SWITCH, nvml.SUCCESS
			}
			return nvml.NVLINK_DEVICE_TYPE_GPU, nvml.SUCCESS
		}
		d.GetP2PStatusFunc = func(o nvml.Device, idx nvml.GpuP2PCapsIndex) (nvml.GpuP2PStatus, nvml.Return) {
			return bx.status(i, index[o], idx)
		}
		d.GetTopologyCommonAncestorFunc = func(o nvml.Device) (nvml.GpuTopologyLevel, nvml.Return) {
			return bx.level(i, index[o]), nvml.SUCCESS
		}
		devs[i] = d
		index[d] = i
	}
	return &mock.Interface{
		SystemGetDriverVersionFunc:     func() (string, nvml.Return) { return "580.159.04", nvml.SUCCESS },
		SystemGetCudaDriverVersionFunc: func() (int, nvml.Return) { return 13000, nvml.SUCCESS },
		DeviceGetCountFunc:             func() (int, nvml.Return) { return len(devs), nvml.SUCCESS },
		DeviceGetHandleByIndexFunc: func(i int) (nvml.Device, nvml.Return) {
			if i < 0 || i >= len(devs) {
				return nil, nvml.ERROR_INVALID_ARGUMENT
			}
			return devs[i], nvml.SUCCESS
		},
	}
}

// toSwitch marks a link whose far end is an NVSwitch.
const toSwitch = -2

// switchPCI is the far end's address NVML gave for every NVLink of two H200s
// that are a slice of an NVSwitch baseboard: a placeholder, no GPU's.
var switchPCI = PciInfo(PCIAddress{Domain: 0xFFFFFFFF, Bus: 0xFF, Device: 0xFF}, 0)

// nvSwitchSlice: two GPUs whose 18 active NVLinks each go to NVSwitches
// (GPU 1 has one more link, down), with NVML's NVLINK P2P status OK.
func nvSwitchSlice() *box {
	l0, l1 := make([]int, 18), make([]int, 19)
	for i := range l0 {
		l0[i], l1[i] = toSwitch, toSwitch
	}
	l1[18] = -1
	return &box{
		bus:   []uint32{0x06, 0x07},
		uuid:  []string{"GPU-06", "GPU-07"},
		links: [][]int{l0, l1},
		status: func(a, b int, idx nvml.GpuP2PCapsIndex) (nvml.GpuP2PStatus, nvml.Return) {
			return nvml.P2P_STATUS_OK, nvml.SUCCESS
		},
		level: func(a, b int) nvml.GpuTopologyLevel { return nvml.TOPOLOGY_HOSTBRIDGE },
	}
}

// TestLinksThroughNVSwitch: behind NVSwitches no link's far end is the peer,
// yet the pair is on NVLink with as many links as the GPU with fewer switch
// links has, as nvidia-smi topo -m shows it (NV18), not its PCIe level.
func TestLinksThroughNVSwitch(t *testing.T) {
	devs := []backend.DeviceInfo{
		{Ordinal: 0, PCIBusID: "0000:06:00.0", UUID: "GPU-06"},
		{Ordinal: 1, PCIBusID: "0000:07:00.0", UUID: "GPU-07"},
	}
	v, err := Read(nvSwitchSlice().lib(), devs)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Pairs) != 2 {
		t.Fatalf("%d pairs, want 2", len(v.Pairs))
	}
	for _, p := range v.Pairs {
		if p.NVLinks != 18 || !p.ViaSwitch || p.Link != LinkNVLink || p.Connection() != "NV18" {
			t.Errorf("GPU%d→GPU%d: nvlinks %d, via switch %v, link %s, connection %s; want 18 links through switches, nvlink, NV18",
				p.A, p.B, p.NVLinks, p.ViaSwitch, p.Link, p.Connection())
		}
	}
	// Without NVML's word that the pair talks over NVLink, links to a
	// switch say nothing about this pair.
	bx := nvSwitchSlice()
	bx.status = func(a, b int, idx nvml.GpuP2PCapsIndex) (nvml.GpuP2PStatus, nvml.Return) {
		if idx == nvml.P2P_CAPS_INDEX_NVLINK {
			return nvml.P2P_STATUS_NOT_SUPPORTED, nvml.SUCCESS
		}
		return nvml.P2P_STATUS_OK, nvml.SUCCESS
	}
	v, err = Read(bx.lib(), devs)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range v.Pairs {
		if p.NVLinks != 0 || p.ViaSwitch || p.Link != LinkPCIe || p.Connection() != "PHB" {
			t.Errorf("GPU%d→GPU%d without NVLINK status: nvlinks %d, via switch %v, link %s, connection %s; want 0, false, pcie, PHB",
				p.A, p.B, p.NVLinks, p.ViaSwitch, p.Link, p.Connection())
		}
	}
}

// threeGPUs: NVML index 0 is at bus 0x43, 1 at 0x1b, 2 at 0x9a, so NVML
// order differs from bus order (the CUDA order). 0x1b↔0x43 have 18 NVLinks;
// 0x9a is on PCIe: P2P with 0x1b only.
func threeGPUs() *box {
	bx := &box{
		bus:  []uint32{0x43, 0x1b, 0x9a},
		uuid: []string{"GPU-43", "GPU-1b", "GPU-9a"},
	}
	l0, l1 := make([]int, 18), make([]int, 18)
	for i := range l0 {
		l0[i], l1[i] = 1, 0
	}
	l0 = append(l0, -1) // a link that is down
	bx.links = [][]int{l0, l1, nil}
	bx.noNVLink = []bool{false, false, true}
	bx.status = func(a, b int, idx nvml.GpuP2PCapsIndex) (nvml.GpuP2PStatus, nvml.Return) {
		nv := (a == 0 && b == 1) || (a == 1 && b == 0)
		pcie := (a == 1 && b == 2) || (a == 2 && b == 1)
		switch {
		case nv:
			return nvml.P2P_STATUS_OK, nvml.SUCCESS
		case pcie && idx != nvml.P2P_CAPS_INDEX_NVLINK && idx != nvml.P2P_CAPS_INDEX_ATOMICS:
			return nvml.P2P_STATUS_OK, nvml.SUCCESS
		case pcie:
			return nvml.P2P_STATUS_NOT_SUPPORTED, nvml.SUCCESS
		}
		return nvml.P2P_STATUS_CHIPSET_NOT_SUPPORTED, nvml.SUCCESS
	}
	bx.level = func(a, b int) nvml.GpuTopologyLevel {
		if a+b == 1 {
			return nvml.TOPOLOGY_NODE
		}
		return nvml.TOPOLOGY_SYSTEM
	}
	return bx
}

// cudaDevs lists the CUDA devices in bus order, spelled as CUDA spells them.
func cudaDevs() []backend.DeviceInfo {
	return []backend.DeviceInfo{
		{Ordinal: 0, PCIBusID: "0000:1b:00.0", UUID: "GPU-1b"},
		{Ordinal: 1, PCIBusID: "0000:43:00.0", UUID: "GPU-43"},
		{Ordinal: 2, PCIBusID: "0000:9A:00.0", UUID: "GPU-9a"},
	}
}

func TestReadMatchesByBusIDNotIndex(t *testing.T) {
	v, err := Read(threeGPUs().lib(), cudaDevs())
	if err != nil {
		t.Fatal(err)
	}
	if v.DriverVersion != "580.159.04" || v.CUDAVersion != 13000 {
		t.Errorf("versions: %q %d", v.DriverVersion, v.CUDAVersion)
	}
	want := []struct {
		idx  int
		uuid string
		bus  string
	}{{1, "GPU-1b", "00000000:1B:00.0"}, {0, "GPU-43", "00000000:43:00.0"}, {2, "GPU-9a", "00000000:9A:00.0"}}
	for i, w := range want {
		g, ok := v.GPU(backend.Device(i))
		if !ok || g.NVMLIndex != w.idx || g.UUID != w.uuid || g.BusID != w.bus {
			t.Errorf("CUDA %d matched %+v, want NVML index %d %s %s", i, g, w.idx, w.uuid, w.bus)
		}
	}
}

func TestReadPairs(t *testing.T) {
	v, err := Read(threeGPUs().lib(), cudaDevs())
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Pairs) != 6 {
		t.Fatalf("%d pairs, want 6", len(v.Pairs))
	}
	cases := []struct {
		a, b    backend.Device
		link    LinkKind
		nvlinks int
		conn    string
		read    string
		atomics string
	}{
		{0, 1, LinkNVLink, 18, "NV18", "P2P_STATUS_OK", "P2P_STATUS_OK"},
		{1, 0, LinkNVLink, 18, "NV18", "P2P_STATUS_OK", "P2P_STATUS_OK"},
		{0, 2, LinkPCIe, 0, "SYS", "P2P_STATUS_OK", "P2P_STATUS_NOT_SUPPORTED"},
		{2, 1, LinkNone, 0, "SYS", "P2P_STATUS_CHIPSET_NOT_SUPPORTED", "P2P_STATUS_CHIPSET_NOT_SUPPORTED"},
	}
	for _, c := range cases {
		p, ok := v.Pair(c.a, c.b)
		if !ok {
			t.Fatalf("no pair %d-%d", c.a, c.b)
		}
		got := fmt.Sprintf("%s %d %s %s %s", p.Link, p.NVLinks, p.Connection(), p.Read, p.Atomics)
		want := fmt.Sprintf("%s %d %s %s %s", c.link, c.nvlinks, c.conn, c.read, c.atomics)
		if got != want {
			t.Errorf("pair %d-%d: got %s, want %s", c.a, c.b, got, want)
		}
	}
	if p, _ := v.Pair(0, 1); p.Ancestor.String() != "NODE" {
		t.Errorf("ancestor 0-1 = %s, want NODE", p.Ancestor)
	}
}

func TestReadUnmatchedDeviceIsAnError(t *testing.T) {
	devs := cudaDevs()
	devs[2].PCIBusID = "0000:aa:00.0"
	_, err := Read(threeGPUs().lib(), devs)
	if err == nil || !strings.Contains(err.Error(), "CUDA device 2 (0000:aa:00.0") {
		t.Fatalf("err = %v, want one naming CUDA device 2 and its bus ID", err)
	}
}

func TestReadUUIDMismatchIsAnError(t *testing.T) {
	devs := cudaDevs()
	devs[1].UUID = "GPU-other"
	_, err := Read(threeGPUs().lib(), devs)
	if err == nil || !strings.Contains(err.Error(), "GPU-other") || !strings.Contains(err.Error(), "GPU-43") {
		t.Fatalf("err = %v, want one naming both UUIDs", err)
	}
}

func TestReadNVMLErrorsNameCallAndPair(t *testing.T) {
	bx := threeGPUs()
	inner := bx.status
	bx.status = func(a, b int, idx nvml.GpuP2PCapsIndex) (nvml.GpuP2PStatus, nvml.Return) {
		if a == 2 && b == 0 && idx == nvml.P2P_CAPS_INDEX_WRITE {
			return 0, nvml.ERROR_UNKNOWN
		}
		return inner(a, b, idx)
	}
	_, err := Read(bx.lib(), cudaDevs())
	want := "nvmlDeviceGetP2PStatus(GPU2→GPU1 WRITE): ERROR_UNKNOWN"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
	if !errors.Is(err, nvml.ERROR_UNKNOWN) {
		t.Errorf("errors.Is(err, nvml.ERROR_UNKNOWN) = false")
	}
}

func TestReadNVLinkErrors(t *testing.T) {
	bx := threeGPUs()
	bx.linkErr = nvml.ERROR_GPU_IS_LOST
	_, err := Read(bx.lib(), cudaDevs())
	want := "nvmlDeviceGetNvLinkState(GPU1 link 0): ERROR_GPU_IS_LOST"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
	bx.linkErr = nvml.ERROR_NOT_SUPPORTED // one link missing is not an error
	v, err := Read(bx.lib(), cudaDevs())
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := v.Pair(1, 0); p.NVLinks != 17 {
		t.Errorf("NVLinks 1→0 = %d, want 17 with link 0 not supported", p.NVLinks)
	}
}

func TestParsePCIBusID(t *testing.T) {
	for in, want := range map[string]PCIAddress{
		"0000:1b:00.0":     {0, 0x1b, 0},
		"00000000:1B:00.0": {0, 0x1b, 0},
		"0001:C1:1f.0":     {1, 0xc1, 0x1f},
		"3b:00.0":          {0, 0x3b, 0},
		"0000:3b:00":       {0, 0x3b, 0},
	} {
		got, err := ParsePCIBusID(in)
		if err != nil || got != want {
			t.Errorf("ParsePCIBusID(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "1b", "zz:00.0", "0:1:2:3.0"} {
		if _, err := ParsePCIBusID(bad); err == nil {
			t.Errorf("ParsePCIBusID(%q) succeeded", bad)
		}
	}
	if s := (PCIAddress{0, 0x1b, 0}).String(); s != "0000:1b:00.0" {
		t.Errorf("String = %q", s)
	}
}

func TestNames(t *testing.T) {
	if s := P2PStatus(nvml.P2P_STATUS_CHIPSET_NOT_SUPPORTED).String(); s != "P2P_STATUS_CHIPSET_NOT_SUPPORTED" {
		t.Error(s)
	}
	if s := P2PStatus(42).String(); s != "P2P_STATUS_42" {
		t.Error(s)
	}
	for lvl, want := range map[nvml.GpuTopologyLevel]string{nvml.TOPOLOGY_SINGLE: "PIX", nvml.TOPOLOGY_MULTIPLE: "PXB",
		nvml.TOPOLOGY_HOSTBRIDGE: "PHB", nvml.TOPOLOGY_NODE: "NODE", nvml.TOPOLOGY_SYSTEM: "SYS", 7: "TOPOLOGY_7"} {
		if s := Level(lvl).String(); s != want {
			t.Errorf("Level(%d) = %s, want %s", lvl, s, want)
		}
	}
}
