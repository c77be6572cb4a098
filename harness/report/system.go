// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"errors"

	"github.com/p2pconf/p2pconf/harness/backend"
	claimmodel "github.com/p2pconf/p2pconf/harness/claims"
)

// The report's schema is its own, so a report written by one version reads
// the same in the next; harness/sysrecord fills it from the machine. The
// disagreement section reads recorded claims back into the claims model.

// ClaimsOf reads a recorded pair back into the claims model, so the report
// compares the sources with the same rules as the checks. Masks that do not
// parse, or a record that lacks some operations, leave the masks out.
func ClaimsOf(p Pair) claimmodel.Claims {
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
