// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package gpulock

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Lock files are 0644, so only the user who created one can write the
// record in it. A run of another user holds the flock through a read-only
// descriptor and records itself in a side file, <lock file>.<its uid>, that
// it owns. A refused run asks the kernel which process holds the flock
// (/proc/locks) and believes only a record that names that process: the
// lock file's, or the side record of the holder's user when that user owns
// it. No other local user can make a refused run name a made-up holder.

// sidePath is the side record of user uid for the lock file at path.
func sidePath(path string, uid int) string { return path + "." + strconv.Itoa(uid) }

// writeSideRecord records h in this user's side file of the lock file at
// path. A side file this user cannot write (another user planted it) is
// an error; the lock is held all the same.
func writeSideRecord(path string, h Holder) error {
	side := sidePath(path, os.Getuid())
	f, writable, err := openLockFile(side)
	if err != nil {
		return err
	}
	defer f.Close()
	if !writable || !ownedBy(f, os.Getuid()) {
		return fmt.Errorf("gpulock: %s belongs to another user", side)
	}
	return writeHolder(f, h)
}

// currentHolder names the process that holds the flock on f, the lock file
// at path, on this host. Where /proc/locks cannot name it (a PID namespace
// that hides the holder, a file system whose device numbers it writes
// otherwise) the lock file's record is all there is, and is returned as it
// is.
func currentHolder(f *os.File, path, host string) Holder {
	rec := readHolder(f)
	pid := flockHolder(f)
	if pid <= 0 || rec.PID == pid && rec.Host == host {
		return rec
	}
	if uid, ok := processUID(pid); ok {
		if side, ok := readSideRecord(sidePath(path, uid), uid); ok && side.PID == pid && side.Host == host {
			return side
		}
	}
	return Holder{PID: pid, Host: host, Command: processCommand(pid), Unrecorded: true}
}

// flockHolder is the PID that holds an flock on f's file, as /proc/locks
// lists it ("1: FLOCK ADVISORY WRITE <pid> <major>:<minor>:<inode> 0 EOF",
// device numbers in hex); 0 when it lists none, or none visible here.
func flockHolder(f *os.File) int {
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		return 0
	}
	dev := uint64(st.Dev) // not uint64 on every architecture
	major := (dev>>8)&0xfff | (dev>>32)&^uint64(0xfff)
	minor := dev&0xff | (dev>>12)&^uint64(0xff)
	want := fmt.Sprintf("%02x:%02x:%d", major, minor, st.Ino)
	b, err := os.ReadFile("/proc/locks")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		fs := strings.Fields(line)
		if len(fs) < 6 || fs[1] != "FLOCK" || fs[5] != want {
			continue // another kind of lock, a waiter ("->"), another file
		}
		if pid, err := strconv.Atoi(fs[4]); err == nil && pid > 0 {
			return pid
		}
	}
	return 0
}

// processUID is the user that owns process pid (the owner of /proc/<pid>).
func processUID(pid int) (int, bool) {
	fi, err := os.Stat("/proc/" + strconv.Itoa(pid))
	if err != nil {
		return 0, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// processCommand is process pid's command line, at most maxRecord bytes;
// "unknown" where /proc does not show it.
func processCommand(pid int) string {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, maxRecord))
	s := strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
	if s == "" {
		return "unknown"
	}
	return s
}

// readSideRecord reads the side record at side when it is a lock-file-like
// file (openLockFile's checks) that user uid owns.
func readSideRecord(side string, uid int) (Holder, bool) {
	f, err := os.OpenFile(side, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return Holder{}, false
	}
	defer f.Close()
	if checkLockFile(f) != nil || !ownedBy(f, uid) {
		return Holder{}, false
	}
	return readHolder(f), true
}

func ownedBy(f *os.File, uid int) bool {
	var st syscall.Stat_t
	return syscall.Fstat(int(f.Fd()), &st) == nil && int(st.Uid) == uid
}
