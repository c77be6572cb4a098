// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package bandwidth

import (
	"errors"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/p2pconf/p2pconf/harness"
	bw "github.com/p2pconf/p2pconf/harness/bandwidth"
	"github.com/p2pconf/p2pconf/harness/topology"
)

const idLinkEfficiency = "bandwidth.link-efficiency"

// linkCeiling is the most a measurement may exceed the nominal rate by:
// more than the link carries means the bytes took another path, or were
// not all moved.
const linkCeiling = 1.05

var _ = Describe("bandwidth: link efficiency", func() {
	h := harness.New()

	for _, p := range harness.Pairs() {
		/*
		   ID: bandwidth.link-efficiency
		   Requirement: with peer access enabled, cuMemcpyPeerAsync A→B at the largest size MUST reach at
		   least P2PCONF_LINK_EFFICIENCY_MIN percent (default 60) of NVML's nominal rate for the pair's path,
		   and MUST NOT exceed 105 % of it.
		   Source: NVML link state, version and PCIe generation/width; measured on two H200 over NV18: 396 of 478 GB/s (83 %).
		   Applies to: ordered pairs with cuDeviceCanAccessPeer(A, B) = 1.
		*/
		It(fmt.Sprintf("cuMemcpyPeerAsync from %s to %s reaches its share of the nominal rate NVML gives for the path, and no more than the link carries", p.A, p.B),
			harness.PairLabels(idLinkEfficiency, p, harness.Slow), func(ctx SpecContext) {
				h.RequirePeerAccess(p)
				nominal, err := pairNominal(p)(h.NVML())
				if errors.Is(err, topology.ErrNominalUnavailable) {
					Skip(fmt.Sprintf("needs NVML's nominal rate of %s's path (found %v)", p, err))
				}
				Expect(err).NotTo(HaveOccurred(), "reading the nominal rate of %s's path from NVML", p)

				s := pairSession(h, ctx, idLinkEfficiency, p)
				s.enablePeers(p)
				b := s.bench("ce", "uni", "cuMemcpyPeerAsync "+p.String())
				b.addLane(p.String(), h.Stream(p.A), s.devBuf(p.A), s.devBuf(p.B), s.peerCopy)
				results := b.run()
				last := results[len(results)-1]
				ratio := last.median / nominal.GBps
				least := s.cfg.LinkEfficiencyMin
				evidence := fmt.Sprintf("%.1f GB/s measured at %s (median of %d batches), %.1f GB/s nominal (%s; source NVML): %.1f %% (accepted %.0f–%.0f %%)%s",
					last.median, bw.SizeLabel(last.size), last.reps, nominal.GBps, nominal.Path, 100*ratio, 100*least, 100*linkCeiling, s.noteSuffix())
				harness.Metric("link_efficiency.ce.uni", ratio, "ratio", evidence)
				s.alone.Done() // before the verdict: a contended figure is no verdict
				Expect(ratio).To(BeNumerically(">=", least),
					"%s moves less than %.0f %% of its nominal rate: %s. The path may have lost links, trained down, or be staged through the host", p, 100*least, evidence)
				Expect(ratio).To(BeNumerically("<=", linkCeiling),
					"%s moves more than the link carries: %s. The bytes did not take the path NVML describes, or not all of them moved", p, evidence)
			}, sizedTimeout())
	}
})
