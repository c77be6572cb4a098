// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package preflight is the short health check of a node that has just come
// up: a profile of the suites' own checks (a label filter p2pconf run
// already knows how to schedule), and the judgement of its report into a
// verdict per GPU, per ordered pair and per node — PASS, WARN, FAIL or
// UNKNOWN, each with a recommended action and, for a failing or degraded
// pair, the likely cause read from the machine and the NCCL setting that
// avoids the broken path. The verdict is written as verdict.json beside the
// run's reports and read by the doors: the Slurm health check
// (deploy/slurm), the Node Problem Detector plugin and the Node Feature
// Discovery labels (deploy/kubernetes) and the node_exporter textfile
// (p2pconf.prom).
package preflight

import (
	"sort"
	"strings"
)

// Role is what a check of the profile probes, and how its outcome reads in
// the verdict.
type Role struct {
	Check string
	// Probe says in a few words what the check shows about the node.
	Probe string
	// Degrades marks checks whose failure can mean "works, but worse than
	// it should" (WARN): the link-efficiency floor, error counters that
	// grew. DegradedWhen, when set, is the text of the failure reason that
	// says so; any other failure of the check (wrong data) is FAIL, as is
	// every other check's failure.
	Degrades     bool
	DegradedWhen string
	// Action is what to do when the check fails on a target.
	Action string
}

// Profile is every check preflight runs, in the order the verdict lists
// them. Each is an existing check of the catalogue: preflight adds no GPU
// code of its own. atomics.capability-report is left out: it compares two
// claims with each other (driver 580 on H200 answers every per-operation
// mask 0 while NATIVE_ATOMIC_SUPPORTED is 1, docs/observations.md), which
// says nothing about whether the node's peer path works; the atomics that
// the driver calls native are exercised by atomics.concurrent-sys-rmw.
var Profile = []Role{
	{Check: "health.no-xid", Probe: "no Xid or critical NVML event",
		Action: "drain the node: read the Xid in the kernel log (dmesg | grep -i xid) against NVIDIA's Xid catalogue; most need a GPU reset or a reboot"},
	{Check: "health.fabric", Probe: "NVLink fabric registration completed and healthy",
		Action: "start nvidia-fabricmanager (the same version as the driver) or fix what its log names, then rerun preflight"},
	{Check: "health.links-up", Probe: "NVLinks up as the topology claims",
		Action: "links are down or mismatched: check nvidia-smi nvlink --status; reseat the bridge or cable, or reboot (links that fail to train come back only after a reset)"},
	{Check: "health.link-errors", Probe: "NVLink and PCIe error counters did not grow", Degrades: true,
		Action: "watch the link: its error counters grew during the run; rerun preflight and service the link if they grow again"},
	{Check: "access.local-copy", Probe: "copy within the GPU, verified on the GPU",
		Action: "copies within the GPU lose data: do not schedule work on this GPU; reproduce with p2pconf repro and report it to the driver vendor"},
	{Check: "access.capability-per-direction", Probe: "claims (CUDA, NVML) against what the pair does",
		Action: "the pair does not do what CUDA and NVML claim: do not use P2P on it; see the causes"},
	{Check: "access.kernel-remote-write", Probe: "kernel on A stores into B's memory, B reads it back",
		Action: "peer stores do not arrive: do not use P2P on this pair; see the causes"},
	{Check: "access.peer-copy", Probe: "copy-engine peer copy, verified by the owner",
		Action: "peer copies lose or corrupt data: do not use P2P on this pair; see the causes"},
	{Check: "access.enable-is-directional", Probe: "each direction enabled alone",
		Action: "peer access does not follow what was enabled: do not use P2P on this pair; report it to the driver vendor"},
	{Check: "ordering.flag-handoff-sys", Probe: "flag handoff with .sys release/acquire while both kernels run",
		Action: "a consumer on one GPU does not see the producer's data after its flag: NCCL and custom all-reduce would hang or read stale data; do not use P2P on this pair"},
	{Check: "atomics.concurrent-sys-rmw", Probe: "peer atomics the driver calls native stay atomic",
		Action: "peer atomics lose updates: do not rely on peer atomics on this pair (NCCL and libraries using them would compute wrong results)"},
	{Check: "bandwidth.link-efficiency", Probe: "copy bandwidth against the link's nominal rate", Degrades: true, DegradedWhen: "moves less than",
		Action: "the pair moves data below its link's floor: compare PCIe generation and width and NVLink counts with the causes below; rerun when the node is idle"},
}

// Suites are the suites the profile's checks belong to, in run order.
func Suites() []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range Profile {
		s, _, _ := strings.Cut(r.Check, ".")
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// Filter is the label filter that selects the profile's specs.
func Filter() string {
	ids := make([]string, len(Profile))
	for i, r := range Profile {
		ids[i] = "id:" + r.Check
	}
	return strings.Join(ids, " || ")
}

// RoleOf is the profile's entry for check, and whether it has one.
func RoleOf(check string) (Role, bool) {
	for _, r := range Profile {
		if r.Check == check {
			return r, true
		}
	}
	return Role{}, false
}
