// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"testing"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

const gran = granularity

// mapped creates size bytes on phys and maps them in d's context; access
// is granted to grant (none when nil).
//
//nolint:unparam // the mapping GPU is the caller's, whatever the tests use today
func mapped(t *testing.T, b *Backend, d, phys backend.Device, grant []backend.Access) (backend.AllocHandle, backend.DevicePtr) {
	t.Helper()
	h, err := b.MemCreate(d, gran, backend.AllocProp{Device: phys, HandleTypes: backend.HandlePosix})
	must(t, err)
	p, err := b.AddressReserve(d, 2*gran, 0)
	must(t, err)
	must(t, b.MemMap(d, p, gran, h))
	if grant != nil {
		must(t, b.MemSetAccess(d, p, gran, grant))
	}
	return h, p
}

func TestVMMGranularityAndCreate(t *testing.T) {
	b := open(t, "single")
	for _, rec := range []bool{false, true} {
		g, err := b.Granularity(0, backend.AllocProp{Device: 0}, rec)
		if err != nil || g != 2<<20 {
			t.Errorf("granularity(recommended=%v) = %d, %v", rec, g, err)
		}
	}
	_, err := b.MemCreate(0, gran+4096, backend.AllocProp{Device: 0})
	wantCode(t, err, cuerr.InvalidValue, "size not a multiple of the granularity")
	_, err = b.MemCreate(0, gran, backend.AllocProp{Device: 3})
	wantCode(t, err, cuerr.InvalidDevice, "location on a GPU that does not exist")
}

func TestVMMNoAccessUntilSet(t *testing.T) {
	b := open(t, "single")
	_, p := mapped(t, b, 0, 0, nil)
	f, err := b.MemGetAccess(0, 0, p)
	if err != nil || f != backend.ProtNone {
		t.Errorf("access right after map = %s, %v; want PROT_NONE", f, err)
	}
	err = b.CopyToDevice(0, p, []byte{1, 2, 3, 4})
	wantCode(t, err, cuerr.InvalidValue, "copy into a range without access (not a fault)")
	wantCode(t, launch(t, b, 0, kStore, uint64(p), 1, 1), cuerr.IllegalAddress, "kernel store without access")
}

func TestVMMReadOnlyAndPerRange(t *testing.T) {
	b := open(t, "single")
	h, p := mapped(t, b, 0, 0, []backend.Access{{Device: 0, Flags: backend.ProtReadWrite}})
	q, err := b.AddressReserve(0, gran, 0)
	must(t, err)
	must(t, b.MemMap(0, q, gran, h)) // the same memory at a second range
	fillWords(t, b, 0, p, 16, func(i int) uint32 { return uint32(i) })
	out, _ := b.Alloc(0, 64)
	must(t, launch(t, b, 0, kCopy, uint64(out), uint64(p), 16))
	if w := words(t, b, 0, out, 16); w[15] != 16 {
		t.Errorf("read through the granted range: %v", w)
	}
	if f, _ := b.MemGetAccess(0, 0, q); f != backend.ProtNone {
		t.Errorf("second range has %s, want PROT_NONE", f)
	}
	must(t, b.MemSetAccess(0, p, gran, []backend.Access{{Device: 0, Flags: backend.ProtRead}}))
	must(t, launch(t, b, 0, kCopy, uint64(out), uint64(p), 16))
	wantCode(t, launch(t, b, 0, kStore, uint64(p), 1, 1), cuerr.IllegalAddress, "store through PROT_READ")
}

func TestVMMPeerGrant(t *testing.T) {
	b := open(t, "h200x2")
	_, p := mapped(t, b, 0, 0, []backend.Access{{Device: 0, Flags: backend.ProtReadWrite}, {Device: 1, Flags: backend.ProtReadWrite}})
	must(t, launch(t, b, 1, kStore, uint64(p), 4, 8))
	if w := words(t, b, 0, p, 8); w[7] != 11 {
		t.Errorf("GPU1 store through the grant: %v", w)
	}
	if f, _ := b.MemGetAccess(0, 1, p); f != backend.ProtReadWrite {
		t.Errorf("GPU1 access %s", f)
	}
	n := open(t, "pcie4-nop2p")
	_, q := mapped(t, n, 0, 0, nil)
	err := n.MemSetAccess(0, q, gran, []backend.Access{{Device: 1, Flags: backend.ProtReadWrite}})
	wantCode(t, err, cuerr.InvalidDevice, "grant to a GPU without P2P")
}

func TestVMMReleaseWhileMapped(t *testing.T) {
	b := open(t, "single")
	base, _, _ := b.MemInfo(0)
	h, p := mapped(t, b, 0, 0, []backend.Access{{Device: 0, Flags: backend.ProtReadWrite}})
	fillWords(t, b, 0, p, 4, func(i int) uint32 { return 0xabc })
	must(t, b.MemRelease(0, h))
	wantCode(t, b.MemRelease(0, h), cuerr.InvalidValue, "release twice")
	if w := words(t, b, 0, p, 4); w[3] != 0xabc {
		t.Errorf("data after release while mapped: %v", w)
	}
	if free, _, _ := b.MemInfo(0); free != base-gran {
		t.Errorf("free while mapped: %d, want %d", free, base-gran)
	}
	wantCode(t, b.MemUnmap(0, p+4096, gran), cuerr.InvalidValue, "partial unmap")
	wantCode(t, b.AddressFree(0, p, 2*gran), cuerr.InvalidValue, "free of a mapped reservation")
	must(t, b.MemUnmap(0, p, gran))
	must(t, b.AddressFree(0, p, 2*gran))
	if free, _, _ := b.MemInfo(0); free != base {
		t.Errorf("free after unmap: %d, want %d", free, base)
	}
}

func TestFabricPerPreset(t *testing.T) {
	_, err := open(t, "mixed").MemCreate(0, gran, backend.AllocProp{Device: 0, HandleTypes: backend.HandleFabric})
	wantCode(t, err, cuerr.NotSupported, "fabric on mixed")
	_, err = open(t, "h200x2").MemCreate(0, gran, backend.AllocProp{Device: 0, HandleTypes: backend.HandleFabric})
	wantCode(t, err, cuerr.NotPermitted, "fabric without IMEX on h200x2")

	dir := t.TempDir()
	exp, imp := openIn(t, dir, "nvlink8"), openIn(t, dir, "nvlink8")
	h, err := exp.MemCreate(0, gran, backend.AllocProp{Device: 0, HandleTypes: backend.HandleFabric})
	must(t, err)
	fh, err := exp.ExportFabric(0, h)
	must(t, err)
	h2, err := imp.ImportFabric(3, fh)
	must(t, err)
	must(t, imp.MemRelease(3, h2))
	fh[5] ^= 1
	_, err = imp.ImportFabric(3, fh)
	wantCode(t, err, cuerr.InvalidValue, "corrupted fabric handle")
}
