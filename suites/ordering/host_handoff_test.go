// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package ordering_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/kernels"
)

const (
	hdRounds  = 4096            // handoffs per direction
	hdWords   = 64              // data words per handoff
	hdFlagOff = 4 * hdWords     // the flag sits in its own line after the data
	hdAckOff  = hdFlagOff + 128 // and the acknowledgement in the next one
	hdWait    = 2 * time.Second // how long either side waits for the other
)

var _ = Describe("ordering: a flag in mapped pinned memory", func() {
	h := harness.New()

	for _, g := range harness.GPUs() {
		/*
			ID: ordering.host-device-handoff
			Requirement: GPU → host: when a kernel stores data into mapped pinned
			host memory and then sets a flag there with st.release.sys, a host
			thread that has seen the flag (atomic load) MUST read all the data
			new. Host → GPU: when a host thread writes data and then sets a flag
			with an atomic store, a kernel that has seen the flag with
			ld.acquire.sys MUST read all the data new. Every wait is bounded; a
			timeout fails naming the side and the round.
			Source: PTX ISA, memory consistency model (.sys scope includes host
			threads); CUDA C++ Programming Guide, system-scope atomics and
			mapped memory; docs/litmus.md, G host↔GPU.
			Applies to: every GPU (mapped pinned memory, CAN_MAP_HOST_MEMORY).
		*/
		It(fmt.Sprintf("hands data from a kernel on %s to a host goroutine when the kernel sets it with st.release.sys", g),
			harness.GPULabels("ordering.host-device-handoff", g, harness.Variant("gpu-to-host")), func(ctx SpecContext) {
				hd := newHostHandoff(h, g)
				By(fmt.Sprintf("running %d GPU → host handoffs of %d words", hdRounds, hdWords))
				h.Launch(hd.s, kernels.HandoffToHost, harness.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(1)},
					uint64(hd.buf.Ptr), uint64(hd.buf.Ptr)+hdFlagOff, uint64(hd.buf.Ptr)+hdAckOff, hdWords, hdRounds, uint64(hd.status), uint64(hdWait))
				start := time.Now()
				stale, firstRound, err := hd.hostReceives(ctx)
				elapsed := time.Since(start)
				h.MustWait(ctx, hd.s, "the GPU → host handoff kernel on "+g.String())
				st := h.Download(g, hd.status, 2)
				Expect(err).NotTo(HaveOccurred(), "host side of the GPU → host handoff on %s (GPU status %d, round %d)", g, st[0], st[1])
				Expect(st[0]).To(Equal(kernels.HandoffDone), "GPU side: %s's kernel waited %s for the host's acknowledgement of round %d", g, hdWait, st[1])
				harness.Metric("handoffs/s GPU→host", float64(hdRounds)/elapsed.Seconds(), "handoffs/s", g.String())
				Expect(stale).To(BeZero(), "the host read %d stale words after seeing %s's release flag; first in round %d", stale, g, firstRound)
			}, harness.Timeout(0.5))

		// ID: ordering.host-device-handoff (requirement above), host → GPU.
		It(fmt.Sprintf("hands data from a host goroutine to a kernel on %s when the goroutine sets it with an atomic store", g),
			harness.GPULabels("ordering.host-device-handoff", g, harness.Variant("host-to-gpu")), func(ctx SpecContext) {
				hd := newHostHandoff(h, g)
				By(fmt.Sprintf("running %d host → GPU handoffs of %d words", hdRounds, hdWords))
				h.Launch(hd.s, kernels.HandoffFromHost, harness.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(1)},
					uint64(hd.buf.Ptr), uint64(hd.buf.Ptr)+hdFlagOff, uint64(hd.buf.Ptr)+hdAckOff, hdWords, hdRounds, uint64(hd.status), uint64(hdWait))
				start := time.Now()
				err := hd.hostSends(ctx)
				elapsed := time.Since(start)
				h.MustWait(ctx, hd.s, "the host → GPU handoff kernel on "+g.String())
				st := h.Download(g, hd.status, 4)
				Expect(err).NotTo(HaveOccurred(), "host side of the host → GPU handoff on %s (GPU status %d, round %d)", g, st[0], st[1])
				Expect(st[0]).To(Equal(kernels.HandoffDone), "GPU side: %s's kernel waited %s for the host's flag of round %d", g, hdWait, st[1])
				harness.Metric("handoffs/s host→GPU", float64(hdRounds)/elapsed.Seconds(), "handoffs/s", g.String())
				Expect(st[2]).To(BeZero(), "%s's kernel read %d stale words after acquiring the host's flag; first in round %d", g, st[2], st[3])
			}, harness.Timeout(0.5))
	}
})

// hostHandoff is the mapped pinned buffer (data, flag, ack) and the GPU side.
type hostHandoff struct {
	g      harness.GPU
	buf    *harness.HostBuffer
	status harness.DevicePtr
	s      harness.Stream
}

func newHostHandoff(h *harness.Harness, g harness.GPU) *hostHandoff {
	GinkgoHelper()
	hd := &hostHandoff{g: g, buf: h.HostAlloc(g, 4096, harness.HostAllocPortable|harness.HostAllocDeviceMap),
		status: h.Alloc(g, 16), s: h.Stream(g)}
	for off := 0; off < len(hd.buf.Mem); off += 4 {
		atomic.StoreUint32(hd.word(off), 0)
	}
	h.Fill(g, hd.status, 0, 4)
	return hd
}

func (hd *hostHandoff) word(off int) *uint32 { return harness.HostWord32(hd.buf.Mem, off) }

// hostReceives is the host side of GPU → host: per round, wait for the
// flag, check the data with atomic loads, acknowledge.
func (hd *hostHandoff) hostReceives(ctx context.Context) (stale, firstRound uint32, err error) {
	for r := uint32(1); r <= hdRounds; r++ {
		if err := spinUntil(ctx, func() bool { return atomic.LoadUint32(hd.word(hdFlagOff)) >= r }); err != nil {
			return stale, firstRound, fmt.Errorf("host: waiting for %s's flag of round %d (flag holds %d): %w", hd.g, r, atomic.LoadUint32(hd.word(hdFlagOff)), err)
		}
		for j := uint32(0); j < hdWords; j++ {
			if atomic.LoadUint32(hd.word(int(4*j))) != kernels.FlagWord(r, j) {
				stale++
				if firstRound == 0 {
					firstRound = r
				}
			}
		}
		atomic.StoreUint32(hd.word(hdAckOff), r)
	}
	return stale, firstRound, nil
}

// hostSends is the host side of host → GPU: per round, plain stores of the
// data, an atomic store of the flag, then wait for the GPU's acknowledgement
// before the data may be overwritten.
func (hd *hostHandoff) hostSends(ctx context.Context) error {
	for r := uint32(1); r <= hdRounds; r++ {
		for j := uint32(0); j < hdWords; j++ {
			binary.LittleEndian.PutUint32(hd.buf.Mem[4*j:], kernels.FlagWord(r, j))
		}
		atomic.StoreUint32(hd.word(hdFlagOff), r)
		if err := spinUntil(ctx, func() bool { return atomic.LoadUint32(hd.word(hdAckOff)) >= r }); err != nil {
			return fmt.Errorf("host: waiting for %s's acknowledgement of round %d (ack holds %d): %w", hd.g, r, atomic.LoadUint32(hd.word(hdAckOff)), err)
		}
	}
	return nil
}

// spinUntil polls cond, yielding between polls, for at most hdWait or until
// ctx ends. A handoff takes microseconds, so sleeping would only measure the
// sleep.
func spinUntil(ctx context.Context, cond func() bool) error {
	deadline := time.Now().Add(hdWait)
	for i := 0; !cond(); i++ {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("timed out after %s", hdWait)
			}
		}
		runtime.Gosched()
	}
	return nil
}
