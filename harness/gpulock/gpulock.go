// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package gpulock gives a run exclusive use of its GPUs. Leak and lifetime
// checks compare device-wide free memory with a baseline and bandwidth
// checks assume the links are idle, so two runs on one GPU would read each
// other's allocations and traffic as the GPU's own behaviour. A run
// therefore holds one lock per GPU, keyed by the GPU's UUID: an flock on
// <dir>/<uuid>.lock in a directory every user of the machine shares, with
// the holder's PID, host, start time and command line written in the file
// so that a refused run can name it. The file is 0644: another user's run
// locks it through a read-only descriptor and records itself beside it,
// and a refused run believes only the record of the process the kernel
// says holds the lock (owner.go).
//
// The kernel drops an flock when its process dies, so a holder that was
// killed never blocks the next run; the file it leaves behind only records
// who held it last. Locks are taken in sorted UUID order, so two runs
// asking for overlapping sets never deadlock. The lock file descriptors are
// close-on-exec: helper processes a suite starts do not inherit the lock
// and never take one themselves.
//
// An outer runner that holds the GPUs for several suite processes passes
// the lock down in P2PCONF_LOCK_HELD=<dir>:<pid>; a child accepts a GPU
// whose lock is held by <pid> when <pid> is one of its ancestors.
package gpulock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Environment variables that configure the lock.
const (
	// EnvDir is the lock directory (default: DefaultDir).
	EnvDir = "P2PCONF_LOCK_DIR"
	// EnvWait is how long a run waits for a busy GPU (a Go duration;
	// default 0: fail at once).
	EnvWait = "P2PCONF_LOCK_WAIT"
	// EnvHeld is "<dir>:<pid>": an ancestor process holds the locks.
	EnvHeld = "P2PCONF_LOCK_HELD"
)

// Candidate lock directories, in order of preference: /run/lock is shared
// by every process of the host more often than /dev/shm, which job
// schedulers and containers tend to make private.
var defaultDirs = []string{"/run/lock/p2pconf", "/dev/shm/p2pconf"}

// pollInterval is how often a waiting run retries a busy lock.
const pollInterval = 100 * time.Millisecond

// DefaultDir is the first candidate whose parent every user may write to
// (world-writable, as /run/lock is on most distributions and /dev/shm on
// all), or the last candidate. The choice depends on the machine only,
// never on the user, so every user's runs meet in the same directory.
func DefaultDir() string { return firstShared(defaultDirs) }

func firstShared(dirs []string) string {
	for _, d := range dirs {
		if fi, err := os.Stat(filepath.Dir(d)); err == nil && fi.IsDir() && fi.Mode().Perm()&0o002 != 0 {
			return d
		}
	}
	return dirs[len(dirs)-1]
}

// Lock is the set of per-GPU locks one process holds.
type Lock struct {
	dir   string
	files []*os.File // held flocks, in UUID order
	// inherited are the UUIDs an ancestor holds for this process.
	inherited []string
}

// BusyError says a GPU's lock is held by another run.
type BusyError struct {
	UUID   string
	Path   string
	Holder Holder // as the lock file records it (zero if unreadable)
	// Wait is how long the run was willing to wait (Options.Wait, or
	// Options.SameRunWait when SameRun).
	Wait time.Duration
	// SameRun: the holder belongs to this process's own run.
	SameRun bool
}

func (e *BusyError) Error() string {
	wait := "did not wait (set " + EnvWait + " to wait)"
	if e.Wait > 0 {
		wait = fmt.Sprintf("waited %s (%s)", e.Wait, EnvWait)
	}
	if e.SameRun {
		return fmt.Sprintf("GPU %s is still in use by another process of this run, %s; waited %s for it (lock %s)", e.UUID, e.Holder, e.Wait, e.Path)
	}
	return fmt.Sprintf("GPU %s is in use by another p2pconf run, %s; %s (lock %s)", e.UUID, e.Holder, wait, e.Path)
}

// Options are what Acquire needs besides the UUIDs.
type Options struct {
	Dir  string        // lock directory; DefaultDir when empty
	Wait time.Duration // how long to wait for a busy GPU; 0: not at all
	// Held is an EnvHeld value ("<dir>:<pid>"); empty when no ancestor
	// holds the locks.
	Held string
	// Command is written into the lock file; os.Args when empty.
	Command []string
	// RunID is the run this process belongs to, written into the lock
	// file. A GPU held by another process of the same run on this host
	// (the suites of one go test ./suites/... run at once) is waited for,
	// up to SameRunWait, instead of refused; a GPU another run holds is
	// refused at once (or after Wait).
	RunID       string
	SameRunWait time.Duration
	// Waiting, when set, is told once per GPU that this process waits for
	// another process of its run.
	Waiting func(uuid string, h Holder)
}

// DefaultSameRunWait bounds how long a suite waits for another suite of
// its own run: as long as p2pconf run lets a suite process run.
const DefaultSameRunWait = 2 * time.Hour

// OptionsFromEnv reads EnvDir, EnvWait and EnvHeld.
func OptionsFromEnv() (Options, error) {
	o := Options{Dir: os.Getenv(EnvDir), Held: os.Getenv(EnvHeld)}
	if v := os.Getenv(EnvWait); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return o, fmt.Errorf("gpulock: %s=%q: want a duration such as 30s or 10m", EnvWait, v)
		}
		o.Wait = d
	}
	return o, nil
}

// Acquire locks every GPU in uuids, in sorted order, waiting up to o.Wait
// for each busy one (the wait is shared: it bounds the whole call). On
// error it releases what it took and returns a *BusyError for a GPU held
// by another run.
func Acquire(ctx context.Context, uuids []string, o Options) (*Lock, error) {
	if o.Dir == "" {
		o.Dir = DefaultDir()
	}
	if err := ensureDir(o.Dir); err != nil {
		return nil, err
	}
	ancestor, err := heldBy(o.Held, o.Dir)
	if err != nil {
		return nil, err
	}
	cmd := o.Command
	if len(cmd) == 0 {
		cmd = os.Args
	}
	me := Self(cmd)
	me.Run = o.RunID
	l := &Lock{dir: o.Dir}
	w := waits{deadline: time.Now().Add(o.Wait), wait: o.Wait, sameRun: time.Now().Add(o.SameRunWait), sameRunWait: o.SameRunWait, notify: o.Waiting}
	for _, u := range sortedUnique(uuids) {
		if err := l.take(ctx, u, me, ancestor, w); err != nil {
			l.Release()
			return nil, err
		}
	}
	return l, nil
}

// waits are the bounds of one Acquire: how long to wait for another run
// (deadline, wait) and for a process of the same run (sameRun).
type waits struct {
	deadline, sameRun time.Time
	wait, sameRunWait time.Duration
	notify            func(uuid string, h Holder)
}

// take locks one GPU's file, retrying until deadline while another run
// holds it. A lock held by ancestor (an EnvHeld holder that is one of this
// process's ancestors) counts as this process's.
func (l *Lock) take(ctx context.Context, uuid string, me Holder, ancestor int, w waits) error {
	path := filepath.Join(l.dir, fileName(uuid))
	f, writable, err := openLockFile(path)
	if err != nil {
		return err
	}
	told := false
	for {
		// flock needs no write access: on Linux it locks a read-only
		// descriptor too, so another user's 0644 lock file excludes and
		// is excluded exactly as one's own.
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			me.Start = time.Now().UTC()
			if writable {
				if err := writeHolder(f, me); err != nil {
					_ = f.Close()
					return fmt.Errorf("gpulock: record the holder in %s: %w", path, err)
				}
			} else {
				// Another user's lock file: the record goes beside it.
				// Where it cannot (a file planted under this user's side
				// name), the lock still holds and a refused run names
				// this process from /proc instead (currentHolder).
				_ = writeSideRecord(path, me)
			}
			l.files = append(l.files, f)
			return nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			_ = f.Close()
			return fmt.Errorf("gpulock: flock %s: %w", path, err)
		}
		h := currentHolder(f, path, me.Host)
		if ancestor > 0 && h.PID == ancestor && h.Host == me.Host {
			_ = f.Close()
			l.inherited = append(l.inherited, uuid)
			return nil
		}
		until, willing := w.deadline, w.wait
		sameRun := me.Run != "" && h.Run == me.Run && h.Host == me.Host
		if sameRun && w.sameRun.After(until) {
			until, willing = w.sameRun, w.sameRunWait
			if !told && w.notify != nil {
				w.notify(uuid, h)
			}
			told = true
		}
		if !time.Now().Before(until) {
			_ = f.Close()
			return &BusyError{UUID: uuid, Path: path, Holder: h, Wait: willing, SameRun: sameRun && w.sameRunWait > 0}
		}
		select {
		case <-ctx.Done():
			_ = f.Close()
			return fmt.Errorf("gpulock: waiting for GPU %s (%s): %w", uuid, h, ctx.Err())
		case <-time.After(min(pollInterval, time.Until(until))):
		}
	}
}

// Release drops every lock this process holds (closing the file drops the
// flock; the file stays, recording the last holder). Locks an ancestor
// holds are not touched. Calling it twice is harmless.
func (l *Lock) Release() {
	if l == nil {
		return
	}
	for _, f := range l.files {
		_ = f.Close()
	}
	l.files = nil
}

// Dir is the lock directory.
func (l *Lock) Dir() string { return l.dir }

// Held lists the UUIDs this process locked itself.
func (l *Lock) Held() []string {
	var out []string
	for _, f := range l.files {
		out = append(out, strings.TrimSuffix(filepath.Base(f.Name()), ".lock"))
	}
	return out
}

// Inherited lists the UUIDs an ancestor holds for this process.
func (l *Lock) Inherited() []string { return append([]string(nil), l.inherited...) }

// HeldEnv is the EnvHeld assignment that hands this process's locks down
// to its child processes ("P2PCONF_LOCK_HELD=<dir>:<pid>").
func (l *Lock) HeldEnv() string { return fmt.Sprintf("%s=%s:%d", EnvHeld, l.dir, os.Getpid()) }

// heldBy parses an EnvHeld value and returns the holder PID when it is an
// ancestor of this process and names the same directory; 0 when held is
// empty. A value naming another directory or a process that is not an
// ancestor is ignored (the child then locks for itself, and finds the GPUs
// busy if someone else holds them); a malformed value is an error.
func heldBy(held, dir string) (int, error) {
	if held == "" {
		return 0, nil
	}
	d, p, ok := strings.Cut(held, ":")
	var pid int
	if _, err := fmt.Sscanf(p, "%d", &pid); !ok || err != nil || pid <= 0 || d == "" {
		return 0, fmt.Errorf("gpulock: %s=%q: want <dir>:<pid>", EnvHeld, held)
	}
	if filepath.Clean(d) != filepath.Clean(dir) || !isAncestor(pid) {
		return 0, nil
	}
	return pid, nil
}

// isAncestor reports whether pid is this process's parent, grandparent, ...
func isAncestor(pid int) bool {
	for p, n := os.Getppid(), 0; p > 0 && n < 64; n++ {
		if p == pid {
			return true
		}
		if p == 1 {
			break
		}
		p = parentOf(p)
	}
	return false
}

// parentOf reads the parent PID of pid from /proc/<pid>/stat; 0 if it
// cannot. The command name (field 2) may hold spaces and parentheses, so
// the fields are read after its last ')'.
func parentOf(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	var state string
	var ppid int
	if _, err := fmt.Sscanf(s[i+1:], " %s %d", &state, &ppid); err != nil {
		return 0
	}
	return ppid
}

// fileName is the lock file of a GPU: its UUID with any path separator
// replaced, plus ".lock".
func fileName(uuid string) string {
	return strings.NewReplacer("/", "_", "\x00", "_").Replace(uuid) + ".lock"
}

func sortedUnique(uuids []string) []string {
	s := slices.Clone(uuids)
	slices.Sort(s)
	return slices.Compact(s)
}

// ensureDir creates dir shared by every user: world-writable with the
// sticky bit, so any user may create a lock file and none may delete
// another's. An existing directory is used as it is.
func ensureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("gpulock: create the lock directory %s (%s): %w", dir, EnvDir, err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("gpulock: lock directory %s: %w", dir, err)
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		// In a world-writable parent anyone can plant the link, and the
		// lock files would be made wherever it points.
		return fmt.Errorf("gpulock: lock directory %s is a symbolic link; set %s to the directory itself", dir, EnvDir)
	}
	if !fi.IsDir() {
		return fmt.Errorf("gpulock: lock directory %s is not a directory", dir)
	}
	const shared = os.ModeSticky | 0o777
	if fi.Mode()&shared != shared {
		// Only the owner can change it; another user's directory without
		// the bits still works for its owner, and the error below says
		// why it does not for others.
		_ = os.Chmod(dir, shared|os.ModeDir)
	}
	return nil
}

// openLockFile opens path for locking, creating it if needed, and says
// whether the descriptor may write the holder record. The directory is
// world-writable, so what is at path may have been put there by anyone: it
// never follows a symbolic link (O_NOFOLLOW), never blocks on a FIFO
// (O_NONBLOCK), and accepts only a regular file with one link and no more
// than a holder record in it, so that writing the record (which truncates
// the file) can never cut another file. An existing file is opened without
// O_CREAT first: with fs.protected_regular, O_CREAT on another user's file
// in a sticky world-writable directory is refused even when the file exists.
//
// A lock file is created 0644: only its creator can rewrite the record in
// it, so no other local user can make a refused run name a made-up holder.
// Another user's run opens it read-only (flock works on that descriptor)
// and records itself in a file of its own beside it (writeSideRecord).
func openLockFile(path string) (f *os.File, writable bool, err error) {
	const flags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
	for range 3 {
		f, err := os.OpenFile(path, os.O_RDWR|flags, 0)
		writable := true
		if errors.Is(err, os.ErrPermission) {
			f, err = os.OpenFile(path, os.O_RDONLY|flags, 0)
			writable = false
		}
		if err == nil {
			if err := checkLockFile(f); err != nil {
				_ = f.Close()
				return nil, false, fmt.Errorf("gpulock: %s: %w; remove it, or set %s to a directory of your own", path, err, EnvDir)
			}
			return f, writable, nil
		}
		switch {
		case errors.Is(err, syscall.ELOOP):
			return nil, false, fmt.Errorf("gpulock: %s is a symbolic link, not a lock file: someone put it there; remove it, or set %s to a directory of your own", path, EnvDir)
		case errors.Is(err, syscall.EISDIR):
			return nil, false, fmt.Errorf("gpulock: %s is a directory, not a lock file; remove it, or set %s to a directory of your own", path, EnvDir)
		case !errors.Is(err, os.ErrNotExist):
			return nil, false, fmt.Errorf("gpulock: open %s: %w (every user of the GPUs needs read access to it; see %s)", path, err, EnvDir)
		}
		f, err = os.OpenFile(path, os.O_RDWR|flags|os.O_CREATE|os.O_EXCL, lockFileMode)
		if err == nil {
			// The umask may have narrowed the mode; other users must be
			// able to open the file (read-only) to lock it.
			_ = f.Chmod(lockFileMode)
			return f, true, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, false, fmt.Errorf("gpulock: create %s: %w", path, err)
		}
	}
	return nil, false, fmt.Errorf("gpulock: open %s: it keeps appearing and disappearing", path)
}

// lockFileMode is the mode of lock files and side records: every user reads
// them (and so can lock a lock file), only the creator writes.
const lockFileMode = 0o644

// checkLockFile accepts what a lock file is: a regular file with one link
// (a hard link to another file would make its record overwrite that file)
// holding at most a record.
func checkLockFile(f *os.File) error {
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		return err
	}
	switch {
	case st.Mode&syscall.S_IFMT != syscall.S_IFREG:
		return errors.New("not a regular file (a FIFO, device or socket)")
	case st.Nlink != 1:
		return fmt.Errorf("a file with %d hard links, not a lock file", st.Nlink)
	case st.Size > maxRecord:
		return fmt.Errorf("%d bytes, more than a holder record (at most %d): not a lock file", st.Size, maxRecord)
	}
	return nil
}
