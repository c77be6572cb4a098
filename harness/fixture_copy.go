// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	. "github.com/onsi/ginkgo/v2"
)

// Asynchronous copies and memsets of the fixture. They only enqueue: the
// spec waits for the stream (Wait, MustWait) or an event before it reads
// the result. A refused enqueue fails the spec with the call, the GPUs, the
// addresses and the size, since the spec cannot go on without the data.
// The bandwidth and latency specs enqueue these in their timed loops, so
// the success path costs only the driver call: the failure message is built
// (and the helper frame marked) only when the driver refuses.

// CopyAsync enqueues a copy of n bytes from src to dst on s (cuMemcpyAsync,
// direction inferred under unified addressing).
func (h *Harness) CopyAsync(s Stream, dst, src DevicePtr, n uint64) {
	if err := h.b.CopyAsync(s, dst, src, n); err != nil {
		GinkgoHelper()
		ExpectNoError(err, "cuMemcpyAsync of %d bytes from 0x%x to 0x%x on a stream of GPU%d", n, uint64(src), uint64(dst), int(s.Device()))
	}
}

// CopyPeerAsync enqueues a copy of n bytes from src on srcGPU to dst on
// dstGPU on s (cuMemcpyPeerAsync).
func (h *Harness) CopyPeerAsync(s Stream, dst DevicePtr, dstGPU GPU, src DevicePtr, srcGPU GPU, n uint64) {
	if err := h.b.CopyPeerAsync(s, dst, dstGPU.Ordinal, src, srcGPU.Ordinal, n); err != nil {
		GinkgoHelper()
		ExpectNoError(err, "cuMemcpyPeerAsync of %d bytes from 0x%x on %s to 0x%x on %s on a stream of GPU%d", n, uint64(src), srcGPU, uint64(dst), dstGPU, int(s.Device()))
	}
}

// Memset32Async enqueues setting words 32-bit words at p to v on s
// (cuMemsetD32Async), in order with the stream's other work.
func (h *Harness) Memset32Async(s Stream, p DevicePtr, v uint32, words uint64) {
	if err := h.b.Memset32Async(s, p, v, words); err != nil {
		GinkgoHelper()
		ExpectNoError(err, "cuMemsetD32Async of %d words at 0x%x to 0x%x on a stream of GPU%d", words, uint64(p), v, int(s.Device()))
	}
}

// HostDevicePointer is the device address of mapped pinned host memory as g
// sees it (cuMemHostGetDevicePointer); the buffer must have been allocated
// with HostAllocDeviceMap.
func (h *Harness) HostDevicePointer(g GPU, hb *HostBuffer) DevicePtr {
	GinkgoHelper()
	p, err := h.b.HostDevicePointer(g.Ordinal, hb)
	ExpectNoError(err, "cuMemHostGetDevicePointer of pinned host memory at 0x%x on %s", uint64(hb.Ptr), g)
	return p
}
