// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package preflight

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/p2pconf/p2pconf/harness/bandwidth"
	"github.com/p2pconf/p2pconf/harness/report"
	"github.com/p2pconf/p2pconf/harness/topology"
)

// Cause is what the machine shows that likely explains a failing or
// degraded pair, with the concrete fix and the public document the rule
// rests on.
type Cause struct {
	Rule    string `json:"rule"`
	Finding string `json:"finding"`
	Fix     string `json:"fix"`
	Source  string `json:"source"`
}

// Rule sources, named in the docs (public documents).
const (
	srcNCCLTrouble = "NCCL User Guide, Troubleshooting: PCI Access Control Services (ACS) and IOMMU (docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html)"
	srcIOMMUGroups = "Linux kernel Documentation/ABI/testing/sysfs-kernel-iommu_groups (the group's type: DMA, DMA-FQ, identity) and Documentation/admin-guide/kernel-parameters.txt (iommu=pt)"
	srcNVMLVirt    = "NVML API Reference, nvmlDeviceGetVirtualizationMode (nvmlGpuVirtualizationMode_t)"
	srcBAR1        = "Linux kernel Documentation/PCI/sysfs-pci.rst (the resource file: one start end flags line per BAR); PCI Express Base Specification, Resizable BAR Extended Capability"
	srcNVMLP2P     = "NVML API Reference, nvmlDeviceGetP2PStatus (nvmlGpuP2PStatus_t)"
	srcNVMLLinks   = "NVML API Reference, nvmlDeviceGetNvLinkState and nvmlDeviceGetNvLinkRemotePciInfo"
	srcNVMLPCIe    = "NVML API Reference, nvmlDeviceGetCurrPcieLinkGeneration / Width and nvmlDeviceGetMaxPcieLinkGeneration / Width"
	srcDriverLib   = "CUDA Driver API, cuGetProcAddress (entry points resolved from the loaded libcuda); docs/usage.md, settings: P2PCONF_LIBCUDA"
)

// Causes applies every rule to the pair src→dst of sys, reading sysfs
// under root ("/" on a machine, a fake tree in tests; "" skips sysfs).
// checks are the pair's outcomes, so a rule can speak to what failed.
func Causes(sys report.System, src, dst int, checks []Outcome, root string) []Cause {
	var out []Cause
	for _, rule := range []func(report.System, int, int, []Outcome, string) []Cause{
		driverLibraryRule, acsRule, iommuRule, virtualizationRule, bar1Rule, nvmlP2PRule, linksRule, pcieRule,
	} {
		out = append(out, rule(sys, src, dst, checks, root)...)
	}
	return out
}

// GPUCauses applies the rules that speak to one GPU to GPU g of sys: only
// the driver library. A virtual machine explains peer accesses that go
// astray, not a copy or kernel within one GPU, so virtualization is a
// pair rule only.
func GPUCauses(sys report.System, g int, checks []Outcome, root string) []Cause {
	var out []Cause
	for _, rule := range []func(report.System, int, int, []Outcome, string) []Cause{driverLibraryRule} {
		out = append(out, rule(sys, g, g, checks, root)...)
	}
	return out
}

// driverLibraryRule: the suites loaded the driver from P2PCONF_LIBCUDA, not
// the system's libcuda.so.1: a replaced or interposed driver library
// answers for every call.
func driverLibraryRule(sys report.System, _, _ int, _ []Outcome, _ string) []Cause {
	lib := sys.Env["P2PCONF_LIBCUDA"]
	if lib == "" || sys.IsFake() {
		return nil
	}
	return []Cause{{Rule: "driver-library",
		Finding: "the suites loaded the CUDA driver from P2PCONF_LIBCUDA=" + lib + ", not the system's libcuda.so.1: a replaced or interposed library answers every driver call",
		Fix:     "unset P2PCONF_LIBCUDA to test the installed driver, or report the failure against that library",
		Source:  srcDriverLib}}
}

// gpuOf is sys's GPU with ordinal o.
func gpuOf(sys report.System, o int) (report.GPU, bool) {
	for _, g := range sys.GPUs {
		if g.Ordinal == o {
			return g, true
		}
	}
	return report.GPU{}, false
}

func platformGPU(sys report.System, o int) (report.PlatformGPU, bool) {
	if sys.Platform == nil {
		return report.PlatformGPU{}, false
	}
	for _, g := range sys.Platform.GPUs {
		if g.GPU == o {
			return g, true
		}
	}
	return report.PlatformGPU{}, false
}

func pairOf(sys report.System, src, dst int) (report.Pair, bool) {
	for _, p := range sys.Pairs {
		if p.Src == src && p.Dst == dst {
			return p, true
		}
	}
	return report.Pair{}, false
}

// acsRule: ACS Request or Completion Redirect on a bridge between the two
// GPUs sends their peer traffic up to the root complex (and its IOMMU).
func acsRule(sys report.System, src, dst int, _ []Outcome, _ string) []Cause {
	if sys.Platform == nil {
		return nil
	}
	lo, hi := min(src, dst), max(src, dst)
	for _, p := range sys.Platform.Paths {
		if p.Src != lo || p.Dst != hi || len(p.Redirects) == 0 {
			continue
		}
		var cmds []string
		for _, b := range p.Redirects {
			cmds = append(cmds, "setpci -s "+b+" ECAP_ACS+0x6.w=0000")
		}
		return []Cause{{Rule: "acs-redirect",
			Finding: fmt.Sprintf("ACS redirects peer requests on the bridge(s) %s between GPU%d and GPU%d (%s): they go up to the root complex, where an IOMMU may drop them",
				strings.Join(p.Redirects, ", "), src, dst, p.ACS),
			Fix:    "turn ACS redirection off on those bridges: in the BIOS (PCIe ACS / ACS control), or until the next boot with " + strings.Join(cmds, "; ") + " (root)",
			Source: srcNCCLTrouble}}
	}
	return nil
}

// sysfsDevice is a bus ID as sysfs names the device ("0000:1b:00.0").
func sysfsDevice(busID string) (string, bool) {
	a, err := topology.ParsePCIBusID(busID)
	if err != nil {
		return "", false
	}
	return fmt.Sprintf("%04x:%02x:%02x.0", a.Domain, a.Bus, a.Device), true
}

// IOMMUGroupType is the type of the IOMMU group of the PCI device at busID
// under root (sysfs iommu_group/type: "DMA", "DMA-FQ", "identity",
// "blocked", "unmanaged"), "" when there is none or it cannot be read.
func IOMMUGroupType(root, busID string) string {
	dev, ok := sysfsDevice(busID)
	if !ok || root == "" {
		return ""
	}
	data, err := os.ReadFile(filepath.Join(root, "sys/bus/pci/devices", dev, "iommu_group", "type"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// iommuRule: a translating IOMMU (DMA domain) must map the peer's BAR for
// peer requests that ACS sends through it; "identity" (iommu=pt) passes
// them through.
func iommuRule(sys report.System, src, dst int, _ []Outcome, root string) []Cause {
	var translated []string
	for _, o := range []int{src, dst} {
		g, ok := gpuOf(sys, o)
		if !ok {
			continue
		}
		if t := IOMMUGroupType(root, g.PCIBusID); strings.HasPrefix(t, "DMA") {
			translated = append(translated, fmt.Sprintf("GPU%d (%s): %s", o, g.PCIBusID, t))
		}
	}
	if len(translated) == 0 {
		// Without the groups, what the report recorded of the kernel command line.
		if s := sys.IOMMU; strings.HasPrefix(s, "on") && !strings.Contains(s, "iommu=pt") && !strings.Contains(s, "passthrough") && root == "" {
			translated = append(translated, "IOMMU "+s)
		}
	}
	if len(translated) == 0 {
		return nil
	}
	return []Cause{{Rule: "iommu-translated",
		Finding: "the IOMMU translates the GPUs' DMA (IOMMU group type " + strings.Join(translated, "; ") + "): peer requests routed through it are dropped unless it maps the peer's BAR",
		Fix:     "boot with iommu=pt (with intel_iommu=on or amd_iommu=on as before) so the GPUs' groups use the identity domain, or disable the IOMMU in the BIOS; then rerun preflight",
		Source:  srcIOMMUGroups + "; " + srcNCCLTrouble}}
}

// HypervisorFlag says whether root's /proc/cpuinfo shows the hypervisor
// CPU flag (the kernel runs in a virtual machine).
func HypervisorFlag(root string) bool {
	if root == "" {
		return false
	}
	f, err := os.Open(filepath.Join(root, "proc/cpuinfo"))
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "flags" {
			for _, fl := range strings.Fields(v) {
				if fl == "hypervisor" {
					return true
				}
			}
			return false
		}
	}
	return false
}

// virtualizationRule: in a VM the hypervisor decides where a peer BAR
// access lands (hidden, refused, or a private mirror). It speaks only to a
// pair whose data path between the GPUs failed, warned or could not tell:
// a pass-through VM is common and healthy, and a health check of one GPU
// (links, counters) is not a peer access.
func virtualizationRule(sys report.System, src, dst int, checks []Outcome, root string) []Cause {
	if src == dst || !peerPathFailed(checks) {
		return nil
	}
	var vm []string
	for _, o := range []int{src, dst} {
		if g, ok := platformGPU(sys, o); ok && (g.Virtualization == "PASSTHROUGH" || g.Virtualization == "VGPU") {
			vm = append(vm, fmt.Sprintf("GPU%d: NVML virtualization mode %s", o, g.Virtualization))
		}
	}
	if len(vm) == 0 && HypervisorFlag(root) {
		vm = append(vm, "the CPU flags show a hypervisor")
	}
	if len(vm) == 0 {
		return nil
	}
	return []Cause{{Rule: "virtualized",
		Finding: "the GPUs run in a virtual machine (" + strings.Join(vm, "; ") + "): the hypervisor decides whether a peer access reaches the peer GPU",
		Fix:     "give the VM peer-to-peer between these GPUs (both behind one PCIe switch passed through together, the hypervisor's P2P or GPU-clique support on, ACS redirect off on the host), or run the job on bare metal",
		Source:  srcNVMLVirt}}
}

// peerPathFailed reports whether a check that moves data between the
// pair's GPUs (anything but the health family) did not pass.
func peerPathFailed(checks []Outcome) bool {
	for _, c := range checks {
		if c.Verdict != Pass && !strings.HasPrefix(c.Check, "health.") {
			return true
		}
	}
	return false
}

// BAR1Size is the size in bytes of BAR1 (the framebuffer aperture peers
// map) of the PCI device at busID, from sysfs resource under root; 0 when
// it cannot be read.
func BAR1Size(root, busID string) uint64 {
	dev, ok := sysfsDevice(busID)
	if !ok || root == "" {
		return 0
	}
	data, err := os.ReadFile(filepath.Join(root, "sys/bus/pci/devices", dev, "resource"))
	if err != nil {
		return 0
	}
	lines := strings.Split(string(data), "\n")
	if len(lines) < 2 {
		return 0
	}
	f := strings.Fields(lines[1])
	if len(f) < 2 {
		return 0
	}
	start, err1 := strconv.ParseUint(strings.TrimPrefix(f[0], "0x"), 16, 64)
	end, err2 := strconv.ParseUint(strings.TrimPrefix(f[1], "0x"), 16, 64)
	if err1 != nil || err2 != nil || end <= start {
		return 0
	}
	return end - start + 1
}

// bar1Rule: a BAR1 smaller than the GPU's memory means peers reach it
// through a remapped window (no Resizable BAR / above-4G decoding).
func bar1Rule(sys report.System, src, dst int, _ []Outcome, root string) []Cause {
	var small []string
	for _, o := range []int{src, dst} {
		g, ok := gpuOf(sys, o)
		if !ok || g.TotalMemory == 0 {
			continue
		}
		if n := BAR1Size(root, g.PCIBusID); n > 0 && n < g.TotalMemory {
			small = append(small, fmt.Sprintf("GPU%d BAR1 %s for %s of memory", o, bandwidth.SizeLabel(n), bandwidth.SizeLabel(g.TotalMemory)))
		}
	}
	if len(small) == 0 {
		return nil
	}
	return []Cause{{Rule: "bar1-small",
		Finding: "BAR1 is smaller than the GPU's memory (" + strings.Join(small, "; ") + "): peers reach the memory only through a window the driver remaps",
		Fix:     "turn on Above 4G Decoding and Resizable BAR in the BIOS so BAR1 covers the whole memory, then reboot",
		Source:  srcBAR1}}
}

// nvmlP2PRule: NVML's P2P status gives the driver's own reason for
// refusing peer access.
func nvmlP2PRule(sys report.System, src, dst int, _ []Outcome, _ string) []Cause {
	p, ok := pairOf(sys, src, dst)
	if !ok {
		return nil
	}
	var bad []string
	status := ""
	for _, s := range [][2]string{{"READ", p.NVML.Read}, {"WRITE", p.NVML.Write}} {
		if s[1] != "" && !strings.HasSuffix(s[1], "_OK") && s[1] != "OK" {
			bad = append(bad, s[0]+" "+s[1])
			status = s[1]
		}
	}
	if len(bad) == 0 {
		return nil
	}
	fix := "NVML's reason names the part that refuses peer access; place the GPUs under one PCIe switch or host bridge that supports peer-to-peer"
	switch {
	case strings.Contains(status, "DISABLED_BY_REGKEY"):
		fix = "a driver registry key disables peer-to-peer: remove it (NVreg_RegistryDwords in /etc/modprobe.d) and reload the driver"
	case strings.Contains(status, "CHIPSET_NOT_SUPPORTED"), strings.Contains(status, "IOH_TOPOLOGY_NOT_SUPPORTED"):
		fix = "the chipset or the host-bridge topology between the GPUs does not support peer-to-peer: use GPUs behind one PCIe switch, or NVLink"
	case strings.Contains(status, "GPU_NOT_SUPPORTED"):
		fix = "this GPU model or its driver does not support peer-to-peer: copies must go through the host"
	}
	claim := ""
	if p.CUDA.CanAccessPeer != nil && *p.CUDA.CanAccessPeer {
		claim = " while CUDA's cuDeviceCanAccessPeer says 1"
	}
	return []Cause{{Rule: "nvml-p2p-status",
		Finding: fmt.Sprintf("NVML reports P2P %s for GPU%d→GPU%d%s", strings.Join(bad, ", "), src, dst, claim),
		Fix:     fix, Source: srcNVMLP2P}}
}

var activeLinks = regexp.MustCompile(`^(\d+) of (\d+) active`)

// linksRule: NVLinks that are not active on a GPU of the pair, or a
// failing links-up check.
func linksRule(sys report.System, src, dst int, checks []Outcome, _ string) []Cause {
	var down []string
	for _, o := range []int{src, dst} {
		g, ok := platformGPU(sys, o)
		if !ok {
			continue
		}
		if m := activeLinks.FindStringSubmatch(g.NVLinks); m != nil && m[1] != m[2] {
			down = append(down, fmt.Sprintf("GPU%d: %s of %s NVLinks active", o, m[1], m[2]))
		}
	}
	for _, c := range checks {
		if c.Check == "health.links-up" && c.Verdict == Fail {
			down = append(down, "health.links-up: "+c.Reason)
		}
	}
	if len(down) == 0 {
		return nil
	}
	expected := ""
	if p, ok := pairOf(sys, src, dst); ok && p.NVML.NVLinkCount > 0 {
		expected = fmt.Sprintf(" (the pair's topology claims %d links)", p.NVML.NVLinkCount)
	}
	return []Cause{{Rule: "links-inactive",
		Finding: "fewer NVLinks are active than the GPUs have" + expected + ": " + strings.Join(down, "; "),
		Fix:     "check nvidia-smi nvlink --status and the fabric manager; reseat the NVLink bridge or cable, or reset the GPUs (links that failed to train stay down until then)",
		Source:  srcNVMLLinks}}
}

// pcieRule: a PCIe link below its maximum generation or width explains a
// pair below its link-efficiency floor.
func pcieRule(sys report.System, src, dst int, checks []Outcome, _ string) []Cause {
	slow := false
	for _, c := range checks {
		if c.Check == "bandwidth.link-efficiency" && c.Verdict == Warn {
			slow = true
		}
	}
	if !slow {
		return nil
	}
	var below []string
	for _, o := range []int{src, dst} {
		if g, ok := platformGPU(sys, o); ok && strings.Contains(g.PCIe, "below maximum") {
			below = append(below, fmt.Sprintf("GPU%d: PCIe %s (%s)", o, g.PCIe, g.PCIeWhen))
		}
	}
	if len(below) == 0 {
		return nil
	}
	return []Cause{{Rule: "pcie-downtrained",
		Finding: "the PCIe link runs below its maximum: " + strings.Join(below, "; "),
		Fix:     "check the slot, riser and cable (lspci -vv: LnkSta against LnkCap); an idle link may train down, so read it again under load before replacing parts",
		Source:  srcNVMLPCIe}}
}
