// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package access_test

import (
	"errors"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

var _ = Describe("access:", func() {
	h := harness.New()

	for _, p := range harness.Pairs() {
		/*
			ID: access.capability-per-direction
			Requirement: cuDeviceCanAccessPeer(A, B) MUST be answered for the
			direction A→B; the P2P attribute ACCESS_SUPPORTED(A, B) MUST agree
			with it; NVML GetP2PStatus(A, B) READ and WRITE MUST both be OK
			exactly when CUDA says 1; and the pair MUST do what CUDA claims:
			cuCtxEnablePeerAccess succeeds and A's kernels read and write B's
			memory exactly when CUDA says 1, and fails with
			PEER_ACCESS_UNSUPPORTED when it says 0. Every claim (all P2P
			attributes, NVML statuses, topology level, NVLink count) is recorded;
			every disagreement fails naming both sources and values.
			Source: CUDA Driver API cuDeviceCanAccessPeer, cuDeviceGetP2PAttribute,
			cuCtxEnablePeerAccess ("CUDA_ERROR_PEER_ACCESS_UNSUPPORTED if
			cuDeviceCanAccessPeer() ... says no"); NVML nvmlDeviceGetP2PStatus.
			Applies to: every ordered pair.
		*/
		It(fmt.Sprintf("CUDA, its P2P attributes, NVML and the pair itself agree on peer access %s", p),
			harness.PairLabels("access.capability-per-direction", p), func(ctx SpecContext) {
				By(fmt.Sprintf("recording what CUDA and NVML claim about %s", p))
				Expect(p.Claims.NVML.Err).NotTo(HaveOccurred(), "NVML could not be read for %s", p)
				c := h.ReadClaims(p)
				recordClaims(p, c)
				var disagree []string
				for _, d := range harness.ClaimDisagreements(c, harness.PeerAccessClaims) {
					disagree = append(disagree, d.Text)
				}
				can := b2i(*c.CUDA.CanAccessPeer)
				nv := c.NVML

				By(fmt.Sprintf("enabling peer access %s, which cuDeviceCanAccessPeer says %s", p, map[int]string{0: "is unsupported", 1: "works"}[can]))
				err := h.EnablePeerAccess(p)
				harness.Claim("observed", "cuCtxEnablePeerAccess", harness.CodeOf(err), p.String())
				switch {
				case can == 1 && err != nil:
					disagree = append(disagree, fmt.Sprintf("cuDeviceCanAccessPeer=1 but cuCtxEnablePeerAccess failed: %v", err))
				case can == 0 && !errors.Is(err, cuerr.PeerAccessUnsupported):
					disagree = append(disagree, fmt.Sprintf("cuDeviceCanAccessPeer=0 but cuCtxEnablePeerAccess returned %s, want %s", harness.CodeOf(err), cuerr.PeerAccessUnsupported.Error()))
				}
				Expect(disagree).To(BeEmpty(), "claims about %s disagree:\n  %s", p, strings.Join(disagree, "\n  "))
				if can == 1 {
					By(fmt.Sprintf("a kernel on %s reads and writes %s's memory, as the claims say it can", p.A, p.B))
					const n = 4096 + 3
					buf := h.Alloc(p.B, words32(n))
					remoteRoundTrip(ctx, h, p, buf, n, seed32("access.capability-per-direction", p.ID()),
						fmt.Sprintf("%s's memory (claimed by CUDA=1, ACCESS_SUPPORTED=1, NVML READ=%s WRITE=%s)", p.B, nv.Read, nv.Write))
				}
			}, harness.Timeout(1))
	}
})

// recordClaims records what CUDA says about p now and what NVML said when
// the run started.
func recordClaims(p harness.Pair, c harness.Claims) {
	cu, nv := c.CUDA, c.NVML
	harness.Claim("cuda", "cuDeviceCanAccessPeer", b2i(*cu.CanAccessPeer), p.String())
	for _, a := range []struct {
		attr  harness.P2PAttr
		value *int
	}{
		{harness.P2PPerformanceRank, cu.PerformanceRank}, {harness.P2PAccessSupported, cu.AccessSupported},
		{harness.P2PNativeAtomicSupported, cu.NativeAtomicSupported}, {harness.P2PCudaArrayAccessSupported, cu.CudaArrayAccessSupported},
		{harness.P2POnlyPartialNativeAtomicSupported, cu.PartialNativeAtomic},
	} {
		if a.value != nil { // ONLY_PARTIAL is nil on drivers before CUDA 13.0, which lack it
			harness.Claim("cuda", a.attr.String(), *a.value, p.String())
		}
	}
	for _, c := range []struct {
		name  string
		value any
	}{
		{"P2P_CAPS_INDEX_READ", string(nv.Read)}, {"P2P_CAPS_INDEX_WRITE", string(nv.Write)}, {"P2P_CAPS_INDEX_NVLINK", string(nv.NVLink)},
		{"P2P_CAPS_INDEX_ATOMICS", string(nv.Atomics)}, {"P2P_CAPS_INDEX_PCI", string(nv.PCI)},
		{"topology level", nv.TopologyLevel}, {"NVLink count", nv.NVLinkCount}, {"link", p.Link},
	} {
		harness.Claim("nvml", c.name, c.value, p.String())
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
