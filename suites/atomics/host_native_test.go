// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package atomics_test

import (
	"fmt"
	"strings"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/kernels"
)

// hostOps are the operations sync/atomic applies natively on the host side.
var hostOps = []string{"add.u32", "add.u64", "exch.b32", "exch.b64", "cas.b32", "cas.b64", "and.b32", "and.b64", "or.b32", "or.b64"}

// hostApply applies op with operand x to the word at the start of mem with
// sync/atomic and returns the old value. CAS is a loop, as on the GPU.
func hostApply(mem []byte, op kernels.ContendOp, x uint64) uint64 {
	p32, p64 := harness.HostWord32(mem, 0), harness.HostWord64(mem, 0)
	switch op.Name {
	case "add.u32":
		return uint64(atomic.AddUint32(p32, uint32(x)) - uint32(x))
	case "add.u64":
		return atomic.AddUint64(p64, x) - x
	case "exch.b32":
		return uint64(atomic.SwapUint32(p32, uint32(x)))
	case "exch.b64":
		return atomic.SwapUint64(p64, x)
	case "cas.b32":
		for {
			cur := atomic.LoadUint32(p32)
			if atomic.CompareAndSwapUint32(p32, cur, cur+uint32(x)) {
				return uint64(cur)
			}
		}
	case "cas.b64":
		for {
			cur := atomic.LoadUint64(p64)
			if atomic.CompareAndSwapUint64(p64, cur, cur+x) {
				return cur
			}
		}
	case "and.b32":
		return uint64(atomic.AndUint32(p32, uint32(x)))
	case "and.b64":
		return atomic.AndUint64(p64, x)
	case "or.b32":
		return uint64(atomic.OrUint32(p32, uint32(x)))
	case "or.b64":
		return atomic.OrUint64(p64, x)
	}
	panic("hostApply: no host form of " + op.Name)
}

var _ = Describe("atomics: mapped pinned memory", func() {
	h := harness.New()

	for _, g := range harness.GPUs() {
		/*
			ID: atomics.host-native
			Requirement: where CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED
			is 1, .sys-scope atomics of a kernel and host atomics (sync/atomic)
			applied concurrently to the same words of mapped pinned host memory
			MUST be atomic with respect to each other: the final words and
			every returned value are exact.
			Source: CUDA Driver API, CUdevice_attribute
			HOST_NATIVE_ATOMIC_SUPPORTED ("the link between the device and the
			host supports all native atomic operations"); PTX ISA, memory
			consistency model (.sys scope includes host threads).
			Applies to: every GPU with HOST_NATIVE_ATOMIC_SUPPORTED=1 (0 was
			observed on the H200 over PCIe: the spec skips with that value).
		*/
		It(fmt.Sprintf("keeps atomics of a kernel on %s and of host goroutines on the same words exact", g),
			harness.GPULabels("atomics.host-native", g), func(ctx SpecContext) {
				h.RequireAttribute(g, harness.AttrHostNativeAtomicSupported, 1)
				var failed []string
				for _, name := range hostOps {
					op := opNamed(name)
					By(fmt.Sprintf("contending with atom.%s.sys from %s and sync/atomic from the host", name, g))
					c := contention{op: op, kernel: kernels.AtomContendSys, owner: g, sides: []side{sideFor(g, op)},
						host: &hostSide{goroutines: 4, threads: 1024}}
					c.hostWords = h.HostAlloc(g, 64<<10, harness.HostAllocPortable|harness.HostAllocDeviceMap)
					p, o, elapsed := c.run(ctx, h)
					v := p.check(o)
					harness.Metric("host-native ops/s "+name, float64(p.total)/elapsed.Seconds(), "ops/s", c.describe())
					if v.bad > 0 {
						failed = append(failed, v.String())
					}
				}
				Expect(failed).To(BeEmpty(), "atomics of %s and host goroutines on mapped pinned memory:\n%s", g, strings.Join(failed, "\n"))
			}, harness.Timeout(1))
	}
})

// opNamed finds a kernel operation by its PTX name.
func opNamed(name string) kernels.ContendOp {
	for _, op := range kernels.ContendOps {
		if op.Name == name {
			return op
		}
	}
	panic("no contention operation " + name)
}
