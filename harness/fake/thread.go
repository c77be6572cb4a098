// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"fmt"
	"math"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/p2pconf/p2pconf/kernels"
)

// storeBufferDelay is how long a thread's buffered stores stay invisible
// after it ends (release-not-ordered only), so a consumer polling the flag
// has time to read the stale data, as a real reordering would let it.
const storeBufferDelay = 5 * time.Millisecond

// thread implements kernels.Thread. Accesses are sync/atomic operations on
// the shared bytes, so memory is sequentially consistent, except that under
// the release-not-ordered defect weak and relaxed stores wait in sb until a
// fence or the thread's end, and release operations do not wait for them.
type thread struct {
	g     *grid
	id    int
	cache *region
	sb    []sbEntry
	// early is the value the last relaxed load read first, returned by an
	// immediately following relaxed load of the same word
	// (same-address-loads-reordered only).
	early *sbEntry
	// late is a relaxed store held back until the thread's next access, or
	// landed after the next write to the same word
	// (same-address-stores-reordered), or dropped by it
	// (first-of-two-stores-lost).
	late *sbEntry
	// syncs counts the thread's acquire operations (loads, RMWs and
	// fences) and pre its relaxed and weak loads since its last release
	// store or RMW, with the count when each was made
	// (handoff-serves-stale-read only): a load of a word after an acquire
	// that followed its last load returns that load's value.
	syncs int
	pre   map[preKey]preEntry
}

type preKey struct {
	r    *region
	off  uint64
	size int
}

type preEntry struct {
	v     uint64
	syncs int
}

// staleReads reports whether handoff-serves-stale-read is injected.
func (t *thread) staleReads() bool { return t.g.b.defects.has(dHandoffServesStaleRead) }

// acquired counts an acquire operation (handoff-serves-stale-read).
func (t *thread) acquired(sem kernels.Sem) {
	if sem == kernels.Acquire || sem == kernels.AcqRel || sem == kernels.SC {
		t.syncs++
	}
}

// released drops every remembered load at a release store or RMW: the
// stale copy is of what the thread read since its last release (so a
// consumer that acknowledges each round, as ordering.host-device-handoff's
// kernel does, reads each round afresh).
func (t *thread) released(sem kernels.Sem) {
	if sem == kernels.Release || sem == kernels.AcqRel || sem == kernels.SC {
		t.pre = nil
	}
}

// forget drops the remembered loads of a word the thread writes: the stale
// copy is one the producer's writes miss, never the thread's own.
func (t *thread) forget(r *region, off uint64, size int) {
	for k := range t.pre {
		if k.r == r && k.off < off+uint64(size) && off < k.off+uint64(k.size) {
			delete(t.pre, k)
		}
	}
}

// staleLoad is a relaxed or weak load under handoff-serves-stale-read: the
// value of the thread's own load of the word from before its latest
// acquire, if there was one, else the word, remembered.
func (t *thread) staleLoad(r *region, off uint64, size int) uint64 {
	k := preKey{r, off, size}
	if e, ok := t.pre[k]; ok && e.syncs < t.syncs {
		return e.v
	}
	v := load(r, off, size)
	if t.pre == nil {
		t.pre = map[preKey]preEntry{}
	}
	t.pre[k] = preEntry{v, t.syncs}
	return v
}

type sbEntry struct {
	r    *region
	off  uint64
	size int
	v    uint64
	at   time.Time
}

func (t *thread) ID() int { return t.id }

func ptrAt(mem []byte, off uint64) unsafe.Pointer { return unsafe.Pointer(&mem[off]) }

func load(r *region, off uint64, size int) uint64 {
	if size == 4 {
		return uint64(atomic.LoadUint32((*uint32)(ptrAt(r.mem, off))))
	}
	return atomic.LoadUint64((*uint64)(ptrAt(r.mem, off)))
}

func store(r *region, off uint64, size int, v uint64) {
	if size == 4 {
		atomic.StoreUint32((*uint32)(ptrAt(r.mem, off)), uint32(v))
		return
	}
	atomic.StoreUint64((*uint64)(ptrAt(r.mem, off)), v)
}

func cas(r *region, off uint64, size int, old, v uint64) bool {
	if size == 4 {
		return atomic.CompareAndSwapUint32((*uint32)(ptrAt(r.mem, off)), uint32(old), uint32(v))
	}
	return atomic.CompareAndSwapUint64((*uint64)(ptrAt(r.mem, off)), old, v)
}

func (t *thread) buffered() bool { return t.g.b.defects.has(dReleaseNotOrdered) }

// forward returns the newest buffered store to exactly this word; a partial
// overlap drains the buffer first.
func (t *thread) forward(r *region, off uint64, size int) (uint64, bool) {
	for i := len(t.sb) - 1; i >= 0; i-- {
		e := t.sb[i]
		if e.r != r || e.off+uint64(e.size) <= off || off+uint64(size) <= e.off {
			continue
		}
		if e.off == off && e.size == size {
			return e.v, true
		}
		t.drain()
		return 0, false
	}
	return 0, false
}

func (t *thread) drain() {
	for _, e := range t.sb {
		if !e.r.dead.Load() {
			store(e.r, e.off, e.size, e.v)
		}
	}
	t.sb = t.sb[:0]
}

// age drains the buffer at a load once its oldest store has waited
// storeBufferDelay, so a thread that spins on something its own buffered
// store would cause (a barrier arrival, an acknowledgement) still makes
// progress. Release operations never drain it: that is the defect.
func (t *thread) age() {
	if len(t.sb) > 0 && time.Since(t.sb[0].at) >= storeBufferDelay {
		t.drain()
	}
}

func (t *thread) finish() {
	t.landLate()
	if len(t.sb) > 0 {
		time.Sleep(storeBufferDelay)
		t.drain()
	}
}

// reorderPauses is how many times a reordering defect lets the other
// threads run between the two halves of what it reorders.
const reorderPauses = 4

func (t *thread) pauses() {
	for range reorderPauses {
		t.g.Pause()
	}
}

// landLate writes the held-back store, if any.
func (t *thread) landLate() {
	if e := t.late; e != nil {
		t.late = nil
		if !e.r.dead.Load() {
			store(e.r, e.off, e.size, e.v)
		}
	}
}

// reorderedLoad is a relaxed 32-bit load under same-address-loads-reordered:
// the load after a load of the same word returns what the word held before
// that load read it, as if the second load had been performed first.
func (t *thread) reorderedLoad(r *region, off uint64) uint64 {
	if e := t.early; e != nil && e.r == r && e.off == off {
		t.early = nil
		return e.v
	}
	before := load(r, off, 4)
	t.pauses()
	t.early = &sbEntry{r: r, off: off, size: 4, v: before}
	return load(r, off, 4)
}

// Load reads a word as the launching GPU.
func (t *thread) Load(addr uint64, ty kernels.Type, sem kernels.Sem, sc kernels.Scope) (uint64, error) {
	size := ty.Size()
	t.landLate()
	t.age()
	r, mode, err := t.g.resolve(t, addr, uint64(size), uint64(size), false)
	if err != nil {
		return 0, err
	}
	switch mode {
	case modePhantom:
		return 0, nil
	case modeNaN:
		if size == 4 {
			return nanWord, nil
		}
		return nanWord | nanWord<<32, nil
	}
	off := addr - r.base
	if v, ok := t.forward(r, off, size); ok {
		t.early = nil
		return v, nil
	}
	if size == 4 && sem == kernels.Relaxed && t.g.b.defects.has(dSameAddressLoadsReordered) {
		return t.reorderedLoad(r, off), nil
	}
	t.early = nil
	if t.staleReads() {
		if sem == kernels.Weak || sem == kernels.Relaxed {
			return t.staleLoad(r, off, size), nil
		}
		defer t.acquired(sem)
	}
	return load(r, off, size), nil
}

// Store writes a word as the launching GPU.
func (t *thread) Store(addr uint64, ty kernels.Type, v uint64, sem kernels.Sem, sc kernels.Scope) error {
	size := ty.Size()
	r, mode, err := t.g.resolve(t, addr, uint64(size), uint64(size), true)
	if err != nil || mode != modeOK {
		return err
	}
	off := addr - r.base
	t.early = nil
	t.forget(r, off, size)
	t.released(sem)
	if size == 4 && sem == kernels.Relaxed && t.g.b.defects.has(dFirstOfTwoStoresLost) {
		if e := t.late; e != nil && e.r == r && e.off == off {
			t.late = nil // the first store is lost
		}
		t.landLate()
		t.late = &sbEntry{r: r, off: off, size: size, v: v}
		return nil
	}
	if size == 4 && sem == kernels.Relaxed && t.g.b.defects.has(dSameAddressStoresReordered) {
		if e := t.late; e != nil && e.r == r && e.off == off {
			store(r, off, size, v) // the second store lands first
			t.pauses()
			t.landLate()
			return nil
		}
		t.landLate()
		t.late = &sbEntry{r: r, off: off, size: size, v: v}
		return nil
	}
	t.landLate()
	if t.buffered() && (sem == kernels.Weak || sem == kernels.Relaxed) {
		t.sb = append(t.sb, sbEntry{r: r, off: off, size: size, v: v, at: time.Now()})
		return nil
	}
	if size == 8 && (r.kind == kindHost || (r.phys >= 0 && r.phys != t.g.dev)) && t.g.b.defects.has(dStoreTears) {
		// Two halves, with time between them for a reader to see one.
		store(r, off, 4, v&0xFFFFFFFF)
		runtime.Gosched()
		store(r, off+4, 4, v>>32)
		return nil
	}
	store(r, off, size, v)
	return nil
}

// Fence drains the store buffer (fences are correct even under the defect).
func (t *thread) Fence(sem kernels.Sem, sc kernels.Scope) error {
	t.acquired(sem)
	t.early = nil
	t.landLate()
	t.drain()
	return nil
}

// Atomic applies op as one indivisible read-modify-write and returns the old
// value, except where a lose-updates defect drops it.
func (t *thread) Atomic(op kernels.AtomOp, addr uint64, ty kernels.Type, bv, cv uint64, sem kernels.Sem, sc kernels.Scope) (uint64, error) {
	size := ty.Size()
	if err := checkAtom(op, ty); err != nil {
		return 0, err
	}
	r, mode, err := t.g.resolve(t, addr, uint64(size), uint64(size), true)
	if err != nil {
		return 0, err
	}
	if mode == modePhantom {
		return 0, nil
	}
	off := addr - r.base
	t.early = nil
	t.acquired(sem)
	t.forget(r, off, size)
	t.released(sem)
	if e := t.late; e != nil && e.r == r && e.off == off && write4(op, ty) && t.g.b.defects.has(dFirstOfTwoStoresLost) {
		t.late = nil // first-of-two-stores-lost: the store before the RMW never lands
	}
	if e := t.late; e != nil && e.r == r && e.off == off && write4(op, ty) {
		// same-address-stores-reordered: the RMW lands before the store.
		old := t.atomic(op, ty, sem, r, off, bv, cv)
		t.pauses()
		t.landLate()
		return old, nil
	}
	t.landLate()
	if _, ok := t.forward(r, off, size); ok {
		t.drain()
	}
	return t.atomic(op, ty, sem, r, off, bv, cv), nil
}

// write4 reports whether a 32-bit RMW writes (every one but CAS may).
func write4(op kernels.AtomOp, ty kernels.Type) bool { return ty.Size() == 4 && op != kernels.OpCAS }

// atomic applies op at r+off as one indivisible read-modify-write, except
// where a defect breaks it.
func (t *thread) atomic(op kernels.AtomOp, ty kernels.Type, sem kernels.Sem, r *region, off uint64, bv, cv uint64) uint64 {
	size := ty.Size()
	b := t.g.b
	lose := false
	remote := r.phys >= 0 && r.phys != t.g.dev
	if (remote && b.defects.has(dAtomicsLoseUpdates)) ||
		(remote && size == 8 && b.defects.has(dAtomicsU64LoseUpdates)) ||
		(r.phys < 0 && b.defects.has(dHostAtomicsLoseUpdates)) {
		lose = b.remoteRMW.Add(1)%16 == 0
	}
	if op == kernels.OpAdd && ty == kernels.TU32 && sem == kernels.Relaxed && b.defects.has(dNonAtomicAdd) {
		// non-atomic-add: a load, a pause, a store of the sum.
		old := load(r, off, size)
		t.pauses()
		nv, _ := apply(op, ty, old, bv, cv)
		store(r, off, size, nv)
		return old
	}
	for {
		old := load(r, off, size)
		nv, write := apply(op, ty, old, bv, cv)
		if op == kernels.OpCAS && b.defects.has(dCASComparesLowHalf) {
			half := uint64(1)<<(4*size) - 1 // the low 16 bits of a b32, the low 32 of a b64
			write = old&half == bv&half
		}
		if !write || lose || cas(r, off, size, old, nv) {
			if remote && (op == kernels.OpAnd || op == kernels.OpOr || op == kernels.OpXor) && b.defects.has(dPeerBitOpReturnsStale) {
				return b.staleOld(r.base+off, old)
			}
			return old
		}
	}
}

func checkAtom(op kernels.AtomOp, ty kernels.Type) error {
	float := ty == kernels.TF32 || ty == kernels.TF64
	switch {
	case (op == kernels.OpInc || op == kernels.OpDec) && ty != kernels.TU32:
		return fmt.Errorf("atom.%s.%s is not a PTX instruction (u32 only)", op, ty)
	case float && op != kernels.OpAdd && op != kernels.OpMin && op != kernels.OpMax && op != kernels.OpExch:
		return fmt.Errorf("atom.%s.%s is not a PTX instruction", op, ty)
	}
	return nil
}

// apply computes op on old; write is false when nothing is stored (a CAS
// that does not match).
func apply(op kernels.AtomOp, ty kernels.Type, old, b, c uint64) (nv uint64, write bool) {
	mask := uint64(math.MaxUint64)
	if ty.Size() == 4 {
		mask = math.MaxUint32
		old, b, c = old&mask, b&mask, c&mask
	}
	switch op {
	case kernels.OpAdd:
		if ty == kernels.TF32 || ty == kernels.TF64 {
			return floatOp(ty, old, b, func(x, y float64) float64 { return x + y }), true
		}
		return (old + b) & mask, true
	case kernels.OpMin:
		if less(ty, b, old) {
			return b, true
		}
		return old, true
	case kernels.OpMax:
		if less(ty, old, b) {
			return b, true
		}
		return old, true
	case kernels.OpInc:
		if old >= b {
			return 0, true
		}
		return old + 1, true
	case kernels.OpDec:
		if old == 0 || old > b {
			return b, true
		}
		return old - 1, true
	case kernels.OpAnd:
		return old & b, true
	case kernels.OpOr:
		return old | b, true
	case kernels.OpXor:
		return old ^ b, true
	case kernels.OpExch:
		return b, true
	case kernels.OpCAS:
		return c, old == b
	}
	return old, false
}

func less(ty kernels.Type, x, y uint64) bool {
	switch ty {
	case kernels.TS32:
		return int32(uint32(x)) < int32(uint32(y))
	case kernels.TS64:
		return int64(x) < int64(y)
	case kernels.TF32:
		return math.Float32frombits(uint32(x)) < math.Float32frombits(uint32(y))
	case kernels.TF64:
		return math.Float64frombits(x) < math.Float64frombits(y)
	}
	return x < y
}

func floatOp(ty kernels.Type, x, y uint64, f func(a, b float64) float64) uint64 {
	if ty == kernels.TF32 {
		return uint64(math.Float32bits(float32(f(float64(math.Float32frombits(uint32(x))), float64(math.Float32frombits(uint32(y)))))))
	}
	return math.Float64bits(f(math.Float64frombits(x), math.Float64frombits(y)))
}
