// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"

	"github.com/p2pconf/p2pconf/harness/topology"
)

// buildNVML makes the NVML side of the preset on go-nvml's moq mocks,
// agreeing with the CUDA side: P2P status from the same pair table (and the
// same lies under can-access-peer-lies), NVLinks of the preset's version
// whose remote PCI info names the peer GPU, the preset's PCIe link
// generation and width, the preset's common ancestors. NVML enumerates the GPUs in a
// rotated order, so a consumer matching by index instead of bus ID breaks.
func (b *Backend) buildNVML() nvml.Interface {
	n := len(b.devs)
	devs := make([]*nvmlDev, n) // by CUDA ordinal
	ordinal := map[nvml.Device]int{}
	b.health = newHealthState(n, b.preset.maxLinks)
	for i := range devs {
		devs[i] = &nvmlDev{Device: b.nvmlDevice(i, ordinal), fabric: b.fabricInfo}
		ordinal[devs[i]] = i
	}
	byIndex := func(idx int) int { return (idx + 1) % n } // NVML index → CUDA ordinal
	lib := &mock.Interface{
		InitFunc:                       func() nvml.Return { return nvml.SUCCESS },
		ShutdownFunc:                   func() nvml.Return { return nvml.SUCCESS },
		SystemGetDriverVersionFunc:     func() (string, nvml.Return) { return b.preset.driverString, nvml.SUCCESS },
		SystemGetNVMLVersionFunc:       func() (string, nvml.Return) { return "13." + b.preset.driverString, nvml.SUCCESS },
		SystemGetCudaDriverVersionFunc: func() (int, nvml.Return) { return b.preset.driver, nvml.SUCCESS },
		SystemGetCudaDriverVersion_v2Func: func() (int, nvml.Return) {
			return b.preset.driver, nvml.SUCCESS
		},
		DeviceGetCountFunc: func() (int, nvml.Return) { return n, nvml.SUCCESS },
		DeviceGetHandleByIndexFunc: func(idx int) (nvml.Device, nvml.Return) {
			if idx < 0 || idx >= n {
				return nil, nvml.ERROR_INVALID_ARGUMENT
			}
			return devs[byIndex(idx)], nvml.SUCCESS
		},
		DeviceGetHandleByUUIDFunc: func(uuid string) (nvml.Device, nvml.Return) {
			for i, d := range b.devs {
				if d.info.UUID == uuid {
					return devs[i], nvml.SUCCESS
				}
			}
			return nil, nvml.ERROR_NOT_FOUND
		},
		DeviceGetHandleByPciBusIdFunc: func(id string) (nvml.Device, nvml.Return) {
			want, err := topology.ParsePCIBusID(id)
			for i := range b.devs {
				if err == nil && want.Bus == b.preset.bus[i] && want.Domain == 0 && want.Device == 0 {
					return devs[i], nvml.SUCCESS
				}
			}
			return nil, nvml.ERROR_NOT_FOUND
		},
		DeviceGetP2PStatusFunc: func(d1, d2 nvml.Device, idx nvml.GpuP2PCapsIndex) (nvml.GpuP2PStatus, nvml.Return) {
			return d1.GetP2PStatus(d2, idx)
		},
		DeviceGetTopologyCommonAncestorFunc: func(d1, d2 nvml.Device) (nvml.GpuTopologyLevel, nvml.Return) {
			return d1.GetTopologyCommonAncestor(d2)
		},
		DeviceGetNvLinkStateFunc: func(d nvml.Device, l int) (nvml.EnableState, nvml.Return) {
			return d.GetNvLinkState(l)
		},
		DeviceGetNvLinkRemotePciInfoFunc: func(d nvml.Device, l int) (nvml.PciInfo, nvml.Return) {
			return d.GetNvLinkRemotePciInfo(l)
		},
		DeviceGetNvLinkVersionFunc: func(d nvml.Device, l int) (uint32, nvml.Return) { return d.GetNvLinkVersion(l) },
		DeviceGetNvLinkRemoteDeviceTypeFunc: func(d nvml.Device, l int) (nvml.IntNvLinkDeviceType, nvml.Return) {
			return d.GetNvLinkRemoteDeviceType(l)
		},
		DeviceGetCurrPcieLinkGenerationFunc: func(d nvml.Device) (int, nvml.Return) { return d.GetCurrPcieLinkGeneration() },
		DeviceGetCurrPcieLinkWidthFunc:      func(d nvml.Device) (int, nvml.Return) { return d.GetCurrPcieLinkWidth() },
		DeviceGetMaxPcieLinkGenerationFunc:  func(d nvml.Device) (int, nvml.Return) { return d.GetMaxPcieLinkGeneration() },
		DeviceGetMaxPcieLinkWidthFunc:       func(d nvml.Device) (int, nvml.Return) { return d.GetMaxPcieLinkWidth() },
		DeviceGetPciInfoFunc:                func(d nvml.Device) (nvml.PciInfo, nvml.Return) { return d.GetPciInfo() },
		DeviceGetUUIDFunc:                   func(d nvml.Device) (string, nvml.Return) { return d.GetUUID() },
		DeviceGetNameFunc:                   func(d nvml.Device) (string, nvml.Return) { return d.GetName() },
		DeviceGetIndexFunc:                  func(d nvml.Device) (int, nvml.Return) { return d.GetIndex() },
		ErrorStringFunc:                     func(r nvml.Return) string { return r.Error() },
		EventSetCreateFunc:                  func() (nvml.EventSet, nvml.Return) { return b.eventSet(devs), nvml.SUCCESS },
	}
	b.modelProcesses(lib, devs)
	return lib
}

// nvLinkPeers lists, per link of GPU i, the GPU at the far end (-1: unused).
func (b *Backend) nvLinkPeers(i int) []int {
	links := make([]int, b.preset.maxLinks)
	for l := range links {
		links[l] = -1
	}
	l := 0
	for j := range b.devs {
		if j == i {
			continue
		}
		for k := 0; k < b.pairs[i][j].nvlinks && l < len(links); k++ {
			links[l] = j
			l++
		}
	}
	return links
}

func (b *Backend) nvmlDevice(i int, ordinal map[nvml.Device]int) *mock.Device {
	info := b.devs[i].info
	n := len(b.devs)
	pci := func(j int) nvml.PciInfo {
		return topology.PciInfo(topology.PCIAddress{Bus: b.preset.bus[j]}, b.preset.pciDeviceID)
	}
	links := b.nvLinkPeers(i)
	// linkRet is NVML's answer for a per-link call on link l: NOT_SUPPORTED
	// without NVLink, INVALID_ARGUMENT past the last link or, where the link
	// must be in use (remote PCI info, remote type), for an unused one.
	linkRet := func(l int, inUse bool) nvml.Return {
		switch {
		case len(links) == 0:
			return nvml.ERROR_NOT_SUPPORTED
		case l < 0 || l >= len(links), inUse && links[l] < 0:
			return nvml.ERROR_INVALID_ARGUMENT
		}
		return nvml.SUCCESS
	}
	pcie := func(v int) func() (int, nvml.Return) {
		return func() (int, nvml.Return) { return v, nvml.SUCCESS }
	}
	d := &mock.Device{
		GetNameFunc:    func() (string, nvml.Return) { return info.Name, nvml.SUCCESS },
		GetUUIDFunc:    func() (string, nvml.Return) { return info.UUID, nvml.SUCCESS },
		GetIndexFunc:   func() (int, nvml.Return) { return (i + n - 1) % n, nvml.SUCCESS },
		GetPciInfoFunc: func() (nvml.PciInfo, nvml.Return) { return pci(i), nvml.SUCCESS },
		GetCudaComputeCapabilityFunc: func() (int, int, nvml.Return) {
			return b.preset.cc / 10, b.preset.cc % 10, nvml.SUCCESS
		},
		GetMemoryInfoFunc: func() (nvml.Memory, nvml.Return) {
			total := b.preset.memMiB << 20
			used, _ := b.state.usedBytes(i)
			return nvml.Memory{Total: total, Used: used, Free: total - min(used, total)}, nvml.SUCCESS
		},
		GetNvLinkStateFunc: func(l int) (nvml.EnableState, nvml.Return) {
			if ret := linkRet(l, false); ret != nvml.SUCCESS {
				return 0, ret
			}
			if links[l] < 0 || b.linkDown(i, l, links) {
				return nvml.FEATURE_DISABLED, nvml.SUCCESS
			}
			return nvml.FEATURE_ENABLED, nvml.SUCCESS
		},
		GetNvLinkVersionFunc: func(l int) (uint32, nvml.Return) {
			if ret := linkRet(l, false); ret != nvml.SUCCESS {
				return 0, ret
			}
			return uint32(b.preset.nvlinkVersion), nvml.SUCCESS
		},
		GetNvLinkRemotePciInfoFunc: func(l int) (nvml.PciInfo, nvml.Return) {
			if ret := linkRet(l, true); ret != nvml.SUCCESS {
				return nvml.PciInfo{}, ret
			}
			return pci(links[l]), nvml.SUCCESS
		},
		// Every preset's links are direct GPU-to-GPU links (no NVSwitch).
		GetNvLinkRemoteDeviceTypeFunc: func(l int) (nvml.IntNvLinkDeviceType, nvml.Return) {
			if ret := linkRet(l, true); ret != nvml.SUCCESS {
				return nvml.NVLINK_DEVICE_TYPE_UNKNOWN, ret
			}
			return nvml.NVLINK_DEVICE_TYPE_GPU, nvml.SUCCESS
		},
		GetCurrPcieLinkGenerationFunc: pcie(b.preset.pcieGen),
		GetCurrPcieLinkWidthFunc:      pcie(b.preset.pcieWidth),
		GetMaxPcieLinkGenerationFunc:  pcie(b.preset.pcieGen),
		GetMaxPcieLinkWidthFunc:       pcie(b.preset.pcieWidth),
	}
	b.addHealth(d, i, links)
	d.GetP2PStatusFunc = func(o nvml.Device, idx nvml.GpuP2PCapsIndex) (nvml.GpuP2PStatus, nvml.Return) {
		j, ok := ordinal[o]
		if !ok {
			return 0, nvml.ERROR_INVALID_ARGUMENT
		}
		return b.nvmlP2PStatus(i, j, idx)
	}
	d.GetTopologyCommonAncestorFunc = func(o nvml.Device) (nvml.GpuTopologyLevel, nvml.Return) {
		j, ok := ordinal[o]
		if !ok {
			return 0, nvml.ERROR_INVALID_ARGUMENT
		}
		if i == j {
			return nvml.TOPOLOGY_INTERNAL, nvml.SUCCESS
		}
		return b.pairs[i][j].level, nvml.SUCCESS
	}
	return d
}

// nvmlP2PStatus is `nvidia-smi topo -p2p` for i→j. A GPU and itself is
// NOT_SUPPORTED (observed). ATOMICS is OK when the link has any native
// atomics (NATIVE or ONLY_PARTIAL), since NVML has no "partial" status.
func (b *Backend) nvmlP2PStatus(i, j int, idx nvml.GpuP2PCapsIndex) (nvml.GpuP2PStatus, nvml.Return) {
	if i == j {
		return nvml.P2P_STATUS_NOT_SUPPORTED, nvml.SUCCESS
	}
	ps := b.pairs[i][j]
	claim := b.claimsP2P(i, j)
	noP2P := ps.noP2P
	if noP2P == nvml.P2P_STATUS_OK {
		noP2P = nvml.P2P_STATUS_NOT_SUPPORTED
	}
	ok := func(v bool) (nvml.GpuP2PStatus, nvml.Return) {
		if v {
			return nvml.P2P_STATUS_OK, nvml.SUCCESS
		}
		return noP2P, nvml.SUCCESS
	}
	switch idx {
	case nvml.P2P_CAPS_INDEX_READ, nvml.P2P_CAPS_INDEX_WRITE, nvml.P2P_CAPS_INDEX_PCI:
		return ok(claim)
	case nvml.P2P_CAPS_INDEX_NVLINK:
		if ps.nvlinks > 0 {
			return nvml.P2P_STATUS_OK, nvml.SUCCESS
		}
		return nvml.P2P_STATUS_NOT_SUPPORTED, nvml.SUCCESS
	case nvml.P2P_CAPS_INDEX_ATOMICS:
		native, partial := ps.nativeAttrs()
		if native+partial > 0 {
			return nvml.P2P_STATUS_OK, nvml.SUCCESS
		}
		return nvml.P2P_STATUS_NOT_SUPPORTED, nvml.SUCCESS
	}
	return 0, nvml.ERROR_INVALID_ARGUMENT
}
