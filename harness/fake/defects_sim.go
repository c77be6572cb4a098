// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"sync"
	"time"
)

// defectState is what the defects that need memory of earlier calls keep,
// apart from the simulated machine's own state. Every field is safe for
// concurrent use.
type defectState struct {
	// enabledWhen[[2]int{a, o}] is when peer access a→o was last enabled
	// (peer-enable-takes-effect-late).
	enabledWhen sync.Map
	// freshPeers[[2]int{lo, hi}] marks GPUs lo < hi whose next copy between
	// them is the first since peer access between them was enabled
	// (first-peer-copy-zeros).
	freshPeers sync.Map
	// reverse[[2]int{a, o}] marks access a→o that only exists because o→a
	// was enabled (reverse-peer-access-times-out).
	reverse sync.Map
	// lastOld[addr] is the value the previous atomic bit operation on a
	// peer word returned (peer-bitop-returns-stale).
	lastOld sync.Map
	// kept holds references that a failed call should not have taken
	// (fd-number-import-keeps-reference, ipc-refused-open-keeps-mapping);
	// they are dropped only when the process ends.
	mu   sync.Mutex
	kept []*memObject
}

// peerEnableLate is how long peer access takes to work under
// peer-enable-takes-effect-late.
const peerEnableLate = 100 * time.Millisecond

// noteEnable records an enable of a→o for the defects that look back at it.
func (b *Backend) noteEnable(a, o int) {
	b.ds.enabledWhen.Store([2]int{a, o}, time.Now())
	b.ds.freshPeers.Store([2]int{min(a, o), max(a, o)}, true)
}

// enableTooRecent reports whether peer access d→owner was enabled less
// than peerEnableLate ago, under peer-enable-takes-effect-late.
func (b *Backend) enableTooRecent(d, owner int) bool {
	if !b.defects.has(dPeerEnableLate) {
		return false
	}
	t, ok := b.ds.enabledWhen.Load([2]int{d, owner})
	return ok && time.Since(t.(time.Time)) < peerEnableLate
}

// firstPeerCopy reports, once per enable, whether a copy between GPUs a and
// o is the first since peer access between them was enabled.
func (b *Backend) firstPeerCopy(a, o int) bool {
	_, fresh := b.ds.freshPeers.LoadAndDelete([2]int{min(a, o), max(a, o)})
	return fresh
}

// staleOld returns, for every 16th atomic bit operation on a peer word under
// peer-bitop-returns-stale, the value the previous one returned instead of
// old; it records old for the next.
func (b *Backend) staleOld(addr, old uint64) uint64 {
	prev, had := b.ds.lastOld.Swap(addr, old)
	if had && b.remoteRMW.Add(1)%16 == 0 {
		return prev.(uint64)
	}
	return old
}

// keep holds a reference to o until the process ends. The caller holds mu.
func (b *Backend) keep(o *memObject) {
	o.refs++
	b.ds.mu.Lock()
	b.ds.kept = append(b.ds.kept, o)
	b.ds.mu.Unlock()
}
