// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package topology

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// P2PStatus is an NVML nvmlGpuP2PStatus_t value that prints as its nvml.h
// name, so skip reasons and reports quote the source ("P2P_STATUS_OK").
type P2PStatus nvml.GpuP2PStatus

var p2pStatusNames = map[P2PStatus]string{
	P2PStatus(nvml.P2P_STATUS_OK):                         "P2P_STATUS_OK",
	P2PStatus(nvml.P2P_STATUS_CHIPSET_NOT_SUPPORTED):      "P2P_STATUS_CHIPSET_NOT_SUPPORTED",
	P2PStatus(nvml.P2P_STATUS_GPU_NOT_SUPPORTED):          "P2P_STATUS_GPU_NOT_SUPPORTED",
	P2PStatus(nvml.P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED): "P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED",
	P2PStatus(nvml.P2P_STATUS_DISABLED_BY_REGKEY):         "P2P_STATUS_DISABLED_BY_REGKEY",
	P2PStatus(nvml.P2P_STATUS_NOT_SUPPORTED):              "P2P_STATUS_NOT_SUPPORTED",
	P2PStatus(nvml.P2P_STATUS_UNKNOWN):                    "P2P_STATUS_UNKNOWN",
}

func (s P2PStatus) String() string {
	if n, ok := p2pStatusNames[s]; ok {
		return n
	}
	return fmt.Sprintf("P2P_STATUS_%d", int(s))
}

// OK reports whether the status is P2P_STATUS_OK.
func (s P2PStatus) OK() bool { return s == P2PStatus(nvml.P2P_STATUS_OK) }

// MarshalText writes the name, so JSON reports carry names, not numbers.
func (s P2PStatus) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Level is an nvmlGpuTopologyLevel_t value: the closest common ancestor of
// two GPUs on the PCIe/CPU path. NVLink is reported separately (the NVLINK
// P2P status and the NVLink calls), not by this level.
type Level nvml.GpuTopologyLevel

// String uses the abbreviations of `nvidia-smi topo -m` (PIX, PXB, PHB, NODE,
// SYS); INTERNAL (two GPUs of one board) has no abbreviation there.
func (l Level) String() string {
	switch nvml.GpuTopologyLevel(l) {
	case nvml.TOPOLOGY_INTERNAL:
		return "INTERNAL"
	case nvml.TOPOLOGY_SINGLE:
		return "PIX"
	case nvml.TOPOLOGY_MULTIPLE:
		return "PXB"
	case nvml.TOPOLOGY_HOSTBRIDGE:
		return "PHB"
	case nvml.TOPOLOGY_NODE:
		return "NODE"
	case nvml.TOPOLOGY_SYSTEM:
		return "SYS"
	}
	return fmt.Sprintf("TOPOLOGY_%d", int(l))
}

// MarshalText writes the abbreviation.
func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// PCIAddress is a PCI location without the function (GPUs are function 0).
type PCIAddress struct {
	Domain, Bus, Device uint32
}

// String is the CUDA spelling: "0000:1b:00.0" (4-digit domain when it fits).
func (a PCIAddress) String() string {
	return fmt.Sprintf("%04x:%02x:%02x.0", a.Domain, a.Bus, a.Device)
}

// ParsePCIBusID parses the bus ID spellings CUDA and NVML use:
// "0000:1b:00.0" (cuDeviceGetPCIBusId), "00000000:1B:00.0" (NVML), and the
// short "1b:00.0" (domain 0). Hex digits may be upper or lower case, because
// the two libraries disagree on case; comparing parsed numbers makes that moot.
func ParsePCIBusID(s string) (PCIAddress, error) {
	orig := s
	s = strings.TrimRight(strings.TrimSpace(s), "\x00")
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		s = s[:i] // the function
	}
	parts := strings.Split(s, ":")
	if len(parts) == 2 {
		parts = append([]string{"0"}, parts...)
	}
	if len(parts) != 3 {
		return PCIAddress{}, fmt.Errorf("PCI bus ID %q: want domain:bus:device.function", orig)
	}
	var v [3]uint64
	for i, p := range parts {
		n, err := strconv.ParseUint(p, 16, 32)
		if err != nil || p == "" {
			return PCIAddress{}, fmt.Errorf("PCI bus ID %q: %q is not hexadecimal", orig, p)
		}
		v[i] = n
	}
	return PCIAddress{Domain: uint32(v[0]), Bus: uint32(v[1]), Device: uint32(v[2])}, nil
}

// pciFromNVML reads the address from an nvml.PciInfo: the BusId string when
// it is filled in, else the numeric fields.
func pciFromNVML(p nvml.PciInfo) (PCIAddress, string) {
	id := int8String(p.BusId[:])
	if id == "" {
		id = int8String(p.BusIdLegacy[:])
	}
	if a, err := ParsePCIBusID(id); err == nil && id != "" {
		return a, id
	}
	a := PCIAddress{Domain: p.Domain, Bus: p.Bus, Device: p.Device}
	return a, fmt.Sprintf("%08X:%02X:%02X.0", p.Domain, p.Bus, p.Device)
}

func int8String(b []int8) string {
	out := make([]byte, 0, len(b))
	for _, c := range b {
		if c == 0 {
			break
		}
		out = append(out, byte(c))
	}
	return string(out)
}

// PciInfo builds the nvml.PciInfo NVML reports for an address (BusId with an
// 8-digit upper-case domain, BusIdLegacy with 4 digits). Mocks use it.
func PciInfo(a PCIAddress, pciDeviceID uint32) nvml.PciInfo {
	p := nvml.PciInfo{Domain: a.Domain, Bus: a.Bus, Device: a.Device, PciDeviceId: pciDeviceID}
	copyInt8(p.BusId[:], fmt.Sprintf("%08X:%02X:%02X.0", a.Domain, a.Bus, a.Device))
	copyInt8(p.BusIdLegacy[:], fmt.Sprintf("%04X:%02X:%02X.0", a.Domain, a.Bus, a.Device))
	return p
}

func copyInt8(dst []int8, s string) {
	for i := 0; i < len(s) && i < len(dst)-1; i++ {
		dst[i] = int8(s[i])
	}
}
