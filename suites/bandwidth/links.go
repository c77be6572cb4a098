// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package bandwidth

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// Nominal is what the link description promises, per direction.
type Nominal struct {
	GBps float64 // per direction, 1e9 bytes/s
	Path string  // "18 × NVLink 4.0 links (direct)", "PCIe Gen5 x16"
}

// ErrUnsupported wraps every reason the nominal rate cannot be computed
// that is not an error of the machine: an NVML call the driver (or the
// fake's NVML mock) does not support, a link version with no known rate.
// The spec records it as a finding and omits the fraction.
var ErrUnsupported = errors.New("nominal link rate unavailable")

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

// GPURef names a GPU for NVML: its UUID (to get the handle) and PCI bus ID
// (to recognise it at the far end of a link).
type GPURef struct {
	Name, UUID, PCIBusID string
}

// PairNominal computes the nominal per-direction rate of a→b: the NVLinks
// from a whose far end is b (or, where a's links end at NVSwitches and NVML
// says a and b talk over NVLink, the smaller of a's and b's switch links),
// else the narrower of the two GPUs' PCIe links.
func PairNominal(lib nvml.Interface, a, b GPURef) (n Nominal, err error) {
	defer recoverMock(&err)
	da, err := handle(lib, a)
	if err != nil {
		return n, err
	}
	db, err := handle(lib, b)
	if err != nil {
		return n, err
	}
	la, err := activeLinks(da, a)
	if err != nil {
		return n, err
	}
	var direct, viaSwitch linkSum
	for _, l := range la {
		switch {
		case samePCI(l.remote, b.PCIBusID):
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
		if err := nvmlErr(ret, "nvmlDeviceGetP2PStatus(%s, %s, NVLINK)", a.Name, b.Name); err != nil {
			return n, err
		}
		if st == nvml.P2P_STATUS_OK {
			lb, err := activeLinks(db, b)
			if err != nil {
				return n, err
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
		return n, err
	}
	pb, err := pcieNominal(db, b)
	if err != nil {
		return n, err
	}
	if pb.GBps < pa.GBps {
		pa = pb
	}
	return pa, nil
}

// HostNominal is g's PCIe link per direction (host↔device traffic).
func HostNominal(lib nvml.Interface, g GPURef) (n Nominal, err error) {
	defer recoverMock(&err)
	d, err := handle(lib, g)
	if err != nil {
		return n, err
	}
	return pcieNominal(d, g)
}

type link struct {
	index    int
	version  uint32
	remote   string
	toSwitch bool
}

type linkSum struct {
	count    int
	gbps     float64
	versions map[uint32]int
}

func (s *linkSum) add(l link) {
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
	names := map[uint32]string{1: "NVLink 1.0", 2: "NVLink 2.0", 3: "NVLink 2.2", 4: "NVLink 3.0", 5: "NVLink 3.1", 6: "NVLink 4.0", 7: "NVLink 5.0", 8: "NVLink 6.0"}
	if n, ok := names[v]; ok {
		return n
	}
	return fmt.Sprintf("NVLink version enum %d", v)
}

// activeLinks lists g's active NVLinks with version and far end. A GPU
// without NVLink answers NOT_SUPPORTED for link 0: no links, not an error.
func activeLinks(d nvml.Device, g GPURef) ([]link, error) {
	var out []link
	for i := 0; i < nvml.NVLINK_MAX_LINKS; i++ {
		st, ret := d.GetNvLinkState(i)
		if ret == nvml.ERROR_NOT_SUPPORTED || ret == nvml.ERROR_INVALID_ARGUMENT {
			// Past the device's last link (or no NVLink at all).
			continue
		}
		if err := nvmlErr(ret, "nvmlDeviceGetNvLinkState(%s, link %d)", g.Name, i); err != nil {
			return nil, err
		}
		if st != nvml.FEATURE_ENABLED {
			continue
		}
		l := link{index: i}
		l.version, ret = d.GetNvLinkVersion(i)
		if err := nvmlErr(ret, "nvmlDeviceGetNvLinkVersion(%s, link %d)", g.Name, i); err != nil {
			return nil, err
		}
		if _, known := nvlinkGBps[l.version]; !known {
			return nil, fmt.Errorf("%w: %s link %d is %s, whose rate this suite does not know", ErrUnsupported, g.Name, i, nvlinkName(l.version))
		}
		pci, ret := d.GetNvLinkRemotePciInfo(i)
		if err := nvmlErr(ret, "nvmlDeviceGetNvLinkRemotePciInfo(%s, link %d)", g.Name, i); err != nil {
			return nil, err
		}
		l.remote = busID(pci)
		// The remote type is optional: without it a link whose far end is
		// not the peer counts for nothing.
		t, ok := optional(func() (nvml.IntNvLinkDeviceType, nvml.Return) { return d.GetNvLinkRemoteDeviceType(i) })
		l.toSwitch = ok && t == nvml.NVLINK_DEVICE_TYPE_SWITCH
		out = append(out, l)
	}
	return out, nil
}

func pcieNominal(d nvml.Device, g GPURef) (Nominal, error) {
	gen, ret := d.GetCurrPcieLinkGeneration()
	if err := nvmlErr(ret, "nvmlDeviceGetCurrPcieLinkGeneration(%s)", g.Name); err != nil {
		return Nominal{}, err
	}
	width, ret := d.GetCurrPcieLinkWidth()
	if err := nvmlErr(ret, "nvmlDeviceGetCurrPcieLinkWidth(%s)", g.Name); err != nil {
		return Nominal{}, err
	}
	rate, ok := pcieLaneGBps[gen]
	if !ok || width <= 0 {
		return Nominal{}, fmt.Errorf("%w: %s reports PCIe generation %d width x%d, which has no known rate", ErrUnsupported, g.Name, gen, width)
	}
	path := fmt.Sprintf("PCIe Gen%d x%d of %s at %.4g GB/s per lane per direction (current link state)", gen, width, g.Name, rate)
	// The link may train down when idle; say so when NVML knows better.
	if maxGen, ok := optional(d.GetMaxPcieLinkGeneration); ok && maxGen > gen {
		path += fmt.Sprintf(", below the link's maximum Gen%d", maxGen)
	}
	return Nominal{GBps: rate * float64(width), Path: path}, nil
}

func handle(lib nvml.Interface, g GPURef) (nvml.Device, error) {
	d, ret := lib.DeviceGetHandleByUUID(g.UUID)
	return d, nvmlErr(ret, "nvmlDeviceGetHandleByUUID(%s %s)", g.Name, g.UUID)
}

// nvmlErr turns an NVML return into an error: NOT_SUPPORTED and
// FUNCTION_NOT_FOUND wrap ErrUnsupported; other failures are errors of the
// machine.
func nvmlErr(ret nvml.Return, format string, args ...any) error {
	if ret == nvml.SUCCESS {
		return nil
	}
	what := fmt.Sprintf(format, args...)
	if ret == nvml.ERROR_NOT_SUPPORTED || ret == nvml.ERROR_FUNCTION_NOT_FOUND {
		return fmt.Errorf("%w: %s returned %s", ErrUnsupported, what, ret.String())
	}
	return fmt.Errorf("%s returned %s", what, ret.String())
}

// recoverMock turns the panic of an NVML mock method that was left unset
// (go-nvml's moq mocks panic "method is nil but ... was just called") into
// ErrUnsupported, so a fake whose mock lacks the NVLink calls gets a finding.
func recoverMock(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%w: the NVML implementation panicked: %v", ErrUnsupported, r)
	}
}

// optional makes an NVML call whose answer only refines the result: any
// failure, a mock's panic included, is "no answer".
func optional[T any](call func() (T, nvml.Return)) (v T, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	v, ret := call()
	return v, ret == nvml.SUCCESS
}

// busID renders NVML's PciInfo.BusId (a NUL-terminated C string).
func busID(p nvml.PciInfo) string {
	var b strings.Builder
	for _, c := range p.BusId {
		if c == 0 {
			break
		}
		b.WriteByte(byte(c))
	}
	return b.String()
}

// samePCI compares two bus IDs numerically: NVML writes an 8-digit domain in
// upper case, CUDA a 4-digit one in lower case.
func samePCI(x, y string) bool {
	a, ok1 := parseBusID(x)
	b, ok2 := parseBusID(y)
	return ok1 && ok2 && a == b
}

func parseBusID(s string) ([3]uint64, bool) {
	var dom, bus, dev, fn uint64
	if n, err := fmt.Sscanf(strings.TrimSpace(s), "%x:%x:%x.%x", &dom, &bus, &dev, &fn); err != nil || n != 4 {
		return [3]uint64{}, false
	}
	return [3]uint64{dom, bus, dev}, true
}
