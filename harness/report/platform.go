// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"fmt"
	"strings"
)

// Platform is the machine around the GPUs as the report records it: per GPU
// what NVML says of virtualization, persistence, MIG, the PCIe and NVLink
// links and the fabric; per unordered pair the ACS bits of the bridges
// between the two. The IOMMU, kernel and driver are System's own fields.
type Platform struct {
	GPUs  []PlatformGPU  `json:"gpus,omitempty"`
	Paths []PlatformPath `json:"paths,omitempty"`
}

// PlatformGPU is one GPU's platform; every field is NVML's answer, "not
// supported", or "unknown: <why>".
type PlatformGPU struct {
	GPU            int    `json:"gpu"`
	Virtualization string `json:"virtualization"`
	Persistence    string `json:"persistence"`
	MIG            string `json:"mig"`
	PCIe           string `json:"pcie"`      // "Gen5 x16 of max Gen5 x16"
	PCIeWhen       string `json:"pcie_when"` // "idle when read, ...": idle links may train down
	NVLinks        string `json:"nvlinks"`   // "18 of 18 active: 18 × NVLink 4.0, 26562 MB/s each"
	Fabric         string `json:"fabric"`
}

// PlatformPath is the ACS state between two GPUs (Src < Dst).
type PlatformPath struct {
	Src int `json:"src"`
	Dst int `json:"dst"`
	// ACS lists "bdf bits" per bridge, or says why it is unknown.
	ACS string `json:"acs"`
	// Redirects names the bridges whose ReqRedir or CmpltRedir is set.
	Redirects []string `json:"redirects,omitempty"`
}

// platformRows are the environment rows of the platform.
func platformRows(p *Platform) [][2]string {
	if p == nil {
		return nil
	}
	var rows [][2]string
	for _, g := range p.GPUs {
		rows = append(rows, [2]string{fmt.Sprintf("GPU%d platform", g.GPU), strings.Join([]string{
			"virtualization " + g.Virtualization, "persistence " + g.Persistence, "MIG " + g.MIG,
			"PCIe " + g.PCIe + " (" + g.PCIeWhen + ")", "NVLink " + g.NVLinks, "fabric " + g.Fabric}, " · ")})
	}
	for _, path := range p.Paths {
		v := path.ACS
		if len(path.Redirects) > 0 {
			v = "redirects peer traffic at " + strings.Join(path.Redirects, ", ") + ": " + v
		}
		rows = append(rows, [2]string{fmt.Sprintf("ACS GPU%d–GPU%d", path.Src, path.Dst), v})
	}
	return rows
}

// PlatformText is the platform as `p2pconf topo` prints it: the kernel, the
// IOMMU, then one line per GPU and per pair.
func PlatformText(sys System) string {
	var b strings.Builder
	b.WriteString("\nPlatform\n")
	fmt.Fprintf(&b, "  kernel %s · IOMMU %s · driver %s\n", orDash(sys.Kernel), orDash(sys.IOMMU), orDash(sys.DriverVersion))
	if sys.Platform == nil {
		b.WriteString("  NVML could not be read: no platform recorded\n")
		return b.String()
	}
	for _, row := range platformRows(sys.Platform) {
		fmt.Fprintf(&b, "  %s: %s\n", row[0], row[1])
	}
	return b.String()
}
