// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package sysrecord describes the machine as conformance.json records it:
// the machine's types in (harness/machine, its claims, NVML and sysfs),
// the report's schema out. It keeps harness/report free of the machine,
// the CUDA binding and the backends, so the report package reads and
// renders reports with no GPU code in its dependencies.
package sysrecord

import (
	"fmt"
	"os"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/health"
	"github.com/p2pconf/p2pconf/harness/machine"
	"github.com/p2pconf/p2pconf/harness/report"
	"github.com/p2pconf/p2pconf/harness/topology"
)

// SystemOf describes the machine as conformance.json records it: every GPU
// and every ordered pair with its claims, selected or not, and the
// selection the run was narrowed to.
func SystemOf(m *machine.Machine) report.System {
	host, _ := os.Hostname()
	b := m.Backend
	sys := report.System{Backend: b.Name(), Host: host, CUDAVersion: b.DriverVersion(), Selection: m.Selection()}
	if m.Topology != nil {
		sys.DriverVersion = m.Topology.DriverVersion
	}
	for _, g := range m.AllGPUs() {
		rg := report.GPU{Ordinal: int(g.Ordinal), Name: g.Info.Name, UUID: g.Info.UUID,
			PCIBusID: g.Info.PCIBusID, ComputeCapability: g.Info.ComputeCapability, SMCount: g.Info.SMCount,
			TotalMemory: g.Info.TotalMemory}
		if m.Topology != nil {
			// NVML's own spelling of the bus ID where NVML matched the GPU
			// (the backend's is converted to the same form).
			if t, ok := m.Topology.GPU(g.Ordinal); ok {
				idx := t.NVMLIndex
				rg.NVMLIndex = &idx
				if t.BusID != "" {
					rg.PCIBusID = t.BusID
				}
			}
		}
		sys.GPUs = append(sys.GPUs, rg)
	}
	for _, p := range m.AllPairs() {
		sys.Pairs = append(sys.Pairs, PairOf(p))
	}
	sys.Platform = PlatformOf(m, sys.IsFake())
	return sys
}

// PairOf is the schema's record of one ordered pair and its claims.
func PairOf(p machine.Pair) report.Pair {
	out := report.Pair{Src: int(p.A.Ordinal), Dst: int(p.B.Ordinal), Link: p.Link}
	cu, c := &out.CUDA, p.Claims.CUDA
	cu.CanAccessPeer, cu.AccessSupported = c.CanAccessPeer, c.AccessSupported
	cu.NativeAtomicSupported, cu.PartialNativeAtomic = c.NativeAtomicSupported, c.PartialNativeAtomic
	cu.PerformanceRank, cu.CudaArrayAccessSupported = c.PerformanceRank, c.CudaArrayAccessSupported
	if c.AtomicCaps != nil {
		cu.AtomicCapabilities = map[string]string{}
		for i, op := range backend.AllAtomicOperations() {
			cu.AtomicCapabilities[op.String()] = c.AtomicCaps[i].String()
		}
	} else if c.AtomicCapsErr != nil {
		cu.AtomicCapabilitiesErr = c.AtomicCapsErr.Error()
	}
	nv, n := &out.NVML, p.Claims.NVML
	nv.Read, nv.Write, nv.NVLink = string(n.Read), string(n.Write), string(n.NVLink)
	nv.Atomics, nv.PCI = string(n.Atomics), string(n.PCI)
	nv.TopologyLevel, nv.NVLinkCount = n.TopologyLevel, n.NVLinkCount
	if n.Err != nil {
		nv.Error = n.Err.Error()
	}
	return out
}

// SysfsRoot is where PlatformOf reads PCI configuration space ("/" on a
// machine); tests point it at a tree of their own.
var SysfsRoot = "/"

// PlatformOf reads the platform of m's GPUs, idle (before any spec). On the
// fake backend the PCI tree of the machine running it says nothing about
// the simulated GPUs, so the paths say so instead.
func PlatformOf(m *machine.Machine, fake bool) *report.Platform {
	if m.Topology == nil {
		return nil
	}
	p := &report.Platform{}
	for _, g := range m.Topology.GPUs {
		hp := health.ReadPlatform(g.NVML, fmt.Sprintf("GPU%d", int(g.Ordinal)), "idle when read, no copy running")
		p.GPUs = append(p.GPUs, report.PlatformGPU{GPU: int(g.Ordinal), Virtualization: hp.Virtualization, Persistence: hp.Persistence,
			MIG: hp.MIG, PCIe: hp.PCIe, PCIeWhen: hp.When, NVLinks: hp.NVLinks, Fabric: hp.Fabric})
	}
	gpus := m.Topology.GPUs
	for i, a := range gpus {
		for _, b := range gpus[i+1:] {
			path := report.PlatformPath{Src: int(min(a.Ordinal, b.Ordinal)), Dst: int(max(a.Ordinal, b.Ordinal))}
			if fake {
				path.ACS = "unknown: simulated GPUs have no PCI bridges"
			} else {
				acs := topology.PairACS(SysfsRoot, a.BusID, b.BusID)
				path.ACS = acs.String()
				for _, br := range acs.Bridges {
					if br.Redirects {
						path.Redirects = append(path.Redirects, br.BDF)
					}
				}
			}
			p.Paths = append(p.Paths, path)
		}
	}
	return p
}
