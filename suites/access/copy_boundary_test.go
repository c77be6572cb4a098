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

// boundaryCopy is a copy size that straddles a limit a driver may have got
// wrong, with the byte offsets of the copy's source and destination inside
// their buffers. The offsets are equal modulo 4, so that every whole word
// of the destination is a whole word of the source and a kernel on the
// owner can check it against the seeded pattern.
type boundaryCopy struct {
	name, key      string // key: the copy in the spec's variant key
	bytes          uint64
	srcOff, dstOff uint64
}

// boundaryCopies straddle size caps: a page beyond 64 MiB (the largest
// peer-copy size of the catalogue), with an odd size at odd, unequal
// offsets; and 4 GiB, where a 32-bit byte count wraps. Their data is
// checked by a kernel on the owner GPU (kernels.Verify), the few bytes at
// either end on the host.
var boundaryCopies = []boundaryCopy{
	{"64 MiB + 4 KiB + 7 B at byte offsets 3→7", "64mib-4kib-7b-at-3-7", 64<<20 + 4<<10 + 7, 3, 7},
	{"4 GiB + 12 B", "4gib-12b", 4<<30 + 12, 0, 0},
}

// ownerCheckedPeerCopies are the peer copies checked by a kernel on the
// owner GPU: the boundary copies and the catalogue's 64 MiB copy. At
// 64 MiB the word-by-word host check (16 Mi random words generated,
// uploaded, downloaded and compared, each way) took 0.4–0.7 s per spec on
// two H200s, against 5–14 ms for the 64 MiB + 4 KiB + 7 B copy checked here;
// the kernel compares every word with a pattern of its seed and index, so
// a copy that drops, shifts, truncates or mixes up words fails it as it
// failed the host check.
var ownerCheckedPeerCopies = append([]boundaryCopy{{"64 MiB", "64mib", 64 << 20, 0, 0}}, boundaryCopies...)

// boundaryLayout is where a boundaryCopy puts the data: the source buffer
// holds seed2's pattern up to word k and seed's pattern (counted from k)
// after it, so that destination word w0 onwards holds seed's pattern from
// index 0 and kernels.Verify can check it in place.
type boundaryLayout struct {
	boundaryCopy
	srcWords, dstWords uint64 // buffer sizes in words (dstWords includes the guard)
	k                  uint64 // the source word copied to destination word w0
	w0, wEnd           uint64 // destination words [w0, wEnd) are whole words of the copy
}

func layout(c boundaryCopy) boundaryLayout {
	if c.srcOff%4 != c.dstOff%4 {
		panic(fmt.Sprintf("boundary copy %q: offsets %d and %d differ modulo 4", c.name, c.srcOff, c.dstOff))
	}
	l := boundaryLayout{boundaryCopy: c}
	l.srcWords = (c.srcOff+c.bytes+3)/4 + 1
	l.dstWords = (c.dstOff+c.bytes+3)/4 + guardWords
	l.w0 = (c.dstOff + 3) / 4
	l.wEnd = (c.dstOff + c.bytes) / 4
	l.k = (c.srcOff + 4*l.w0 - c.dstOff) / 4
	return l
}

// need is the device memory one direction takes on each GPU's side.
func (l boundaryLayout) need() uint64 { return 4 * max(l.srcWords, l.dstWords) }

// srcByte is byte y of the source buffer.
func (l boundaryLayout) srcByte(y uint64, seed, seed2 uint32) byte {
	j := y / 4
	w := kernels.PatternWord(seed2, j)
	if j >= l.k {
		w = kernels.PatternWord(seed, j-l.k)
	}
	return byte(w >> (8 * (y % 4)))
}

// dstByte is what byte x of the destination buffer must hold after the copy.
func (l boundaryLayout) dstByte(x uint64, seed, seed2 uint32) byte {
	if x < l.dstOff || x >= l.dstOff+l.bytes {
		return byte(harness.Poison >> (8 * (x % 4)))
	}
	return l.srcByte(l.srcOff+(x-l.dstOff), seed, seed2)
}

// boundaryCopyRun copies c from src's memory to dst's with copyFn on a
// stream of src and has dst, the owner, check every byte.
func boundaryCopyRun(ctx context.Context, h *harness.Harness, src, dst harness.GPU, c boundaryCopy, seed uint64, how string,
	copyFn func(s harness.Stream, to, from harness.DevicePtr, n uint64)) {
	GinkgoHelper()
	l := layout(c)
	seedA, seedB := uint32(seed), uint32(seed>>32)|1
	if seedB == seedA {
		seedB++
	}
	from := h.Alloc(src, 4*l.srcWords)
	to := h.Alloc(dst, 4*l.dstWords)
	ws, wd := h.GPUWork(src), h.GPUWork(dst)
	if l.k > 0 {
		harness.ExpectNoError(ws.Fill(ctx, from, l.k, seedB), "fill the %d words of %s's source before the pattern", l.k, src)
	}
	harness.ExpectNoError(ws.Fill(ctx, from+harness.DevicePtr(4*l.k), l.srcWords-l.k, seedA), "fill %s's source with the pattern", src)
	h.Fill(dst, to, harness.Poison, int(l.dstWords))

	what := fmt.Sprintf("%s of %d bytes from %s (byte %d) to %s (byte %d)", how, c.bytes, src, c.srcOff, dst, c.dstOff)
	s := h.Stream(src)
	copyFn(s, to+harness.DevicePtr(c.dstOff), from+harness.DevicePtr(c.srcOff), c.bytes)
	h.MustWait(ctx, s, what)

	v, err := wd.Verify(ctx, to+harness.DevicePtr(4*l.w0), l.wEnd-l.w0, seedA)
	harness.ExpectNoError(err, "verify the destination on %s after %s", dst, what)
	Expect(v.Mismatches).To(BeZero(), "%s: %d of the %d whole words at the destination differ (checked on %s), the first the word at byte %d of the copy (destination byte %d)",
		what, v.Mismatches, l.wEnd-l.w0, dst, 4*(l.w0+uint64(v.First))-c.dstOff, 4*(l.w0+uint64(v.First)))

	// The partial words at both ends and the guard after the end, on the host.
	var head []uint32
	if l.w0 > 0 {
		head = h.Download(dst, to, int(l.w0))
	}
	tail := h.Download(dst, to+harness.DevicePtr(4*l.wEnd), int(l.dstWords-l.wEnd))
	check := func(words []uint32, firstWord uint64, part string) {
		GinkgoHelper()
		b := harness.WordsToBytes(words)
		for i := range b {
			x := 4*firstWord + uint64(i)
			if want := l.dstByte(x, seedA, seedB); b[i] != want {
				Fail(fmt.Sprintf("%s: %s: destination byte %d (byte %d of the copy) is 0x%02x, want 0x%02x (%s)",
					what, part, x, int64(x)-int64(c.dstOff), b[i], want, byteRole(x, c)))
			}
		}
	}
	check(head, 0, "the bytes before the first whole word")
	check(tail, l.wEnd, fmt.Sprintf("the bytes after the last whole word and the %d guard words", guardWords))
}

// byteRole says whether destination byte x was to be copied or left alone.
func byteRole(x uint64, c boundaryCopy) string {
	if x < c.dstOff || x >= c.dstOff+c.bytes {
		return "outside the copy: must keep the poison"
	}
	return "copied from the source"
}

var _ = Describe("access:", func() {
	h := harness.New()

	for _, p := range harness.Pairs() {
		for _, c := range ownerCheckedPeerCopies {
			for _, peer := range []bool{false, true} {
				mode := "without peer access"
				if peer {
					mode = fmt.Sprintf("with peer access %s enabled", p)
				}
				// ID: access.peer-copy (requirement in copy_test.go), at 64 MiB
				// and at sizes that straddle a cap; checked on the owner GPU.
				It(fmt.Sprintf("cuMemcpyPeerAsync moves %s %s→%s and %s→%s exactly, %s", c.name, p.A, p.B, p.B, p.A, mode),
					harness.PairLabels("access.peer-copy", p, harness.Variant(c.key+"-"+copyMode(peer))), func(ctx SpecContext) {
						// Each GPU holds one direction's source and the other's destination.
						need := 2 * layout(c).need()
						h.RequireFreeMemory(p.A, need, "a copy of "+c.name+" each way")
						h.RequireFreeMemory(p.B, need, "a copy of "+c.name+" each way")
						if peer {
							h.RequirePeerAccess(p)
							h.MustEnablePeerAccess(p)
						}
						seed := harness.Seed("access.peer-copy", p.ID(), c.name, mode)
						for _, d := range [][2]harness.GPU{{p.A, p.B}, {p.B, p.A}} {
							src, dst := d[0], d[1]
							By(fmt.Sprintf("copying %s from %s to %s", c.name, src, dst))
							boundaryCopyRun(ctx, h, src, dst, c, seed, "cuMemcpyPeerAsync "+mode, func(s harness.Stream, to, from harness.DevicePtr, n uint64) {
								h.CopyPeerAsync(s, to, dst, from, src, n)
							})
							seed++
						}
					}, harness.Timeout(1))
			}
		}
	}

	for _, g := range harness.GPUs() {
		for _, c := range boundaryCopies {
			/*
				ID: access.local-copy
				Requirement: cuMemcpyAsync between two buffers of one GPU MUST
				move the data exactly at sizes that straddle size caps and
				32-bit boundaries (64 MiB + 4 KiB + 7 B at byte offsets 3→7,
				4 GiB + 12 B): every whole word is checked against the seeded
				pattern by a kernel on the GPU, the bytes at either end and
				the words after the destination on the host.
				Source: CUDA Driver API cuMemcpyAsync (size_t ByteCount; any
				alignment for device-to-device copies).
				Applies to: every GPU; a size is skipped where cuMemGetInfo
				reports too little free memory for it (or on the fake backend
				above its largest buffer).
			*/
			It(fmt.Sprintf("cuMemcpyAsync moves %s within %s exactly", c.name, g),
				harness.GPULabels("access.local-copy", g, harness.Variant(c.key)), func(ctx SpecContext) {
					h.RequireFreeMemory(g, 2*layout(c).need(), "a copy of "+c.name+" within it")
					By(fmt.Sprintf("copying %s within %s", c.name, g))
					boundaryCopyRun(ctx, h, g, g, c, harness.Seed("access.local-copy", g, c.name), "cuMemcpyAsync", func(s harness.Stream, to, from harness.DevicePtr, n uint64) {
						h.CopyAsync(s, to, from, n)
					})
				}, harness.Timeout(1))
		}
	}
})
