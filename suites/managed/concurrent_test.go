// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package managed_test

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/kernels"
)

// concurrentBytes is the allocation the two kernels share: 4 MiB each.
const concurrentBytes = 8 << 20

// gateTimeout bounds each wait of a gated kernel for the other GPU's.
const gateTimeout = 10 * time.Second

var _ = Describe("managed: two GPUs at once", func() {
	h := harness.New()

	for _, p := range harness.Pairs() {
		/*
			ID: managed.concurrent-disjoint
			Requirement: with CONCURRENT_MANAGED_ACCESS=1, kernels on A and B
			resident at once MUST each write their own pages of one managed
			allocation exactly.
			Source: CUDA Driver API cuDeviceGetAttribute
			(CONCURRENT_MANAGED_ACCESS); Programming Guide, Unified Memory,
			Coherency and Concurrency.
			Applies to: pairs with MANAGED_MEMORY=1 and
			CONCURRENT_MANAGED_ACCESS=1 on both GPUs.
		*/
		It(fmt.Sprintf("kernels on %s and %s running at once write their own pages of one managed allocation exactly", p.A, p.B),
			harness.PairLabels("managed.concurrent-disjoint", p), func(ctx SpecContext) {
				requireManaged(h, p.A, p.B)
				for _, g := range []harness.GPU{p.A, p.B} {
					if h.Attribute(g, harness.AttrConcurrentManagedAccess) != 1 {
						harness.Finding("documented-restriction", "CONCURRENT_MANAGED_ACCESS=0",
							fmt.Sprintf("%s has CONCURRENT_MANAGED_ACCESS=0: the Programming Guide then has managed memory accessed by one processor at a time (no access while a kernel that may use it runs), so simultaneous kernels are not a documented use", g))
					}
					h.RequireAttribute(g, harness.AttrConcurrentManagedAccess, 1)
				}
				a := managedBuffer(h, p.A, concurrentBytes, "a managed buffer two GPUs write at once", p.B)
				half := a.Size / 2 &^ (2<<20 - 1)
				Expect(half).NotTo(BeZero(), "managed buffer of %d bytes: too small for two 2 MiB-aligned halves", a.Size)
				n := half / 4
				seedA, seedB := seed32("managed.concurrent-disjoint A", p.ID()), seed32("managed.concurrent-disjoint B", p.ID())
				wa, wb := h.GPUWork(p.A), h.GPUWork(p.B)
				gate := h.HostAlloc(p.A, 16, harness.HostAllocDeviceMap|harness.HostAllocPortable)
				clear(gate.Mem)
				gatePtr := h.HostDevicePointer(p.A, gate)
				status := h.HostAlloc(p.A, 8, harness.HostAllocDeviceMap|harness.HostAllocPortable)
				clear(status.Mem)
				statusPtr := h.HostDevicePointer(p.A, status)

				By(fmt.Sprintf("launching the gated fills: %s on bytes [0, %d), %s on [%d, %d)", p.A, half, p.B, half, 2*half))
				cfg := harness.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(1024)}
				h.Launch(wa.Stream(), kernels.ManagedGatedFill, cfg, uint64(a.Ptr), n, uint64(seedA), uint64(gatePtr), 0, uint64(gateTimeout), uint64(statusPtr))
				h.Launch(wb.Stream(), kernels.ManagedGatedFill, cfg, uint64(a.Ptr)+half, n, uint64(seedB), uint64(gatePtr), 1, uint64(gateTimeout), uint64(statusPtr)+4)
				harness.ExpectNoError(wa.Wait(ctx, "gated fill"), "the gated fill on %s", p.A)
				harness.ExpectNoError(wb.Wait(ctx, "gated fill"), "the gated fill on %s", p.B)
				got := harness.BytesToWords(status.Mem[:8])
				if got[0] != kernels.GateMet || got[1] != kernels.GateMet {
					Fail(fmt.Sprintf("could not tell: the kernels on %s and %s were not shown to run at once (gate status %d and %d; %d means a %s wait for the other GPU timed out)",
						p.A, p.B, got[0], got[1], kernels.GateTimedOut, gateTimeout))
				}
				harness.Finding("simultaneous-kernels", true, fmt.Sprintf("the kernels on %s and %s met through mapped host memory before and after their fills", p.A, p.B))

				for _, c := range []struct {
					g harness.GPU
					w *harness.GPUWork
				}{{p.A, wa}, {p.B, wb}} {
					expectPattern(ctx, c.w, c.g, a.Ptr, n, seedA, fmt.Sprintf("the half %s wrote while %s's kernel ran", p.A, p.B))
					expectPattern(ctx, c.w, c.g, a.Ptr+harness.DevicePtr(half), n, seedB, fmt.Sprintf("the half %s wrote while %s's kernel ran", p.B, p.A))
				}
			}, harness.Timeout(1))
	}
})
