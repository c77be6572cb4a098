// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package health

import (
	"fmt"
	"sort"
	"strings"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/p2pconf/p2pconf/harness/topology"
)

// Platform is what NVML says about one GPU's surroundings, recorded with
// every report: a verdict reads differently in a VM, with MIG on, or on a
// link that trained down.
type Platform struct {
	GPU            string `json:"gpu"`
	Virtualization string `json:"virtualization"` // NONE, PASSTHROUGH, VGPU, ...
	Persistence    string `json:"persistence"`    // enabled / disabled
	MIG            string `json:"mig"`            // enabled / disabled (current, pending if different)
	// PCIe is the current generation and width against the maximum; an
	// idle link may run slower, so When says when it was read.
	PCIe string `json:"pcie"`
	When string `json:"when"`
	// NVLinks summarises the links: how many active, versions, speed.
	NVLinks string `json:"nvlinks"`
	Fabric  string `json:"fabric"`
}

// ReadPlatform reads p's fields from d; each field says what NVML answered,
// "not supported" or the error, so a reading never fails. when says whether
// the GPU was idle or under load.
func ReadPlatform(d nvml.Device, name, when string) Platform {
	p := Platform{GPU: name, When: when}
	if m, ret := d.GetVirtualizationMode(); ret == nvml.SUCCESS {
		p.Virtualization = virtName(m)
	} else {
		p.Virtualization = answer(ret)
	}
	if m, ret := d.GetPersistenceMode(); ret == nvml.SUCCESS {
		p.Persistence = enabled(m == nvml.FEATURE_ENABLED)
	} else {
		p.Persistence = answer(ret)
	}
	if cur, pending, ret := d.GetMigMode(); ret == nvml.SUCCESS {
		p.MIG = enabled(cur == nvml.DEVICE_MIG_ENABLE)
		if pending != cur {
			p.MIG += fmt.Sprintf(" (pending: %s)", enabled(pending == nvml.DEVICE_MIG_ENABLE))
		}
	} else {
		p.MIG = answer(ret)
	}
	p.PCIe = pcie(d)
	p.NVLinks = nvlinks(d, name)
	if f, err := ReadFabric(d, name); err != nil {
		p.Fabric = "unknown: " + err.Error()
	} else {
		p.Fabric = f.String()
	}
	return p
}

func answer(ret nvml.Return) string {
	if unsupported(ret) {
		return "not supported"
	}
	return "unknown: " + ret.Error()
}

func enabled(on bool) string {
	if on {
		return "enabled"
	}
	return "disabled"
}

func virtName(m nvml.GpuVirtualizationMode) string {
	names := map[nvml.GpuVirtualizationMode]string{
		nvml.GPU_VIRTUALIZATION_MODE_NONE: "NONE", nvml.GPU_VIRTUALIZATION_MODE_PASSTHROUGH: "PASSTHROUGH",
		nvml.GPU_VIRTUALIZATION_MODE_VGPU: "VGPU", nvml.GPU_VIRTUALIZATION_MODE_HOST_VGPU: "HOST_VGPU",
		nvml.GPU_VIRTUALIZATION_MODE_HOST_VSGA: "HOST_VSGA",
	}
	if n, ok := names[m]; ok {
		return n
	}
	return fmt.Sprintf("mode %d", m)
}

func pcie(d nvml.Device) string {
	gen, r1 := d.GetCurrPcieLinkGeneration()
	width, r2 := d.GetCurrPcieLinkWidth()
	maxGen, r3 := d.GetMaxPcieLinkGeneration()
	maxWidth, r4 := d.GetMaxPcieLinkWidth()
	for _, r := range []nvml.Return{r1, r2, r3, r4} {
		if r != nvml.SUCCESS {
			return answer(r)
		}
	}
	s := fmt.Sprintf("Gen%d x%d of max Gen%d x%d", gen, width, maxGen, maxWidth)
	if gen < maxGen || width < maxWidth {
		s += " (below maximum)"
	}
	return s
}

func nvlinks(d nvml.Device, name string) string {
	links, err := readLinks(d, name)
	if err != nil {
		return "unknown: " + err.Error()
	}
	if len(links) == 0 {
		return "none"
	}
	up, versions := 0, map[uint32]int{}
	for _, l := range links {
		if l.Active {
			up++
			versions[l.Version]++
		}
	}
	var vs []string
	for v, n := range versions {
		vs = append(vs, fmt.Sprintf("%d × %s", n, topology.NVLinkVersionName(v)))
	}
	sort.Strings(vs)
	s := fmt.Sprintf("%d of %d active", up, len(links))
	if len(vs) > 0 {
		s += ": " + strings.Join(vs, ", ")
	}
	if sp, err := LinkSpeed(d, name); err == nil && !sp.Unsupported {
		s += fmt.Sprintf(", %d MB/s each", sp.N)
	}
	return s
}
