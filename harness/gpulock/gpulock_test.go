// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package gpulock

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as a second run: with envRole set it takes the
// locks named in envArg, says "held" (or the error) on stdout and keeps
// them until its stdin closes.
const (
	envRole = "GPULOCK_TEST_ROLE"
	envArg  = "GPULOCK_TEST_UUIDS"
	envDir  = "GPULOCK_TEST_DIR"
	envRun  = "GPULOCK_TEST_RUN"
	envCmd  = "GPULOCK_TEST_COMMAND"
)

func TestMain(m *testing.M) {
	if os.Getenv(envRole) == "hold" {
		os.Exit(holdRole())
	}
	os.Exit(m.Run())
}

func holdRole() int {
	o, err := OptionsFromEnv()
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	o.Dir = os.Getenv(envDir)
	o.RunID = os.Getenv(envRun)
	if c := os.Getenv(envCmd); c != "" {
		o.Command = []string{c}
	}
	l, err := Acquire(context.Background(), strings.Split(os.Getenv(envArg), ","), o)
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	fmt.Printf("held %s inherited %s\n", strings.Join(l.Held(), ","), strings.Join(l.Inherited(), ","))
	_, _ = io.Copy(io.Discard, os.Stdin)
	l.Release()
	return 0
}

// holder is a second process holding locks until stop is called.
type holder struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	line  string // its first line of output
}

func startHolder(t *testing.T, dir string, uuids []string, env ...string) *holder {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envRole+"=hold", envArg+"="+strings.Join(uuids, ","), envDir+"="+dir)
	cmd.Env = append(cmd.Env, env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &holder{cmd: cmd, stdin: stdin}
	t.Cleanup(func() { _ = stdin.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("holder process said nothing: %v", err)
	}
	h.line = strings.TrimSpace(line)
	return h
}

func (h *holder) stop(t *testing.T) {
	t.Helper()
	_ = h.stdin.Close()
	if err := h.cmd.Wait(); err != nil {
		t.Fatalf("holder process: %v", err)
	}
}

var gpus = []string{"GPU-bbbb", "GPU-aaaa"}

func TestSecondRunFailsFastNamingTheHolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "locks")
	h := startHolder(t, dir, gpus)
	if !strings.HasPrefix(h.line, "held GPU-aaaa,GPU-bbbb") {
		t.Fatalf("holder: %q, want both GPUs held in sorted order", h.line)
	}
	// The holder keeps its GPUs until the test ends: a refusal that comes
	// back at all did not wait for them.
	l, err := Acquire(context.Background(), []string{"GPU-aaaa"}, Options{Dir: dir, Command: []string{"second"}})
	if err == nil {
		l.Release()
		t.Fatal("a second run got a GPU another process holds")
	}
	var busy *BusyError
	if !errors.As(err, &busy) {
		t.Fatalf("error %v, want a *BusyError", err)
	}
	if busy.Holder.PID != h.cmd.Process.Pid || busy.UUID != "GPU-aaaa" {
		t.Errorf("busy error names pid %d GPU %s, want pid %d GPU-aaaa", busy.Holder.PID, busy.UUID, h.cmd.Process.Pid)
	}
	host, _ := os.Hostname()
	for _, want := range []string{fmt.Sprintf("pid %d", h.cmd.Process.Pid), "host " + host, "holding since", "command: " + os.Args[0], "did not wait (set " + EnvWait} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	// A disjoint GPU is free: concurrent runs on disjoint GPUs work.
	l, err = Acquire(context.Background(), []string{"GPU-cccc"}, Options{Dir: dir})
	if err != nil {
		t.Fatalf("a GPU nobody holds: %v", err)
	}
	l.Release()
}

func TestSecondRunWaitsForTheFirst(t *testing.T) {
	dir := t.TempDir()
	h := startHolder(t, dir, gpus)
	var released atomic.Bool
	go func() {
		time.Sleep(300 * time.Millisecond)
		released.Store(true)
		_ = h.stdin.Close()
	}()
	l, err := Acquire(context.Background(), gpus, Options{Dir: dir, Wait: 2 * time.Minute})
	if err != nil {
		t.Fatalf("waiting for the holder to exit: %v", err)
	}
	defer l.Release()
	if !released.Load() {
		t.Errorf("got the lock before the holder let it go")
	}
	if got := strings.Join(l.Held(), ","); got != "GPU-aaaa,GPU-bbbb" {
		t.Errorf("held %q", got)
	}
	b, err := os.ReadFile(filepath.Join(dir, "GPU-aaaa.lock"))
	if err != nil || decodeHolder(string(b)).PID != os.Getpid() {
		t.Errorf("lock file after taking it: %q (%v), want this process (pid %d) recorded", b, err, os.Getpid())
	}
}

func TestWaitRunsOut(t *testing.T) {
	dir := t.TempDir()
	h := startHolder(t, dir, gpus)
	_, err := Acquire(context.Background(), gpus, Options{Dir: dir, Wait: 300 * time.Millisecond})
	var busy *BusyError
	if !errors.As(err, &busy) || busy.Wait != 300*time.Millisecond || !strings.Contains(err.Error(), "waited 300ms") {
		t.Fatalf("error %v, want a busy error after waiting 300ms", err)
	}
	h.stop(t)
}

func TestDeadHolderDoesNotBlock(t *testing.T) {
	dir := t.TempDir()
	h := startHolder(t, dir, gpus)
	if err := h.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = h.cmd.Wait()
	b, err := os.ReadFile(filepath.Join(dir, "GPU-aaaa.lock"))
	if err != nil || decodeHolder(string(b)).PID != h.cmd.Process.Pid {
		t.Fatalf("the killed holder's file: %q (%v)", b, err)
	}
	l, err := Acquire(context.Background(), gpus, Options{Dir: dir})
	if err != nil {
		t.Fatalf("a killed holder's stale file blocked the next run: %v", err)
	}
	l.Release()
}

func TestAncestorHandsTheLockDown(t *testing.T) {
	dir := t.TempDir()
	l, err := Acquire(context.Background(), gpus, Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	_, token, _ := strings.Cut(l.HeldEnv(), "=")
	if want := fmt.Sprintf("%s:%d", dir, os.Getpid()); token != want {
		t.Fatalf("HeldEnv %q, want %s=%s", l.HeldEnv(), EnvHeld, want)
	}
	child := startHolder(t, dir, gpus[:1], l.HeldEnv())
	if child.line != "held  inherited GPU-bbbb" {
		t.Errorf("child of the holder: %q, want GPU-bbbb inherited", child.line)
	}
	child.stop(t)

	// A token naming a process that is not an ancestor is no pass.
	child = startHolder(t, dir, gpus[:1], fmt.Sprintf("%s=%s:%d", EnvHeld, dir, os.Getpid()+100000))
	if !strings.HasPrefix(child.line, "error: GPU GPU-bbbb is in use") || !strings.Contains(child.line, fmt.Sprintf("pid %d", os.Getpid())) {
		t.Errorf("child with a stranger's token: %q, want busy naming pid %d", child.line, os.Getpid())
	}
	// A token for another directory does not count either.
	child = startHolder(t, dir, gpus[:1], fmt.Sprintf("%s=%s:%d", EnvHeld, t.TempDir(), os.Getpid()))
	if !strings.HasPrefix(child.line, "error: GPU GPU-bbbb is in use") {
		t.Errorf("child with another directory's token: %q", child.line)
	}
}

func TestLockDirectoryIsSharedAndSticky(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "locks")
	l, err := Acquire(context.Background(), gpus, Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	l.Release()
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m := fi.Mode(); m&os.ModeSticky == 0 || m.Perm() != 0o777 {
		t.Errorf("lock directory mode %v, want world-writable with the sticky bit", m)
	}
	fi, err = os.Stat(filepath.Join(dir, "GPU-aaaa.lock"))
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("lock file: %v, %v; want mode 0644: others read (and lock), only the creator writes the record", fi, err)
	}
}

// TestLockFileModeDespiteUmask: a umask that would hide the file from other
// users does not; a umask that would let them write it does not either.
func TestLockFileModeDespiteUmask(t *testing.T) {
	for _, mask := range []int{0o077, 0o000} {
		dir := t.TempDir()
		old := syscall.Umask(mask)
		l, err := Acquire(context.Background(), []string{"GPU-aaaa"}, Options{Dir: dir})
		syscall.Umask(old)
		if err != nil {
			t.Fatal(err)
		}
		l.Release()
		fi, err := os.Stat(filepath.Join(dir, "GPU-aaaa.lock"))
		if err != nil || fi.Mode().Perm() != 0o644 {
			t.Errorf("umask %03o: lock file %v, %v; want mode 0644", mask, fi, err)
		}
	}
}

// TestReadOnlyHolderIsNamedByTheKernel plays another user's run in this
// process: it holds the flock through a read-only descriptor (as a user who
// cannot write the 0644 file does) while the file's record names a process
// that does not hold it. A second Acquire is refused and names the real
// holder (this process, from /proc/locks), not the record; once the holder
// writes its side record, the refusal names that record.
func TestReadOnlyHolderIsNamedByTheKernel(t *testing.T) {
	dir := t.TempDir()
	l, err := Acquire(context.Background(), []string{"GPU-aaaa"}, Options{Dir: dir, Command: []string{"first"}})
	if err != nil {
		t.Fatal(err)
	}
	l.Release()
	path := filepath.Join(dir, "GPU-aaaa.lock")
	forged := Holder{PID: 999999999, Host: "elsewhere", Command: "made up"}
	if err := os.WriteFile(path, []byte(forged.encode()), 0o644); err != nil {
		t.Fatal(err)
	}
	ro, err := os.OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if err := syscall.Flock(int(ro.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatalf("flock on a read-only descriptor: %v", err)
	}
	busyHolder := func() Holder {
		t.Helper()
		l, err := Acquire(context.Background(), []string{"GPU-aaaa"}, Options{Dir: dir, Command: []string{"second"}})
		var busy *BusyError
		if !errors.As(err, &busy) {
			l.Release()
			t.Fatalf("a GPU held through a read-only descriptor: %v, want a *BusyError", err)
		}
		return busy.Holder
	}
	host, _ := os.Hostname()
	h := busyHolder()
	if h.PID != os.Getpid() || !h.Unrecorded || h.Host != host || !strings.Contains(h.String(), "the kernel names it") {
		t.Errorf("holder %+v (%s), want this process (pid %d) as the kernel names it", h, h, os.Getpid())
	}
	me := Self([]string{"side", "record"})
	me.Run = "run-1"
	if err := writeSideRecord(path, me); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(sidePath(path, os.Getuid()))
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("side record %v, %v; want mode 0644", fi, err)
	}
	if h := busyHolder(); h.PID != os.Getpid() || h.Unrecorded || h.Run != "run-1" || h.Command != "side record" {
		t.Errorf("holder %+v, want the side record of pid %d", h, os.Getpid())
	}
	// A side record that names another PID is not believed.
	other := me
	other.PID = 999999998
	if err := writeSideRecord(path, other); err != nil {
		t.Fatal(err)
	}
	if h := busyHolder(); h.PID != os.Getpid() || !h.Unrecorded {
		t.Errorf("holder %+v, want this process as the kernel names it, not the side record's pid", h)
	}
}

func TestOptionsFromEnv(t *testing.T) {
	t.Setenv(EnvDir, "/x")
	t.Setenv(EnvWait, "1m30s")
	t.Setenv(EnvHeld, "/x:12")
	o, err := OptionsFromEnv()
	if err != nil || o.Dir != "/x" || o.Wait != 90*time.Second || o.Held != "/x:12" {
		t.Errorf("OptionsFromEnv: %+v, %v", o, err)
	}
	for _, bad := range []string{"soon", "-1s"} {
		t.Setenv(EnvWait, bad)
		if _, err := OptionsFromEnv(); err == nil || !strings.Contains(err.Error(), EnvWait) {
			t.Errorf("%s=%s: error %v, want one naming the variable", EnvWait, bad, err)
		}
	}
	if _, err := heldBy("no-pid", "/x"); err == nil {
		t.Error("a malformed held token was accepted")
	}
}

func TestHolderRoundTrip(t *testing.T) {
	h := Holder{PID: 42, Host: "node1", Start: time.Date(2026, 12, 1, 2, 3, 4, 5, time.UTC), Command: "a.test -x=1\nsecond line"}
	got := decodeHolder(h.encode())
	if got.PID != 42 || got.Host != "node1" || !got.Start.Equal(h.Start) || got.Command != "a.test -x=1 second line" {
		t.Errorf("round trip: %+v", got)
	}
	if s := (Holder{}).String(); !strings.Contains(s, "not recorded") {
		t.Errorf("empty holder: %q", s)
	}
}

func TestDefaultDirIsTheFirstWhoseParentAllWrite(t *testing.T) {
	private, shared := t.TempDir(), t.TempDir()
	if err := os.Chmod(private, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o1777); err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(private, "p2pconf"), filepath.Join(shared, "p2pconf")
	if got := firstShared([]string{a, b}); got != b {
		t.Errorf("firstShared picked %s, want %s: %s's parent is not world-writable", got, b, a)
	}
	if got := firstShared([]string{b, a}); got != b {
		t.Errorf("firstShared picked %s, want the first, %s", got, b)
	}
	if got := firstShared([]string{a, filepath.Join(private, "x", "p2pconf")}); got != filepath.Join(private, "x", "p2pconf") {
		t.Errorf("with no shared parent firstShared picked %s, want the last candidate", got)
	}
}
