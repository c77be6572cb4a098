// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package topology is the NVML side of the oracle: which GPU is which, how
// each ordered pair is connected (NVLink, PCIe, nothing) and what NVML says
// about peer-to-peer between them. It works over an injected nvml.Interface,
// so the tests (and the fake backend) drive it with go-nvml's mocks.
//
// CUDA ordinals are matched to NVML devices by PCI bus ID, compared as
// numbers (domain, bus, device), and cross-checked by UUID. NVML's index is
// never used for matching: nvml.h says it "may not correlate with the CUDA
// device index".
package topology

import (
	"fmt"
	"strings"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/p2pconf/p2pconf/harness/backend"
)

// LinkKind is how a pair is connected, as the pair: and link: labels say it.
type LinkKind string

// Link kinds.
const (
	LinkNVLink LinkKind = "nvlink"
	LinkPCIe   LinkKind = "pcie"
	LinkNone   LinkKind = "none"
)

// GPU is one CUDA device and the NVML device that is the same GPU.
type GPU struct {
	Ordinal   backend.Device `json:"ordinal"`
	NVMLIndex int            `json:"nvml_index"`
	Name      string         `json:"name"`
	UUID      string         `json:"uuid"`
	// BusID is the PCI bus ID as NVML prints it ("00000000:1B:00.0").
	BusID string      `json:"bus_id"`
	PCI   PCIAddress  `json:"-"`
	NVML  nvml.Device `json:"-"`
}

// Pair is what NVML says about the ordered pair A→B.
type Pair struct {
	A backend.Device `json:"a"`
	B backend.Device `json:"b"`
	// NVML GetP2PStatus(A, B, index) for each capability index.
	Read    P2PStatus `json:"read"`
	Write   P2PStatus `json:"write"`
	NVLink  P2PStatus `json:"nvlink"`
	Atomics P2PStatus `json:"atomics"`
	PCI     P2PStatus `json:"pci"`
	// Ancestor is GetTopologyCommonAncestor(A, B).
	Ancestor Level `json:"ancestor"`
	// NVLinks counts A's active NVLinks whose remote end is B or, when
	// the GPUs reach each other through NVSwitches (ViaSwitch), the links
	// the path has: the smaller of A's and B's active links to a switch.
	NVLinks int `json:"nvlinks"`
	// ViaSwitch says the links go to NVSwitches, not straight to B.
	ViaSwitch bool     `json:"via_switch,omitempty"`
	Link      LinkKind `json:"link"`
}

// Connection is the `nvidia-smi topo -m` cell: "NV18" over NVLink, else the
// PCIe level ("PIX", "PHB", "SYS", ...).
func (p Pair) Connection() string {
	if p.NVLinks > 0 {
		return fmt.Sprintf("NV%d", p.NVLinks)
	}
	return p.Ancestor.String()
}

// View is the NVML picture of the machine, indexed by CUDA ordinal.
type View struct {
	// DriverVersion is nvmlSystemGetDriverVersion ("580.159.04").
	DriverVersion string `json:"driver_version"`
	// CUDAVersion is nvmlSystemGetCudaDriverVersion (13000).
	CUDAVersion int    `json:"cuda_version"`
	GPUs        []GPU  `json:"gpus"`
	Pairs       []Pair `json:"pairs"`
}

// GPU returns the GPU with CUDA ordinal d.
func (v *View) GPU(d backend.Device) (GPU, bool) {
	for _, g := range v.GPUs {
		if g.Ordinal == d {
			return g, true
		}
	}
	return GPU{}, false
}

// Pair returns the ordered pair a→b.
func (v *View) Pair(a, b backend.Device) (Pair, bool) {
	for _, p := range v.Pairs {
		if p.A == a && p.B == b {
			return p, true
		}
	}
	return Pair{}, false
}

// Error is a failed NVML call: the function, NVML's return and what it was
// asked about ("GPU0→GPU1 READ", "GPU2 link 3").
type Error struct {
	Func    string
	Ret     nvml.Return
	Subject string
}

func (e *Error) Error() string {
	if e.Subject == "" {
		return fmt.Sprintf("%s: %s", e.Func, e.Ret.Error())
	}
	return fmt.Sprintf("%s(%s): %s", e.Func, e.Subject, e.Ret.Error())
}

// Unwrap exposes the nvml.Return, so errors.Is(err, nvml.ERROR_NOT_SUPPORTED) works.
func (e *Error) Unwrap() error { return e.Ret }

func nvmlErr(fn string, ret nvml.Return, format string, args ...any) error {
	return &Error{Func: fn, Ret: ret, Subject: fmt.Sprintf(format, args...)}
}

// Read builds the View of devs (the CUDA device list) from lib, which must be
// initialised. Every NVML failure is an error naming the call and the GPUs:
// the oracle never guesses.
func Read(lib nvml.Interface, devs []backend.DeviceInfo) (*View, error) {
	v := &View{}
	var ret nvml.Return
	if v.DriverVersion, ret = lib.SystemGetDriverVersion(); ret != nvml.SUCCESS {
		return nil, nvmlErr("nvmlSystemGetDriverVersion", ret, "")
	}
	if v.CUDAVersion, ret = lib.SystemGetCudaDriverVersion(); ret != nvml.SUCCESS {
		return nil, nvmlErr("nvmlSystemGetCudaDriverVersion", ret, "")
	}
	nv, err := listNVML(lib)
	if err != nil {
		return nil, err
	}
	if v.GPUs, err = match(devs, nv); err != nil {
		return nil, err
	}
	links := make([][]remoteEnd, len(v.GPUs))
	for i, g := range v.GPUs {
		if links[i], err = nvLinkRemotes(g); err != nil {
			return nil, err
		}
	}
	for i, a := range v.GPUs {
		for j, b := range v.GPUs {
			if a.Ordinal == b.Ordinal {
				continue
			}
			p, err := readPair(a, b, links[i], links[j])
			if err != nil {
				return nil, err
			}
			v.Pairs = append(v.Pairs, p)
		}
	}
	return v, nil
}

// listNVML returns every NVML device with its identity, in NVML index order.
func listNVML(lib nvml.Interface) ([]GPU, error) {
	n, ret := lib.DeviceGetCount()
	if ret != nvml.SUCCESS {
		return nil, nvmlErr("nvmlDeviceGetCount", ret, "")
	}
	out := make([]GPU, 0, n)
	for i := 0; i < n; i++ {
		d, ret := lib.DeviceGetHandleByIndex(i)
		if ret != nvml.SUCCESS {
			return nil, nvmlErr("nvmlDeviceGetHandleByIndex", ret, "NVML index %d", i)
		}
		g := GPU{NVMLIndex: i, NVML: d}
		pci, ret := d.GetPciInfo()
		if ret != nvml.SUCCESS {
			return nil, nvmlErr("nvmlDeviceGetPciInfo", ret, "NVML index %d", i)
		}
		g.PCI, g.BusID = pciFromNVML(pci)
		if g.UUID, ret = d.GetUUID(); ret != nvml.SUCCESS {
			return nil, nvmlErr("nvmlDeviceGetUUID", ret, "NVML index %d (%s)", i, g.BusID)
		}
		if g.Name, ret = d.GetName(); ret != nvml.SUCCESS {
			return nil, nvmlErr("nvmlDeviceGetName", ret, "NVML index %d (%s)", i, g.BusID)
		}
		for _, o := range out {
			if o.PCI == g.PCI {
				return nil, fmt.Errorf("NVML indices %d and %d report the same PCI bus ID %s", o.NVMLIndex, i, g.BusID)
			}
		}
		out = append(out, g)
	}
	return out, nil
}

// match pairs each CUDA device with the NVML device at the same PCI address.
func match(devs []backend.DeviceInfo, nv []GPU) ([]GPU, error) {
	out := make([]GPU, 0, len(devs))
	for _, d := range devs {
		addr, err := ParsePCIBusID(d.PCIBusID)
		if err != nil {
			return nil, fmt.Errorf("CUDA device %d: %w", int(d.Ordinal), err)
		}
		var found *GPU
		for i := range nv {
			if nv[i].PCI == addr {
				found = &nv[i]
			}
		}
		if found == nil {
			return nil, fmt.Errorf("CUDA device %d (%s, %s) has no NVML device at that PCI bus ID (NVML has: %s)",
				int(d.Ordinal), d.PCIBusID, d.UUID, describe(nv))
		}
		if d.UUID != "" && !strings.EqualFold(d.UUID, found.UUID) {
			return nil, fmt.Errorf("CUDA device %d at %s has UUID %s but NVML index %d at the same bus ID has UUID %s",
				int(d.Ordinal), d.PCIBusID, d.UUID, found.NVMLIndex, found.UUID)
		}
		g := *found
		g.Ordinal = d.Ordinal
		out = append(out, g)
	}
	return out, nil
}

func describe(nv []GPU) string {
	if len(nv) == 0 {
		return "no devices"
	}
	s := make([]string, len(nv))
	for i, g := range nv {
		s[i] = fmt.Sprintf("%d at %s", g.NVMLIndex, g.BusID)
	}
	return strings.Join(s, ", ")
}

// remoteEnd is the far end of one active NVLink: a PCI address, and
// whether NVML says the far end is an NVSwitch. Behind a switch the address
// is a placeholder (FFFFFFFF:FF:FF.0 on a slice of an NVSwitch baseboard),
// so it matches no GPU.
type remoteEnd struct {
	pci      PCIAddress
	toSwitch bool
}

// nvLinkRemotes lists the far end of each active NVLink of g.
//
// NOT_SUPPORTED for a link means that link does not exist (a GPU without
// NVLink answers it for every link). INVALID_ARGUMENT after link 0 means the
// GPU has fewer links than NVLINK_MAX_LINKS, which is how real NVML ends the
// list; on link 0 it is an error like any other.
func nvLinkRemotes(g GPU) ([]remoteEnd, error) {
	var out []remoteEnd
	for link := 0; link < nvml.NVLINK_MAX_LINKS; link++ {
		state, ret := g.NVML.GetNvLinkState(link)
		if ret == nvml.ERROR_NOT_SUPPORTED {
			continue
		}
		if ret == nvml.ERROR_INVALID_ARGUMENT && link > 0 {
			break
		}
		if ret != nvml.SUCCESS {
			return nil, nvmlErr("nvmlDeviceGetNvLinkState", ret, "GPU%d link %d", int(g.Ordinal), link)
		}
		if state != nvml.FEATURE_ENABLED {
			continue
		}
		pci, ret := g.NVML.GetNvLinkRemotePciInfo(link)
		if ret == nvml.ERROR_NOT_SUPPORTED {
			continue
		}
		if ret != nvml.SUCCESS {
			return nil, nvmlErr("nvmlDeviceGetNvLinkRemotePciInfo", ret, "GPU%d link %d", int(g.Ordinal), link)
		}
		addr, _ := pciFromNVML(pci)
		// The far end's type refines the count behind NVSwitches; a GPU or
		// NVML that cannot tell (NOT_SUPPORTED) leaves it at "not a switch".
		t, ret := g.NVML.GetNvLinkRemoteDeviceType(link)
		if ret != nvml.SUCCESS && ret != nvml.ERROR_NOT_SUPPORTED {
			return nil, nvmlErr("nvmlDeviceGetNvLinkRemoteDeviceType", ret, "GPU%d link %d", int(g.Ordinal), link)
		}
		out = append(out, remoteEnd{pci: addr, toSwitch: ret == nvml.SUCCESS && t == nvml.NVLINK_DEVICE_TYPE_SWITCH})
	}
	return out, nil
}

// switchLinks counts the links of ends that go to an NVSwitch.
func switchLinks(ends []remoteEnd) int {
	n := 0
	for _, e := range ends {
		if e.toSwitch {
			n++
		}
	}
	return n
}

var capsIndices = []struct {
	idx  nvml.GpuP2PCapsIndex
	name string
}{
	{nvml.P2P_CAPS_INDEX_READ, "READ"},
	{nvml.P2P_CAPS_INDEX_WRITE, "WRITE"},
	{nvml.P2P_CAPS_INDEX_NVLINK, "NVLINK"},
	{nvml.P2P_CAPS_INDEX_ATOMICS, "ATOMICS"},
	{nvml.P2P_CAPS_INDEX_PCI, "PCI"},
}

func readPair(a, b GPU, aEnds, bEnds []remoteEnd) (Pair, error) {
	p := Pair{A: a.Ordinal, B: b.Ordinal}
	dst := []*P2PStatus{&p.Read, &p.Write, &p.NVLink, &p.Atomics, &p.PCI}
	for i, c := range capsIndices {
		st, ret := a.NVML.GetP2PStatus(b.NVML, c.idx)
		if ret != nvml.SUCCESS {
			return p, nvmlErr("nvmlDeviceGetP2PStatus", ret, "GPU%d→GPU%d %s", int(a.Ordinal), int(b.Ordinal), c.name)
		}
		*dst[i] = P2PStatus(st)
	}
	lvl, ret := a.NVML.GetTopologyCommonAncestor(b.NVML)
	if ret != nvml.SUCCESS {
		return p, nvmlErr("nvmlDeviceGetTopologyCommonAncestor", ret, "GPU%d→GPU%d", int(a.Ordinal), int(b.Ordinal))
	}
	p.Ancestor = Level(lvl)
	for _, r := range aEnds {
		if r.pci == b.PCI {
			p.NVLinks++
		}
	}
	// Through NVSwitches no link names B, but NVML's NVLINK P2P status says
	// the GPUs talk over NVLink: the path has as many links as the GPU with
	// fewer switch links (what `nvidia-smi topo -m` shows as NV<n>).
	if p.NVLinks == 0 && p.NVLink.OK() {
		if n := min(switchLinks(aEnds), switchLinks(bEnds)); n > 0 {
			p.NVLinks, p.ViaSwitch = n, true
		}
	}
	p.Link = linkKind(p)
	return p, nil
}

// linkKind: NVLink when links to B are counted (directly or through
// NVSwitches), or when NVML's NVLINK P2P status says OK although no link
// could be counted (a far end whose type NVML does not tell).
func linkKind(p Pair) LinkKind {
	switch {
	case p.NVLinks > 0 || p.NVLink.OK():
		return LinkNVLink
	case p.Read.OK():
		return LinkPCIe
	}
	return LinkNone
}
