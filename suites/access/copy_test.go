// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package access_test

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"

	"github.com/p2pconf/p2pconf/harness"
)

// copySizes are the peer-copy sizes checked word by word on the host: one
// word and a page plus three words (a tail that is no multiple of
// anything). The catalogue's third size, 64 MiB, is checked on the owner
// GPU (ownerCheckedPeerCopies).
var copySizes = []struct {
	name, key string // key: the size in the spec's variant key
	words     int
}{
	{"4 B", "4b", 1},
	{"4 KiB + 12 B", "4kib-12b", 1024 + 3},
}

// copyMode is the variant key's part for peer access on or off.
func copyMode(peer bool) string {
	if peer {
		return "peer"
	}
	return "no-peer"
}

var _ = Describe("access:", func() {
	h := harness.New()

	for _, p := range harness.Pairs() {
		for _, size := range copySizes {
			for _, peer := range []bool{false, true} {
				mode := "without peer access"
				if peer {
					mode = fmt.Sprintf("with peer access %s enabled", p)
				}
				/*
					ID: access.peer-copy
					Requirement: cuMemcpyPeerAsync MUST move seeded data exactly from
					A to B and from B to A, with and without peer access enabled, at
					4 B and 4 KiB + 12 B (random words, checked word by word on the
					host), at 64 MiB and at sizes that straddle size caps and 32-bit
					boundaries: 64 MiB + 4 KiB + 7 B at byte offsets 3→7 and
					4 GiB + 12 B (copy_boundary_test.go: a seeded pattern whose whole
					words a kernel on the owner GPU checks, the bytes at either end
					checked on the host). The destination is poisoned first and the
					words after it stay untouched.
					Source: CUDA Driver API cuMemcpyPeerAsync; Programming Guide,
					Peer-to-Peer Memory Copy (works without peer access, staged).
					Applies to: every ordered pair; "with peer access" where
					cuDeviceCanAccessPeer(A, B)=1; a size is skipped where
					cuMemGetInfo reports too little free memory for it on either
					GPU (or on the fake backend above its largest buffer).
				*/
				It(fmt.Sprintf("cuMemcpyPeerAsync moves %s %s→%s and %s→%s exactly, %s", size.name, p.A, p.B, p.B, p.A, mode),
					harness.PairLabels("access.peer-copy", p, harness.Variant(size.key+"-"+copyMode(peer))), func(ctx SpecContext) {
						if peer {
							h.RequirePeerAccess(p)
							h.MustEnablePeerAccess(p)
						}
						seed := harness.Seed("access.peer-copy", p.ID(), size.name, mode)
						By(fmt.Sprintf("copying %s from %s to %s", size.name, p.A, p.B))
						peerCopy(ctx, h, p.A, p.B, size.words, seed, mode)
						By(fmt.Sprintf("copying %s from %s to %s", size.name, p.B, p.A))
						peerCopy(ctx, h, p.B, p.A, size.words, seed+1, mode)
					}, harness.Timeout(1))
			}
		}

		/*
			ID: access.staged-copy
			Requirement: an explicit copy from A's memory to pinned host memory
			(cuMemcpyAsync on A's stream), then from there to B's memory
			(cuMemcpyAsync on B's stream), MUST move the data exactly. This path
			needs no peer capability and MUST pass on every pair.
			Source: CUDA Driver API cuMemcpyAsync, cuMemHostAlloc(PORTABLE),
			Unified Addressing (direction inferred from the pointers).
			Applies to: every ordered pair.
		*/
		It(fmt.Sprintf("a copy %s→pinned host memory→%s moves the data exactly", p.A, p.B),
			harness.PairLabels("access.staged-copy", p), func(ctx SpecContext) {
				const n = 1<<20 + 3
				src, want := uploadRandom(h, p.A, n, harness.Seed("access.staged-copy", p.ID()))
				hb := h.HostAlloc(p.A, words32(n+guardWords), harness.HostAllocPortable)
				copy(hb.Mem, harness.WordsToBytes(poisonWords(n+guardWords)))
				dst := poisoned(h, p.B, n)

				By(fmt.Sprintf("copying %s's buffer to pinned host memory on a stream of %s", p.A, p.A))
				sa := h.Stream(p.A)
				h.CopyAsync(sa, hb.Ptr, src, words32(n))
				h.MustWait(ctx, sa, "cuMemcpyAsync "+p.A.String()+"→host")
				expectSame(append(append([]uint32(nil), want...), poisonWords(guardWords)...), harness.BytesToWords(hb.Mem),
					"pinned host memory after cuMemcpyAsync from %s (then %d guard words)", p.A, guardWords)

				By(fmt.Sprintf("copying the pinned host memory to %s on a stream of %s", p.B, p.B))
				sb := h.Stream(p.B)
				h.CopyAsync(sb, dst, hb.Ptr, words32(n))
				h.MustWait(ctx, sb, "cuMemcpyAsync host→"+p.B.String())
				expectWords(h, p.B, dst, want, fmt.Sprintf("%s's buffer after the staged copy from %s", p.B, p.A))
			}, harness.Timeout(1))
	}
})

// peerCopy copies n seeded random words from src's memory to dst's with
// cuMemcpyPeerAsync on a stream of src and checks every word at dst.
func peerCopy(ctx context.Context, h *harness.Harness, src, dst harness.GPU, n int, seed uint64, mode string) {
	GinkgoHelper()
	from, want := uploadRandom(h, src, n, seed)
	to := poisoned(h, dst, n)
	s := h.Stream(src)
	h.CopyPeerAsync(s, to, dst, from, src, words32(n))
	h.MustWait(ctx, s, fmt.Sprintf("cuMemcpyPeerAsync of %d bytes %s→%s %s", words32(n), src, dst, mode))
	expectWords(h, dst, to, want, fmt.Sprintf("%s's buffer after cuMemcpyPeerAsync of %d bytes from %s %s", dst, words32(n), src, mode))
}
