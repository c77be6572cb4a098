// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package bandwidth

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/p2pconf/p2pconf/harness"
	bw "github.com/p2pconf/p2pconf/harness/bandwidth"
	"github.com/p2pconf/p2pconf/kernels"
)

// Check IDs of this suite.
const (
	idCopyEngine = "bandwidth.copy-engine"
	idSMCopy     = "bandwidth.sm-read-write"
	idLatency    = "bandwidth.latency"
)

var (
	configOnce sync.Once
	suiteCfg   bw.Settings
	suiteErr   error
)

// suiteConfig reads the suite's variables once; a malformed value fails
// every spec with the variable, the value and what is wanted.
func suiteConfig() bw.Settings {
	GinkgoHelper()
	configOnce.Do(func() { suiteCfg, suiteErr = bw.ReadSettings(os.Getenv) })
	if suiteErr != nil {
		Fail("bandwidth suite configuration: " + suiteErr.Error())
	}
	return suiteCfg
}

// poisonMask turns a source seed into the seed of the pattern a destination
// is filled with before a transfer, so a transfer that moved nothing (or
// left stale data of an earlier spec) fails verification.
const poisonMask = 0x5A5A5A5A

// session is one spec's measuring context.
type session struct {
	h          *harness.Harness
	ctx        context.Context
	cfg        bw.Settings
	id         string
	target     string // "gpu:0" or "pair:0-1", as the labels write it
	targetName string // "GPU0" or "GPU0→GPU1"
	link       string // pair's link label, "" for a GPU
	simulated  bool   // the backend's timings are a model (backend.Limits)
	max        uint64
	sizes      []uint64
	notes      []string // conditions of the measurement, added to every detail
	util       map[harness.Device]harness.Stream
	verifyOut  map[harness.Device]harness.DevicePtr
	// alone watches the target's GPUs for other processes: figures
	// measured while one was there are contended, not the hardware's.
	alone *harness.Exclusive
}

func newSession(h *harness.Harness, ctx context.Context, id, target, targetName, link string) *session {
	GinkgoHelper()
	s := &session{h: h, ctx: ctx, cfg: suiteConfig(), id: id, target: target, targetName: targetName, link: link,
		util: map[harness.Device]harness.Stream{}, verifyOut: map[harness.Device]harness.DevicePtr{}}
	s.max = s.cfg.MaxSize
	if lim := h.Limits(); lim.Simulated {
		s.simulated = true
		if lim.MaxTransfer > 0 {
			s.max = min(s.max, lim.MaxTransfer)
		}
		s.note("backend %s: %s; sizes capped at %s", h.BackendName(), lim.Note, bw.SizeLabel(s.max))
	}
	s.sizes = bw.TransferSizes(s.max)
	s.max = s.sizes[len(s.sizes)-1]
	return s
}

func pairSession(h *harness.Harness, ctx context.Context, id string, p harness.Pair) *session {
	GinkgoHelper()
	s := newSession(h, ctx, id, "pair:"+p.ID(), p.String(), p.Link)
	if !s.cfg.SweepAll && !harness.RepresentativePair(p) {
		s.sizes = s.sizes[len(s.sizes)-1:]
		s.note("largest size only: every size is measured on the first selected pair of link class %s and its reverse (%s=all sweeps every pair)",
			harness.LinkClass(p), bw.EnvSweep)
	}
	s.alone = h.Exclusive(id+" on "+p.String(), p.A, p.B)
	return s
}

func gpuSession(h *harness.Harness, ctx context.Context, id string, g harness.GPU) *session {
	GinkgoHelper()
	s := newSession(h, ctx, id, fmt.Sprintf("gpu:%d", int(g.Ordinal)), g.String(), "")
	s.alone = h.Exclusive(id+" on "+g.String(), g)
	return s
}

func (s *session) note(format string, args ...any) {
	s.notes = append(s.notes, fmt.Sprintf(format, args...))
}

// noteSuffix is the notes as a detail suffix ("; note; note"), or "".
func (s *session) noteSuffix() string {
	if len(s.notes) == 0 {
		return ""
	}
	return "; " + strings.Join(s.notes, "; ")
}

// targetKind is "gpu" or "pair"; targetID is "0" or "0-1".
func (s *session) targetKind() string { k, _, _ := strings.Cut(s.target, ":"); return k }
func (s *session) targetID() string   { _, id, _ := strings.Cut(s.target, ":"); return id }

// seed is the pattern seed of lane i's source.
func (s *session) seed(i int) uint32 { return uint32(harness.Seed(s.id, s.target, i)) }

// batchFor is how many transfers one timed batch holds: small transfers are
// batched (up to 64, about 32 MiB in all) so a batch lasts well above the
// event timer's resolution (about 0.5 µs).
func (s *session) batchFor(size uint64) int {
	n := int(min(max(32*bw.MiB/size, 1), 64))
	if s.simulated {
		n = min(n, 2)
	}
	return n
}

// repsFor is how many timed batches a size gets.
func (s *session) repsFor(size uint64) int {
	switch {
	case s.simulated:
		return 3
	case size >= 64*bw.MiB:
		return 5
	}
	return 9
}

func (s *session) gpuOf(d harness.Device) harness.GPU {
	for _, g := range harness.GPUs() {
		if g.Ordinal == d {
			return g
		}
	}
	Fail(fmt.Sprintf("no selected GPU has ordinal %d", int(d)))
	return harness.GPU{}
}

// utilStream is a stream of g for fills and verifications.
func (s *session) utilStream(g harness.GPU) harness.Stream {
	GinkgoHelper()
	if st, ok := s.util[g.Ordinal]; ok {
		return st
	}
	st := s.h.Stream(g)
	s.util[g.Ordinal] = st
	return st
}

// buffer is memory a lane copies from or to.
type buffer struct {
	gpu   harness.GPU       // whose kernels fill and verify it
	ptr   harness.DevicePtr // address kernels use
	cePtr harness.DevicePtr // address copies use (the host address for pinned memory)
	where string            // "GPU1's memory", "pinned host memory"
}

func (s *session) devBuf(g harness.GPU) *buffer {
	GinkgoHelper()
	p := s.h.Alloc(g, s.max)
	return &buffer{gpu: g, ptr: p, cePtr: p, where: g.String() + "'s memory"}
}

// hostBuf is pinned, mapped host memory allocated with g's context.
func (s *session) hostBuf(g harness.GPU) *buffer {
	GinkgoHelper()
	hb := s.h.HostAlloc(g, s.max, harness.HostAllocPortable|harness.HostAllocDeviceMap)
	p := s.h.HostDevicePointer(g, hb)
	return &buffer{gpu: g, ptr: p, cePtr: hb.Ptr, where: "pinned host memory"}
}

// wordShape is a launch shape for the word kernels Fill and Verify: 256
// threads per block, at most 4 blocks per SM (they loop over the rest).
func (s *session) wordShape(g harness.GPU, words uint64) harness.LaunchConfig {
	blocks := min(max((words+255)/256, 1), uint64(max(4*g.Info.SMCount, 1)))
	return harness.LaunchConfig{Grid: kernels.D1(uint32(blocks)), Block: kernels.D1(256)}
}

// fill writes kernels.PatternWord(seed, i) into the first words of b.
func (s *session) fill(b *buffer, words uint64, seed uint32) {
	GinkgoHelper()
	st := s.utilStream(b.gpu)
	s.h.Launch(st, kernels.Fill, s.wordShape(b.gpu, words), uint64(b.ptr), words, uint64(seed))
	s.h.MustWait(s.ctx, st, fmt.Sprintf("fill %d words of %s", words, b.where))
}

// verify checks the first words of b against the pattern of seed.
func (s *session) verify(b *buffer, words uint64, seed uint32, what string) {
	GinkgoHelper()
	st := s.utilStream(b.gpu)
	out, ok := s.verifyOut[b.gpu.Ordinal]
	if !ok {
		out = s.h.Alloc(b.gpu, 8)
		s.verifyOut[b.gpu.Ordinal] = out
	}
	s.h.Upload(b.gpu, out, []uint32{0, 0xFFFFFFFF})
	s.h.Launch(st, kernels.Verify, s.wordShape(b.gpu, words), uint64(b.ptr), words, uint64(seed), uint64(out))
	s.h.MustWait(s.ctx, st, "verify "+what)
	res := s.h.Download(b.gpu, out, 2)
	Expect(res[0]).To(BeZero(), "%s: %d of %d words differ from the source's pattern (first bad word %d, byte offset 0x%x)",
		what, res[0], words, res[1], 4*uint64(res[1]))
}

// wordBuf is one word of g's memory.
func (s *session) wordBuf(g harness.GPU) *buffer {
	GinkgoHelper()
	p := s.h.Alloc(g, 4)
	return &buffer{gpu: g, ptr: p, cePtr: p, where: g.String() + "'s memory"}
}

// sizedTimeout is the timeout of a spec that measures every size up to the
// configured largest (P2PCONF_BW_MAX_SIZE): the configured spec timeout at
// the default largest size (it was the configured timeout before, and such
// a spec takes well under it on an H200), scaled by how many times larger
// the configured largest size is, since the bytes moved grow with it. A
// malformed setting leaves the factor at 1: the spec then fails on the
// configuration itself (suiteConfig).
func sizedTimeout() SpecTimeout {
	factor := 1.0
	if cfg, err := bw.ReadSettings(os.Getenv); err == nil && cfg.MaxSize > bw.DefaultMaxSize {
		factor = float64(cfg.MaxSize) / float64(bw.DefaultMaxSize)
	}
	return harness.Timeout(factor)
}
