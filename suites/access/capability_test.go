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
	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

// nvmlOK is NVML's P2P status for a working capability.
const nvmlOK = "P2P_STATUS_OK"

var _ = Describe("access:", func() {
	h := harness.New()
	timeout := harness.RunConfig().SpecTimeout

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
				Expect(p.Claims.NVML.Error).To(BeEmpty(), "NVML could not be read for %s", p)
				can, attrs := cudaClaims(h, p)
				recordNVMLClaims(p)
				disagree := claimDisagreements(p, can, attrs)
				nv := p.Claims.NVML

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
			}, SpecTimeout(timeout))
	}
})

// cudaClaims asks CUDA about p now (a failed query fails the spec), records
// every answer, and returns cuDeviceCanAccessPeer as 0/1 and the attributes.
func cudaClaims(h *harness.Harness, p harness.Pair) (int, map[string]int) {
	GinkgoHelper()
	ok, err := h.B().CanAccessPeer(p.A.Ordinal, p.B.Ordinal)
	harness.ExpectNoError(err, "cuDeviceCanAccessPeer(%s, %s)", p.A, p.B)
	can := b2i(ok)
	harness.Claim("cuda", "cuDeviceCanAccessPeer", can, p.String())
	attrs := map[string]int{}
	for _, a := range p2pAttrs(h) {
		v, err := h.B().P2PAttribute(a, p.A.Ordinal, p.B.Ordinal)
		harness.ExpectNoError(err, "cuDeviceGetP2PAttribute(%s, %s, %s)", a, p.A, p.B)
		harness.Claim("cuda", a.String(), v, p.String())
		attrs[a.String()] = v
	}
	return can, attrs
}

// claimDisagreements compares the sources' answers for p with CUDA's
// cuDeviceCanAccessPeer (can, 0 or 1), one line per disagreement.
func claimDisagreements(p harness.Pair, can int, attrs map[string]int) []string {
	var out []string
	if v := attrs[backend.P2PAccessSupported.String()]; v != can {
		out = append(out, fmt.Sprintf("cuDeviceCanAccessPeer=%d but P2P attribute ACCESS_SUPPORTED=%d", can, v))
	}
	nv := p.Claims.NVML
	if nvmlBoth := b2i(nv.Read == nvmlOK && nv.Write == nvmlOK); nvmlBoth != can {
		out = append(out, fmt.Sprintf("cuDeviceCanAccessPeer=%d but NVML P2P status READ=%s WRITE=%s", can, nv.Read, nv.Write))
	}
	return out
}

// recordNVMLClaims records what NVML said about p when the run started.
func recordNVMLClaims(p harness.Pair) {
	nv := p.Claims.NVML
	for _, c := range []struct {
		name  string
		value any
	}{
		{"P2P_CAPS_INDEX_READ", nv.Read}, {"P2P_CAPS_INDEX_WRITE", nv.Write}, {"P2P_CAPS_INDEX_NVLINK", nv.NVLink},
		{"P2P_CAPS_INDEX_ATOMICS", nv.Atomics}, {"P2P_CAPS_INDEX_PCI", nv.PCI},
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
