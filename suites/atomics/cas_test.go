// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package atomics_test

import (
	"context"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/kernels"
)

// casWidths are the widths of atom.cas; each runs every case of casCases.
var casWidths = []uint32{32, 64}

var _ = Describe("atomics: a compare-and-swap", func() {
	h := harness.New()

	for _, g := range harness.GPUs() {
		/*
			ID: atomics.cas-whole-word
			Requirement: atom.cas.b32 and atom.cas.b64 (.sys scope) MUST
			compare the whole word: with an expected value that differs from
			the word only in its high half, or only in its low half, the CAS
			stores nothing and returns the word's value; with the expected
			value equal to the word (the control), it stores the new value
			and returns the old one. A 32-bit CAS leaves the 32 bits above
			its word alone. Each width runs two single-bit and one seeded
			multi-bit difference in each half (the bits at either end of
			the half), between two controls, one thread storing the word's
			value before each CAS and loading it after; on the GPU's own
			memory, in mapped pinned host memory and, for pairs, in a peer
			GPU's memory. The CAS-loop contention of
			atomics.concurrent-sys-rmw cannot show this: its stale expected
			values always differ in the low bits.
			Source: PTX ISA, atom (".cas: d = *a; *a = (*a == b) ? c : *a",
			the whole .b32 or .b64 operand); CUDA C++ Programming Guide,
			atomicCAS ("computes (old == compare ? val : old)").
			Applies to: every GPU (its own memory); every GPU with
			CAN_MAP_HOST_MEMORY=1 (host memory: one thread, nothing else
			touches the word, so the CAS needs no atomicity across the link
			and HOST_NATIVE_ATOMIC_SUPPORTED, recorded, does not gate it);
			ordered pairs with peer access A→B where CAS is advertised as
			native from A to B, each width that is.
		*/
		It(fmt.Sprintf("on %s's own memory compares the whole word (cas.b32 and cas.b64)", g),
			harness.GPULabels("atomics.cas-whole-word", g, harness.Variant("local")), func(ctx SpecContext) {
				word := h.Alloc(g, 4096)
				runCASProbe(ctx, h, g, word, fmt.Sprintf("%s's own memory", g), harness.Seed("atomics.cas-whole-word", g.String(), "local"), casWidths)
			}, harness.Timeout(0.25))

		It(fmt.Sprintf("in mapped pinned host memory compares the whole word (cas.b32 and cas.b64 from %s)", g),
			harness.GPULabels("atomics.cas-whole-word", g, harness.Variant("host")), func(ctx SpecContext) {
				h.RequireAttribute(g, harness.AttrCanMapHostMemory, 1)
				harness.Claim("cuda", "HOST_NATIVE_ATOMIC_SUPPORTED", h.Attribute(g, harness.AttrHostNativeAtomicSupported), g.String())
				hb := h.HostAlloc(g, 4096, harness.HostAllocPortable|harness.HostAllocDeviceMap)
				runCASProbe(ctx, h, g, hb.Ptr, "mapped pinned host memory", harness.Seed("atomics.cas-whole-word", g.String(), "host"), casWidths)
			}, harness.Timeout(0.25))
	}

	for _, p := range harness.Pairs() {
		It(fmt.Sprintf("on %s's memory from %s compares the whole word (cas.b32 and cas.b64)", p.B, p.A),
			harness.PairLabels("atomics.cas-whole-word", p, harness.Variant("peer")), func(ctx SpecContext) {
				h.RequirePeerAccess(p)
				claims := h.ReadAtomicClaims(p.A, p.B)
				var widths []uint32
				var found []string
				for _, w := range casWidths {
					ok, f := claims.Advertises(cudaOp(opNamed(fmt.Sprintf("cas.b%d", w))))
					if ok {
						widths = append(widths, w)
					} else {
						found = append(found, fmt.Sprintf("cas.b%d: %s", w, f))
					}
				}
				if len(widths) == 0 {
					Skip(fmt.Sprintf("needs CAS advertised as native for %s (found %s): NotSupported", claims.Link(), strings.Join(found, "; ")))
				}
				for _, f := range found {
					harness.Finding("not native", "skipped", fmt.Sprintf("%s: %s", claims.Link(), f))
				}
				h.MustEnablePeerAccess(p)
				word := h.Alloc(p.B, 4096)
				runCASProbe(ctx, h, p.A, word, fmt.Sprintf("%s's memory through peer access %s", p.B, p), harness.Seed("atomics.cas-whole-word", p.ID(), "peer"), widths)
			}, harness.Timeout(0.25))
	}
})

// casCase is one case of the probe with what it shows.
type casCase struct {
	kernels.CASCase
	what string
}

// casCases are, for each width, a control (expected equals the word), a
// difference in the high half only (its lowest bit, its highest bit, a
// seeded mask) and in the low half only (likewise), and a second control.
// The values are seeded, and the new value differs from the initial one in
// both halves, so a CAS that stores shows in either half.
func casCases(seed uint64, widths []uint32) []casCase {
	r := harness.RandomWords(seed, 2*5*len(widths)) // five 64-bit values a width
	next := func() uint64 { v := uint64(r[0])<<32 | uint64(r[1]); r = r[2:]; return v }
	var out []casCase
	for _, w := range widths {
		half := w / 2
		low := uint64(1)<<half - 1
		all := ^uint64(0) >> (64 - w)
		high := all &^ low
		init, nv := next()&all, next()&all
		if nv&low == init&low {
			nv ^= 1
		}
		if nv&high == init&high {
			nv ^= uint64(1) << half
		}
		// mask is a seeded non-zero part of m.
		mask := func(m uint64) uint64 {
			if v := next() & m; v != 0 {
				return v
			}
			return m &^ (m << 1) // the lowest bit of m
		}
		guard := uint32(next())
		c := func(exp uint64, what string) casCase {
			return casCase{kernels.CASCase{Width: w, Init: init, Expected: exp, New: nv, Guard: guard}, what}
		}
		out = append(out,
			c(init, "control: expected equals the word"),
			c(init^uint64(1)<<half, fmt.Sprintf("expected differs only in the high half (bit %d)", half)),
			c(init^uint64(1)<<(w-1), fmt.Sprintf("expected differs only in the high half (bit %d)", w-1)),
			c(init^mask(high), "expected differs only in the high half (seeded mask)"),
			c(init^1, "expected differs only in the low half (bit 0)"),
			c(init^uint64(1)<<(half-1), fmt.Sprintf("expected differs only in the low half (bit %d)", half-1)),
			c(init^mask(low), "expected differs only in the low half (seeded mask)"),
			c(init, "control again: expected equals the word"),
		)
	}
	return out
}

// runCASProbe runs the cases of widths in one thread of g on word and holds
// every result to what the PTX atom.cas demands.
func runCASProbe(ctx context.Context, h *harness.Harness, g harness.GPU, word harness.DevicePtr, where string, seed uint64, widths []uint32) {
	GinkgoHelper()
	cases := casCases(seed, widths)
	raw := make([]kernels.CASCase, len(cases))
	for i, c := range cases {
		raw[i] = c.CASCase
	}
	n := len(cases)
	dc := h.Alloc(g, uint64(kernels.CASCaseBytes*n))
	h.Upload(g, dc, harness.BytesToWords(kernels.EncodeCASCases(raw)))
	out := h.Alloc(g, uint64(kernels.CASOutBytes*n))
	h.Fill(g, out, harness.Poison, kernels.CASOutBytes/4*n)
	s := h.Stream(g)

	By(fmt.Sprintf("running %d compare-and-swap cases (cas.b%s) in one thread of %s on %s", n, joinWidths(widths), g, where))
	h.Launch(s, kernels.CASProbe, harness.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(1)},
		uint64(dc), uint64(n), uint64(word), uint64(out))
	h.MustWait(ctx, s, "cas_probe on "+g.String())
	got := kernels.DecodeCASResults(harness.WordsToBytes(h.Download(g, out, kernels.CASOutBytes/4*n)), n)

	By("comparing what every CAS returned and left in the word with what atom.cas demands")
	var bad []string
	stored, refused := 0, 0
	for i, c := range cases {
		want := c.Want()
		if got[i] != want {
			bad = append(bad, fmt.Sprintf("cas.b%d, %s (word 0x%x, expected 0x%x, new 0x%x): returned 0x%x and left %s, want 0x%x and %s",
				c.Width, c.what, c.Init, c.Expected, c.New, got[i].Returned, casAfter(c.Width, got[i].After), want.Returned, casAfter(c.Width, want.After)))
			continue
		}
		if c.Stores() {
			stored++
		} else {
			refused++
		}
	}
	harness.Metric("CAS that stored as they must", float64(stored), "cases", fmt.Sprintf("%s, from %s", where, g))
	harness.Metric("CAS that stored nothing as they must", float64(refused), "cases", fmt.Sprintf("%s, from %s", where, g))
	Expect(bad).To(BeEmpty(), "atom.cas from %s on %s, %d of %d cases wrong:\n%s", g, where, len(bad), n, strings.Join(bad, "\n"))
}

func joinWidths(widths []uint32) string {
	s := make([]string, len(widths))
	for i, w := range widths {
		s[i] = fmt.Sprint(w)
	}
	return strings.Join(s, " and .b")
}

// casAfter shows the word after a CAS; for a 32-bit CAS the guard above it
// too.
func casAfter(width uint32, v uint64) string {
	if width == 32 {
		return fmt.Sprintf("0x%x (the 32 bits above it 0x%x)", uint32(v), uint32(v>>32))
	}
	return fmt.Sprintf("0x%x", v)
}
