// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/machine"
	"github.com/p2pconf/p2pconf/kernels"
)

// Queries of the fixture: what the driver says about the machine, a pointer
// or a pair. The answer is what a spec checks; a query the driver cannot
// answer is a failure of the spec (never a skip), except that a driver
// without the entry point skips (see ExpectNoError).

// DriverVersion is cuDriverGetVersion: 1000*major + 10*minor.
func (h *Harness) DriverVersion() int { return h.b.DriverVersion() }

// BackendName says what runs the GPU work: "cuda", or "fake:<preset>" for
// the in-memory GPUs, whose timings are not a real machine's.
func (h *Harness) BackendName() string { return h.b.Name() }

// Limits are what the run's backend declared it can do within a spec's
// time (simulated timings, the largest transfer worth timing): specs size
// their work by them rather than by the backend's name.
func (h *Harness) Limits() backend.Limits { return RunConfig().Limits() }

// NVML is the NVML view of the machine the spec runs on (a mock on the fake
// backend), for the specs that compare the driver's claims with NVML's.
func (h *Harness) NVML() nvml.Interface { return machine.NVMLOf(h.b) }

// CanAccessPeer is cuDeviceCanAccessPeer(accessor, owner).
func (h *Harness) CanAccessPeer(accessor, owner GPU) bool {
	GinkgoHelper()
	ok, err := h.b.CanAccessPeer(accessor.Ordinal, owner.Ordinal)
	ExpectNoError(err, "cuDeviceCanAccessPeer(%s, %s)", accessor, owner)
	return ok
}

// P2PAttribute is cuDeviceGetP2PAttribute(attr, src, dst).
func (h *Harness) P2PAttribute(attr P2PAttr, src, dst GPU) int {
	GinkgoHelper()
	v, err := h.b.P2PAttribute(attr, src.Ordinal, dst.Ordinal)
	ExpectNoError(err, "cuDeviceGetP2PAttribute(%s, %s, %s)", attr, src, dst)
	return v
}

// PointerAttribute is cuPointerGetAttribute(attr, p) made in g's context.
func (h *Harness) PointerAttribute(g GPU, attr backend.PointerAttr, p DevicePtr) int64 {
	GinkgoHelper()
	v, err := h.b.PointerAttribute(g.Ordinal, attr, p)
	ExpectNoError(err, "cuPointerGetAttribute(%s) of 0x%x in %s's context", pointerAttrName(attr), uint64(p), g)
	return v
}

// pointerAttrName is the CU_POINTER_ATTRIBUTE_ name of attr, for messages.
func pointerAttrName(attr backend.PointerAttr) string {
	switch attr {
	case PointerContext:
		return "CONTEXT"
	case PointerMemoryType:
		return "MEMORY_TYPE"
	case PointerDeviceOrdinal:
		return "DEVICE_ORDINAL"
	case PointerIsLegacyCudaIPCCapable:
		return "IS_LEGACY_CUDA_IPC_CAPABLE"
	case PointerRangeStartAddr:
		return "RANGE_START_ADDR"
	case PointerRangeSize:
		return "RANGE_SIZE"
	case PointerMapped:
		return "MAPPED"
	}
	return fmt.Sprintf("attribute %d", int(attr))
}

// MaxActiveBlocks is how many CTAs of k with block threads fit on one SM of
// g at once (cuOccupancyMaxActiveBlocksPerMultiprocessor).
func (h *Harness) MaxActiveBlocks(g GPU, k *kernels.Kernel, block int) int {
	GinkgoHelper()
	n, err := h.b.MaxActiveBlocks(g.Ordinal, k, block)
	ExpectNoError(err, "cuOccupancyMaxActiveBlocksPerMultiprocessor(%s, %d threads) on %s", k, block, g)
	return n
}
