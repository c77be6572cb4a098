// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cudabackend

import (
	"errors"
	"slices"
	"testing"

	"github.com/p2pconf/p2pconf/harness/backend"
)

func TestManagedRoundTrip(t *testing.T) {
	b, _ := openStub(t)
	const n = 1 << 16
	p, err := b.AllocManaged(1, n)
	must(t, err, "AllocManaged")
	defer released(t, "Free", func() error { return b.Free(1, p) })
	if v, err := b.PointerAttribute(0, backend.PointerIsManaged, p); err != nil || v != 1 {
		t.Errorf("IS_MANAGED = %d, %v; want 1", v, err)
	}
	s, err := b.NewStream(0)
	must(t, err, "NewStream")
	defer released(t, "DestroyStream", func() error { return b.DestroyStream(s) })
	must(t, b.PrefetchAsync(s, p, n, backend.DeviceLocation(1)), "PrefetchAsync")
	if v, err := b.RangeAttribute(0, backend.RangeLastPrefetchLocation, p, n); err != nil || v != 1 {
		t.Errorf("LAST_PREFETCH_LOCATION = %d, %v; want 1", v, err)
	}
	must(t, b.Advise(0, p, n, backend.AdviseSetPreferredLocation, backend.HostLocation), "Advise")
	must(t, b.Advise(0, p, n, backend.AdviseSetAccessedBy, backend.DeviceLocation(1)), "Advise")
	if v, err := b.RangeAttribute(1, backend.RangePreferredLocation, p, n); err != nil || v != backend.RangeCPU {
		t.Errorf("PREFERRED_LOCATION = %d, %v; want CU_DEVICE_CPU", v, err)
	}
	by, err := b.RangeAccessedBy(1, p, n, 2)
	must(t, err, "RangeAccessedBy")
	if !slices.Equal(by, []int32{1, backend.RangeInvalid}) {
		t.Errorf("ACCESSED_BY = %v", by)
	}
	all, err := b.RangeAttributes(0, []backend.MemRangeAttr{backend.RangePreferredLocation, backend.RangeLastPrefetchLocation}, 1, p, n)
	if err != nil || !slices.Equal(all, []int32{backend.RangeCPU, 1}) {
		t.Errorf("RangeAttributes = %v, %v", all, err)
	}
}

func TestManagedOnOldDriverMatchesSentinel(t *testing.T) {
	b, _ := openStub(t, "FAKECUDA_DRIVER_VERSION", "12010")
	p, err := b.AllocManaged(0, 4096)
	must(t, err, "AllocManaged")
	defer released(t, "Free", func() error { return b.Free(0, p) })
	if err := b.Advise(0, p, 4096, backend.AdviseSetReadMostly, backend.DeviceLocation(0)); !errors.Is(err, backend.ErrMissingEntryPoint) {
		t.Errorf("Advise on 12.1: %v, want backend.ErrMissingEntryPoint", err)
	}
}
