// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
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
	start := time.Now()
	out, err := suite("run-two").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "is in use by another p2pconf run") || !strings.Contains(string(out), "first suite") {
		t.Errorf("a suite of another run: %v\n%s", err, out)
	}
	if el := time.Since(start); el > 20*time.Second {
		t.Errorf("refusing took %s", el)
	}

	// The same run holds them: the suite waits, then runs.
	cmd := suite("run-one")
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	held.Release()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("a suite of the same run: %v\n%s", err, buf.String())
	}
	if !strings.Contains(buf.String(), "is held by another process of this run") {
		t.Errorf("the suite did not say it waited:\n%s", buf.String())
	}
}
