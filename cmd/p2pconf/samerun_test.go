// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/p2pconf/p2pconf/harness/gpulock"
	"github.com/p2pconf/p2pconf/harness/machine"
)

// TestSuitesOfOneRunWaitForEachOther: with the locks on (P2PCONF_LOCK_DIR
// forces them on the fake), a suite process whose GPUs another process of
// its run holds waits and then runs, as the suites of one go test
// ./suites/... must on real GPUs; a suite of another run is refused at
// once, naming the holder.
func TestSuitesOfOneRunWaitForEachOther(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the health suite")
	}
	bin := healthSuite(t)
	locks := t.TempDir()
	t.Setenv("P2PCONF_BACKEND", "fake")
	t.Setenv("P2PCONF_FAKE", "h200x2")
	t.Setenv("P2PCONF_FAKE_STATE", t.TempDir())
	for _, k := range []string{"P2PCONF_GPUS", "P2PCONF_PAIRS", "P2PCONF_FAKE_DEFECTS", gpulock.EnvHeld, gpulock.EnvWait} {
		t.Setenv(k, "")
	}
	m, err := machine.OpenNew()
	if err != nil {
		t.Fatal(err)
	}
	var uuids []string
	for _, g := range m.AllGPUs() {
		uuids = append(uuids, g.Info.UUID)
	}
	_ = m.Backend.Close()

	suite := func(runID string) *exec.Cmd {
		cmd := exec.Command(bin, "--ginkgo.no-color")
		cmd.Dir = "../../suites/health"
		cmd.Env = append(os.Environ(), gpulock.EnvDir+"="+locks, "P2PCONF_RUN_ID="+runID, "P2PCONF_REPORT_DIR="+t.TempDir())
		return cmd
	}

	// Another run holds the GPUs: refused at once.
	held, err := gpulock.Acquire(context.Background(), uuids, gpulock.Options{Dir: locks, RunID: "run-one", Command: []string{"first suite"}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := suite("run-two").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "is in use by another p2pconf run") || !strings.Contains(string(out), "first suite") {
		t.Errorf("a suite of another run: %v\n%s", err, out)
	}

	// The same run holds them: the suite waits, then runs.
	// The GPUs are let go once the suite says it waits, however long it
	// took to start (a bounded wait for the line, not a time it must meet).
	cmd := suite("run-one")
	var buf lockedBuffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(5 * time.Minute); !strings.Contains(buf.String(), "is held by another process of this run"); {
		if time.Now().After(end) {
			held.Release()
			_ = cmd.Wait()
			t.Fatalf("the suite did not say it waited:\n%s", buf.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	held.Release()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("a suite of the same run: %v\n%s", err, buf.String())
	}
}

// lockedBuffer is a bytes.Buffer a child process writes while the test
// reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
