// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cuda

import (
	"errors"
	"slices"
	"testing"

	"github.com/p2pconf/p2pconf/harness/cuenum"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

// TestManagedCalls: the stub hands the CUdevice forms (8000) of
// cuMemPrefetchAsync and cuMemAdvise to versions below 12020 and makes them
// fail with 9999, so these calls succeeding shows the CUmemLocation forms
// were reached, with the location passed by value.
func TestManagedCalls(t *testing.T) {
	d, _ := loadStub(t)
	c := retain(t, d, 0)
	in(t, c, func() error {
		if _, err := d.MemAllocManaged(0, cuenum.MemAttachGlobal); !errors.Is(err, cuerr.InvalidValue) {
			t.Errorf("MemAllocManaged(0): %v, want INVALID_VALUE", err)
		}
		const n = 1 << 20
		p, err := d.MemAllocManaged(n, cuenum.MemAttachGlobal)
		must(t, err, "MemAllocManaged")
		defer released(t, "MemFree", func() error { return d.MemFree(p) })
		if v, err := d.PointerAttribute(cuenum.PointerIsManaged, p); err != nil || v != 1 {
			t.Errorf("IS_MANAGED = %d, %v; want 1", v, err)
		}
		s, err := d.CreateStream(cuenum.StreamNonBlocking)
		must(t, err, "CreateStream")
		defer released(t, "DestroyStream", func() error { return d.DestroyStream(s) })

		if v, err := d.MemRangeAttribute(cuenum.RangeLastPrefetchLocation, p, n); err != nil || v != cuenum.DeviceInvalid {
			t.Errorf("LAST_PREFETCH_LOCATION before any prefetch = %d, %v; want CU_DEVICE_INVALID", v, err)
		}
		must(t, d.MemPrefetchAsync(p, n, DeviceLocation(1), s), "MemPrefetchAsync(device 1)")
		must(t, d.SyncStream(s), "SyncStream")
		if v, err := d.MemRangeAttribute(cuenum.RangeLastPrefetchLocation, p, n); err != nil || v != 1 {
			t.Errorf("LAST_PREFETCH_LOCATION = %d, %v; want 1", v, err)
		}
		must(t, d.MemPrefetchAsync(p, n, HostLocation(), s), "MemPrefetchAsync(host)")
		if v, err := d.MemRangeAttribute(cuenum.RangeLastPrefetchLocation, p, n); err != nil || v != cuenum.DeviceCPU {
			t.Errorf("LAST_PREFETCH_LOCATION after a host prefetch = %d, %v; want CU_DEVICE_CPU", v, err)
		}

		must(t, d.MemAdvise(p, n, cuenum.AdviseSetReadMostly, DeviceLocation(0)), "SET_READ_MOSTLY")
		must(t, d.MemAdvise(p, n, cuenum.AdviseSetPreferredLocation, DeviceLocation(1)), "SET_PREFERRED_LOCATION")
		must(t, d.MemAdvise(p, n, cuenum.AdviseSetAccessedBy, DeviceLocation(0)), "SET_ACCESSED_BY(0)")
		must(t, d.MemAdvise(p, n, cuenum.AdviseSetAccessedBy, HostLocation()), "SET_ACCESSED_BY(host)")
		if v, err := d.MemRangeAttribute(cuenum.RangeReadMostly, p, n); err != nil || v != 1 {
			t.Errorf("READ_MOSTLY = %d, %v; want 1", v, err)
		}
		if v, err := d.MemRangeAttribute(cuenum.RangePreferredLocation, p, n); err != nil || v != 1 {
			t.Errorf("PREFERRED_LOCATION = %d, %v; want 1", v, err)
		}
		by, err := d.MemRangeAccessedBy(p, n, 4)
		must(t, err, "MemRangeAccessedBy")
		if want := []int32{cuenum.DeviceCPU, 0, cuenum.DeviceInvalid, cuenum.DeviceInvalid}; !slices.Equal(by, want) {
			t.Errorf("ACCESSED_BY = %v, want %v", by, want)
		}
		if _, err := d.MemRangeAttribute(cuenum.RangeAccessedBy, p, n); err == nil {
			t.Errorf("MemRangeAttribute(ACCESSED_BY) succeeded; it must point to MemRangeAccessedBy")
		}
		all, err := d.MemRangeAttributes([]cuenum.MemRangeAttr{cuenum.RangeReadMostly, cuenum.RangeAccessedBy, cuenum.RangePreferredLocation}, 2, p, n)
		must(t, err, "MemRangeAttributes")
		if want := []int32{1, cuenum.DeviceCPU, 0, 1}; !slices.Equal(all, want) {
			t.Errorf("MemRangeAttributes = %v, want %v", all, want)
		}
		must(t, d.MemAdvise(p, n, cuenum.AdviseUnsetReadMostly, DeviceLocation(0)), "UNSET_READ_MOSTLY")
		if v, err := d.MemRangeAttribute(cuenum.RangeReadMostly, p, n); err != nil || v != 0 {
			t.Errorf("READ_MOSTLY after UNSET = %d, %v; want 0", v, err)
		}
		q, err := d.MemAlloc(64)
		must(t, err, "MemAlloc")
		defer released(t, "MemFree", func() error { return d.MemFree(q) })
		if _, err := d.MemRangeAttribute(cuenum.RangeReadMostly, q, 64); !errors.Is(err, cuerr.InvalidValue) {
			t.Errorf("a range attribute of cuMemAlloc memory: %v, want INVALID_VALUE", err)
		}
		return nil
	})
}

// TestManagedCallsNeedCUDA12_2: on a driver older than the CUmemLocation
// forms the binding refuses the call instead of reaching the CUdevice form.
func TestManagedCallsNeedCUDA12_2(t *testing.T) {
	d, _ := loadStub(t, "FAKECUDA_DRIVER_VERSION", "12010")
	c := retain(t, d, 0)
	in(t, c, func() error {
		p, err := d.MemAllocManaged(4096, cuenum.MemAttachGlobal)
		must(t, err, "MemAllocManaged")
		defer released(t, "MemFree", func() error { return d.MemFree(p) })
		err = d.MemPrefetchAsync(p, 4096, DeviceLocation(0), Stream{})
		var se *SymbolError
		if !errors.As(err, &se) || se.CUDAVersion != 12020 || se.DriverVersion != 12010 {
			t.Errorf("MemPrefetchAsync on a 12.1 driver: %v, want a *SymbolError for CUDA 12.2", err)
		}
		if err := d.MemAdvise(p, 4096, cuenum.AdviseSetReadMostly, DeviceLocation(0)); !errors.Is(err, ErrMissingEntryPoint) {
			t.Errorf("MemAdvise on a 12.1 driver: %v, want ErrMissingEntryPoint", err)
		}
		if _, err := d.MemRangeAttribute(cuenum.RangeReadMostly, p, 4096); err != nil {
			t.Errorf("MemRangeAttribute (CUDA 8.0) on a 12.1 driver: %v", err)
		}
		return nil
	})
}
