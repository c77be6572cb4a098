// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package topology

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// Nominal is what NVML's description of a link promises, per direction: the
// yardstick a measured bandwidth is held against.
type Nominal struct {
	GBps float64 // per direction, 1e9 bytes/s
	// Path says which links count and at what rate, e.g. "18 × NVLink 4.0
	// at 26.5625 GB/s per direction, through NVSwitch" or "PCIe Gen5 x16 of
	// GPU0 at 3.938 GB/s per lane per direction (current link state)".
	Path string
}

// ErrNominalUnavailable wraps every reason the nominal rate cannot be
// computed that is not an error of the machine: an NVML call the driver does
// not support (NOT_SUPPORTED, FUNCTION_NOT_FOUND), or a link version or PCIe
// generation with no known rate. A caller records it as a finding and omits
// the fraction; any other error is a failure of the machine.
var ErrNominalUnavailable = errors.New("nominal link rate unavailable")

// nvlinkGBps is the per-link, per-direction rate by nvmlNvlinkVersion_t
// (the value nvmlDeviceGetNvLinkVersion returns is that enum, not the
// NVLink generation: 4 is NVLink 3.0, 6 is NVLink 4.0). Sources: NVIDIA's
// published per-link rates, which are also what `nvidia-smi nvlink -s`
// prints per link.
var nvlinkGBps = map[uint32]float64{
	1: 20,      // NVLink 1.0 (P100): 8 lanes × 20 Gbit/s; P100 whitepaper, 20 GB/s per direction per link.
	2: 25,      // NVLink 2.0 (V100): 8 lanes × 25 Gbit/s; V100 whitepaper, 300 GB/s total over 6 links.
	3: 25,      // NVLink 2.2: same signalling as 2.0.
	4: 25,      // NVLink 3.0 (A100): 4 lanes × 50 Gbit/s; A100 whitepaper, 600 GB/s total over 12 links.
	5: 14.0625, // NVLink 3.1 (GA10x bridges): RTX A6000 / A40 datasheets, 112.5 GB/s total over 4 links.
	6: 26.5625, // NVLink 4.0 (H100/H200): 2 lanes × 106.25 Gbit/s; nvidia-smi prints 26.562 GB/s per link
	// (NVIDIA's 900 GB/s total over 18 links is the same rate after encoding, 25 GB/s).
	7: 53.125, // NVLink 5.0 (B200): twice NVLink 4.0 per lane; NVIDIA, 1.8 TB/s total over 18 links.
}

// nvlinkNames names the nvmlNvlinkVersion_t values.
var nvlinkNames = map[uint32]string{
	1: "NVLink 1.0", 2: "NVLink 2.0", 3: "NVLink 2.2", 4: "NVLink 3.0",
	5: "NVLink 3.1", 6: "NVLink 4.0", 7: "NVLink 5.0", 8: "NVLink 6.0",
}

// pcieLaneGBps is the per-lane, per-direction data rate by PCIe generation
// after line encoding (PCI-SIG base specifications): transfer rate in GT/s ×
// encoding efficiency / 8 bits. TLP and DLLP overheads are not subtracted,
// so a perfect transfer reaches about 85–90 % of it.
var pcieLaneGBps = map[int]float64{
	1: 2.5 * 8 / 10 / 8,    // 2.5 GT/s, 8b/10b
	2: 5.0 * 8 / 10 / 8,    // 5 GT/s, 8b/10b
	3: 8.0 * 128 / 130 / 8, // 8 GT/s, 128b/130b
	4: 16 * 128.0 / 130 / 8,
	5: 32 * 128.0 / 130 / 8,
	6: 64 * 236.0 / 256 / 8, // 64 GT/s PAM4, 256-byte FLITs carrying 236 bytes of TLPs
}

// GPURef names a GPU for the nominal rates: Name for messages ("GPU0"), UUID
// to get its NVML handle, PCIBusID (CUDA's spelling is fine) to recognise it
// at the far end of a link.
type GPURef struct {
	Name, UUID, PCIBusID string
}

// PairNominal is the nominal per-direction rate of a→b, from what NVML says
// about the links:
//
//   - the active NVLinks of a whose far end is b's PCI address;
//   - else, where a's links end at NVSwitches and NVML's NVLINK P2P status
//     of a→b is OK, the smaller of a's and b's switch links. This is what
//     NVML says on an NVSwitch baseboard even for two GPUs alone: two H200s
//     each report 18 active links whose remote PCI address is
//     FFFFFFF:FF:FF.0 and remote type SWITCH, so matching addresses finds
//     no link although `nvidia-smi topo -m` says NV18;
//   - else the narrower of the two GPUs' PCIe links.
//
// Every rate is links × the per-link rate of the version NVML reports, or
// lanes × the per-lane rate of the generation NVML reports.
func PairNominal(lib nvml.Interface, a, b GPURef) (Nominal, error) {
	peer, err := ParsePCIBusID(b.PCIBusID)
	if err != nil {
		return Nominal{}, fmt.Errorf("nominal rate of %s→%s: %w", a.Name, b.Name, err)
	}
	da, err := handle(lib, a)
	if err != nil {
		return Nominal{}, err
	}
	db, err := handle(lib, b)
	if err != nil {
		return Nominal{}, err
	}
	la, err := activeLinks(da, a)
	if err != nil {
		return Nominal{}, err
	}
	var direct, viaSwitch linkSum
	for _, l := range la {
		switch {
		case l.remote == peer:
			direct.add(l)
		case l.toSwitch:
			viaSwitch.add(l)
		}
	}
	if direct.count > 0 {
		return Nominal{GBps: direct.gbps, Path: direct.describe("direct to " + b.Name)}, nil
	}
	if viaSwitch.count > 0 {
		st, ret := da.GetP2PStatus(db, nvml.P2P_CAPS_INDEX_NVLINK)
		if err := nominalErr("nvmlDeviceGetP2PStatus", ret, "%s, %s, NVLINK", a.Name, b.Name); err != nil {
			return Nominal{}, err
		}
		if st == nvml.P2P_STATUS_OK {
			lb, err := activeLinks(db, b)
			if err != nil {
				return Nominal{}, err
			}
			var other linkSum
			for _, l := range lb {
				if l.toSwitch {
					other.add(l)
				}
			}
			if other.count > 0 && other.gbps < viaSwitch.gbps {
				return Nominal{GBps: other.gbps, Path: other.describe("through NVSwitch, " + b.Name + "'s side")}, nil
			}
			return Nominal{GBps: viaSwitch.gbps, Path: viaSwitch.describe("through NVSwitch")}, nil
		}
	}
	pa, err := pcieNominal(da, a)
	if err != nil {
		return Nominal{}, err
	}
	pb, err := pcieNominal(db, b)
	if err != nil {
		return Nominal{}, err
	}
	if pb.GBps < pa.GBps {
		pa = pb
	}
	return pa, nil
}

// HostNominal is g's PCIe link per direction, the path of host↔device
// traffic.
func HostNominal(lib nvml.Interface, g GPURef) (Nominal, error) {
	d, err := handle(lib, g)
	if err != nil {
		return Nominal{}, err
	}
	return pcieNominal(d, g)
}

// nvlink is one active NVLink as NVML describes it.
type nvlink struct {
	version  uint32     // nvmlNvlinkVersion_t
	remote   PCIAddress // the far end; a placeholder when it is an NVSwitch
	toSwitch bool       // NVML says the far end is an NVSwitch
}

type linkSum struct {
	count    int
	gbps     float64
	versions map[uint32]int
}

func (s *linkSum) add(l nvlink) {
	s.count++
	s.gbps += nvlinkGBps[l.version]
	if s.versions == nil {
		s.versions = map[uint32]int{}
	}
	s.versions[l.version]++
}

func (s linkSum) describe(where string) string {
	var parts []string
	for v, n := range s.versions {
		parts = append(parts, fmt.Sprintf("%d × %s at %g GB/s", n, nvlinkName(v), nvlinkGBps[v]))
	}
	sort.Strings(parts)
	return strings.Join(parts, " + ") + " per direction, " + where
}

func nvlinkName(v uint32) string {
	if n, ok := nvlinkNames[v]; ok {
		return n
	}
	return fmt.Sprintf("NVLink version enum %d", v)
}

// activeLinks lists g's active NVLinks with version and far end. A GPU
// without NVLink answers NOT_SUPPORTED, and one with fewer links than
// NVLINK_MAX_LINKS answers INVALID_ARGUMENT past its last: no link there,
// not an error.
func activeLinks(d nvml.Device, g GPURef) ([]nvlink, error) {
	var out []nvlink
	for i := 0; i < nvml.NVLINK_MAX_LINKS; i++ {
		st, ret := d.GetNvLinkState(i)
		if ret == nvml.ERROR_NOT_SUPPORTED || ret == nvml.ERROR_INVALID_ARGUMENT {
			continue
		}
		if err := nominalErr("nvmlDeviceGetNvLinkState", ret, "%s, link %d", g.Name, i); err != nil {
			return nil, err
		}
		if st != nvml.FEATURE_ENABLED {
			continue
		}
		var l nvlink
		l.version, ret = d.GetNvLinkVersion(i)
		if err := nominalErr("nvmlDeviceGetNvLinkVersion", ret, "%s, link %d", g.Name, i); err != nil {
			return nil, err
		}
		if _, known := nvlinkGBps[l.version]; !known {
			return nil, fmt.Errorf("%w: %s link %d is %s, whose per-link rate is not known", ErrNominalUnavailable, g.Name, i, nvlinkName(l.version))
		}
		pci, ret := d.GetNvLinkRemotePciInfo(i)
		if err := nominalErr("nvmlDeviceGetNvLinkRemotePciInfo", ret, "%s, link %d", g.Name, i); err != nil {
			return nil, err
		}
		l.remote, _ = pciFromNVML(pci)
		// The remote type only tells switch links apart; a driver that
		// does not give it leaves a link whose far end is not the peer
		// counting for nothing.
		t, ret := d.GetNvLinkRemoteDeviceType(i)
		if ret != nvml.SUCCESS && !unsupported(ret) {
			return nil, nvmlErr("nvmlDeviceGetNvLinkRemoteDeviceType", ret, "%s, link %d", g.Name, i)
		}
		l.toSwitch = ret == nvml.SUCCESS && t == nvml.NVLINK_DEVICE_TYPE_SWITCH
		out = append(out, l)
	}
	return out, nil
}

// pcieNominal is the current PCIe link of g: lanes × the per-lane rate of
// its generation. It is read when asked, because idle links train down.
func pcieNominal(d nvml.Device, g GPURef) (Nominal, error) {
	gen, ret := d.GetCurrPcieLinkGeneration()
	if err := nominalErr("nvmlDeviceGetCurrPcieLinkGeneration", ret, "%s", g.Name); err != nil {
		return Nominal{}, err
	}
	width, ret := d.GetCurrPcieLinkWidth()
	if err := nominalErr("nvmlDeviceGetCurrPcieLinkWidth", ret, "%s", g.Name); err != nil {
		return Nominal{}, err
	}
	rate, ok := pcieLaneGBps[gen]
	if !ok || width <= 0 {
		return Nominal{}, fmt.Errorf("%w: %s reports PCIe generation %d width x%d, which has no known rate", ErrNominalUnavailable, g.Name, gen, width)
	}
	path := fmt.Sprintf("PCIe Gen%d x%d of %s at %.4g GB/s per lane per direction (current link state)", gen, width, g.Name, rate)
	// Say so when the link runs below what it can do; a driver that does
	// not give the maximum only loses the note.
	maxGen, ret := d.GetMaxPcieLinkGeneration()
	if ret != nvml.SUCCESS && !unsupported(ret) {
		return Nominal{}, nvmlErr("nvmlDeviceGetMaxPcieLinkGeneration", ret, "%s", g.Name)
	}
	if ret == nvml.SUCCESS && maxGen > gen {
		path += fmt.Sprintf(", below the link's maximum Gen%d", maxGen)
	}
	return Nominal{GBps: rate * float64(width), Path: path}, nil
}

func handle(lib nvml.Interface, g GPURef) (nvml.Device, error) {
	d, ret := lib.DeviceGetHandleByUUID(g.UUID)
	return d, nominalErr("nvmlDeviceGetHandleByUUID", ret, "%s %s", g.Name, g.UUID)
}

// nominalErr is nil for SUCCESS, else the failed call as an *Error; an
// answer of NOT_SUPPORTED or FUNCTION_NOT_FOUND (the driver lacks the call)
// also wraps ErrNominalUnavailable.
func nominalErr(fn string, ret nvml.Return, format string, args ...any) error {
	if ret == nvml.SUCCESS {
		return nil
	}
	err := nvmlErr(fn, ret, format, args...)
	if unsupported(ret) {
		return fmt.Errorf("%w: %w", ErrNominalUnavailable, err)
	}
	return err
}

// unsupported reports whether ret says the driver lacks the call (rather
// than that the call failed).
func unsupported(ret nvml.Return) bool {
	return ret == nvml.ERROR_NOT_SUPPORTED || ret == nvml.ERROR_FUNCTION_NOT_FOUND
}
