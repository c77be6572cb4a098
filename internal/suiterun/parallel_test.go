// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package suiterun

import (
	"sync/atomic"
	"testing"
	"time"
)

func TestParallelCallsEachOnceWithinItsLimit(t *testing.T) {
	const n, limit = 12, 3
	var running, most atomic.Int32
	calls := make([]atomic.Int32, n)
	Parallel(n, limit, func(i int) {
		now := running.Add(1)
		for {
			m := most.Load()
			if now <= m || most.CompareAndSwap(m, now) {
				break
			}
		}
		time.Sleep(5 * time.Millisecond)
		calls[i].Add(1)
		running.Add(-1)
	})
	for i := range calls {
		if c := calls[i].Load(); c != 1 {
			t.Errorf("do(%d) called %d times", i, c)
		}
	}
	if m := most.Load(); m > limit || m < 2 {
		t.Errorf("%d calls at once, want 2..%d", m, limit)
	}
}
