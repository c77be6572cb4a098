// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

// Unified Memory in the fake. A managed allocation is one file-backed
// allocation counted against the GPU that made it (cuMemGetInfo drops by its
// size at cuMemAllocManaged and is back after cuMemFree) and mapped into the
// address space as a region every GPU and the host may touch, with or
// without peer access: there is one copy of the bytes, so every access is
// coherent, which is what the documentation promises after the documented
// synchronisation. The model keeps what the range attributes report
// (advice, the last prefetch location) and the little state the managed
// defects need to misbehave: the first page as it was at the last prefetch
// (managed-prefetch-stale), the read-mostly copies prefetches made
// (managed-read-mostly-stale), the kernels running per GPU
// (managed-concurrent-writes-lost), the copy a prefetch leaves at its source
// (managed-prefetch-keeps-source-copy).

// managedAttrs are the Unified Memory device attributes of a preset. Every
// preset models a Linux machine with full managed memory support
// (CONCURRENT_MANAGED_ACCESS 1, as read on H200) except pcie4-nop2p, which
// stands for one without concurrent access (pre-Pascal GPUs, Windows WDDM),
// and mixed, whose kernel has HMM (PAGEABLE_MEMORY_ACCESS 1).
type managedAttrs struct{ concurrent, pageable bool }

var presetManaged = map[string]managedAttrs{
	"nvlink8":     {concurrent: true},
	"pcie4-nop2p": {},
	"mixed":       {concurrent: true, pageable: true},
	"single":      {concurrent: true},
	"h200x2":      {concurrent: true},
}

func (b *Backend) managedAttrs() managedAttrs {
	if a, ok := presetManaged[b.preset.name]; ok {
		return a
	}
	return managedAttrs{concurrent: true}
}

// managedAttribute answers MANAGED_MEMORY, CONCURRENT_MANAGED_ACCESS and
// PAGEABLE_MEMORY_ACCESS.
func (b *Backend) managedAttribute(a backend.DeviceAttr) int {
	m := b.managedAttrs()
	switch a {
	case backend.AttrConcurrentManagedAccess:
		return boolInt(m.concurrent)
	case backend.AttrPageableMemoryAccess:
		return boolInt(m.pageable)
	}
	return 1 // MANAGED_MEMORY
}

// managedMachine is the backend-wide part of the model.
type managedMachine struct {
	mu      sync.Mutex
	regions map[*region]bool
	// running counts the kernels each GPU is running (at most 8 GPUs).
	running [8]atomic.Int32
}

// managedState is one managed allocation's advice and model state.
type managedState struct {
	mu           sync.Mutex
	readMostly   bool
	preferred    int32
	accessedBy   map[int32]bool
	lastPrefetch int32
	// stalePage is the first page as it was at the last prefetch.
	stalePage []byte
	// copies are the read-mostly duplicates made by prefetches, by
	// location, each with the write count when it was made.
	copies map[int32]rmCopy
	// sources are the copies prefetches left at the locations they
	// migrated from, kept only under managed-prefetch-keeps-source-copy.
	sources map[int32]rmCopy
	writes  atomic.Uint64 // stores by kernels
	writer  atomic.Int32  // location of the last store, +2 (0: none; 1: the host)
}

type rmCopy struct {
	bytes  []byte // the contents (kept only under managed-read-mostly-stale)
	writes uint64
}

func locationValue(l backend.Location) int32 { return l.RangeValue() }

// AllocManaged is cuMemAllocManaged(CU_MEM_ATTACH_GLOBAL).
func (b *Backend) AllocManaged(d backend.Device, size uint64) (backend.DevicePtr, error) {
	const fn = "cuMemAllocManaged"
	if err := b.ctx(fn, d); err != nil {
		return 0, err
	}
	if size == 0 {
		return 0, errf(fn, cuerr.InvalidValue, "size 0")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	o, err := b.newObject(fn, int(d), 'm', size)
	if err != nil {
		return 0, err
	}
	o.refs = 1
	base, ok := b.as.reserve(size, 2<<20)
	if !ok {
		b.unref(o)
		return 0, errf(fn, cuerr.OutOfMemory, "the fake address space is full")
	}
	page := min(size, pageSize)
	st := &managedState{preferred: backend.RangeInvalid, lastPrefetch: backend.RangeInvalid,
		accessedBy: map[int32]bool{}, copies: map[int32]rmCopy{}, sources: map[int32]rmCopy{}, stalePage: make([]byte, page)}
	r := &region{base: base, size: size, mem: o.mem[:size], kind: kindManaged, phys: -1, ctx: int(d), obj: o, mgd: st}
	b.as.insert(r)
	b.allocs[base] = r
	b.mm.mu.Lock()
	if b.mm.regions == nil {
		b.mm.regions = map[*region]bool{}
	}
	b.mm.regions[r] = true
	b.mm.mu.Unlock()
	return backend.DevicePtr(base), nil
}

// managedFreed forgets a managed region at cuMemFree; it reports whether
// the memory is kept (managed-free-leaks).
func (b *Backend) managedFreed(r *region) (keep bool) {
	b.mm.mu.Lock()
	delete(b.mm.regions, r)
	b.mm.mu.Unlock()
	return b.defects.has(dManagedFreeLeaks)
}

// managedRange finds the managed region holding [p, p+n).
func (b *Backend) managedRange(fn string, p backend.DevicePtr, n uint64) (*region, error) {
	r := b.as.find(uint64(p))
	if r == nil || r.kind != kindManaged || n == 0 || !r.contains(uint64(p), n) {
		return nil, errf(fn, cuerr.InvalidValue, "[0x%x, +%d) is not inside one managed allocation", uint64(p), n)
	}
	return r, nil
}

func (b *Backend) checkLocation(fn string, l backend.Location, prefetch bool) error {
	if l.Host {
		return nil
	}
	if !b.valid(l.Device) {
		return errf(fn, cuerr.InvalidDevice, "device %d", int(l.Device))
	}
	if prefetch && !b.managedAttrs().concurrent {
		return errf(fn, cuerr.InvalidDevice, "GPU%d has CONCURRENT_MANAGED_ACCESS=0", int(l.Device))
	}
	return nil
}

// PrefetchAsync is cuMemPrefetchAsync_v2: the migration happens when the
// stream reaches it.
func (b *Backend) PrefetchAsync(s backend.Stream, p backend.DevicePtr, n uint64, to backend.Location) error {
	const fn = "cuMemPrefetchAsync"
	if b.preset.driver < 12020 {
		return b.missingEntryPoint12020(fn)
	}
	st, err := b.stream(fn, s)
	if err != nil {
		return err
	}
	if !b.managedAttrs().concurrent {
		return errf(fn, cuerr.InvalidDevice, "the stream's GPU%d has CONCURRENT_MANAGED_ACCESS=0", st.dev)
	}
	r, err := b.managedRange(fn, p, n)
	if err != nil {
		return err
	}
	if err := b.checkLocation(fn, to, true); err != nil {
		return err
	}
	st.enqueue(func() {
		b.enter()
		defer b.exit()
		b.prefetch(r, to)
	})
	return nil
}

// prefetch records the migration. The data stays where it is (one copy);
// under managed-prefetch-stale the first page gets back the contents it had
// at the previous prefetch. With READ_MOSTLY set, the destination gets a
// read-only copy.
func (b *Backend) prefetch(r *region, to backend.Location) {
	m := r.mgd
	m.mu.Lock()
	defer m.mu.Unlock()
	if b.defects.has(dManagedPrefetchKeepsSourceCopy) {
		b.keepSourceCopy(r, locationValue(to))
	}
	m.lastPrefetch = locationValue(to)
	if b.defects.has(dManagedPrefetchStale) {
		now := append([]byte(nil), r.mem[:len(m.stalePage)]...)
		copy(r.mem, m.stalePage)
		m.stalePage = now
	}
	if m.readMostly {
		c := rmCopy{writes: m.writes.Load()}
		if b.defects.has(dManagedReadMostlyStale) {
			c.bytes = append([]byte(nil), r.mem...)
		}
		m.copies[locationValue(to)] = c
	}
}

// keepSourceCopy is managed-prefetch-keeps-source-copy's half of a
// prefetch to dst: the location the data migrates from (the last prefetch's
// destination, else the last writer) keeps a copy of it, and dst's own old
// copy is gone (the data arrives there). r.mgd.mu must be held.
func (b *Backend) keepSourceCopy(r *region, dst int32) {
	m := r.mgd
	delete(m.sources, dst)
	src := m.lastPrefetch
	if src == backend.RangeInvalid {
		w := m.writer.Load()
		if w == 0 {
			return
		}
		src = w - 2
	}
	if src != dst {
		m.sources[src] = rmCopy{bytes: append([]byte(nil), r.mem...), writes: m.writes.Load()}
	}
}

// managedKernelStart runs before every kernel on dev: it counts the kernel
// and lets dev read every managed region (managedRead). It returns the
// function to call when the kernel ends.
func (b *Backend) managedKernelStart(dev int) func() {
	if dev < len(b.mm.running) {
		b.mm.running[dev].Add(1)
	}
	b.mm.mu.Lock()
	regions := make([]*region, 0, len(b.mm.regions))
	for r := range b.mm.regions {
		regions = append(regions, r)
	}
	b.mm.mu.Unlock()
	for _, r := range regions {
		b.managedRead(r, int32(dev))
	}
	return func() {
		if dev < len(b.mm.running) {
			b.mm.running[dev].Add(-1)
		}
	}
}

// managedRead drops loc's read-mostly copy of r once a store from another
// location has invalidated it (the documented invalidation). Under
// managed-read-mostly-stale loc reads that copy instead, and under
// managed-prefetch-keeps-source-copy the copy a prefetch left at loc.
func (b *Backend) managedRead(r *region, loc int32) {
	m := r.mgd
	m.mu.Lock()
	defer m.mu.Unlock()
	stale := func(c rmCopy) bool { return m.writes.Load() > c.writes && m.writer.Load() != loc+2 }
	if c, ok := m.copies[loc]; ok && stale(c) {
		delete(m.copies, loc)
		if c.bytes != nil {
			copy(r.mem, c.bytes)
		}
	}
	if c, ok := m.sources[loc]; ok && stale(c) {
		delete(m.sources, loc)
		copy(r.mem, c.bytes)
	}
}

// noteWrite records a store into managed memory from loc.
func (m *managedState) noteWrite(loc int32) {
	m.writes.Add(1)
	m.writer.Store(loc + 2)
}

// managedHostAccess is a copy to or from managed memory (cuMemcpy*,
// cuMemsetD32): the host's access, for the read-mostly model.
func (b *Backend) managedHostAccess(r *region, write bool) {
	if write {
		r.mgd.noteWrite(backend.RangeCPU)
		return
	}
	b.managedRead(r, backend.RangeCPU)
}

// managedStore notes a kernel store by dev into managed memory and says
// whether it is dropped (managed-concurrent-writes-lost: while a kernel of
// another GPU runs).
func (b *Backend) managedStore(r *region, dev int) bool {
	if b.defects.has(dManagedConcurrentWritesLost) {
		for e := range b.mm.running {
			if e != dev && b.mm.running[e].Load() > 0 {
				return true
			}
		}
	}
	r.mgd.noteWrite(int32(dev))
	return false
}

// Advise is cuMemAdvise_v2.
func (b *Backend) Advise(d backend.Device, p backend.DevicePtr, n uint64, advice backend.MemAdvice, about backend.Location) error {
	const fn = "cuMemAdvise"
	if b.preset.driver < 12020 {
		return b.missingEntryPoint12020(fn)
	}
	if err := b.ctx(fn, d); err != nil {
		return err
	}
	r, err := b.managedRange(fn, p, n)
	if err != nil {
		return err
	}
	if err := b.checkLocation(fn, about, false); err != nil {
		return err
	}
	m := r.mgd
	m.mu.Lock()
	defer m.mu.Unlock()
	v := locationValue(about)
	switch advice {
	case backend.AdviseSetReadMostly:
		m.readMostly = true
	case backend.AdviseUnsetReadMostly:
		m.readMostly = false
		clear(m.copies)
	case backend.AdviseSetPreferredLocation:
		if !about.Host && b.defects.has(dManagedAdviceMisreported) {
			v = backend.RangeCPU
		}
		m.preferred = v
	case backend.AdviseUnsetPreferredLocation:
		m.preferred = backend.RangeInvalid
	case backend.AdviseSetAccessedBy:
		m.accessedBy[v] = true
	case backend.AdviseUnsetAccessedBy:
		delete(m.accessedBy, v)
	default:
		return errf(fn, cuerr.InvalidValue, "advice %d", int32(advice))
	}
	return nil
}

// RangeAttribute is cuMemRangeGetAttribute for the 4-byte attributes.
func (b *Backend) RangeAttribute(d backend.Device, attr backend.MemRangeAttr, p backend.DevicePtr, n uint64) (int32, error) {
	const fn = "cuMemRangeGetAttribute"
	if err := b.ctx(fn, d); err != nil {
		return 0, err
	}
	r, err := b.managedRange(fn, p, n)
	if err != nil {
		return 0, err
	}
	m := r.mgd
	m.mu.Lock()
	defer m.mu.Unlock()
	switch attr {
	case backend.RangeReadMostly:
		return int32(boolInt(m.readMostly)), nil
	case backend.RangePreferredLocation:
		return m.preferred, nil
	case backend.RangeLastPrefetchLocation:
		return m.lastPrefetch, nil
	}
	return 0, errf(fn, cuerr.InvalidValue, "attribute %s with dataSize 4", attr)
}

// RangeAccessedBy is cuMemRangeGetAttribute(ACCESSED_BY): the host first,
// then the devices in order, the unused slots CU_DEVICE_INVALID.
func (b *Backend) RangeAccessedBy(d backend.Device, p backend.DevicePtr, n uint64, room int) ([]int32, error) {
	const fn = "cuMemRangeGetAttribute"
	if err := b.ctx(fn, d); err != nil {
		return nil, err
	}
	if room <= 0 {
		return nil, errf(fn, cuerr.InvalidValue, "dataSize %d", 4*room)
	}
	r, err := b.managedRange(fn, p, n)
	if err != nil {
		return nil, err
	}
	out := make([]int32, room)
	for i := range out {
		out[i] = backend.RangeInvalid
	}
	m := r.mgd
	m.mu.Lock()
	defer m.mu.Unlock()
	k := 0
	for v := backend.RangeCPU; v < int32(len(b.devs)) && k < room; v++ {
		if m.accessedBy[v] {
			out[k] = v
			k++
		}
	}
	return out, nil
}

// RangeAttributes is cuMemRangeGetAttributes.
func (b *Backend) RangeAttributes(d backend.Device, attrs []backend.MemRangeAttr, room int, p backend.DevicePtr, n uint64) ([]int32, error) {
	const fn = "cuMemRangeGetAttributes"
	if len(attrs) == 0 {
		return nil, errf(fn, cuerr.InvalidValue, "no attributes")
	}
	var out []int32
	for _, a := range attrs {
		var err error
		if a == backend.RangeAccessedBy {
			var v []int32
			v, err = b.RangeAccessedBy(d, p, n, room)
			out = append(out, v...)
		} else {
			var v int32
			v, err = b.RangeAttribute(d, a, p, n)
			out = append(out, v)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// missingEntryPoint12020 is what the binding answers for the CUmemLocation
// forms on a driver older than CUDA 12.2.
func (b *Backend) missingEntryPoint12020(fn string) error {
	return fmt.Errorf("%s: %w: driver %d is older than CUDA 12.2", fn, backend.ErrMissingEntryPoint, b.preset.driver)
}
