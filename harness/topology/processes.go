// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package topology

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// Process is one process NVML lists on a GPU: checks that assume the GPU
// to themselves (free-memory accounting, bandwidth, latency) look for
// processes other than the run's own before they trust a figure.
type Process struct {
	PID uint32
	// UsedBytes is NVML's usedGpuMemory; 0 when NVML does not know it
	// (NVML_VALUE_NOT_AVAILABLE, e.g. without the privilege to see it).
	UsedBytes uint64
	// Kinds are the lists NVML names the process in: "compute",
	// "graphics", "mps".
	Kinds []string
	// Name is /proc/<pid>/comm where this process can see it, else NVML's
	// process name, else "".
	Name string
}

// String is "pid 1234 (python3, compute, 512 MiB)".
func (p Process) String() string {
	parts := []string{orDash(p.Name), strings.Join(p.Kinds, "+")}
	if p.UsedBytes > 0 {
		parts = append(parts, fmt.Sprintf("%d MiB", p.UsedBytes>>20))
	}
	return fmt.Sprintf("pid %d (%s)", p.PID, strings.Join(parts, ", "))
}

func orDash(s string) string {
	if s == "" {
		return "name unknown"
	}
	return s
}

// Processes lists the processes NVML sees on dev: compute processes, and
// graphics and MPS ones where the driver supports listing them. A process
// in several lists appears once. lib is asked for a name only where
// /proc does not give one (another PID namespace, hidepid).
func Processes(lib nvml.Interface, dev nvml.Device) ([]Process, error) {
	lists := []struct {
		kind     string
		optional bool
		get      func() ([]nvml.ProcessInfo, nvml.Return)
	}{
		{"compute", false, dev.GetComputeRunningProcesses},
		{"graphics", true, dev.GetGraphicsRunningProcesses},
		{"mps", true, dev.GetMPSComputeRunningProcesses},
	}
	var out []Process
	index := map[uint32]int{}
	for _, l := range lists {
		infos, ret := l.get()
		if ret != nvml.SUCCESS {
			if l.optional && ret == nvml.ERROR_NOT_SUPPORTED {
				continue
			}
			return nil, nvmlErr("nvmlDeviceGet"+kindCall(l.kind)+"RunningProcesses", ret, "")
		}
		for _, in := range infos {
			if i, ok := index[in.Pid]; ok {
				out[i].Kinds = append(out[i].Kinds, l.kind)
				out[i].UsedBytes = max(out[i].UsedBytes, used(in))
				continue
			}
			index[in.Pid] = len(out)
			out = append(out, Process{PID: in.Pid, UsedBytes: used(in), Kinds: []string{l.kind}})
		}
	}
	for i := range out {
		out[i].Name = processName(lib, out[i].PID)
	}
	slices.SortFunc(out, func(a, b Process) int { return int(a.PID) - int(b.PID) })
	return out, nil
}

func kindCall(kind string) string {
	switch kind {
	case "graphics":
		return "Graphics"
	case "mps":
		return "MPSCompute"
	}
	return "Compute"
}

// notAvailable is NVML_VALUE_NOT_AVAILABLE (-1) in usedGpuMemory's unsigned type.
const notAvailable = ^uint64(0)

// used is usedGpuMemory, or 0 where NVML reports it as not available.
func used(in nvml.ProcessInfo) uint64 {
	if in.UsedGpuMemory == notAvailable {
		return 0
	}
	return in.UsedGpuMemory
}

func processName(lib nvml.Interface, pid uint32) string {
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); err == nil {
		return strings.TrimSpace(string(b))
	}
	if lib == nil {
		return ""
	}
	if name, ret := lib.SystemGetProcessName(int(pid)); ret == nvml.SUCCESS {
		return name
	}
	return ""
}

// Others is what Split finds besides the run's own processes.
type Others struct {
	// Foreign are the processes that are certainly not the run's.
	Foreign []Process
	// SelfSeen says whether this process was among those NVML listed.
	// When it was not (NVML reports PIDs of another PID namespace, as in
	// a container, or none at all), no listed PID can be recognised, and
	// Foreign holds every listed process only when there are more of them
	// than the run has processes (Own): then at least one is foreign.
	SelfSeen bool
	Own      int
}

// Split sorts procs into the run's own and the others. self is this
// process's PID, own recognises the run's other processes (its helper
// processes) and ownCount says how many processes the run has now (this
// one included), for when NVML's PIDs cannot be recognised at all.
func Split(procs []Process, self uint32, own func(pid uint32) bool, ownCount func() int) Others {
	var o Others
	for _, p := range procs {
		if p.PID == self {
			o.SelfSeen = true
		}
	}
	if o.SelfSeen {
		for _, p := range procs {
			if p.PID != self && !own(p.PID) {
				o.Foreign = append(o.Foreign, p)
			}
		}
		return o
	}
	o.Own = ownCount()
	if len(procs) > o.Own {
		o.Foreign = append(o.Foreign, procs...)
	}
	return o
}
