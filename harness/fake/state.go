// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// EnvState names the directory holding the fake machine's shared state. Open
// creates a private one and sets the variable when it is unset, so helper
// processes started afterwards (which inherit the environment) share it.
const EnvState = "P2PCONF_FAKE_STATE"

// Environment variables the harness reads to open the fake (documented here
// so that tools such as cmd/mutation set the same names).
const (
	EnvPreset  = "P2PCONF_FAKE"
	EnvDefects = "P2PCONF_FAKE_DEFECTS"
)

// stateDir is the shared directory: mem/ holds one file per device
// allocation, ev/ one file per interprocess event, slots/ the address-space
// slot locks.
type stateDir struct {
	root    string
	created bool // this process made it and removes it on Close
}

func openStateDir(dir string) (*stateDir, error) {
	s := &stateDir{root: dir}
	if s.root == "" {
		s.root = os.Getenv(EnvState)
	}
	if s.root == "" {
		d, err := os.MkdirTemp("", "p2pconf-fake-")
		if err != nil {
			return nil, fmt.Errorf("fake: state directory: %w", err)
		}
		s.root, s.created = d, true
		if err := os.Setenv(EnvState, d); err != nil {
			return nil, err
		}
	}
	for _, sub := range []string{"mem", "ev", "slots"} {
		if err := os.MkdirAll(filepath.Join(s.root, sub), 0o700); err != nil {
			return nil, fmt.Errorf("fake: state directory %s: %w", s.root, err)
		}
	}
	return s, nil
}

func (s *stateDir) close() {
	if s.created {
		_ = os.RemoveAll(s.root)
		if os.Getenv(EnvState) == s.root {
			_ = os.Unsetenv(EnvState)
		}
	}
}

func randomID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func randomUint64() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:])
}

// memName is the file name of an allocation: "d<phys>-<kind>-<id>", kind
// 'm' for cuMemAlloc and 'v' for cuMemCreate.
func memName(phys int, kind byte, id string) string {
	return fmt.Sprintf("d%d-%c-%s", phys, kind, id)
}

func parseMemName(name string) (phys int, kind byte, id string, ok bool) {
	parts := strings.Split(name, "-")
	if len(parts) != 3 || len(parts[0]) < 2 || parts[0][0] != 'd' || len(parts[1]) != 1 || len(parts[2]) != 16 {
		return 0, 0, "", false
	}
	n, err := strconv.Atoi(parts[0][1:])
	if err != nil || n < 0 {
		return 0, 0, "", false
	}
	return n, parts[1][0], parts[2], true
}

// highFD is where the fake keeps its own descriptors, out of the way of the
// small numbers a test passes around, so an exporter's descriptor number is
// unlikely to name one of the importer's allocation files by chance.
const highFD = 512

func moveHigh(fd int) int {
	nfd, err := fcntlDupCloexec(fd, highFD)
	if err != nil {
		return fd
	}
	_ = syscall.Close(fd)
	return nfd
}

func fcntlDupCloexec(fd, min int) (int, error) {
	r, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_DUPFD_CLOEXEC, uintptr(min))
	if e != 0 {
		return -1, e
	}
	return int(r), nil
}

// createMemFile makes the backing file of a new allocation, already holding
// the shared lock that marks it live, and only then gives it its name, so
// MemInfo never sees an unlocked live file.
func (s *stateDir) createMemFile(name string, size uint64) (int, error) {
	tmp := filepath.Join(s.root, "mem", "tmp-"+randomID())
	fd, err := syscall.Open(tmp, syscall.O_RDWR|syscall.O_CREAT|syscall.O_EXCL|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return -1, err
	}
	fd = moveHigh(fd)
	fail := func(err error) (int, error) {
		_ = syscall.Unlink(tmp)
		_ = syscall.Close(fd)
		return -1, err
	}
	if err := syscall.Flock(fd, syscall.LOCK_SH); err != nil {
		return fail(err)
	}
	if err := syscall.Fallocate(fd, 0, 0, int64(size)); err != nil {
		if errors.Is(err, syscall.ENOSPC) {
			return fail(err)
		}
		if err := syscall.Ftruncate(fd, int64(size)); err != nil {
			return fail(err)
		}
	}
	if err := syscall.Rename(tmp, filepath.Join(s.root, "mem", name)); err != nil {
		return fail(err)
	}
	return fd, nil
}

// openMemFile opens an existing allocation file by path and takes the shared
// lock. ENOENT means the allocation is gone.
func openMemFile(path string) (int, error) {
	fd, err := syscall.Open(path, syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	fd = moveHigh(fd)
	if err := syscall.Flock(fd, syscall.LOCK_SH); err != nil {
		_ = syscall.Close(fd)
		return -1, err
	}
	return fd, nil
}

// reap removes the file at path if no process holds it any more (nobody
// has a shared lock), and reports whether it is still live.
func reap(path string) (live bool, size int64) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return false, 0
	}
	defer syscall.Close(fd)
	if err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB); err == nil {
		_ = syscall.Unlink(path)
		return false, 0
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return true, 0
	}
	return true, st.Size
}

// usedBytes sums the live allocation files of physical device phys across
// every process sharing the directory, reaping dead ones.
func (s *stateDir) usedBytes(phys int) (uint64, error) {
	dir := filepath.Join(s.root, "mem")
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return 0, fmt.Errorf("the state directory %s was removed while the fake machine was running", s.root)
	}
	if err != nil {
		return 0, err
	}
	var used uint64
	for _, e := range ents {
		p, _, _, ok := parseMemName(e.Name())
		if !ok || p != phys {
			continue
		}
		if live, size := reap(filepath.Join(dir, e.Name())); live {
			used += uint64(size)
		}
	}
	return used, nil
}

// slot claims a slot of the fake address space: a lock file per slot, held
// (exclusively, close-on-exec) for the life of the backend, so two live
// processes never share one and a dead process's slot is free again.
func (s *stateDir) slot() (int, int, error) {
	for try := 0; try < 4*addrSlots; try++ {
		n := int(randomUint64() % addrSlots)
		path := filepath.Join(s.root, "slots", strconv.Itoa(n))
		fd, err := syscall.Open(path, syscall.O_RDWR|syscall.O_CREAT|syscall.O_CLOEXEC, 0o600)
		if err != nil {
			return 0, -1, err
		}
		fd = moveHigh(fd)
		if syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			return n, fd, nil
		}
		_ = syscall.Close(fd)
	}
	return 0, -1, errors.New("fake: no free address-space slot")
}
