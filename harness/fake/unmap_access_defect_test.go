// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"testing"

	"github.com/p2pconf/p2pconf/harness/backend"
)

// The probe of vmm-unmap-keeps-access (TestEachDefectShowsAlone): GPU0's
// memory mapped with read-write access for GPU0 and GPU1, unmapped and
// released; a second allocation mapped at the same address must give GPU1
// no access until cuMemSetAccess.
func init() {
	symptoms["vmm-unmap-keeps-access"] = func(t *testing.T, b *Backend) bool {
		h, p := mapped(t, b, 0, 0, []backend.Access{{Device: 0, Flags: backend.ProtReadWrite}, {Device: 1, Flags: backend.ProtReadWrite}})
		must(t, launch(t, b, 1, kStore, uint64(p), 1, 1))
		must(t, b.MemUnmap(0, p, gran))
		must(t, b.MemRelease(0, h))
		h2, err := b.MemCreate(0, gran, backend.AllocProp{Device: 0})
		must(t, err)
		must(t, b.MemMap(0, p, gran, h2))
		f, err := b.MemGetAccess(0, 1, p)
		must(t, err)
		return f != backend.ProtNone || launch(t, b, 1, kStore, uint64(p), 1, 1) == nil
	}
}

// TestUnmapKeepsAccessEndsWithTheReservation: the defect keeps access for
// the next mapping in the same reservation only; a reservation made after
// the old one is freed starts with none, as every mapping of a clean fake.
func TestUnmapKeepsAccessEndsWithTheReservation(t *testing.T) {
	b := open(t, "h200x2", "vmm-unmap-keeps-access")
	h, p := mapped(t, b, 0, 0, []backend.Access{{Device: 0, Flags: backend.ProtReadWrite}})
	must(t, b.MemUnmap(0, p, gran))
	must(t, b.AddressFree(0, p, 2*gran))
	q, err := b.AddressReserve(0, 2*gran, 0)
	must(t, err)
	must(t, b.MemMap(0, q, gran, h))
	if f, err := b.MemGetAccess(0, 0, q); err != nil || f != backend.ProtNone {
		t.Errorf("cuMemGetAccess(GPU0) on a mapping in a new reservation at 0x%x (the old one was at 0x%x) = %v, %v; want PROT_NONE", uint64(q), uint64(p), f, err)
	}
	must(t, b.MemUnmap(0, q, gran))
	must(t, b.MemRelease(0, h))
	must(t, b.AddressFree(0, q, 2*gran))
}
