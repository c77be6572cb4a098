// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega/types"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/machine"
)

// Poison is written into destinations before a transfer, so a transfer that
// did nothing cannot pass for one that copied. RandomWords never yields it.
const Poison uint32 = 0xDEADBEEF

// RandomWords returns n seeded pseudo-random words, none zero and none equal
// to Poison, so neither freshly cleared nor poisoned memory can match.
func RandomWords(seed uint64, n int) []uint32 {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	w := make([]uint32, n)
	for i := range w {
		for w[i] == 0 || w[i] == Poison {
			w[i] = r.Uint32()
		}
	}
	return w
}

// Seed derives a seed from a spec-stable string (check ID and target), so a
// rerun of the same check on the same pair uses the same data
// (machine.Seed, which the reproducers use too).
func Seed(parts ...any) uint64 { return machine.Seed(parts...) }

// WordsToBytes encodes words little-endian, as the GPU stores them.
func WordsToBytes(w []uint32) []byte {
	b := make([]byte, 4*len(w))
	for i, v := range w {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	return b
}

// BytesToWords decodes little-endian words.
func BytesToWords(b []byte) []uint32 {
	w := make([]uint32, len(b)/4)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return w
}

// Upload copies words to device memory p in g's context. The data has
// landed when Upload returns (see settle), so work queued next on any stream
// sees it.
func (h *Harness) Upload(g GPU, p backend.DevicePtr, words []uint32) {
	GinkgoHelper()
	ExpectNoError(h.b.CopyToDevice(g.Ordinal, p, WordsToBytes(words)), "copy %d words to 0x%x with %s", len(words), uint64(p), g)
	h.settle(g, p)
}

// Download copies n words from p in g's context (synchronous).
func (h *Harness) Download(g GPU, p backend.DevicePtr, n int) []uint32 {
	GinkgoHelper()
	b := make([]byte, 4*n)
	ExpectNoError(h.b.CopyFromDevice(g.Ordinal, b, p), "copy %d words from 0x%x with %s", n, uint64(p), g)
	return BytesToWords(b)
}

// Fill sets n words at p to v in g's context (cuMemsetD32). The words are
// set when Fill returns (see settle).
func (h *Harness) Fill(g GPU, p backend.DevicePtr, v uint32, n int) {
	GinkgoHelper()
	ExpectNoError(h.b.Memset32(g.Ordinal, p, v, uint64(n)), "memset %d words at 0x%x to 0x%x with %s", n, uint64(p), v, g)
	h.settle(g, p)
}

// settle returns once the legacy default stream's work on g is done. The
// "synchronous" cuMemsetD32 returns before the memset of device memory has
// finished, and a cuMemcpyHtoD from pageable memory may return once the data
// is staged, before it lands (CUDA Runtime API, "API synchronization
// behavior"); the suites' streams are non-blocking and do not wait for the
// legacy stream. A device-to-host copy returns only when it has completed,
// and the legacy stream runs its work in order, so reading one word of p back
// on it orders everything queued there before it.
func (h *Harness) settle(g GPU, p backend.DevicePtr) {
	GinkgoHelper()
	var word [4]byte
	ExpectNoError(h.b.CopyFromDevice(g.Ordinal, word[:], p), "read back one word at 0x%x with %s to wait for the legacy stream", uint64(p), g)
}

// Mismatch summarises how two word arrays differ.
type Mismatch struct {
	Count, Total int
	First        int // index of the first differing word, -1 if none
	Want, Got    uint32
}

// Compare compares got with want word by word.
func Compare(want, got []uint32) Mismatch {
	m := Mismatch{Total: len(want), First: -1}
	if len(got) != len(want) {
		m.Count = len(want)
		return m
	}
	for i := range want {
		if want[i] != got[i] {
			if m.First < 0 {
				m.First, m.Want, m.Got = i, want[i], got[i]
			}
			m.Count++
		}
	}
	return m
}

func (m Mismatch) String() string {
	if m.Count == 0 {
		return fmt.Sprintf("all %d words match", m.Total)
	}
	if m.First < 0 {
		return fmt.Sprintf("length differs: want %d words", m.Total)
	}
	return fmt.Sprintf("%d of %d words differ; first at word %d (byte offset 0x%x): want 0x%08x, got 0x%08x",
		m.Count, m.Total, m.First, 4*m.First, m.Want, m.Got)
}

// EqualWords matches a []uint32 equal to want and, when it is not, says how
// many words differ and where the first one is (never printing the arrays,
// which can hold millions of words).
func EqualWords(want []uint32) types.GomegaMatcher { return &wordsMatcher{want: want} }

type wordsMatcher struct {
	want []uint32
	last Mismatch
}

func (m *wordsMatcher) Match(actual any) (bool, error) {
	got, ok := actual.([]uint32)
	if !ok {
		return false, fmt.Errorf("EqualWords expects []uint32, got %T", actual)
	}
	m.last = Compare(m.want, got)
	return m.last.Count == 0, nil
}

func (m *wordsMatcher) FailureMessage(any) string {
	return "expected the words to match: " + m.last.String()
}

func (m *wordsMatcher) NegatedFailureMessage(any) string {
	return fmt.Sprintf("expected the %d words to differ, but they all match", m.last.Total)
}
