// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"sort"
	"sync"
	"sync/atomic"

	"github.com/p2pconf/p2pconf/harness/backend"
)

// The fake virtual address space: addrSlots slots of addrSlotSize bytes from
// addrBase; each backend (so each process) owns one slot, picked at random.
// Real host addresses (pinned host memory) lie far above it on Linux.
const (
	addrBase     = 0x1000_0000_0000
	addrSlotSize = 1 << 36
	addrSlots    = 1024
	pageSize     = 4096
)

type regionKind int

const (
	kindAlloc   regionKind = iota // cuMemAlloc
	kindIPC                       // cuIpcOpenMemHandle
	kindVMM                       // cuMemMap
	kindHost                      // cuMemHostAlloc
	kindManaged                   // cuMemAllocManaged
)

// region is a mapped address range and the bytes behind it.
type region struct {
	base, size uint64
	mem        []byte
	kind       regionKind
	phys       int // GPU whose memory it is; -1 for host memory
	ctx        int // GPU whose context owns the pointer (importer for IPC)
	obj        *memObject
	// access holds the VMM access flags per device.
	access []atomic.Uint32
	dead   atomic.Bool
	// ipcRefs counts cuIpcOpenMemHandle calls (guarded by Backend.mu).
	ipcRefs int
	host    *backend.HostBuffer
	// born numbers cuMemAlloc regions in the order they were made
	// (peer-enable-misses-earlier-allocs).
	born uint64
	// mgd is the Unified Memory state of a kindManaged region (managed.go).
	mgd *managedState
}

func (r *region) contains(addr, n uint64) bool {
	return addr >= r.base && addr-r.base+n <= r.size && addr-r.base+n >= n
}

type span struct{ base, size uint64 }

// addrSpace maps addresses to regions and hands out virtual ranges.
type addrSpace struct {
	mu      sync.RWMutex
	lo, hi  uint64
	regions []*region // sorted by base, disjoint
	used    []span    // virtual ranges handed out, sorted
}

func newAddrSpace(slot int) *addrSpace {
	lo := uint64(addrBase) + uint64(slot)*addrSlotSize
	return &addrSpace{lo: lo, hi: lo + addrSlotSize}
}

// reserve hands out size bytes aligned to align (a power of two), first fit.
func (a *addrSpace) reserve(size, align uint64) (uint64, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if align < pageSize {
		align = pageSize
	}
	size = roundUp(size, pageSize)
	cur := roundUp(a.lo+pageSize*16, align) // never hand out the slot's first pages
	for i := 0; i <= len(a.used); i++ {
		end := a.hi
		if i < len(a.used) {
			end = a.used[i].base
		}
		if cur+size <= end && cur+size > cur {
			a.used = append(a.used, span{})
			copy(a.used[i+1:], a.used[i:])
			a.used[i] = span{cur, size}
			return cur, true
		}
		if i < len(a.used) {
			cur = roundUp(a.used[i].base+a.used[i].size, align)
		}
	}
	return 0, false
}

func (a *addrSpace) unreserve(base uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for i, s := range a.used {
		if s.base == base {
			a.used = append(a.used[:i], a.used[i+1:]...)
			return
		}
	}
}

func (a *addrSpace) insert(r *region) {
	a.mu.Lock()
	defer a.mu.Unlock()
	i := sort.Search(len(a.regions), func(i int) bool { return a.regions[i].base > r.base })
	a.regions = append(a.regions, nil)
	copy(a.regions[i+1:], a.regions[i:])
	a.regions[i] = r
}

// remove takes r out of the map and marks it dead; accesses in flight that
// cached it see dead and look again.
func (a *addrSpace) remove(r *region) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for i, x := range a.regions {
		if x == r {
			a.regions = append(a.regions[:i], a.regions[i+1:]...)
			break
		}
	}
	r.dead.Store(true)
}

// clear unmaps every region (Close).
func (a *addrSpace) clear() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, r := range a.regions {
		r.dead.Store(true)
	}
	a.regions, a.used = nil, nil
}

// find returns the region containing addr, or nil.
func (a *addrSpace) find(addr uint64) *region {
	a.mu.RLock()
	defer a.mu.RUnlock()
	i := sort.Search(len(a.regions), func(i int) bool { return a.regions[i].base > addr })
	if i == 0 {
		return nil
	}
	r := a.regions[i-1]
	if addr-r.base < r.size {
		return r
	}
	return nil
}

// within lists the regions that intersect [addr, addr+n), in address order.
func (a *addrSpace) within(addr, n uint64) []*region {
	a.mu.RLock()
	defer a.mu.RUnlock()
	var out []*region
	for _, r := range a.regions {
		if r.base < addr+n && addr < r.base+r.size {
			out = append(out, r)
		}
	}
	return out
}

func roundUp(v, m uint64) uint64 { return (v + m - 1) / m * m }
