// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"bytes"
	"encoding/binary"
	"math/rand"
	"testing"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

func TestSelfIsNotAPeer(t *testing.T) {
	b := open(t, "h200x2")
	if ok, err := b.CanAccessPeer(0, 0); ok || err != nil {
		t.Errorf("CanAccessPeer(0,0) = %v, %v", ok, err)
	}
	_, err := b.P2PAttribute(backend.P2PAccessSupported, 1, 1)
	wantCode(t, err, cuerr.InvalidDevice, "P2PAttribute(d,d)")
	_, err = b.P2PAtomicCapabilities(backend.AllAtomicOperations(), 1, 1)
	wantCode(t, err, cuerr.InvalidDevice, "P2PAtomicCapabilities(d,d)")
	wantCode(t, b.EnablePeerAccess(0, 0), cuerr.PeerAccessUnsupported, "enable to self")
}

func TestPeerAccessIsDirectional(t *testing.T) {
	b := open(t, "h200x2")
	buf0, err := b.Alloc(0, 4096)
	must(t, err)
	buf1, err := b.Alloc(1, 4096)
	must(t, err)
	must(t, b.EnablePeerAccess(0, 1))
	wantCode(t, b.EnablePeerAccess(0, 1), cuerr.PeerAccessAlreadyEnabled, "enable twice")
	wantCode(t, b.DisablePeerAccess(1, 0), cuerr.PeerAccessNotEnabled, "disable never enabled")

	must(t, launch(t, b, 0, kStore, uint64(buf1), 100, 64))
	if w := words(t, b, 1, buf1, 64); w[0] != 100 || w[63] != 163 {
		t.Fatalf("GPU0 stores into GPU1: %v", w[:4])
	}
	must(t, launch(t, b, 0, kCopy, uint64(buf0), uint64(buf1), 64))
	if w := words(t, b, 0, buf0, 2); w[1] != 102 {
		t.Fatalf("GPU0 reads GPU1: %v", w)
	}
	// B → A was never enabled: a fault, sticky for GPU1 only.
	err = launch(t, b, 1, kStore, uint64(buf0), 1, 1)
	wantCode(t, err, cuerr.IllegalAddress, "GPU1 stores into GPU0 without access")
	_, err = b.Alloc(1, 64)
	wantCode(t, err, cuerr.IllegalAddress, "GPU1 context after the fault")
	_, err = b.NewStream(1)
	wantCode(t, err, cuerr.IllegalAddress, "GPU1 stream after the fault")
	must(t, launch(t, b, 0, kStore, uint64(buf0), 7, 1)) // GPU0 stays healthy

	must(t, b.DisablePeerAccess(0, 1))
	err = launch(t, b, 0, kStore, uint64(buf1), 1, 1)
	wantCode(t, err, cuerr.IllegalAddress, "GPU0 after disable")
}

func TestEnableCoversLaterAllocationsAndNoP2P(t *testing.T) {
	b := open(t, "mixed")
	must(t, b.EnablePeerAccess(2, 0))
	later, err := b.Alloc(0, 256)
	must(t, err)
	must(t, launch(t, b, 2, kStore, uint64(later), 5, 64))
	if w := words(t, b, 0, later, 1); w[0] != 5 {
		t.Errorf("allocation after enable: %v", w)
	}
	n := open(t, "pcie4-nop2p")
	if ok, _ := n.CanAccessPeer(0, 1); ok {
		t.Error("pcie4-nop2p CanAccessPeer(0,1) = 1")
	}
	wantCode(t, n.EnablePeerAccess(0, 1), cuerr.PeerAccessUnsupported, "enable without P2P")
}

func TestPointerAttributesAndHostMemory(t *testing.T) {
	b := open(t, "h200x2")
	p0, err := b.Alloc(0, 1024)
	must(t, err)
	p1, err := b.Alloc(1, 1024)
	must(t, err)
	for d, p := range []backend.DevicePtr{p0, p1} {
		ord, err := b.PointerAttribute(0, backend.PointerDeviceOrdinal, p+100)
		must(t, err)
		typ, _ := b.PointerAttribute(0, backend.PointerMemoryType, p)
		if ord != int64(d) || typ != backend.MemoryTypeDevice {
			t.Errorf("GPU%d allocation: ordinal %d type %d", d, ord, typ)
		}
	}
	_, err = b.PointerAttribute(0, backend.PointerDeviceOrdinal, 0xdead0000)
	wantCode(t, err, cuerr.InvalidValue, "wild pointer")

	h, err := b.HostAlloc(0, 4096, backend.HostAllocDeviceMap|backend.HostAllocPortable)
	must(t, err)
	dp, err := b.HostDevicePointer(1, h)
	must(t, err)
	if dp != h.Ptr {
		t.Errorf("device pointer 0x%x, host 0x%x", dp, h.Ptr)
	}
	if typ, _ := b.PointerAttribute(1, backend.PointerMemoryType, dp); typ != backend.MemoryTypeHost {
		t.Errorf("host memory type %d", typ)
	}
	must(t, launch(t, b, 1, kStore, uint64(dp), 40, 16))
	if v := binary.LittleEndian.Uint32(h.Mem[60:]); v != 55 {
		t.Errorf("host sees %d at word 15, want 55", v)
	}
	must(t, b.HostFree(0, h))
	wantCode(t, b.HostFree(0, h), cuerr.InvalidValue, "double HostFree")
}

func TestCopiesMoveDataExactly(t *testing.T) {
	b := open(t, "h200x2")
	s, err := b.NewStream(0)
	must(t, err)
	rng := rand.New(rand.NewSource(1))
	for _, size := range []uint64{4, 4096 + 12, 1 << 20} {
		src, err := b.Alloc(0, size)
		must(t, err)
		dst, err := b.Alloc(1, size)
		must(t, err)
		data := make([]byte, size)
		rng.Read(data)
		must(t, b.CopyToDevice(0, src, data))
		must(t, b.Memset32(1, dst, 0xffffffff, size/4))
		must(t, b.CopyPeerAsync(s, dst, 1, src, 0, size))
		must(t, wait(t, b, s))
		got := make([]byte, size)
		must(t, b.CopyFromDevice(1, got, dst))
		if !bytes.Equal(got, data) {
			t.Errorf("peer copy of %d bytes differs", size)
		}
	}
	err = b.CopyPeerAsync(s, 0xdead0000, 1, 0xdead0000, 0, 4)
	wantCode(t, err, cuerr.InvalidValue, "copy of unmapped pointers")
	err = b.CopyToDevice(0, 0xdead0000, []byte{1})
	wantCode(t, err, cuerr.InvalidValue, "CopyToDevice to an unmapped pointer")
}

func TestFreeMemoryAccounting(t *testing.T) {
	b := open(t, "single")
	base, total, err := b.MemInfo(0)
	must(t, err)
	if base != total {
		t.Fatalf("fresh machine: free %d of %d", base, total)
	}
	p, err := b.Alloc(0, 8<<20)
	must(t, err)
	if free, _, _ := b.MemInfo(0); free != base-8<<20 {
		t.Errorf("after 8 MiB: free %d, want %d", free, base-8<<20)
	}
	must(t, b.Free(0, p))
	wantCode(t, b.Free(0, p), cuerr.InvalidValue, "double free")
	if free, _, _ := b.MemInfo(0); free != base {
		t.Errorf("after free: %d, want %d", free, base)
	}
	_, err = b.Alloc(0, total+1)
	wantCode(t, err, cuerr.OutOfMemory, "more than the GPU has")
}
