// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package access_test

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/kernels"
)

// guardWords follow every destination buffer, poisoned, and must still be
// poison afterwards: a copy or kernel that writes past its end is caught.
const guardWords = 16

// seed32 is a kernel pattern seed derived from the spec's identity.
func seed32(parts ...any) uint32 { return uint32(harness.Seed(parts...)) }

// words32 is the byte size of n words.
func words32(n int) uint64 { return 4 * uint64(n) }

// uploadRandom allocates n words on g holding seeded random words (never 0,
// never the poison) and returns the pointer and the words.
func uploadRandom(h *harness.Harness, g harness.GPU, n int, seed uint64) (harness.DevicePtr, []uint32) {
	GinkgoHelper()
	want := harness.RandomWords(seed, n)
	p := h.Alloc(g, words32(n))
	h.Upload(g, p, want)
	return p, want
}

// poisoned allocates n words plus the guard on g, all set to the poison.
func poisoned(h *harness.Harness, g harness.GPU, n int) harness.DevicePtr {
	GinkgoHelper()
	p := h.Alloc(g, words32(n+guardWords))
	h.Fill(g, p, harness.Poison, n+guardWords)
	return p
}

// expectWords reads n words (and the guard after them) at p through g's
// context and checks them against want, and the guard against the poison.
func expectWords(h *harness.Harness, g harness.GPU, p harness.DevicePtr, want []uint32, what string) {
	GinkgoHelper()
	got := h.Download(g, p, len(want)+guardWords)
	expectSame(want, got[:len(want)], "%s (read through %s)", what, g)
	expectSame(poisonWords(guardWords), got[len(want):],
		"%s: the %d guard words after the %d-word buffer on %s (want the poison)", what, guardWords, len(want), g)
}

// expectSame checks got word by word against want and reports how many
// words differ and the first (its index, byte offset and both values).
// Unlike a matcher on the slices it never prints them (64 MiB of words).
func expectSame(want, got []uint32, format string, args ...any) {
	GinkgoHelper()
	m := harness.Compare(want, got)
	Expect(m.Count).To(BeZero(), "%s: %s", fmt.Sprintf(format, args...), m)
}

func poisonWords(n int) []uint32 {
	w := make([]uint32, n)
	for i := range w {
		w[i] = harness.Poison
	}
	return w
}

// run launches k on a new stream of g and waits for it.
func run(ctx context.Context, h *harness.Harness, g harness.GPU, k *kernels.Kernel, n int, what string, args ...uint64) {
	GinkgoHelper()
	s := h.Stream(g)
	h.Launch(s, k, harness.LaunchShape(uint64(n)), args...)
	h.MustWait(ctx, s, fmt.Sprintf("%s (kernel %s on %s)", what, k.Entry, g))
}

// fillPattern fills n words at p (memory of g or of a peer) with
// PatternWord(seed, i) by a kernel on g and returns the expected words.
func fillPattern(ctx context.Context, h *harness.Harness, g harness.GPU, p harness.DevicePtr, n int, seed uint32, what string) []uint32 {
	GinkgoHelper()
	run(ctx, h, g, kernels.Fill, n, what, uint64(p), uint64(n), uint64(seed))
	return kernels.Pattern(seed, n)
}

// remoteRoundTrip has a kernel on p.A read n words of p.B's memory (into
// A's memory) and write n other words into p.B's memory, and checks both
// word by word. Peer access p must be enabled.
//
//nolint:unparam // the probe size is the caller's
func remoteRoundTrip(ctx context.Context, h *harness.Harness, p harness.Pair, buf harness.DevicePtr, n int, seed uint32, what string) {
	GinkgoHelper()
	want := fillPattern(ctx, h, p.B, buf, n, seed, fmt.Sprintf("fill %s's buffer on %s", what, p.B))
	local := poisoned(h, p.A, n)
	run(ctx, h, p.A, kernels.Transform, n, fmt.Sprintf("kernel on %s reading %s", p.A, what),
		uint64(local), uint64(buf), uint64(n), 0)
	expectWords(h, p.A, local, want, fmt.Sprintf("words a kernel on %s read from %s", p.A, what))
	want = fillPattern(ctx, h, p.A, buf, n, seed+1, fmt.Sprintf("kernel on %s writing %s", p.A, what))
	got := h.Download(p.B, buf, n)
	expectSame(want, got, "words a kernel on %s wrote into %s, read on %s", p.A, what, p.B)
}
