// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package bandwidth

import (
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/kernels"
)

// copyBlock is the block size of the kernel copy.
const copyBlock = 256

// peerCopy enqueues cuMemcpyPeerAsync from the lane's source to its
// destination (each named with its owner device).
func (s *session) peerCopy(l *lane, n uint64) {
	s.h.CopyPeerAsync(l.stream, l.dst.cePtr, l.dst.gpu, l.src.cePtr, l.src.gpu, n)
}

// copyAsync enqueues cuMemcpyAsync (direction inferred under UVA).
func (s *session) copyAsync(l *lane, n uint64) {
	s.h.CopyAsync(l.stream, l.dst.cePtr, l.src.cePtr, n)
}

// kernelCopy returns an enqueue function launching kernels.BWCopy on g:
// enough blocks of copyBlock threads for four vectors per thread, at most
// as many as fit on g at once (cuOccupancyMaxActiveBlocksPerMultiprocessor ×
// SMs), so a large copy runs as one full wave of grid-stride loops.
func (s *session) kernelCopy(g harness.GPU) func(l *lane, n uint64) {
	GinkgoHelper()
	per := s.h.MaxActiveBlocks(g, kernels.BWCopy, copyBlock)
	full := uint64(max(per, 1) * max(g.Info.SMCount, 1))
	s.note("kernel %s on %s: up to %d blocks of %d threads (%d per SM × %d SMs), 16-byte vectors, 4 in flight per thread",
		kernels.BWCopy.Entry, g, full, copyBlock, per, g.Info.SMCount)
	return func(l *lane, n uint64) {
		n16 := n / 16
		grid := min(max((n16+4*copyBlock-1)/(4*copyBlock), 1), full)
		cfg := harness.LaunchConfig{Grid: kernels.D1(uint32(grid)), Block: kernels.D1(copyBlock)}
		s.h.Launch(l.stream, kernels.BWCopy, cfg, uint64(l.dst.ptr), uint64(l.src.ptr), n16)
	}
}

// requireHostMapping skips unless g can map pinned host memory into the
// unified address space (the fill and verify kernels read and write it,
// and cuMemcpyAsync infers the direction from the address).
func (s *session) requireHostMapping(g harness.GPU) {
	GinkgoHelper()
	s.h.RequireAttribute(g, harness.AttrUnifiedAddressing, 1)
	s.h.RequireAttribute(g, harness.AttrCanMapHostMemory, 1)
}

// measure runs the bench, records its figures and, with a nominal rate, the
// fraction of it; then gates the figures against the baseline.
func (b *bench) measure(nominal nominalFn, directions int) {
	GinkgoHelper()
	res := b.run()
	figs := b.record(res)
	if nominal != nil {
		b.recordFraction(res, nominal, directions)
	}
	b.s.alone.Done() // before the gate: a contended figure is no verdict
	b.gate(figs)
}

// runsBidirectional says whether p carries the bidirectional specs: a
// bidirectional measurement is one of the unordered pair, so it runs on the
// ordered pair whose source has the lower ordinal, unless the selection
// (P2PCONF_PAIRS) left only the other one.
func runsBidirectional(p harness.Pair) bool {
	if p.A.Ordinal < p.B.Ordinal {
		return true
	}
	for _, q := range harness.Pairs() {
		if q.A.Ordinal == p.B.Ordinal && q.B.Ordinal == p.A.Ordinal {
			return false
		}
	}
	return true
}

func both(p harness.Pair) string { return fmt.Sprintf("%s and %s", p.A, p.B) }

// enablePeers enables peer access both ways where the driver allows it
// (copy engines then go over the link instead of staging through the host)
// and notes what it did.
func (s *session) enablePeers(p harness.Pair) {
	GinkgoHelper()
	var on, off []string
	for _, q := range []harness.Pair{p, p.Reverse()} {
		if s.h.CanAccessPeer(q.A, q.B) {
			s.h.MustEnablePeerAccess(q)
			on = append(on, q.String())
		} else {
			off = append(off, q.String())
		}
	}
	switch {
	case len(off) == 0:
		s.note("peer access enabled both ways")
	case len(on) == 0:
		s.note("no peer access (cuDeviceCanAccessPeer=0 both ways): the driver stages copies through host memory")
	default:
		s.note("peer access enabled %s only (cuDeviceCanAccessPeer=0 for %s)", strings.Join(on, ", "), strings.Join(off, ", "))
	}
}

// requirePeers skips unless kernels on p.A may touch p.B's memory (and, for
// both, the reverse), then enables it.
func (s *session) requirePeers(p harness.Pair, both bool) {
	GinkgoHelper()
	pairs := []harness.Pair{p}
	if both {
		pairs = append(pairs, p.Reverse())
	}
	for _, q := range pairs {
		s.h.RequirePeerAccess(q)
	}
	for _, q := range pairs {
		s.h.MustEnablePeerAccess(q)
	}
	s.note("peer access enabled %s", map[bool]string{false: "one way", true: "both ways"}[both])
}
