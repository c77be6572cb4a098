// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
)

// EnvForeign models another program using a fake GPU: "<ordinal>:<bytes>"
// (bytes may end in KiB, MiB or GiB). It is not a driver defect, so it is
// not among the defects: a foreign process is a condition of the machine
// the harness must notice and report as inconclusive, not a bug a check
// must catch.
const EnvForeign = "P2PCONF_FAKE_FOREIGN"

// ForeignPID is the PID the fake's NVML gives the foreign process: the
// largest PID Linux can hand out (pid_max is at most 4194304), which no
// process of a run gets in practice.
const ForeignPID = 4194303

// ForeignName is the foreign process's name as the fake's NVML reports it.
const ForeignName = "p2pconf-fake-foreign"

// foreign is the modelled program. It starts in the middle of a spec:
// at the first allocation on its GPU after this process looked at the GPU
// (a cuMemGetInfo or an NVML process list), which is what a check that
// needs the GPU to itself does first: it reads a baseline or lists the
// processes, then allocates and measures. From then on cuMemGetInfo sees
// its bytes gone and the fake's NVML lists it among the GPU's compute
// processes, so the first such spec meets it in the middle and every later
// one from the start.
type foreign struct {
	gpu      int
	bytes    uint64
	observed atomic.Bool
	started  atomic.Bool
}

// parseForeign reads an EnvForeign value for a machine of n GPUs; "" is
// no foreign process.
func parseForeign(v string, n int) (*foreign, error) {
	if v == "" {
		return nil, nil
	}
	bad := func(why string) error {
		return fmt.Errorf("fake: %s=%q: %s (want <ordinal>:<bytes>, e.g. 0:512MiB)", EnvForeign, v, why)
	}
	g, size, ok := strings.Cut(v, ":")
	gpu, err := strconv.Atoi(g)
	if !ok || err != nil || gpu < 0 || gpu >= n {
		return nil, bad(fmt.Sprintf("the ordinal must be one of the preset's %d GPUs", n))
	}
	shift := uint(0)
	for suffix, s := range map[string]uint{"KiB": 10, "MiB": 20, "GiB": 30} {
		if strings.HasSuffix(size, suffix) {
			size, shift = strings.TrimSuffix(size, suffix), s
		}
	}
	bytes, err := strconv.ParseUint(size, 10, 64)
	if err != nil || bytes == 0 {
		return nil, bad("the size must be a positive number of bytes")
	}
	return &foreign{gpu: gpu, bytes: bytes << shift}, nil
}

// foreignFromEnv is parseForeign of the environment.
func foreignFromEnv(n int) (*foreign, error) { return parseForeign(os.Getenv(EnvForeign), n) }

// memInfoUsed is what the foreign process holds on gpu as cuMemGetInfo
// sees it (the reading looks at the GPU).
func (f *foreign) memInfoUsed(gpu int) uint64 {
	if f.on(gpu) {
		return f.bytes
	}
	return 0
}

// on reports whether the foreign process is running on gpu now; asking
// looks at the GPU.
func (f *foreign) on(gpu int) bool {
	if f == nil || gpu != f.gpu {
		return false
	}
	f.observed.Store(true)
	return f.started.Load()
}

// allocated starts the foreign process at the first allocation on its GPU
// after the GPU was looked at.
func (f *foreign) allocated(gpu int) {
	if f != nil && gpu == f.gpu && f.observed.Load() {
		f.started.Store(true)
	}
}

// modelProcesses gives the fake's NVML its process lists: every GPU runs
// this process (holding what it allocated there), and the foreign
// process's GPU also runs that once it has started. Graphics and MPS lists
// are empty, and process names come from /proc, except the foreign one's.
func (b *Backend) modelProcesses(lib *mock.Interface, devs []*nvmlDev) {
	for i, d := range devs {
		d.GetComputeRunningProcessesFunc = func() ([]nvml.ProcessInfo, nvml.Return) {
			procs := []nvml.ProcessInfo{{Pid: uint32(os.Getpid()), UsedGpuMemory: b.ownBytes(i)}}
			if b.foreign.on(i) {
				procs = append(procs, nvml.ProcessInfo{Pid: ForeignPID, UsedGpuMemory: b.foreign.bytes})
			}
			return procs, nvml.SUCCESS
		}
		d.GetGraphicsRunningProcessesFunc = func() ([]nvml.ProcessInfo, nvml.Return) { return nil, nvml.SUCCESS }
		d.GetMPSComputeRunningProcessesFunc = func() ([]nvml.ProcessInfo, nvml.Return) { return nil, nvml.SUCCESS }
	}
	lib.SystemGetProcessNameFunc = func(pid int) (string, nvml.Return) {
		if pid == ForeignPID && b.foreign != nil {
			return ForeignName, nvml.SUCCESS
		}
		return "", nvml.ERROR_NOT_FOUND
	}
}

// ownBytes is what this process has mapped of GPU phys's memory.
func (b *Backend) ownBytes(phys int) uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	var n uint64
	for _, o := range b.objects {
		if o.phys == phys {
			n += o.size
		}
	}
	return n
}
