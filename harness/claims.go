// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"errors"
	"fmt"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/topology"
)

// readClaims builds every ordered pair with what CUDA and NVML claim about
// it. A query that fails leaves that value null in the report; the checks
// that depend on it query again and fail with the error, so a claim that
// could not be read is never mistaken for "unsupported".
func readClaims(b backend.Backend, gpus []GPU) ([]Pair, *topology.View, error) {
	var pairs []Pair
	for _, a := range gpus {
		for _, c := range gpus {
			if a.Ordinal == c.Ordinal {
				continue
			}
			p := Pair{A: a, B: c, Link: "unknown"}
			p.Claims.Src, p.Claims.Dst = int(a.Ordinal), int(c.Ordinal)
			readCUDAClaims(b, &p)
			pairs = append(pairs, p)
		}
	}
	view, err := readNVMLClaims(b, gpus, pairs)
	return pairs, view, err
}

func readCUDAClaims(b backend.Backend, p *Pair) {
	cu := &p.Claims.CUDA
	if ok, err := b.CanAccessPeer(p.A.Ordinal, p.B.Ordinal); err == nil {
		cu.CanAccessPeer = &ok
	}
	attr := func(a backend.P2PAttr) *int {
		v, err := b.P2PAttribute(a, p.A.Ordinal, p.B.Ordinal)
		if err != nil {
			return nil
		}
		return &v
	}
	cu.PerformanceRank = attr(backend.P2PPerformanceRank)
	cu.AccessSupported = attr(backend.P2PAccessSupported)
	cu.NativeAtomicSupported = attr(backend.P2PNativeAtomicSupported)
	cu.CudaArrayAccessSupported = attr(backend.P2PCudaArrayAccessSupported)
	if b.DriverVersion() >= 13000 {
		cu.PartialNativeAtomic = attr(backend.P2POnlyPartialNativeAtomicSupported)
	}
	ops := backend.AllAtomicOperations()
	caps, err := b.P2PAtomicCapabilities(ops, p.A.Ordinal, p.B.Ordinal)
	if err != nil {
		cu.AtomicCapabilitiesErr = err.Error()
		return
	}
	cu.AtomicCapabilities = map[string]string{}
	for i, op := range ops {
		cu.AtomicCapabilities[op.String()] = caps[i].String()
	}
}

// readNVMLClaims fills the NVML half of every pair's claims and its link
// kind. When NVML cannot be read the error is kept in each pair's claims (the
// specs that compare CUDA with NVML then fail naming it) and the link kind
// stays "unknown".
func readNVMLClaims(b backend.Backend, gpus []GPU, pairs []Pair) (*topology.View, error) {
	lib := b.NVML()
	if lib == nil {
		err := errors.New("NVML is not available (libnvidia-ml.so.1 could not be loaded or initialised)")
		if why := nvmlReason(b); why != nil {
			err = fmt.Errorf("NVML is not available: %w", why)
		}
		setNVMLError(pairs, err)
		return nil, err
	}
	devs := make([]backend.DeviceInfo, len(gpus))
	for i, g := range gpus {
		devs[i] = g.Info
	}
	view, err := topology.Read(lib, devs)
	if err != nil {
		setNVMLError(pairs, err)
		return nil, err
	}
	for i := range pairs {
		p := &pairs[i]
		tp, ok := view.Pair(p.A.Ordinal, p.B.Ordinal)
		if !ok {
			p.Claims.NVML.Error = fmt.Sprintf("NVML has no entry for %s", p)
			continue
		}
		nv := &p.Claims.NVML
		nv.Read, nv.Write, nv.NVLink = tp.Read.String(), tp.Write.String(), tp.NVLink.String()
		nv.Atomics, nv.PCI = tp.Atomics.String(), tp.PCI.String()
		nv.TopologyLevel, nv.NVLinkCount = tp.Connection(), tp.NVLinks
		p.Link = string(tp.Link)
		p.Claims.Link = p.Link
	}
	return view, nil
}

func setNVMLError(pairs []Pair, err error) {
	for i := range pairs {
		pairs[i].Claims.NVML.Error = err.Error()
		pairs[i].Claims.Link = pairs[i].Link
	}
}
