// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package health

import (
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// As two H200 in a VM report it: passthrough, persistence on, MIG off,
// Gen5 x16, 18 NVLink 4.0 links to switches, fabric completed.
func TestReadPlatform(t *testing.T) {
	d := gpuMock{links: 18, toSwitch: true, version: 6}.device()
	d.GetVirtualizationModeFunc = func() (nvml.GpuVirtualizationMode, nvml.Return) {
		return nvml.GPU_VIRTUALIZATION_MODE_PASSTHROUGH, nvml.SUCCESS
	}
	d.GetPersistenceModeFunc = func() (nvml.EnableState, nvml.Return) { return nvml.FEATURE_ENABLED, nvml.SUCCESS }
	d.GetMigModeFunc = func() (int, int, nvml.Return) { return 0, 0, nvml.ERROR_NOT_SUPPORTED }
	gen := func(v int) func() (int, nvml.Return) { return func() (int, nvml.Return) { return v, nvml.SUCCESS } }
	d.GetCurrPcieLinkGenerationFunc, d.GetMaxPcieLinkGenerationFunc = gen(4), gen(5)
	d.GetCurrPcieLinkWidthFunc, d.GetMaxPcieLinkWidthFunc = gen(16), gen(16)
	d.GetFieldValuesFunc = func(v []nvml.FieldValue) nvml.Return {
		v[0].ValueType = uint32(nvml.VALUE_TYPE_UNSIGNED_INT)
		v[0].Value = [8]byte{0xc2, 0x67}
		return nvml.SUCCESS
	}
	f := fabricMock{Device: d, info: nvml.GpuFabricInfo_v3{State: nvml.GPU_FABRIC_STATE_COMPLETED}}
	p := ReadPlatform(f, "GPU0", "idle")
	if p.Virtualization != "PASSTHROUGH" || p.Persistence != "enabled" || p.MIG != "not supported" {
		t.Errorf("modes: %+v", p)
	}
	if p.PCIe != "Gen4 x16 of max Gen5 x16 (below maximum)" || p.When != "idle" {
		t.Errorf("PCIe: %q (%s)", p.PCIe, p.When)
	}
	if p.NVLinks != "18 of 18 active: 18 × NVLink 4.0, 26562 MB/s each" {
		t.Errorf("NVLinks: %q", p.NVLinks)
	}
	if !strings.HasPrefix(p.Fabric, "state COMPLETED, status SUCCESS") {
		t.Errorf("fabric: %q", p.Fabric)
	}
}
