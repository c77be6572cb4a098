// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package preflight

import (
	"fmt"

	"github.com/p2pconf/p2pconf/harness/report"
)

// NCCLAdvice is the NCCL setting that keeps a job off a failing pair's
// peer-to-peer path.
type NCCLAdvice struct {
	Setting string `json:"setting"`
	Why     string `json:"why"`
	Source  string `json:"source"`
}

// srcNCCLEnv is NCCL's documentation of the two variables.
const srcNCCLEnv = "NCCL User Guide, Environment Variables: NCCL_P2P_DISABLE and NCCL_P2P_LEVEL (docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html)"

// ncclLevels are NCCL_P2P_LEVEL's values from the closest to the farthest
// path: NCCL uses P2P between two GPUs when their path is at most the
// level. NVML's NODE (same NUMA node, across host bridges) is NCCL's PHB.
var ncclLevels = []string{"LOC", "NVL", "PIX", "PXB", "PHB", "SYS"}

func ncclLevel(nvmlLevel string) int {
	if nvmlLevel == "NODE" {
		nvmlLevel = "PHB"
	}
	for i, l := range ncclLevels {
		if l == nvmlLevel {
			return i
		}
	}
	return -1
}

// NCCLFor is the setting for a failing pair src→dst of sys. An NVLink pair,
// or a PCIe pair NCCL cannot tell apart from closer ones, needs P2P off
// (NCCL_P2P_DISABLE=1); a PCIe pair at distance L keeps P2P on closer pairs
// with NCCL_P2P_LEVEL set to the level just below L.
func NCCLFor(sys report.System, src, dst int) NCCLAdvice {
	disable := NCCLAdvice{Setting: "NCCL_P2P_DISABLE=1", Source: srcNCCLEnv}
	p, ok := pairOf(sys, src, dst)
	if !ok {
		disable.Why = fmt.Sprintf("the topology of GPU%d→GPU%d is not recorded, so only turning the P2P transport off avoids the pair", src, dst)
		return disable
	}
	if p.Link == "nvlink" {
		disable.Why = fmt.Sprintf("GPU%d→GPU%d is an NVLink pair: NCCL_P2P_LEVEL cannot leave out one NVLink pair (NVL is its closest level), so the P2P transport is turned off; NCCL then goes through shared host memory", src, dst)
		return disable
	}
	l := ncclLevel(p.NVML.TopologyLevel)
	if l < ncclLevel("PIX") {
		disable.Why = fmt.Sprintf("the PCIe distance of GPU%d→GPU%d (%s) is not one of NCCL's levels, so only turning the P2P transport off avoids the pair", src, dst, orUnknown(p.NVML.TopologyLevel))
		return disable
	}
	lower := ncclLevels[l-1]
	return NCCLAdvice{Setting: "NCCL_P2P_LEVEL=" + lower, Source: srcNCCLEnv,
		Why: fmt.Sprintf("GPU%d→GPU%d is at PCIe distance %s; NCCL_P2P_LEVEL=%s keeps P2P on closer pairs and takes every pair at %s or farther off it (use NCCL_P2P_DISABLE=1 to turn P2P off altogether)",
			src, dst, p.NVML.TopologyLevel, lower, p.NVML.TopologyLevel)}
}

func orUnknown(s string) string {
	if s == "" {
		return "level unknown"
	}
	return s
}
