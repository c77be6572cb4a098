// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package proc

import "sync"

// started remembers every helper process this process started, also after
// it was reaped: the driver may list a killed helper on the GPU for a
// moment after it is gone, and the harness must not take it for another
// program using the GPU.
var started struct {
	mu   sync.Mutex
	pids map[int]bool
}

func recordStarted(pid int) {
	started.mu.Lock()
	defer started.mu.Unlock()
	if started.pids == nil {
		started.pids = map[int]bool{}
	}
	started.pids[pid] = true
}

// Started reports whether pid is a helper process this process started.
func Started(pid int) bool {
	started.mu.Lock()
	defer started.mu.Unlock()
	return started.pids[pid]
}
