// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"testing"

	"github.com/p2pconf/p2pconf/harness/backend"
)

// TestStreamWaitOnImportedEventOfAnotherGPU: GPU1 waits on an interprocess
// event that GPU0 records, through the handle opened in GPU1's context. The
// wait orders GPU1's copy after GPU0's slow store; under stream-wait-ignored
// it does not, although the imported event belongs to GPU1's context.
func TestStreamWaitOnImportedEventOfAnotherGPU(t *testing.T) {
	for _, injected := range []bool{false, true} {
		var b *Backend
		if injected {
			b = open(t, "h200x2", "stream-wait-ignored")
		} else {
			b = open(t, "h200x2")
		}
		src, err := b.Alloc(0, 256)
		must(t, err)
		dst, err := b.Alloc(1, 256)
		must(t, err)
		s0, err := b.NewStream(0)
		must(t, err)
		s1, err := b.NewStream(1)
		must(t, err)
		ev, err := b.NewEvent(0, backend.EventInterprocess|backend.EventDisableTiming)
		must(t, err)
		h, err := b.IPCGetEventHandle(ev)
		must(t, err)
		imported, err := b.IPCOpenEventHandle(1, h)
		must(t, err)
		must(t, b.Launch(s0, kSlowStore, one, uint64(src), 9, 64, 100))
		must(t, b.RecordEvent(ev, s0))
		must(t, b.StreamWaitEvent(s1, imported))
		must(t, b.CopyPeerAsync(s1, dst, 1, src, 0, 256))
		must(t, wait(t, b, s1))
		must(t, wait(t, b, s0))
		if got := words(t, b, 1, dst, 1)[0]; (got == 9) == injected {
			t.Errorf("stream-wait-ignored injected=%v: GPU1 copied %d (9 once GPU0's store is done)", injected, got)
		}
	}
}
