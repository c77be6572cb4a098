// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/kernels"
)

// Harness is the per-spec fixture. Create it once inside a Describe with
// New; in each spec it hands out GPU resources and releases every one of
// them after the spec (DeferCleanup, last acquired first, after the spec's
// streams are drained by an AfterEach), then checks that the process holds no
// more file descriptors than before the spec.
type Harness struct {
	b       backend.Backend
	fdBase  map[int]string
	streams []backend.Stream // created by this spec, drained before any release
}

// New registers the fixture's BeforeEach in the enclosing container.
func New() *Harness {
	h := &Harness{}
	BeforeEach(func() {
		h.b = current().Backend
		h.fdBase = openFDs()
		h.streams = nil
		// Registered first, so it runs last: after every resource is released.
		DeferCleanup(h.checkNoLeaks)
	})
	// AfterEach runs before every DeferCleanup, so the spec's streams are
	// drained before anything the spec registered is released, also what it
	// released through its own DeferCleanup calls.
	AfterEach(func() { h.drain() })
	return h
}

// B is the backend itself. Spec files do not use it: every GPU operation
// of a spec goes through the fixture's asserting, auto-released methods,
// and a negative check's driver error through Raw. Resources taken directly
// from B must be released by the caller.
func (h *Harness) B() backend.Backend { return h.b }

// Alloc allocates device memory on g (cuMemAlloc), freed after the spec.
func (h *Harness) Alloc(g GPU, bytes uint64) backend.DevicePtr {
	GinkgoHelper()
	p, err := h.b.Alloc(g.Ordinal, bytes)
	ExpectNoError(err, "allocate %d bytes on %s", bytes, g)
	DeferCleanup(func() error {
		return wrapf(h.b.Free(g.Ordinal, p), "free %d bytes at 0x%x on %s", bytes, uint64(p), g)
	})
	return p
}

// HostAlloc allocates pinned host memory (in g's context), freed after the spec.
func (h *Harness) HostAlloc(g GPU, bytes uint64, flags backend.HostAllocFlags) *backend.HostBuffer {
	GinkgoHelper()
	hb, err := h.b.HostAlloc(g.Ordinal, bytes, flags)
	ExpectNoError(err, "allocate %d bytes of pinned host memory (flags 0x%x) with %s", bytes, uint32(flags), g)
	DeferCleanup(func() error {
		return wrapf(h.b.HostFree(g.Ordinal, hb), "free pinned host memory with %s", g)
	})
	return hb
}

// Stream creates a non-blocking stream on g, destroyed after the spec.
func (h *Harness) Stream(g GPU) backend.Stream {
	GinkgoHelper()
	s, err := h.b.NewStream(g.Ordinal)
	ExpectNoError(err, "create a stream on %s", g)
	h.streams = append(h.streams, s)
	DeferCleanup(func() error {
		return wrapf(h.b.DestroyStream(s), "destroy a stream of %s", g)
	})
	return s
}

// Event creates an event on g, destroyed after the spec.
func (h *Harness) Event(g GPU, flags backend.EventFlags) backend.Event {
	GinkgoHelper()
	e, err := h.b.NewEvent(g.Ordinal, flags)
	ExpectNoError(err, "create an event (flags 0x%x) on %s", uint32(flags), g)
	DeferCleanup(func() error { return wrapf(h.b.DestroyEvent(e), "destroy an event of %s", g) })
	return e
}

// EnablePeerAccess enables access from p.A to p.B's memory and returns the
// driver's answer. When it succeeds, access is disabled again after the
// spec, so every spec starts with no peer access (after the spec's streams
// are drained: disabling access under a kernel still reading p.B's memory
// would fault p.A's context for every later spec).
func (h *Harness) EnablePeerAccess(p Pair) error {
	err := h.b.EnablePeerAccess(p.A.Ordinal, p.B.Ordinal)
	if err == nil {
		DeferCleanup(func() error {
			return wrapf(h.b.DisablePeerAccess(p.A.Ordinal, p.B.Ordinal), "disable peer access %s", p)
		})
	}
	return err
}

// MustEnablePeerAccess enables p.A→p.B and fails the spec if it cannot.
func (h *Harness) MustEnablePeerAccess(p Pair) {
	GinkgoHelper()
	ExpectNoError(h.EnablePeerAccess(p), "enable peer access %s", p)
}

// Launch enqueues k on s and fails the spec if the launch is refused. The
// bandwidth specs launch in their timed loops, so the success path costs
// only the driver call (the message is built only on failure).
func (h *Harness) Launch(s backend.Stream, k *kernels.Kernel, cfg backend.LaunchConfig, args ...uint64) {
	if err := h.b.Launch(s, k, cfg, args...); err != nil {
		GinkgoHelper()
		ExpectNoError(err, "launch %s on GPU%d (grid %v, block %v)", k, int(s.Device()), cfg.Grid, cfg.Block)
	}
}

// drainTimeout bounds how long a release waits for the spec's streams.
const drainTimeout = 30 * time.Second

// drain waits, bounded, until the work queued on the spec's streams is done,
// before anything it may use is released: a spec that failed half-way must
// not leave kernels or copies running into memory that the next spec may be
// given. A stream that faulted or stays busy is left as it is; the release
// that follows reports what the driver says.
func (h *Harness) drain() {
	ctx, cancel := context.WithTimeout(context.Background(), drainTimeout)
	defer cancel()
	for _, s := range h.streams {
		if err := h.Wait(ctx, s, "draining the spec's stream before releasing its resources"); err != nil {
			fmt.Fprintf(GinkgoWriter, "%v\n", err)
		}
	}
	h.streams = nil
}

// checkNoLeaks fails the spec when it left file descriptors open (an IPC or
// VMM descriptor, a socket, a helper's pipe). Descriptors the driver opens
// for itself are not the spec's: it opens them lazily on first use of a
// feature and keeps them for the life of the process. Seen on driver 580:
// device files (/dev/nvidia*) and, with the first interprocess event, a
// shared-memory file /dev/shm/cuda.shm.*.
func (h *Harness) checkNoLeaks() error {
	var leaked []string
	for fd, target := range openFDs() {
		if old, ok := h.fdBase[fd]; ok && old == target {
			continue
		}
		if driverOwned(target) {
			fmt.Fprintf(GinkgoWriter, "driver opened fd %d -> %s during the spec (not counted as a leak)\n", fd, target)
			continue
		}
		leaked = append(leaked, fmt.Sprintf("%d -> %s", fd, target))
	}
	if len(leaked) > 0 {
		sort.Strings(leaked)
		return fmt.Errorf("the spec left %d file descriptors open that it did not have before: %s", len(leaked), strings.Join(leaked, ", "))
	}
	return nil
}

func driverOwned(target string) bool {
	return strings.HasPrefix(target, "/dev/nvidia") || strings.HasPrefix(target, "/dev/shm/cuda.shm.")
}

// openFDs maps this process's open file descriptors to what they point at.
func openFDs() map[int]string {
	out := map[int]string{}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return out
	}
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		target, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err != nil {
			continue // the directory's own descriptor, closed by now
		}
		out[fd] = target
	}
	return out
}

func wrapf(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), err)
}
