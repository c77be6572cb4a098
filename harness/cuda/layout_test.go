// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cuda

import (
	"testing"
	"unsafe"
)

// TestStructLayouts pins the C structs handed to the driver to the layouts of
// cuda.h 12.6 and 13.0 (docs/observations.md, struct layouts:
// CUmemAllocationProp measured as 32 bytes on the H200 driver). shim.h also
// checks them at compile time.
func TestStructLayouts(t *testing.T) {
	want := map[string]uintptr{
		"CUmemLocation":                            8,
		"CUmemLocation.id":                         4,
		"CUmemAllocationProp":                      32,
		"CUmemAllocationProp.requestedHandleTypes": 4,
		"CUmemAllocationProp.location":             8,
		"CUmemAllocationProp.win32HandleMetaData":  16,
		"CUmemAllocationProp.allocFlags":           24,
		"allocFlags.gpuDirectRDMACapable":          1,
		"allocFlags.usage":                         2,
		"allocFlags.reserved":                      4,
		"CUmemAccessDesc":                          12,
		"CUmemAccessDesc.flags":                    8,
		"CUipcMemHandle":                           64,
		"CUipcEventHandle":                         64,
		"CUmemFabricHandle":                        64,
		"CUuuid":                                   16,
		"kernelParamSlot":                          8,
	}
	got := cLayouts()
	for k, w := range want {
		if g, ok := got[k]; !ok || g != w {
			t.Errorf("%s = %d (present %v), want %d", k, g, ok, w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("cLayouts has %d entries, the test pins %d", len(got), len(want))
	}
	// The Go handle types must hold the C values without truncation.
	for name, size := range map[string]uintptr{
		"Device": unsafe.Sizeof(Device(0)), "DevicePtr": unsafe.Sizeof(DevicePtr(0)),
		"AllocationHandle": unsafe.Sizeof(AllocationHandle(0)), "IPCMemHandle": unsafe.Sizeof(IPCMemHandle{}),
		"IPCEventHandle": unsafe.Sizeof(IPCEventHandle{}), "FabricHandle": unsafe.Sizeof(FabricHandle{}),
		"UUID": unsafe.Sizeof(UUID{}),
	} {
		wantSize := map[string]uintptr{"Device": 4, "DevicePtr": 8, "AllocationHandle": 8, "UUID": 16}[name]
		if wantSize == 0 {
			wantSize = 64
		}
		if size != wantSize {
			t.Errorf("sizeof(%s) = %d, want %d", name, size, wantSize)
		}
	}
}
