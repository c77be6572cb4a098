// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package gpulock

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestSameRunWaitsAnotherRunIsRefused: the suites of one run (one go test
// ./suites/...) wait for each other's GPUs; another run is refused at once.
func TestSameRunWaitsAnotherRunIsRefused(t *testing.T) {
	dir := t.TempDir()
	h := startHolder(t, dir, gpus, envRun+"=run-A")

	// The holder keeps its GPUs until the test lets it go: a refusal that
	// comes back at all did not wait for them.
	_, err := Acquire(context.Background(), gpus, Options{Dir: dir, RunID: "run-B", SameRunWait: time.Minute})
	var busy *BusyError
	if !errors.As(err, &busy) || busy.SameRun {
		t.Fatalf("another run: %v, want refused at once", err)
	}
	if !strings.Contains(err.Error(), "run run-A") {
		t.Errorf("the refusal %q does not name the holder's run", err)
	}

	_, err = Acquire(context.Background(), gpus, Options{Dir: dir, RunID: "run-A", SameRunWait: 200 * time.Millisecond})
	if !errors.As(err, &busy) || !busy.SameRun || !strings.Contains(err.Error(), "another process of this run") {
		t.Fatalf("the same run, waiting 200ms: %v, want a same-run busy error", err)
	}

	// The holder lets its GPUs go once this process says it waits for them.
	told := 0
	var released atomic.Bool
	l, err := Acquire(context.Background(), gpus, Options{Dir: dir, RunID: "run-A", SameRunWait: 2 * time.Minute,
		Waiting: func(string, Holder) {
			told++
			released.Store(true)
			_ = h.stdin.Close()
		}})
	if err != nil {
		t.Fatalf("the same run: %v, want the GPUs once the other process let them go", err)
	}
	defer l.Release()
	if !released.Load() {
		t.Errorf("got the GPUs before the holder let them go")
	}
	if told != 1 {
		t.Errorf("told %d times of the wait, want once (for the first GPU; the second was free by then)", told)
	}
}

// TestPlantedFilesAreRefused: what anyone may put in the shared directory
// under a GPU's lock name (a link to another file, a FIFO, a directory, a
// hard link, a large file) is refused, and the file it leads to is left as
// it was.
func TestPlantedFilesAreRefused(t *testing.T) {
	victim := filepath.Join(t.TempDir(), "victim")
	const content = "a file that must survive\n"
	big := strings.Repeat("x", 2*maxRecord)
	for _, tc := range []struct {
		name, want string
		plant      func(path string) error
	}{
		{"symlink", "is a symbolic link", func(p string) error { return os.Symlink(victim, p) }},
		{"fifo", "not a regular file", func(p string) error { return syscall.Mkfifo(p, 0o666) }},
		{"directory", "is a directory", func(p string) error { return os.Mkdir(p, 0o755) }},
		{"hard link", "2 hard links", func(p string) error { return os.Link(victim, p) }},
		{"oversized record", "more than a holder record", func(p string) error { return os.WriteFile(p, []byte(big), 0o666) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(victim, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			path := filepath.Join(dir, fileName("GPU-aaaa"))
			if err := tc.plant(path); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				l, err := Acquire(context.Background(), []string{"GPU-aaaa"}, Options{Dir: dir})
				l.Release()
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("error %v, want one saying %q", err, tc.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Acquire hung on the planted file")
			}
			if b, _ := os.ReadFile(victim); string(b) != content {
				t.Errorf("the victim file now holds %q", b)
			}
			if tc.name == "oversized record" {
				if b, _ := os.ReadFile(path); string(b) != big {
					t.Errorf("the oversized file was changed (%d bytes)", len(b))
				}
			}
		})
	}
}

// TestPlantedSymlinkedDirectoryIsRefused: the lock directory itself may be
// a link someone planted in the world-writable parent.
func TestPlantedSymlinkedDirectoryIsRefused(t *testing.T) {
	target, parent := t.TempDir(), t.TempDir()
	link := filepath.Join(parent, "p2pconf")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Acquire(context.Background(), gpus, Options{Dir: link}); err == nil || !strings.Contains(err.Error(), "is a symbolic link") {
		t.Fatalf("a symlinked lock directory: %v", err)
	}
	if ents, _ := os.ReadDir(target); len(ents) != 0 {
		t.Errorf("lock files were made where the link points: %v", ents)
	}
}

// TestHolderRecordIsEscapedAndBounded: a record with terminal control
// characters prints them escaped, and a record is never more than
// maxRecord bytes, written or read.
func TestHolderRecordIsEscapedAndBounded(t *testing.T) {
	dir := t.TempDir()
	h := startHolder(t, dir, gpus[:1], envCmd+"=evil\x1b[2J\x07 command")
	_, err := Acquire(context.Background(), gpus[:1], Options{Dir: dir})
	if err == nil {
		t.Fatal("got a held GPU")
	}
	msg := err.Error()
	if strings.ContainsAny(msg, "\x1b\x07") || !strings.Contains(msg, `evil\x1b[2J\a command`) {
		t.Errorf("the holder is printed as %q, want its control characters escaped", msg)
	}
	h.stop(t)

	long := Holder{PID: 1, Host: "h", Start: time.Now(), Command: strings.Repeat("y", 3*maxRecord)}
	if n := len(long.encode()); n > maxRecord {
		t.Errorf("a record of %d bytes was written, more than %d", n, maxRecord)
	}
	path := filepath.Join(t.TempDir(), "record")
	if err := os.WriteFile(path, []byte("pid=7\ncommand="+strings.Repeat("z", 3*maxRecord)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := readHolder(f)
	if got.PID != 7 || !got.Truncated || len(got.Command) >= maxRecord || !strings.Contains(got.String(), "the rest was not read") {
		t.Errorf("an oversized record read back as pid %d, truncated %v, %d command bytes", got.PID, got.Truncated, len(got.Command))
	}
	if s := escape("a\xffb\x00"); s != `a\xffb\x00` {
		t.Errorf("escape: %q", s)
	}
}
