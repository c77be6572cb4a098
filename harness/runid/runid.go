// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package runid names the run a suite process belongs to. Reports use it
// to never merge two runs' results into one folder; the GPU locks use it
// to let the suites of one run wait for each other while refusing any
// other run at once. It depends on nothing of p2pconf, so both can use it.
package runid

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Env names the run a suite process belongs to. `p2pconf run` sets it
// for every process it starts; without it, a suite takes the ID of the
// process that launched it (see Current).
const Env = "P2PCONF_RUN_ID"

// Current is this process's run ID: P2PCONF_RUN_ID, else one made from the
// host, the parent process's ID and the parent's start time. The suites of
// one `go tool ginkgo ./suites/...` or `go test ./suites/...` share their
// parent (the command that runs each suite binary) and so one run; a suite
// started again later, from another command, is another run.
func Current() string {
	if id := strings.TrimSpace(os.Getenv(Env)); id != "" {
		return id
	}
	host, _ := os.Hostname()
	ppid := os.Getppid()
	id := fmt.Sprintf("%s-ppid%d", host, ppid)
	if start := processStart(ppid); start != "" {
		id += "-" + start
	}
	return id
}

// processStart is the start time of process pid in clock ticks since boot
// (field 22 of /proc/PID/stat), "" where /proc cannot say: a PID is reused,
// the pair of PID and start time is not.
func processStart(pid int) string {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return ""
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return ""
	}
	fields := strings.Fields(s[i+1:])
	if len(fields) < 20 { // fields from 3 on; 22 is index 19
		return ""
	}
	return fields[19]
}
