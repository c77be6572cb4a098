// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package proc

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
)

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

// Descendants maps the PIDs of root's living descendants, grandchildren
// included, from the parent PIDs in /proc/<pid>/stat: a helper's own
// children count as this run's when the harness asks who else uses a GPU.
func Descendants(root int) map[uint32]bool {
	ents, _ := os.ReadDir("/proc")
	children := map[int][]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		var state string
		var ppid int
		if _, err := fmt.Sscanf(s[i+1:], " %s %d", &state, &ppid); err == nil {
			children[ppid] = append(children[ppid], pid)
		}
	}
	out := map[uint32]bool{}
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			if !out[uint32(c)] {
				out[uint32(c)] = true
				queue = append(queue, c)
			}
		}
	}
	return out
}
