// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"fmt"
	"strings"

	claimmodel "github.com/p2pconf/p2pconf/harness/claims"
)

// nvmlOK reads an NVML P2P status ("OK", "P2P_STATUS_OK",
// "P2P_STATUS_CHIPSET_NOT_SUPPORTED", ...) as the claims model does: true
// for OK, false for any "not supported", nil when unknown.
func nvmlOK(s string) *bool {
	st := claimmodel.Status(s)
	if !st.Known() {
		return nil
	}
	b := st.OK()
	return &b
}

// nvmlShort abbreviates an NVML P2P status as `nvidia-smi topo -p2p` does.
func nvmlShort(s string) string {
	switch strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(s)), "P2P_STATUS_") {
	case "":
		return "?"
	case "OK":
		return "OK"
	case "CHIPSET_NOT_SUPPORTED", "CHIPSET_NOT_SUPPORED", "CNS":
		return "CNS"
	case "GPU_NOT_SUPPORTED", "GNS":
		return "GNS"
	case "IOH_TOPOLOGY_NOT_SUPPORTED", "TNS":
		return "TNS"
	case "DISABLED_BY_REGKEY":
		return "DRK"
	case "NOT_SUPPORTED", "NS":
		return "NS"
	case "UNKNOWN", "U":
		return "U"
	}
	return s
}

// topoShort abbreviates an NVML topology level as `nvidia-smi topo -m` does.
func topoShort(s string) string {
	switch strings.TrimPrefix(strings.ToUpper(s), "TOPOLOGY_") {
	case "INTERNAL":
		return "X"
	case "SINGLE":
		return "PIX"
	case "MULTIPLE":
		return "PXB"
	case "HOSTBRIDGE":
		return "PHB"
	case "NODE":
		return "NODE"
	case "SYSTEM":
		return "SYS"
	}
	return s
}

// linkShort is the link column: NV<links>, or the PCIe topology level.
func linkShort(p Pair) string {
	switch {
	case p.Link == "nvlink" && p.NVML.NVLinkCount > 0:
		return fmt.Sprintf("NV%d", p.NVML.NVLinkCount)
	case p.Link == "nvlink":
		return "NV"
	case p.NVML.TopologyLevel != "":
		return topoShort(p.NVML.TopologyLevel)
	case p.Link == "pcie":
		return "PCIe"
	case p.Link == "":
		return "?"
	}
	return p.Link
}

func yesFlag(b *bool, yes string) string {
	switch {
	case b == nil:
		return "?"
	case *b:
		return yes
	}
	return "-"
}

func intFlag(v *int) *bool {
	if v == nil {
		return nil
	}
	b := *v != 0
	return &b
}

// claimCode is the compact claimed-capability cell, e.g. "PA rwna NV18":
// CUDA can-access-peer (P) and native atomics (A, or a for only partial),
// then NVML's read, write, nvlink and atomics status, then the link. A
// letter means supported, "-" not supported, "?" unknown.
func claimCode(p Pair) string {
	atom := yesFlag(intFlag(p.CUDA.NativeAtomicSupported), "A")
	if atom == "-" && p.CUDA.PartialNativeAtomic != nil && *p.CUDA.PartialNativeAtomic != 0 {
		atom = "a"
	}
	return yesFlag(p.CUDA.CanAccessPeer, "P") + atom + " " +
		yesFlag(nvmlOK(p.NVML.Read), "r") + yesFlag(nvmlOK(p.NVML.Write), "w") +
		yesFlag(nvmlOK(p.NVML.NVLink), "n") + yesFlag(nvmlOK(p.NVML.Atomics), "a") + " " + linkShort(p)
}

// claimDetail spells out every claim of a pair, for hover text and topo.
func claimDetail(p Pair) string {
	s := fmt.Sprintf("CUDA cuDeviceCanAccessPeer=%s ACCESS_SUPPORTED=%s NATIVE_ATOMIC_SUPPORTED=%s ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED=%s PERFORMANCE_RANK=%s; "+
		"NVML read=%s write=%s nvlink=%s atomics=%s; link=%s",
		boolStr(p.CUDA.CanAccessPeer), intStr(p.CUDA.AccessSupported), intStr(p.CUDA.NativeAtomicSupported),
		intStr(p.CUDA.PartialNativeAtomic), intStr(p.CUDA.PerformanceRank),
		nvmlShort(p.NVML.Read), nvmlShort(p.NVML.Write), nvmlShort(p.NVML.NVLink), nvmlShort(p.NVML.Atomics), linkShort(p))
	if p.NVML.Error != "" {
		s += "; NVML error: " + p.NVML.Error
	}
	if p.CUDA.AtomicCapabilitiesErr != "" {
		s += "; atomic capabilities error: " + p.CUDA.AtomicCapabilitiesErr
	}
	return s
}

func boolStr(b *bool) string {
	switch {
	case b == nil:
		return "null"
	case *b:
		return "1"
	}
	return "0"
}

func intStr(v *int) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprint(*v)
}

func peerClaimed(p Pair) bool {
	rw := nvmlOK(p.NVML.Read) != nil && *nvmlOK(p.NVML.Read) && nvmlOK(p.NVML.Write) != nil && *nvmlOK(p.NVML.Write)
	return (p.CUDA.CanAccessPeer != nil && *p.CUDA.CanAccessPeer) || rw
}

func atomicsClaimed(p Pair) bool {
	native := intFlag(p.CUDA.NativeAtomicSupported)
	partial := intFlag(p.CUDA.PartialNativeAtomic)
	a := nvmlOK(p.NVML.Atomics)
	return (native != nil && *native) || (partial != nil && *partial) || (a != nil && *a)
}

func peerClaimText(p Pair) string {
	return fmt.Sprintf("CUDA cuDeviceCanAccessPeer=%s, NVML read=%s write=%s",
		boolStr(p.CUDA.CanAccessPeer), nvmlShort(p.NVML.Read), nvmlShort(p.NVML.Write))
}

func atomicsClaimText(p Pair) string {
	return fmt.Sprintf("CUDA NATIVE_ATOMIC_SUPPORTED=%s ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED=%s, NVML atomics=%s",
		intStr(p.CUDA.NativeAtomicSupported), intStr(p.CUDA.PartialNativeAtomic), nvmlShort(p.NVML.Atomics))
}

// claimConflicts compares the sources' claims on one pair with each other,
// by the rules the checks use (claimmodel.Disagreements). A claim that was not
// recorded is no conflict here: the report cannot ask again.
func claimConflicts(p Pair) []string {
	var out []string
	for _, d := range claimmodel.Disagreements(ClaimsOf(p)) {
		if !d.Unread {
			out = append(out, fmt.Sprintf("%s: %s", d.Topic, d.Text))
		}
	}
	return out
}

// atomicOps counts the operations cuDeviceGetP2PAtomicCapabilities gave a
// non-zero capability mask, of those it was asked about.
func atomicOps(p Pair) (withCaps, total int) {
	for _, mask := range p.CUDA.AtomicCapabilities {
		total++
		if mask != "" && mask != "0" {
			withCaps++
		}
	}
	return withCaps, total
}

// atomicOpsText is the topo cell for the per-operation capabilities.
func atomicOpsText(p Pair) string {
	if p.CUDA.AtomicCapabilitiesErr != "" {
		return "err"
	}
	n, total := atomicOps(p)
	if total == 0 {
		return "null"
	}
	return fmt.Sprintf("%d/%d", n, total)
}
