// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package machine

import (
	"errors"
	"fmt"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/claims"
	"github.com/p2pconf/p2pconf/harness/topology"
)

// readPairs builds every ordered pair with what CUDA and NVML claim about
// it. A query that fails leaves that value nil; the checks that depend on it
// query again and fail with the error, so a claim that could not be read is
// never mistaken for "unsupported".
func readPairs(b backend.Backend, gpus []GPU) ([]Pair, *topology.View, error) {
	var pairs []Pair
	for _, a := range gpus {
		for _, c := range gpus {
			if a.Ordinal == c.Ordinal {
				continue
			}
			p := Pair{A: a, B: c, Link: "unknown"}
			p.Claims, _ = claims.Read(b, a.Ordinal, c.Ordinal)
			pairs = append(pairs, p)
		}
	}
	view, err := readNVML(b, gpus, pairs)
	return pairs, view, err
}

// readNVML fills the NVML half of every pair's claims and its link kind.
// When NVML cannot be read the error is kept in each pair's claims (the
// specs that compare CUDA with NVML then fail naming it) and the link kind
// stays "unknown".
func readNVML(b backend.Backend, gpus []GPU, pairs []Pair) (*topology.View, error) {
	lib := NVMLOf(b)
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
			p.Claims.NVML.Err = fmt.Errorf("NVML has no entry for %s", p)
			continue
		}
		p.Claims.NVML = claims.NVML{
			Read: claims.Status(tp.Read.String()), Write: claims.Status(tp.Write.String()),
			NVLink: claims.Status(tp.NVLink.String()), Atomics: claims.Status(tp.Atomics.String()),
			PCI: claims.Status(tp.PCI.String()), TopologyLevel: tp.Connection(), NVLinkCount: tp.NVLinks,
		}
		p.Link = string(tp.Link)
	}
	return view, nil
}

func setNVMLError(pairs []Pair, err error) {
	for i := range pairs {
		pairs[i].Claims.NVML.Err = err
	}
}

// nvmlReason explains why a backend has no NVML, when it can say.
func nvmlReason(b backend.Backend) error {
	if r, ok := b.(interface{ NVMLError() error }); ok {
		return r.NVMLError()
	}
	return nil
}
