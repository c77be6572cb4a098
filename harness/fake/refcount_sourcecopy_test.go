// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"testing"

	"github.com/p2pconf/p2pconf/harness/backend"
)

// The probes of ipc-reopen-not-counted and
// managed-prefetch-keeps-source-copy (added to symptoms).
func init() {
	// A handle opened twice in one context, closed once: the mapping must
	// still work, and the second close must succeed.
	symptoms["ipc-reopen-not-counted"] = func(t *testing.T, b *Backend) bool {
		imp := openIn(t, b.StateDir(), b.preset.name, b.defectNames...)
		p, _ := exported(t, b, 0)
		h, err := b.IPCGetMemHandle(0, p)
		must(t, err)
		q1, err := imp.IPCOpenMemHandle(0, h)
		must(t, err)
		q2, err := imp.IPCOpenMemHandle(0, h)
		must(t, err)
		if q2 != q1 {
			t.Fatalf("the second open returned 0x%x, the first 0x%x", uint64(q2), uint64(q1))
		}
		must(t, imp.IPCCloseMemHandle(0, q2))
		out, err := imp.Alloc(0, 256)
		must(t, err)
		if launch(t, imp, 0, kCopy, uint64(out), uint64(q1), 1) != nil {
			return true
		}
		return imp.IPCCloseMemHandle(0, q1) != nil
	}
	// GPU0 writes, a prefetch moves the data to GPU1, GPU1 writes: GPU0
	// must read GPU1's value.
	symptoms["managed-prefetch-keeps-source-copy"] = func(t *testing.T, b *Backend) bool {
		p := managedBuf(t, b, 0, 4096)
		must(t, launch(t, b, 0, kStore, uint64(p), 5, 1))
		s, _ := b.NewStream(1)
		must(t, b.PrefetchAsync(s, p, 4096, backend.DeviceLocation(1)))
		must(t, wait(t, b, s))
		must(t, launch(t, b, 1, kStore, uint64(p), 9, 1))
		out := managedBuf(t, b, 0, 4096)
		must(t, launch(t, b, 0, kCopy, uint64(out), uint64(p), 1))
		return words(t, b, 0, out, 1)[0] != 10
	}
}
