// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package sysrecord

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/p2pconf/p2pconf/harness/backend"
	claimmodel "github.com/p2pconf/p2pconf/harness/claims"
	"github.com/p2pconf/p2pconf/harness/machine"
	"github.com/p2pconf/p2pconf/harness/report"
)

// TestPairBoundary: a pair's claims survive the trip into the schema and
// back, so the report's disagreement section compares what the checks
// compared.
func TestPairBoundary(t *testing.T) {
	one, zero, yes := 1, 0, true
	c := claimmodel.Claims{Src: 1, Dst: 0}
	c.CUDA.CanAccessPeer, c.CUDA.AccessSupported, c.CUDA.NativeAtomicSupported = &yes, &one, &one
	c.CUDA.PartialNativeAtomic, c.CUDA.PerformanceRank, c.CUDA.CudaArrayAccessSupported = &zero, &zero, &one
	c.CUDA.AtomicCaps = make([]backend.AtomicCaps, backend.AtomicOperationCount)
	c.CUDA.AtomicCaps[backend.AtomicIntegerMin] = backend.CapSigned | backend.CapScalar32 | backend.CapReduction
	c.NVML = claimmodel.NVML{Read: "P2P_STATUS_OK", Write: "P2P_STATUS_OK", NVLink: "P2P_STATUS_OK",
		Atomics: "P2P_STATUS_NOT_SUPPORTED", PCI: "P2P_STATUS_OK", TopologyLevel: "TOPOLOGY_SYSTEM", NVLinkCount: 18}
	p := machine.Pair{A: machine.GPU{Ordinal: 1}, B: machine.GPU{Ordinal: 0}, Link: "nvlink", Claims: c}

	rec := PairOf(p)
	if rec.Src != 1 || rec.Dst != 0 || rec.Link != "nvlink" || rec.NVML.Atomics != "P2P_STATUS_NOT_SUPPORTED" ||
		rec.CUDA.AtomicCapabilities[backend.AtomicIntegerMin.String()] != c.CUDA.AtomicCaps[backend.AtomicIntegerMin].String() {
		t.Errorf("PairOf = %+v", rec)
	}
	if back := report.ClaimsOf(rec); !reflect.DeepEqual(back, c) {
		t.Errorf("ClaimsOf(PairOf(p)) = %+v, want %+v", back, c)
	}
	if got, want := claimmodel.Disagreements(report.ClaimsOf(rec)), claimmodel.Disagreements(c); len(got) != len(want) || len(got) == 0 {
		t.Errorf("disagreements of the record %+v, want those of the claims %+v", got, want)
	}

	c.CUDA.AtomicCaps, c.CUDA.AtomicCapsErr = nil, fmt.Errorf("cuDeviceGetP2PAtomicCapabilities: %w", backend.ErrMissingEntryPoint)
	c.NVML = claimmodel.NVML{Err: errors.New("NVML is not available")}
	rec = PairOf(machine.Pair{A: p.A, B: p.B, Link: "unknown", Claims: c})
	if rec.CUDA.AtomicCapabilities != nil || rec.CUDA.AtomicCapabilitiesErr == "" || rec.NVML.Error != "NVML is not available" {
		t.Errorf("PairOf without masks and NVML = %+v", rec)
	}
	for _, d := range claimmodel.Disagreements(report.ClaimsOf(rec)) {
		if !d.Unread {
			t.Errorf("a pair whose NVML could not be read has conflict %q; unread claims are no conflict", d.Text)
		}
	}
}
