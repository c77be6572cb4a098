// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/p2pconf/p2pconf/harness/gpulock"
)

// p2pconf run holds the run's GPUs for the whole run: while it does, a
// second run's lock is refused naming this process, the hand-down variable
// is set for the suite processes it starts, and releasing ends both.
func TestRunHoldsTheGPUsForTheWholeRun(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("P2PCONF_BACKEND", "fake")
	t.Setenv("P2PCONF_FAKE", "h200x2")
	t.Setenv("P2PCONF_FAKE_STATE", t.TempDir())
	t.Setenv(gpulock.EnvDir, dir)
	t.Setenv(gpulock.EnvHeld, "")
	os.Unsetenv(gpulock.EnvHeld)
	release, err := holdGPUs(io.Discard)
	if err != nil {
		t.Fatalf("holdGPUs: %v", err)
	}
	held := os.Getenv(gpulock.EnvHeld)
	if !strings.HasPrefix(held, dir+":") {
		t.Errorf("%s=%q while the run holds its GPUs, want %s:<pid>", gpulock.EnvHeld, held, dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 2 {
		t.Fatalf("lock folder holds %d entries (%v), want one lock per GPU of h200x2", len(entries), err)
	}
	uuid := strings.TrimSuffix(entries[0].Name(), ".lock")
	_, err = gpulock.Acquire(context.Background(), []string{uuid}, gpulock.Options{Dir: dir})
	var busy *gpulock.BusyError
	if !errors.As(err, &busy) || busy.Holder.PID != os.Getpid() {
		t.Errorf("a second run's lock of %s while the run holds it: %v, want busy naming pid %d", uuid, err, os.Getpid())
	}
	release()
	if v, ok := os.LookupEnv(gpulock.EnvHeld); ok {
		t.Errorf("%s=%q after the run released its GPUs", gpulock.EnvHeld, v)
	}
	l, err := gpulock.Acquire(context.Background(), []string{uuid}, gpulock.Options{Dir: dir})
	if err != nil {
		t.Fatalf("lock after the run released it: %v", err)
	}
	l.Release()
}
