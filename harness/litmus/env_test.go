// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"testing"

	"github.com/p2pconf/p2pconf/harness/machine"
	"github.com/p2pconf/p2pconf/kernels"
)

// TestHostWorkersFor: half the CPUs shared among the GPUs, between 1 and 8,
// so the per-GPU processes of a run never spin more goroutines than half
// the machine's CPUs.
func TestHostWorkersFor(t *testing.T) {
	for _, c := range []struct{ cpus, gpus, want int }{
		{16, 1, 8},  // one H200 machine
		{2, 1, 1},   // a small CI runner
		{1, 0, 1},   // no GPU counted: still one
		{128, 8, 8}, // eight GPUs, 128 CPUs
		{64, 8, 4},  // eight GPUs, 64 CPUs: 32 goroutines in all
		{32, 8, 2},  // 16 in all
		{256, 2, 8}, // the cap
		{12, 8, 1},  // fewer CPUs than two per GPU
	} {
		if got := HostWorkersFor(c.cpus, c.gpus); got != c.want {
			t.Errorf("HostWorkersFor(%d CPUs, %d GPUs) = %d, want %d", c.cpus, c.gpus, got, c.want)
		}
		if total := c.gpus * HostWorkersFor(c.cpus, c.gpus); c.gpus > 0 && total > max(c.cpus/2, c.gpus) {
			t.Errorf("%d CPUs, %d GPUs: %d host goroutines in all, more than half the CPUs", c.cpus, c.gpus, total)
		}
	}
}

// TestDefaultEnvSizesHostWorkersAtRun: the cuda default leaves the host
// goroutines to the runner (0: HostWorkersFor the machine); the fake plays
// one, so its runs stay the same on any machine.
func TestDefaultEnvSizesHostWorkersAtRun(t *testing.T) {
	if e := DefaultEnv(machine.Config{Backend: "cuda"}, DefaultSettings()); e.HostWorkers != 0 || e.HostInstances != 4096 {
		t.Errorf("cuda default: HostWorkers %d, HostInstances %d; want 0 (sized at run) and 4096", e.HostWorkers, e.HostInstances)
	}
	if e := DefaultEnv(machine.Config{Backend: "fake"}, DefaultSettings()); e.HostWorkers != 1 {
		t.Errorf("fake: HostWorkers %d, want 1", e.HostWorkers)
	}
}

// TestWithJIT: a lowered JIT level gives the kernel its own module name and
// options; the default leaves the cached kernel as it is.
func TestWithJIT(t *testing.T) {
	k := Catalogue()[0].Kernel()
	if got := withJIT(k, kernels.JITOptions{}); got != k {
		t.Errorf("default JIT: a copy %v", got)
	}
	got := withJIT(k, kernels.JITOptions{Lowered: true, Level: 0})
	if got == k || got.JIT.String() != "O0" || got.Module != k.Module+"@O0" || got.PTX != k.PTX || k.JIT.Lowered {
		t.Errorf("level 0: module %q jit %q (cached kernel's %q)", got.Module, got.JIT, k.JIT)
	}
}
