// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuerr"
	"github.com/p2pconf/p2pconf/kernels"
)

// managedSymptoms are the probes of the managed defects (added to symptoms).
var managedSymptoms = map[string]func(t *testing.T, b *Backend) bool{
	"managed-prefetch-stale": func(t *testing.T, b *Backend) bool {
		p := managedBuf(t, b, 0, 64<<10)
		must(t, launch(t, b, 0, kStore, uint64(p), 5, 32))
		s, _ := b.NewStream(1)
		must(t, b.PrefetchAsync(s, p, 64<<10, backend.DeviceLocation(1)))
		must(t, wait(t, b, s))
		return words(t, b, 1, p, 1)[0] != 5
	},
	"managed-advice-misreported": func(t *testing.T, b *Backend) bool {
		p := managedBuf(t, b, 0, 4096)
		must(t, b.Advise(0, p, 4096, backend.AdviseSetPreferredLocation, backend.DeviceLocation(1)))
		v, err := b.RangeAttribute(0, backend.RangePreferredLocation, p, 4096)
		must(t, err)
		return v != 1
	},
	"managed-read-mostly-stale": func(t *testing.T, b *Backend) bool {
		p := managedBuf(t, b, 0, 4096)
		must(t, b.Advise(0, p, 4096, backend.AdviseSetReadMostly, backend.DeviceLocation(0)))
		must(t, launch(t, b, 0, kStore, uint64(p), 5, 1))
		s, _ := b.NewStream(1)
		must(t, b.PrefetchAsync(s, p, 4096, backend.DeviceLocation(1)))
		must(t, wait(t, b, s))
		must(t, launch(t, b, 0, kStore, uint64(p), 9, 1))
		out := managedBuf(t, b, 1, 4096)
		must(t, launch(t, b, 1, kCopy, uint64(out), uint64(p), 1))
		return words(t, b, 1, out, 1)[0] != 10
	},
	"managed-concurrent-writes-lost": func(t *testing.T, b *Backend) bool {
		p := managedBuf(t, b, 0, 8192)
		spin, _ := b.NewStream(1)
		must(t, b.Launch(spin, kSlowStore, backend.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(1)}, uint64(p)+4096, 3, 1, 300))
		for deadline := time.Now().Add(5 * time.Second); b.mm.running[1].Load() == 0 && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond) // until GPU1's kernel runs
		}
		must(t, launch(t, b, 0, kStore, uint64(p), 5, 1))
		must(t, wait(t, b, spin))
		return words(t, b, 0, p, 1)[0] != 5
	},
	"managed-free-leaks": func(t *testing.T, b *Backend) bool {
		before, _, _ := b.MemInfo(0)
		p, err := b.AllocManaged(0, 1<<20)
		must(t, err)
		must(t, b.Free(0, p))
		after, _, _ := b.MemInfo(0)
		return after != before
	},
	"managed-not-flagged": func(t *testing.T, b *Backend) bool {
		p := managedBuf(t, b, 0, 4096)
		v, err := b.PointerAttribute(1, backend.PointerIsManaged, p)
		must(t, err)
		return v != 1
	},
}

func init() {
	for k, v := range managedSymptoms {
		symptoms[k] = v
	}
}

func managedBuf(t *testing.T, b *Backend, d backend.Device, n uint64) backend.DevicePtr {
	t.Helper()
	p, err := b.AllocManaged(d, n)
	must(t, err)
	t.Cleanup(func() { _ = b.Free(d, p) })
	return p
}

func TestManagedIsReachableEverywhereWithoutPeerAccess(t *testing.T) {
	b := open(t, "pcie4-nop2p")
	p := managedBuf(t, b, 0, 4096)
	must(t, launch(t, b, 2, kStore, uint64(p), 7, 4))
	if got := words(t, b, 3, p, 4); !slices.Equal(got, []uint32{7, 8, 9, 10}) {
		t.Errorf("GPU3 copy of what GPU2 stored into GPU0's managed memory: %v", got)
	}
	if v, _ := b.DeviceAttribute(0, backend.AttrConcurrentManagedAccess); v != 0 {
		t.Errorf("pcie4-nop2p CONCURRENT_MANAGED_ACCESS = %d, want 0", v)
	}
	s, _ := b.NewStream(0)
	wantCode(t, b.PrefetchAsync(s, p, 4096, backend.DeviceLocation(1)), cuerr.InvalidDevice, "a prefetch to a GPU without concurrent managed access")
	if v, _ := b.PointerAttribute(0, backend.PointerIsLegacyCudaIPCCapable, p); v != 0 {
		t.Errorf("managed memory claims to be IPC capable")
	}
}

func TestManagedRangeAttributes(t *testing.T) {
	b := open(t, "h200x2")
	const n = 1 << 16
	p := managedBuf(t, b, 1, n)
	if v, _ := b.RangeAttribute(0, backend.RangeLastPrefetchLocation, p, n); v != backend.RangeInvalid {
		t.Errorf("LAST_PREFETCH_LOCATION before any prefetch = %d", v)
	}
	s, _ := b.NewStream(0)
	must(t, b.PrefetchAsync(s, p, n, backend.HostLocation))
	must(t, wait(t, b, s))
	must(t, b.Advise(0, p, n, backend.AdviseSetAccessedBy, backend.DeviceLocation(1)))
	must(t, b.Advise(0, p, n, backend.AdviseSetAccessedBy, backend.HostLocation))
	must(t, b.Advise(0, p, n, backend.AdviseSetReadMostly, backend.DeviceLocation(0)))
	all, err := b.RangeAttributes(1, []backend.MemRangeAttr{backend.RangeReadMostly, backend.RangeAccessedBy, backend.RangeLastPrefetchLocation}, 3, p, n)
	must(t, err)
	if want := []int32{1, backend.RangeCPU, 1, backend.RangeInvalid, backend.RangeCPU}; !slices.Equal(all, want) {
		t.Errorf("RangeAttributes = %v, want %v", all, want)
	}
	must(t, b.Advise(0, p, n, backend.AdviseUnsetAccessedBy, backend.HostLocation))
	if by, _ := b.RangeAccessedBy(0, p, n, 2); !slices.Equal(by, []int32{1, backend.RangeInvalid}) {
		t.Errorf("ACCESSED_BY after UNSET(host) = %v", by)
	}
	q, _ := b.Alloc(0, 4096)
	wantCode(t, func() error { _, err := b.RangeAttribute(0, backend.RangeReadMostly, q, 4096); return err }(), cuerr.InvalidValue, "a range attribute of cuMemAlloc memory")
	before, _, _ := b.MemInfo(1)
	must(t, b.Free(1, p))
	if after, _, _ := b.MemInfo(1); after != before+n {
		t.Errorf("free memory after cuMemFree of %d managed bytes: %d → %d", n, before, after)
	}
}

func TestManagedNeedsCUDA12_2ForLocations(t *testing.T) {
	b := open(t, "h200x2@12010")
	p := managedBuf(t, b, 0, 4096)
	if err := b.Advise(0, p, 4096, backend.AdviseSetReadMostly, backend.DeviceLocation(0)); !errors.Is(err, backend.ErrMissingEntryPoint) {
		t.Errorf("Advise on a 12.1 driver: %v", err)
	}
	s, _ := b.NewStream(0)
	if err := b.PrefetchAsync(s, p, 4096, backend.HostLocation); !errors.Is(err, backend.ErrMissingEntryPoint) {
		t.Errorf("PrefetchAsync on a 12.1 driver: %v", err)
	}
}
