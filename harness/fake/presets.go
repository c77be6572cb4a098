// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/p2pconf/p2pconf/harness/backend"
)

// PresetInfo names and describes a preset.
type PresetInfo struct {
	Name        string
	Description string
}

// fabricMode is what the FABRIC handle type does on a preset.
type fabricMode int

const (
	fabricUnsupported  fabricMode = iota // attribute 0; cuMemCreate with FABRIC → NOT_SUPPORTED
	fabricNotPermitted                   // attribute 1, but no IMEX channel: cuMemCreate → NOT_PERMITTED
	fabricWorks                          // attribute 1; export and import work
)

// pairSpec is the truth about one ordered pair.
type pairSpec struct {
	p2p     bool // peer loads and stores work; CanAccessPeer = 1
	nvlinks int
	level   nvml.GpuTopologyLevel
	rank    int
	// native says which atomic operations the link does natively.
	native [backend.AtomicOperationCount]bool
	// zeroCaps makes cuDeviceGetP2PAtomicCapabilities answer 0 for every
	// operation whatever native says (docs/observations.md, claims on two H200).
	zeroCaps bool
	// noP2P is NVML's status for READ/WRITE/PCI when p2p is false.
	noP2P nvml.GpuP2PStatus
}

type presetSpec struct {
	name, desc   string
	gpuName      string
	pciDeviceID  uint32
	cc, sms      int
	memMiB       uint64
	bus          []uint32 // PCI bus numbers, ascending (CUDA ordinal order)
	driver       int      // cuDriverGetVersion
	driverString string   // NVML driver version
	hostNative   bool
	fabric       fabricMode
	maxLinks     int // NVLinks per GPU (0: no NVLink)
	// nvlinkVersion is nvmlDeviceGetNvLinkVersion of every link: the
	// nvmlNvlinkVersion_t enum, not the generation (NVLINK_VERSION_4_0 is 6).
	nvlinkVersion nvml.NvlinkVersion
	// pcieGen and pcieWidth are the GPU's PCIe link, current and maximum
	// alike (the fake's links never train down).
	pcieGen, pcieWidth int
	pair               func(a, b int) pairSpec
}

// fullCaps is every capability a natively supported operation has. CUDA does
// not publish this table; it follows the PTX atom/red instruction set
// (integer ops signed and unsigned, 32 and 64 bit, as reductions too; inc/dec
// are u32 only; exch and cas also 128 bit; float add also on 4×32 vectors).
var fullCaps = [backend.AtomicOperationCount]backend.AtomicCaps{
	backend.AtomicIntegerAdd:       intCaps,
	backend.AtomicIntegerMin:       intCaps,
	backend.AtomicIntegerMax:       intCaps,
	backend.AtomicIntegerIncrement: backend.CapUnsigned | backend.CapReduction | backend.CapScalar32,
	backend.AtomicIntegerDecrement: backend.CapUnsigned | backend.CapReduction | backend.CapScalar32,
	backend.AtomicAnd:              intCaps,
	backend.AtomicOr:               intCaps,
	backend.AtomicXor:              intCaps,
	backend.AtomicExchange:         backend.CapSigned | backend.CapUnsigned | backend.CapScalar32 | backend.CapScalar64 | backend.CapScalar128,
	backend.AtomicCAS:              backend.CapSigned | backend.CapUnsigned | backend.CapScalar32 | backend.CapScalar64 | backend.CapScalar128,
	backend.AtomicFloatAdd:         backend.CapReduction | backend.CapScalar32 | backend.CapScalar64 | backend.CapVector32x4,
	backend.AtomicFloatMin:         backend.CapReduction | backend.CapScalar32 | backend.CapScalar64,
	backend.AtomicFloatMax:         backend.CapReduction | backend.CapScalar32 | backend.CapScalar64,
}

const intCaps = backend.CapSigned | backend.CapUnsigned | backend.CapReduction | backend.CapScalar32 | backend.CapScalar64

func allNative() (n [backend.AtomicOperationCount]bool) {
	for i := range n {
		n[i] = true
	}
	return n
}

// integerNative: every integer operation native, the float ones not (the
// ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED pair of "mixed").
func integerNative() (n [backend.AtomicOperationCount]bool) {
	for i := range n {
		n[i] = backend.AtomicOperation(i) < backend.AtomicFloatAdd
	}
	return n
}

// levelOf places GPUs in groups: a and b share a PCIe switch when a/2 == b/2, a NUMA node
// when a/half == b/half.
func levelOf(a, b, half int) nvml.GpuTopologyLevel {
	switch {
	case a/2 == b/2:
		return nvml.TOPOLOGY_MULTIPLE
	case a/half == b/half:
		return nvml.TOPOLOGY_NODE
	}
	return nvml.TOPOLOGY_SYSTEM
}

var presets = map[string]*presetSpec{
	"nvlink8": {
		name: "nvlink8", desc: "8 H100 SXM, every pair on 2 direct NVLinks, all atomics native, host atomics native, FABRIC works, CUDA 13.0",
		gpuName: "NVIDIA H100 80GB HBM3", pciDeviceID: 0x233010de, cc: 90, sms: 132, memMiB: 81559,
		bus:    []uint32{0x18, 0x2a, 0x3a, 0x5d, 0x9a, 0xab, 0xba, 0xdb},
		driver: 13000, driverString: "580.159.04", hostNative: true, fabric: fabricWorks, maxLinks: 18,
		nvlinkVersion: nvml.NVLINK_VERSION_4_0, pcieGen: 5, pcieWidth: 16,
		pair: func(a, b int) pairSpec {
			return pairSpec{p2p: true, nvlinks: 2, level: levelOf(a, b, 4), native: allNative()}
		},
	},
	"pcie4-nop2p": {
		name: "pcie4-nop2p", desc: "4 A100 PCIe without P2P (CanAccessPeer 0, NVML CHIPSET_NOT_SUPPORTED), CUDA 12.4 driver (no atomic capability entry points)",
		gpuName: "NVIDIA A100-PCIE-40GB", pciDeviceID: 0x20f110de, cc: 80, sms: 108, memMiB: 40960,
		bus:    []uint32{0x17, 0x65, 0xb1, 0xe3},
		driver: 12040, driverString: "550.54.15", pcieGen: 4, pcieWidth: 16,
		pair: func(a, b int) pairSpec {
			return pairSpec{level: levelOf(a, b, 2), noP2P: nvml.P2P_STATUS_CHIPSET_NOT_SUPPORTED}
		},
	},
	"mixed": {
		name: "mixed", desc: "4 H100 PCIe: 0-1 NVLink with native atomics, 2-3 NVLink with ONLY_PARTIAL native atomics (no float ops), other pairs PCIe P2P without native atomics",
		gpuName: "NVIDIA H100 PCIe", pciDeviceID: 0x233110de, cc: 90, sms: 114, memMiB: 81559,
		bus:    []uint32{0x1b, 0x1c, 0x8a, 0x8b},
		driver: 13000, driverString: "580.159.04", maxLinks: 12,
		nvlinkVersion: nvml.NVLINK_VERSION_4_0, pcieGen: 5, pcieWidth: 16,
		pair: func(a, b int) pairSpec {
			p := pairSpec{p2p: true, level: nvml.TOPOLOGY_HOSTBRIDGE, rank: 1}
			switch {
			case a/2 == b/2 && a < 2:
				p.nvlinks, p.level, p.rank, p.native = 4, nvml.TOPOLOGY_SINGLE, 0, allNative()
			case a/2 == b/2:
				p.nvlinks, p.level, p.rank, p.native = 4, nvml.TOPOLOGY_SINGLE, 0, integerNative()
			}
			return p
		},
	},
	"single": {
		name: "single", desc: "1 H100 SXM, host atomics native, FABRIC works, CUDA 13.0",
		gpuName: "NVIDIA H100 80GB HBM3", pciDeviceID: 0x233010de, cc: 90, sms: 132, memMiB: 81559,
		bus:    []uint32{0x1b},
		driver: 13000, driverString: "580.159.04", hostNative: true, fabric: fabricWorks, maxLinks: 18,
		nvlinkVersion: nvml.NVLINK_VERSION_4_0, pcieGen: 5, pcieWidth: 16,
		pair: func(a, b int) pairSpec { return pairSpec{} },
	},
	"h200x2": {
		name: "h200x2", desc: "2 H200 on 18 NVLinks as observed (docs/observations.md): NATIVE_ATOMIC_SUPPORTED 1 but every per-op capability mask 0, host atomics not native, FABRIC without IMEX (NOT_PERMITTED)",
		gpuName: "NVIDIA H200", pciDeviceID: 0x233510de, cc: 90, sms: 132, memMiB: 143771,
		bus:    []uint32{0x1b, 0x43},
		driver: 13000, driverString: "580.159.04", fabric: fabricNotPermitted, maxLinks: 18,
		nvlinkVersion: nvml.NVLINK_VERSION_4_0, pcieGen: 5, pcieWidth: 16,
		pair: func(a, b int) pairSpec {
			return pairSpec{p2p: true, nvlinks: 18, level: nvml.TOPOLOGY_SYSTEM, native: allNative(), zeroCaps: true}
		},
	},
}

// Presets lists the preset names with a description, sorted by name. Any
// preset can be given a driver version with "@": "mixed@12040" acts like a
// CUDA 12.4 driver (no atomic capability entry points, no P2P attribute 5).
func Presets() []PresetInfo {
	out := make([]PresetInfo, 0, len(presets))
	for _, p := range presets {
		out = append(out, PresetInfo{Name: p.name, Description: p.desc})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// lookupPreset resolves "name" or "name@driver".
func lookupPreset(s string) (*presetSpec, error) {
	name, ver, hasVer := strings.Cut(strings.TrimSpace(s), "@")
	p, ok := presets[name]
	if !ok {
		names := make([]string, 0, len(presets))
		for _, i := range Presets() {
			names = append(names, i.Name)
		}
		return nil, fmt.Errorf("fake: unknown preset %q (valid: %s; add @<driver version> such as @12040 to change the driver)",
			s, strings.Join(names, ", "))
	}
	if !hasVer {
		return p, nil
	}
	v, err := strconv.Atoi(ver)
	if err != nil || v < 10000 || v%10 != 0 {
		return nil, fmt.Errorf("fake: preset %q: driver version %q is not a cuDriverGetVersion value such as 12040 or 13000", s, ver)
	}
	cp := *p
	cp.name, cp.driver = name+"@"+ver, v
	if v < 13000 && p.driver >= 13000 {
		cp.driverString = "550.54.15"
	}
	return &cp, nil
}

// claimedCaps is what cuDeviceGetP2PAtomicCapabilities reports for one op.
func (ps pairSpec) claimedCaps(op backend.AtomicOperation, overstate bool) backend.AtomicCaps {
	switch {
	case overstate && ps.p2p:
		return fullCaps[op]
	case ps.zeroCaps || !ps.native[op]:
		return 0
	}
	return fullCaps[op]
}

// nativeAttrs derives NATIVE_ATOMIC_SUPPORTED and ONLY_PARTIAL_... from the truth.
func (ps pairSpec) nativeAttrs() (native, partial int) {
	n := 0
	for _, v := range ps.native {
		if v {
			n++
		}
	}
	switch {
	case !ps.p2p || n == 0:
		return 0, 0
	case n == len(ps.native):
		return 1, 0
	}
	return 0, 1
}
