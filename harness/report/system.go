// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"errors"
	"os"

	"github.com/p2pconf/p2pconf/harness/backend"
	claimmodel "github.com/p2pconf/p2pconf/harness/claims"
	"github.com/p2pconf/p2pconf/harness/machine"
)

// The machine's types are the harness's; the report's schema is its own,
// so a report written by one version reads the same in the next. This file
// is the one boundary between them: machine and claims values in, schema
// values out (and, for the disagreement section, schema claims back into
// the claims model).

// SystemOf describes the machine as conformance.json records it: every GPU
// and every ordered pair with its claims, selected or not, and the
// selection the run was narrowed to.
func SystemOf(m *machine.Machine) System {
	host, _ := os.Hostname()
	b := m.Backend
	sys := System{Backend: b.Name(), Host: host, CUDAVersion: b.DriverVersion(), Selection: m.Selection()}
	if m.Topology != nil {
		sys.DriverVersion = m.Topology.DriverVersion
	}
	for _, g := range m.AllGPUs() {
		sys.GPUs = append(sys.GPUs, GPU{Ordinal: int(g.Ordinal), Name: g.Info.Name, UUID: g.Info.UUID,
			PCIBusID: g.Info.PCIBusID, ComputeCapability: g.Info.ComputeCapability, SMCount: g.Info.SMCount,
			TotalMemory: g.Info.TotalMemory})
	}
	for _, p := range m.AllPairs() {
		sys.Pairs = append(sys.Pairs, PairOf(p))
	}
	sys.Platform = PlatformOf(m, sys.IsFake())
	return sys
}

// PairOf is the schema's record of one ordered pair and its claims.
func PairOf(p machine.Pair) Pair {
	out := Pair{Src: int(p.A.Ordinal), Dst: int(p.B.Ordinal), Link: p.Link}
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

// claimsOf reads a recorded pair back into the claims model, so the report
// compares the sources with the same rules as the checks. Masks that do not
// parse, or a record that lacks some operations, leave the masks out.
func claimsOf(p Pair) claimmodel.Claims {
	c := claimmodel.Claims{Src: backend.Device(p.Src), Dst: backend.Device(p.Dst)}
	cu := &c.CUDA
	cu.CanAccessPeer, cu.AccessSupported = p.CUDA.CanAccessPeer, p.CUDA.AccessSupported
	cu.NativeAtomicSupported, cu.PartialNativeAtomic = p.CUDA.NativeAtomicSupported, p.CUDA.PartialNativeAtomic
	cu.PerformanceRank, cu.CudaArrayAccessSupported = p.CUDA.PerformanceRank, p.CUDA.CudaArrayAccessSupported
	if p.CUDA.AtomicCapabilitiesErr != "" {
		cu.AtomicCapsErr = errors.New(p.CUDA.AtomicCapabilitiesErr)
	}
	if len(p.CUDA.AtomicCapabilities) > 0 {
		ops := backend.AllAtomicOperations()
		caps := make([]backend.AtomicCaps, len(ops))
		for i, op := range ops {
			s, ok := p.CUDA.AtomicCapabilities[op.String()]
			mask, err := claimmodel.ParseAtomicCaps(s)
			if !ok || err != nil {
				caps = nil
				break
			}
			caps[i] = mask
		}
		cu.AtomicCaps = caps
	}
	nv := &c.NVML
	nv.Read, nv.Write, nv.NVLink = claimmodel.Status(p.NVML.Read), claimmodel.Status(p.NVML.Write), claimmodel.Status(p.NVML.NVLink)
	nv.Atomics, nv.PCI = claimmodel.Status(p.NVML.Atomics), claimmodel.Status(p.NVML.PCI)
	nv.TopologyLevel, nv.NVLinkCount = p.NVML.TopologyLevel, p.NVML.NVLinkCount
	if p.NVML.Error != "" {
		nv.Err = errors.New(p.NVML.Error)
	}
	return c
}
