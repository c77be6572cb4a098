// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/p2pconf/p2pconf/harness/backend"
)

// freeMemorySettle bounds how long WaitFreeMemory polls (within the caller's
// ctx) for free memory to come back.
const freeMemorySettle = 10 * time.Second

// freeMemoryAccounting names what the free-memory checks need the GPU to
// themselves for, in the error that ends them when it is not.
const freeMemoryAccounting = "free device memory accounting (cuMemGetInfo against a baseline)"

// FreeMemory is cuMemGetInfo's free bytes on g; a failed query fails the
// spec. The figure is device-wide on purpose: the checks that read it
// look for memory the driver still holds after a process is gone (a
// killed importer's mapping), which no per-process figure shows. So it is
// only meaningful while no other program uses g: the GPU's processes are
// listed (NVML) before and after the reading, and if one that is not this
// run's is there, the spec ends as an error naming it (RequireAlone).
func (h *Harness) FreeMemory(g GPU) uint64 {
	GinkgoHelper()
	RequireAlone(freeMemoryAccounting, g)
	free, _, err := h.b.MemInfo(g.Ordinal)
	ExpectNoError(err, "cuMemGetInfo on %s", g)
	RequireAlone(freeMemoryAccounting, g)
	return free
}

// DriverKeepSlack is how far below its baseline free memory may settle
// and still count as returned: 1 MiB, under half of the smallest
// allocation a leak check makes (one 2 MiB VMM granule on an H200; the IPC
// checks allocate 8 MiB), so a leaked allocation still fails. On an H200
// with driver 580 the exporter's free memory settled 64 KiB low after its
// importer process ended (killed holding a VMM mapping, or after closing an
// IPC mapping), in about one run in three, in specs that came early in
// their process; warming up exports and mappings in the suite's own process
// did not remove it. The shortfall is driver bookkeeping, not
// the allocation, and each occurrence is recorded on the result.
const DriverKeepSlack = 1 << 20

// WaitFreeMemory polls dev's free memory (cuMemGetInfo) until it is back to
// baseline, or at most DriverKeepSlack below it, for at most 10 seconds
// within ctx, and returns the last reading. Specs run one at a time on a
// GPU, the run holds its GPUs (the exclusive-use lock; ExpectFreeMemoryBackTo
// also checks that no other program is on the GPU), and the suite creates
// its contexts, loads its kernels and exports once before any spec, so a
// larger difference is memory the driver still holds. It polls instead of
// reading once because the driver may return memory asynchronously: a
// helper process's teardown is finished by the driver after the process is
// reaped.
func WaitFreeMemory(ctx context.Context, b backend.Backend, dev backend.Device, baseline uint64) (uint64, error) {
	return waitFreeMemory(ctx, b, dev, "free memory back to baseline", func(f uint64) bool {
		return f <= baseline && f+DriverKeepSlack >= baseline
	})
}

// waitFreeMemory polls dev's free memory until settled holds for it, for
// at most 10 seconds within ctx, and returns the last reading.
func waitFreeMemory(ctx context.Context, b backend.Backend, dev backend.Device, step string, settled func(free uint64) bool) (uint64, error) {
	wctx, cancel := context.WithTimeout(ctx, freeMemorySettle)
	defer cancel()
	var last uint64
	err := WaitFor(wctx, step, func() (bool, error) {
		f, _, err := b.MemInfo(dev)
		last = f
		return settled(f), err
	})
	return last, err
}

// ExpectFreeMemoryBackTo fails the spec unless g's free memory comes back to
// baseline (WaitFreeMemory: at most DriverKeepSlack below it, recorded as a
// finding when it is below at all); after names what the spec did before
// (released, closed, killed), for the failure message. When a program
// other than this run uses g before or after the wait, the reading proves
// nothing either way, and the spec ends as an error naming it instead of
// passing or failing.
func (h *Harness) ExpectFreeMemoryBackTo(ctx context.Context, g GPU, baseline uint64, after string) {
	GinkgoHelper()
	RequireAlone(freeMemoryAccounting, g)
	last, err := WaitFreeMemory(ctx, h.b, g.Ordinal, baseline)
	RequireAlone(freeMemoryAccounting, g)
	if err != nil {
		Fail(fmt.Sprintf("free device memory on %s after %s: want the baseline %d bytes (at most %d below), last read %d (%+d): %v",
			g, after, baseline, DriverKeepSlack, last, int64(last)-int64(baseline), err))
	}
	if last < baseline {
		Finding("free-memory-kept-by-driver", baseline-last,
			fmt.Sprintf("free memory on %s after %s settled %d bytes below its baseline: less than any allocation of the check, so driver bookkeeping, not the allocation", g, after, baseline-last))
	}
}

// ExpectFreeMemoryAtLeast fails the spec unless g's free memory comes to at
// least floor (at most DriverKeepSlack below it) within 10 seconds: for a
// check whose free memory may settle above its reference as well as on it
// (managed memory, which the driver gives back in units larger than one
// allocation), where ExpectFreeMemoryBackTo wants the baseline exactly.
// after names what the spec did before, for the failure message. Another
// program on g ends the spec as an error, as there.
func (h *Harness) ExpectFreeMemoryAtLeast(ctx context.Context, g GPU, floor uint64, after string) {
	GinkgoHelper()
	RequireAlone(freeMemoryAccounting, g)
	last, err := waitFreeMemory(ctx, h.b, g.Ordinal, "free memory back to at least its floor", func(f uint64) bool {
		return f+DriverKeepSlack >= floor
	})
	RequireAlone(freeMemoryAccounting, g)
	if err != nil {
		Fail(fmt.Sprintf("free device memory on %s after %s: want at least %d bytes (at most %d below), last read %d (%+d): %v",
			g, after, floor, DriverKeepSlack, last, int64(last)-int64(floor), err))
	}
}

// Allocation is device memory that a spec frees on purpose, to see what
// freeing does (an importer's mapping outliving the exporter's cuMemFree).
type Allocation struct {
	h     *Harness
	GPU   GPU
	Ptr   backend.DevicePtr
	Size  uint64
	freed bool
}

// AllocFreeable allocates device memory on g (cuMemAlloc) that the spec may
// free with Free; what the spec did not free is freed after the spec (and
// never twice: freeing a freed pointer is undefined).
func (h *Harness) AllocFreeable(g GPU, bytes uint64) *Allocation {
	GinkgoHelper()
	p, err := h.b.Alloc(g.Ordinal, bytes)
	ExpectNoError(err, "allocate %d bytes on %s", bytes, g)
	a := &Allocation{h: h, GPU: g, Ptr: p, Size: bytes}
	DeferCleanup(a.free)
	return a
}

// Free frees the allocation now (cuMemFree) and fails the spec if the
// driver refuses.
func (a *Allocation) Free() {
	GinkgoHelper()
	ExpectNoError(a.free(), "free device memory")
}

func (a *Allocation) free() error {
	if a.freed {
		return nil
	}
	a.freed = true
	return wrapf(a.h.b.Free(a.GPU.Ordinal, a.Ptr), "cuMemFree of %d bytes at 0x%x on %s", a.Size, uint64(a.Ptr), a.GPU)
}
