// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

//go:build unix

package report

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// lockWait bounds the wait for another process's lock: rendering takes
// seconds, so a lock held longer belongs to a process that is stuck, and a
// suite must not hang in its report behind it.
var lockWait = 2 * time.Minute

// lockDir takes an exclusive flock on the run folder's lock file, so two
// suite binaries finishing at once render the merged files one after the
// other, each from every per-suite file present. The kernel drops the lock
// if the process dies.
func lockDir(dir string) (unlock func(), err error) {
	path := filepath.Join(dir, lockFile)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("locking report folder: %w", err)
	}
	deadline := time.Now().Add(lockWait)
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil || (err != syscall.EWOULDBLOCK && err != syscall.EINTR) {
			break
		}
		if time.Now().After(deadline) {
			err = fmt.Errorf("another process has held %s for %s", path, lockWait)
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("locking report folder %s: %w", dir, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		_ = f.Close()
	}, nil
}
