// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package topology

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
)

func TestProcessesMergesListsAndNamesThem(t *testing.T) {
	self := uint32(os.Getpid())
	const stranger = 4194303 // above any PID this test's machine hands out in practice
	dev := &mock.Device{
		GetComputeRunningProcessesFunc: func() ([]nvml.ProcessInfo, nvml.Return) {
			return []nvml.ProcessInfo{{Pid: stranger, UsedGpuMemory: 64 << 20}, {Pid: self, UsedGpuMemory: notAvailable}}, nvml.SUCCESS
		},
		GetGraphicsRunningProcessesFunc: func() ([]nvml.ProcessInfo, nvml.Return) {
			return []nvml.ProcessInfo{{Pid: stranger, UsedGpuMemory: 128 << 20}}, nvml.SUCCESS
		},
		GetMPSComputeRunningProcessesFunc: func() ([]nvml.ProcessInfo, nvml.Return) { return nil, nvml.ERROR_NOT_SUPPORTED },
	}
	lib := &mock.Interface{SystemGetProcessNameFunc: func(pid int) (string, nvml.Return) {
		if pid == stranger {
			return "/usr/bin/hold", nvml.SUCCESS
		}
		return "", nvml.ERROR_NOT_FOUND
	}}
	procs, err := Processes(lib, dev)
	if err != nil {
		t.Fatal(err)
	}
	if len(procs) != 2 {
		t.Fatalf("%d processes, want 2 (one in two lists): %v", len(procs), procs)
	}
	me, other := procs[0], procs[1]
	if me.PID != self || me.UsedBytes != 0 || me.Name == "" {
		t.Errorf("this process: %+v, want its /proc name and no used bytes (NVML: not available)", me)
	}
	if other.PID != stranger || other.Name != "/usr/bin/hold" || other.UsedBytes != 128<<20 || strings.Join(other.Kinds, "+") != "compute+graphics" {
		t.Errorf("other process: %+v", other)
	}
	if s := other.String(); s != "pid 4194303 (/usr/bin/hold, compute+graphics, 128 MiB)" {
		t.Errorf("String: %q", s)
	}

	dev.GetComputeRunningProcessesFunc = func() ([]nvml.ProcessInfo, nvml.Return) { return nil, nvml.ERROR_NO_PERMISSION }
	_, err = Processes(lib, dev)
	var ne *Error
	if !errors.As(err, &ne) || ne.Func != "nvmlDeviceGetComputeRunningProcesses" {
		t.Errorf("a failing compute list: %v, want an NVML error naming the call", err)
	}
}

func TestSplit(t *testing.T) {
	procs := []Process{{PID: 10}, {PID: 11}, {PID: 12}}
	helper := func(pid uint32) bool { return pid == 11 }
	two := func() int { return 2 }

	o := Split(procs, 10, helper, two)
	if !o.SelfSeen || len(o.Foreign) != 1 || o.Foreign[0].PID != 12 {
		t.Errorf("self listed: %+v, want pid 12 foreign", o)
	}
	o = Split(procs[:2], 10, helper, two)
	if len(o.Foreign) != 0 {
		t.Errorf("self and a helper: %+v, want none foreign", o)
	}
	// Another PID namespace: nothing is recognised, only the count tells.
	o = Split([]Process{{PID: 900}, {PID: 901}, {PID: 902}}, 10, helper, two)
	if o.SelfSeen || o.Own != 2 || len(o.Foreign) != 3 {
		t.Errorf("three unknown PIDs, two own processes: %+v, want all three reported", o)
	}
	o = Split([]Process{{PID: 900}, {PID: 901}}, 10, helper, two)
	if o.SelfSeen || len(o.Foreign) != 0 {
		t.Errorf("two unknown PIDs, two own processes: %+v, want no verdict", o)
	}
}
