// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"testing"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/kernels"
)

// The probe of stream-wait-honours-earlier-record
// (TestEachDefectShowsAlone): an event of GPU0 recorded once with nothing
// before it and again after a slow store; a stream of GPU1 that waits on it
// must read the stored value.
func init() {
	symptoms["stream-wait-honours-earlier-record"] = func(t *testing.T, b *Backend) bool {
		buf, _ := b.Alloc(0, 256)
		out, _ := b.Alloc(1, 256)
		fillWords(t, b, 0, buf, 1, func(int) uint32 { return 0 })
		must(t, b.EnablePeerAccess(1, 0))
		s0, err := b.NewStream(0)
		must(t, err)
		s1, err := b.NewStream(1)
		must(t, err)
		ev, err := b.NewEvent(0, backend.EventDisableTiming)
		must(t, err)
		must(t, b.RecordEvent(ev, s0))
		must(t, b.Launch(s0, kSlowStore, backend.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(1)}, uint64(buf), 5, 1, 100))
		must(t, b.RecordEvent(ev, s0))
		must(t, b.StreamWaitEvent(s1, ev))
		must(t, b.Launch(s1, kCopy, backend.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(1)}, uint64(out), uint64(buf), 1))
		must(t, wait(t, b, s1))
		must(t, wait(t, b, s0))
		return words(t, b, 1, out, 1)[0] != 6
	}
}
