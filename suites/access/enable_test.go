// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package access_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

// probeWords is the size of the buffers the enable specs touch.
const probeWords = 4096 + 3

var _ = Describe("access:", func() {
	h := harness.New()

	for _, p := range harness.Pairs() {
		ord := [2]int{int(p.A.Ordinal), int(p.B.Ordinal)}

		/*
			ID: access.enable-is-directional
			Requirement: after cuCtxEnablePeerAccess for A→B only, a kernel on A
			MUST read and write B's buffer correctly, and a kernel on B that
			dereferences A's buffer MUST fault on the access (in a helper
			process) with CUDA_ERROR_ILLEGAL_ADDRESS or CUDA_ERROR_LAUNCH_FAILED,
			the codes the documentation gives for a load or store on an address
			the kernel may not use (the code is recorded, observed 700); this
			process's contexts on A and B MUST stay healthy.
			Source: CUDA Driver API cuCtxEnablePeerAccess ("unidirectional");
			observed on 2× H200.
			Applies to: pairs where cuDeviceCanAccessPeer(A, B)=1.
		*/
		It(fmt.Sprintf("enabling peer access %s gives %s's kernels access to %s's memory and %s's kernels none to %s's", p, p.A, p.B, p.B, p.A),
			harness.PairLabels("access.enable-is-directional", p, harness.ProcessMulti), func(ctx SpecContext) {
				h.RequirePeerAccess(p)
				seed := seed32("access.enable-is-directional", p.ID())
				By(fmt.Sprintf("enabling peer access %s only", p))
				h.MustEnablePeerAccess(p)
				remoteRoundTrip(ctx, h, p, h.Alloc(p.B, words32(probeWords)), probeWords, seed, fmt.Sprintf("%s's memory", p.B))

				By(fmt.Sprintf("in a helper: enabling %s only, then a kernel on %s reads %s's memory", p, p.B, p.A))
				rep := probe(ctx, h, probeReq{Accessor: ord[1], Owner: ord[0], Enable: [][2]int{ord}, Words: probeWords, Seed: seed})
				expectNoAccess(rep, fmt.Sprintf("kernel on %s reading %s's memory with only %s enabled", p.B, p.A, p))
				h.ExpectHealthy(ctx, p.A, p.B)
			}, harness.Timeout(1))

		/*
			ID: access.enable-errors
			Requirement: disabling peer access A→B while it is not enabled MUST
			fail with PEER_ACCESS_NOT_ENABLED (705); enabling A→B a second time
			MUST fail with PEER_ACCESS_ALREADY_ENABLED (704); after disabling,
			a kernel on A that reads B's memory MUST fault on the access with
			CUDA_ERROR_ILLEGAL_ADDRESS or CUDA_ERROR_LAUNCH_FAILED (in a helper
			process, where the same read worked before the disable); this
			process's contexts stay healthy.
			Source: CUDA Driver API cuCtxEnablePeerAccess, cuCtxDisablePeerAccess
			(both codes documented); observed on 2× H200.
			Applies to: pairs where cuDeviceCanAccessPeer(A, B)=1.
		*/
		It(fmt.Sprintf("peer access %s cannot be enabled twice or disabled when not enabled, and disabling it takes access away", p),
			harness.PairLabels("access.enable-errors", p, harness.ProcessMulti), func(ctx SpecContext) {
				h.RequirePeerAccess(p)
				// The driver's answers to a second enable and to a disable of
				// what is not enabled are the observations.
				By(fmt.Sprintf("disabling peer access %s before it was enabled", p))
				Expect(h.TryDisablePeerAccess(p)).To(harness.MatchCUDAError(cuerr.PeerAccessNotEnabled),
					"cuCtxDisablePeerAccess %s while not enabled", p)
				By(fmt.Sprintf("enabling peer access %s twice", p))
				g := h.GrantPeerAccess(p)
				Expect(h.EnablePeerAccess(p)).To(harness.MatchCUDAError(cuerr.PeerAccessAlreadyEnabled),
					"cuCtxEnablePeerAccess %s a second time", p)
				By(fmt.Sprintf("disabling peer access %s twice", p))
				g.Disable()
				Expect(h.TryDisablePeerAccess(p)).To(harness.MatchCUDAError(cuerr.PeerAccessNotEnabled), "cuCtxDisablePeerAccess %s a second time", p)

				By(fmt.Sprintf("in a helper: enabling %s, reading %s's memory from %s, disabling, reading again", p, p.B, p.A))
				rep := probe(ctx, h, probeReq{Accessor: ord[0], Owner: ord[1], Enable: [][2]int{ord}, Before: true,
					Disable: [][2]int{ord}, Words: probeWords, Seed: seed32("access.enable-errors", p.ID())})
				Expect(rep.Before).NotTo(BeNil(), "the helper's read of %s's memory from %s while %s was enabled", p.B, p.A, p)
				Expect(rep.Before.Mismatches).To(BeZero(),
					"in the helper, a kernel on %s reading %s's memory while %s was enabled: %s", p.A, p.B, p, rep.Before)
				expectNoAccess(rep, fmt.Sprintf("kernel on %s reading %s's memory after disabling %s", p.A, p.B, p))
				h.ExpectHealthy(ctx, p.A, p.B)
			}, harness.Timeout(1))

		/*
			ID: access.enable-covers-allocations
			Requirement: after cuCtxEnablePeerAccess A→B, kernels on A MUST reach
			B's cuMemAlloc allocations made both before and after the enable
			(read and write every word).
			Source: CUDA Driver API cuCtxEnablePeerAccess ("access to all ...
			allocations of the peer context, current and future").
			Applies to: pairs where cuDeviceCanAccessPeer(A, B)=1.
		*/
		It(fmt.Sprintf("after enabling peer access %s, %s's kernels reach %s's allocations made before and after the enable", p, p.A, p.B),
			harness.PairLabels("access.enable-covers-allocations", p), func(ctx SpecContext) {
				h.RequirePeerAccess(p)
				seed := seed32("access.enable-covers-allocations", p.ID())
				By(fmt.Sprintf("allocating on %s, then enabling %s, then allocating again", p.B, p))
				before := h.Alloc(p.B, words32(probeWords))
				h.MustEnablePeerAccess(p)
				after := h.Alloc(p.B, words32(probeWords))

				By(fmt.Sprintf("a kernel on %s reads and writes the allocation made before the enable", p.A))
				remoteRoundTrip(ctx, h, p, before, probeWords, seed, fmt.Sprintf("%s's allocation made before enabling %s", p.B, p))
				By(fmt.Sprintf("a kernel on %s reads and writes the allocation made after the enable", p.A))
				remoteRoundTrip(ctx, h, p, after, probeWords, seed+2, fmt.Sprintf("%s's allocation made after enabling %s", p.B, p))
			}, harness.Timeout(1))
	}
})
