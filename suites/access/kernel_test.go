// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package access_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/kernels"
)

// kernelWords is the size of the remote kernel specs' arrays: 4 MiB and a
// tail of three words, so a grid that misses the tail is caught.
const kernelWords = 1<<20 + 3

// remoteWriteWords are the sizes kernel-remote-write stores at, smallest
// first: one word (a single store), a page and three words (one CTA's
// worth plus a tail), and kernelWords (many CTAs).
var remoteWriteWords = []int{1, 1024 + 3, kernelWords}

var _ = Describe("access:", func() {
	h := harness.New()

	for _, p := range harness.Pairs() {
		/*
			ID: access.kernel-remote-read
			Requirement: with peer access A→B enabled, a kernel on A MUST read
			B's array and write a function of it (each word plus a seeded
			constant) into A's array; every element is checked (the simpleP2P
			shape).
			Source: CUDA Driver API cuCtxEnablePeerAccess; CUDA sample simpleP2P.
			Applies to: pairs where cuDeviceCanAccessPeer(A, B)=1.
		*/
		It(fmt.Sprintf("a kernel on %s reads %s's array and writes a function of it into %s's memory, with peer access %s enabled", p.A, p.B, p.A, p),
			harness.PairLabels("access.kernel-remote-read", p), func(ctx SpecContext) {
				h.RequirePeerAccess(p)
				h.MustEnablePeerAccess(p)
				src, in := uploadRandom(h, p.B, kernelWords, harness.Seed("access.kernel-remote-read", p.ID()))
				dst := poisoned(h, p.A, kernelWords)
				add := seed32("access.kernel-remote-read add", p.ID()) | 1
				By(fmt.Sprintf("a kernel on %s sets its word i to %s's word i + %d", p.A, p.B, add))
				run(ctx, h, p.A, kernels.Transform, kernelWords, fmt.Sprintf("kernel on %s reading %s's memory", p.A, p.B),
					uint64(dst), uint64(src), kernelWords, uint64(add))
				expectWords(h, p.A, dst, plus(in, add), fmt.Sprintf("%s's array computed by its kernel from %s's array", p.A, p.B))
			}, harness.Timeout(1))

		/*
			ID: access.kernel-remote-write
			Requirement: with peer access A→B enabled, a kernel on A MUST store
			into B's buffer; after A's stream completes, B MUST see every word
			(read through B's context), and the words after the buffer stay
			untouched; at three sizes: one word, 1027 words (4 KiB + 12 B) and
			1 Mi + 3 words (4 MiB + 12 B).
			Source: CUDA Driver API cuCtxEnablePeerAccess; Programming Guide,
			Peer-to-Peer Memory Access.
			Applies to: pairs where cuDeviceCanAccessPeer(A, B)=1.
		*/
		It(fmt.Sprintf("enabling peer access from %s to %s lets a kernel on %s store to %s's memory", p.A, p.B, p.A, p.B),
			harness.PairLabels("access.kernel-remote-write", p), func(ctx SpecContext) {
				h.RequirePeerAccess(p)
				h.MustEnablePeerAccess(p)
				for i, n := range remoteWriteWords {
					dst := poisoned(h, p.B, n)
					// The largest size keeps the seed the check had at one size.
					seed := seed32("access.kernel-remote-write", p.ID())
					if n != kernelWords {
						seed = seed32("access.kernel-remote-write", p.ID(), i)
					}
					By(fmt.Sprintf("a kernel on %s fills %d words of %s's buffer with a seeded pattern", p.A, n, p.B))
					want := fillPattern(ctx, h, p.A, dst, n, seed, fmt.Sprintf("kernel on %s storing %d words to %s's memory", p.A, n, p.B))
					By(fmt.Sprintf("reading %s's buffer through %s after %s's stream completed", p.B, p.B, p.A))
					expectWords(h, p.B, dst, want, fmt.Sprintf("%s's %d-word buffer stored by a kernel on %s", p.B, n, p.A))
				}
			}, harness.Timeout(1))
	}
})
