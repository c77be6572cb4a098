// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

//go:build unix

package report

import (
	"strings"
	"testing"
	"time"
)

func TestLockWaitIsBounded(t *testing.T) {
	dir := t.TempDir()
	unlock, err := lockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	old := lockWait
	lockWait = 200 * time.Millisecond
	defer func() { lockWait = old }()
	// flock locks belong to the open file description: a second open of the
	// lock file conflicts with the first, as another process's would.
	if _, err := lockDir(dir); err == nil || !strings.Contains(err.Error(), "another process has held") {
		t.Fatalf("second lock: %v", err)
	}
}
