// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cuda

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/p2pconf/p2pconf/harness/cuenum"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

func TestDriverErrorsBecomeCuerrErrors(t *testing.T) {
	path := stubLibrary(t, "")
	t.Setenv("FAKECUDA_INIT_RESULT", "100")
	d, err := Load(path)
	must(t, err, "Load")
	defer d.Close()
	err = d.Init()
	var ce *cuerr.Error
	if !errors.As(err, &ce) || ce.Func != "cuInit" || ce.Code != cuerr.NoDevice {
		t.Fatalf("Init with no device: %#v, want *cuerr.Error{cuInit, NoDevice}", err)
	}
	if want := "cuInit: CUDA_ERROR_NO_DEVICE (100)"; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err, want)
	}
	if !errors.Is(err, cuerr.NoDevice) {
		t.Errorf("errors.Is(err, cuerr.NoDevice) = false")
	}
	if _, err := d.DeviceCount(); !errors.Is(err, cuerr.NotInitialized) {
		t.Errorf("DeviceCount before a successful cuInit: %v, want NOT_INITIALIZED", err)
	}
}

func TestErrorText(t *testing.T) {
	d, _ := loadStub(t)
	name, err := d.ErrorName(cuerr.PeerAccessUnsupported)
	must(t, err, "ErrorName")
	if name != "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED" {
		t.Errorf("ErrorName(217) = %q", name)
	}
	s, err := d.ErrorString(cuerr.PeerAccessUnsupported)
	must(t, err, "ErrorString")
	if !strings.Contains(s, "peer access") {
		t.Errorf("ErrorString(217) = %q", s)
	}
	if _, err := d.ErrorName(12345); !errors.Is(err, cuerr.InvalidValue) {
		t.Errorf("ErrorName(12345): %v, want INVALID_VALUE", err)
	}
}

func TestDeviceQueries(t *testing.T) {
	d, _ := loadStub(t, "FAKECUDA_DEVICES", "3")
	n, err := d.DeviceCount()
	must(t, err, "DeviceCount")
	if n != 3 {
		t.Fatalf("DeviceCount = %d, want 3", n)
	}
	dev, err := d.Device(2)
	must(t, err, "Device(2)")
	if dev != 2 {
		t.Errorf("Device(2) = %d", dev)
	}
	if _, err := d.Device(3); !errors.Is(err, cuerr.InvalidDevice) {
		t.Errorf("Device(3): %v, want INVALID_DEVICE", err)
	}
	checkString := func(what string, got string, err error, want string) {
		t.Helper()
		must(t, err, what)
		if got != want {
			t.Errorf("%s = %q, want %q", what, got, want)
		}
	}
	name, err := d.DeviceName(2)
	checkString("DeviceName(2)", name, err, "Fake GPU 2")
	bus, err := d.PCIBusID(1)
	checkString("PCIBusID(1)", bus, err, "0000:28:00.0")
	uuid, err := d.DeviceUUID(1)
	checkString("DeviceUUID(1)", uuid.String(), err, "GPU-10111213-1415-1617-1819-1a1b1c1d1e1f")
	mem, err := d.TotalMem(1)
	must(t, err, "TotalMem")
	if mem != 81<<30 {
		t.Errorf("TotalMem(1) = %d", mem)
	}
	v, err := d.DeviceAttribute(2, cuenum.AttrWarpSize) // the stub echoes attr*100+dev
	must(t, err, "DeviceAttribute")
	if v != 1002 {
		t.Errorf("DeviceAttribute(2, 10) = %d, want the echo 1002", v)
	}
	if _, err := d.DeviceAttribute(0, cuenum.AttrOnlyPartialHostNativeAtomicSupported); err != nil {
		t.Errorf("attribute 147 on a 13.0 stub: %v", err)
	}
}

// TestDoMakesTheContextCurrentOnItsThread checks Do against the stub's
// per-thread current context: calls outside Do fail, Do nests, and the
// thread's previous context comes back afterwards.
func TestDoMakesTheContextCurrentOnItsThread(t *testing.T) {
	d, _ := loadStub(t)
	c0, c1 := retain(t, d, 0), retain(t, d, 1)
	runtime.LockOSThread() // so "outside Do" is the same thread Do used
	defer runtime.UnlockOSThread()
	if _, err := d.MemAlloc(16); !errors.Is(err, cuerr.InvalidContext) {
		t.Fatalf("MemAlloc outside Do: %v, want INVALID_CONTEXT", err)
	}
	ordinal := func() Device {
		p, err := d.MemAlloc(16)
		must(t, err, "MemAlloc")
		defer released(t, "MemFree", func() error { return d.MemFree(p) })
		o, err := d.PointerDeviceOrdinal(p)
		must(t, err, "PointerDeviceOrdinal")
		return o
	}
	in(t, c1, func() error {
		if o := ordinal(); o != 1 {
			t.Errorf("allocation in device 1's Do is on device %d", o)
		}
		in(t, c0, func() error {
			if o := ordinal(); o != 0 {
				t.Errorf("allocation in nested device 0 Do is on device %d", o)
			}
			return nil
		})
		if o := ordinal(); o != 1 {
			t.Errorf("after the nested Do, allocation is on device %d, want 1", o)
		}
		return nil
	})
	if _, err := d.MemAlloc(16); !errors.Is(err, cuerr.InvalidContext) {
		t.Errorf("MemAlloc after Do: %v, want INVALID_CONTEXT (context restored)", err)
	}
	sentinel := errors.New("from f")
	if err := c0.Do(func() error { return sentinel }); err != sentinel {
		t.Errorf("Do returned %v, want f's error", err)
	}
	must(t, c1.Release(), "Release")
	if err := c1.Release(); !errors.Is(err, ErrReleased) {
		t.Errorf("second Release: %v, want ErrReleased", err)
	}
	if err := c1.Do(func() error { return nil }); !errors.Is(err, ErrReleased) {
		t.Errorf("Do after Release: %v, want ErrReleased", err)
	}
}

func TestMemoryCalls(t *testing.T) {
	d, _ := loadStub(t)
	c := retain(t, d, 1)
	in(t, c, func() error {
		free, total, err := d.MemGetInfo()
		must(t, err, "MemGetInfo")
		if free != 70<<30 || total != 81<<30 {
			t.Errorf("MemGetInfo = %d, %d", free, total)
		}
		p, err := d.MemAlloc(256)
		must(t, err, "MemAlloc")
		defer released(t, "MemFree", func() error { return d.MemFree(p) })
		src := make([]byte, 256)
		for i := range src {
			src[i] = byte(i)
		}
		must(t, d.MemcpyHtoD(p, src), "MemcpyHtoD")
		q, err := d.MemAlloc(256)
		must(t, err, "MemAlloc")
		defer released(t, "MemFree", func() error { return d.MemFree(q) })
		must(t, d.MemcpyDtoD(q, p, 256), "MemcpyDtoD")
		got := make([]byte, 256)
		must(t, d.MemcpyDtoH(got, q), "MemcpyDtoH")
		if !bytes.Equal(got, src) {
			t.Errorf("HtoD, DtoD, DtoH round trip changed the bytes")
		}
		must(t, d.MemsetD8(p, 0xab, 3), "MemsetD8")
		must(t, d.MemsetD32(p+4, 0x01020304, 2), "MemsetD32")
		s, err := d.CreateStream(cuenum.StreamNonBlocking)
		must(t, err, "CreateStream")
		defer released(t, "DestroyStream", func() error { return d.DestroyStream(s) })
		must(t, d.MemsetD32Async(p+12, 0xcafef00d, 1, s), "MemsetD32Async")
		must(t, d.MemcpyAsync(q, p, 16, s), "MemcpyAsync")
		must(t, d.SyncStream(s), "SyncStream")
		must(t, d.MemcpyDtoH(got[:16], q), "MemcpyDtoH")
		want := []byte{0xab, 0xab, 0xab, 3, 4, 3, 2, 1, 4, 3, 2, 1, 0x0d, 0xf0, 0xfe, 0xca}
		if !bytes.Equal(got[:16], want) {
			t.Errorf("after memsets: % x, want % x", got[:16], want)
		}
		h, err := d.MemHostAlloc(64, cuenum.HostAllocPortable|cuenum.HostAllocDeviceMap)
		must(t, err, "MemHostAlloc")
		defer released(t, "MemFreeHost", func() error { return d.MemFreeHost(h) })
		hp, err := d.HostDevicePointer(h)
		must(t, err, "HostDevicePointer")
		if uintptr(hp) != uintptr(h) {
			t.Errorf("HostDevicePointer = %#x, want the host address %p", hp, h)
		}
		must(t, d.MemcpyDtoHAsync(h, p, 16, s), "MemcpyDtoHAsync")
		must(t, d.MemcpyHtoDAsync(q+32, h, 16, s), "MemcpyHtoDAsync")
		if hb := unsafe.Slice((*byte)(h), 16); !bytes.Equal(hb, want) {
			t.Errorf("pinned host copy: % x", hb)
		}
		return nil
	})
}

func TestPointerAttributes(t *testing.T) {
	d, _ := loadStub(t)
	c := retain(t, d, 1)
	in(t, c, func() error {
		p, err := d.MemAlloc(4096)
		must(t, err, "MemAlloc")
		defer released(t, "MemFree", func() error { return d.MemFree(p) })
		base, size, err := d.PointerRange(p + 100)
		must(t, err, "PointerRange")
		if base != p || size != 4096 {
			t.Errorf("PointerRange(p+100) = %#x, %d; want %#x, 4096", base, size, p)
		}
		for attr, want := range map[cuenum.PointerAttr]uint64{
			cuenum.PointerMemoryType: uint64(cuenum.MemoryTypeDevice), cuenum.PointerMapped: 1, cuenum.PointerIsLegacyCudaIPCCapable: 1,
		} {
			got, err := d.PointerAttribute(attr, p)
			must(t, err, "PointerAttribute")
			if got != want {
				t.Errorf("PointerAttribute(%d) = %d, want %d", attr, got, want)
			}
		}
		if _, err := d.PointerAttribute(cuenum.PointerDeviceOrdinal, 0x10); !errors.Is(err, cuerr.InvalidValue) {
			t.Errorf("attribute of a wild pointer: %v, want INVALID_VALUE", err)
		}
		return nil
	})
}

func TestPeerCalls(t *testing.T) {
	d, _ := loadStub(t)
	c0, c1 := retain(t, d, 0), retain(t, d, 1)
	for _, tc := range []struct {
		a, b Device
		want bool
	}{{0, 1, true}, {1, 0, true}, {0, 0, false}} {
		got, err := d.CanAccessPeer(tc.a, tc.b)
		must(t, err, "CanAccessPeer")
		if got != tc.want {
			t.Errorf("CanAccessPeer(%d, %d) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
	v, err := d.P2PAttribute(cuenum.P2PNativeAtomicSupported, 1, 0) // echoes attr*10000+src*100+dst
	must(t, err, "P2PAttribute")
	if v != 30100 {
		t.Errorf("P2PAttribute(3, 1, 0) = %d, want the echo 30100", v)
	}
	if _, err := d.P2PAttribute(cuenum.P2PAccessSupported, 1, 1); !errors.Is(err, cuerr.InvalidDevice) {
		t.Errorf("P2PAttribute(src == dst): %v, want INVALID_DEVICE", err)
	}
	caps, err := d.P2PAtomicCapabilities([]cuenum.AtomicOperation{cuenum.AtomicCAS, cuenum.AtomicFloatMax}, 1, 0)
	must(t, err, "P2PAtomicCapabilities")
	if want := []cuenum.AtomicCaps{10 | 1<<8, 13 | 1<<8}; !slices.Equal(caps, want) {
		t.Errorf("P2PAtomicCapabilities = %v, want the echo %v", caps, want)
	}
	hcaps, err := d.HostAtomicCapabilities([]cuenum.AtomicOperation{cuenum.AtomicIntegerAdd}, 1)
	must(t, err, "HostAtomicCapabilities")
	if want := []cuenum.AtomicCaps{1 | 1<<8}; !slices.Equal(hcaps, want) {
		t.Errorf("HostAtomicCapabilities = %v, want %v", hcaps, want)
	}
	if _, err := d.P2PAtomicCapabilities(nil, 0, 1); !errors.Is(err, cuerr.InvalidValue) {
		t.Errorf("P2PAtomicCapabilities with no operations: %v, want INVALID_VALUE", err)
	}
	in(t, c0, func() error {
		err := d.EnablePeerAccess(c0)
		if !errors.Is(err, cuerr.PeerAccessUnsupported) || err.Error() != "cuCtxEnablePeerAccess: CUDA_ERROR_PEER_ACCESS_UNSUPPORTED (217)" {
			t.Errorf("EnablePeerAccess(own context): %v", err)
		}
		must(t, d.EnablePeerAccess(c1), "EnablePeerAccess 0→1")
		if err := d.EnablePeerAccess(c1); !errors.Is(err, cuerr.PeerAccessAlreadyEnabled) {
			t.Errorf("second EnablePeerAccess 0→1: %v, want 704", err)
		}
		must(t, d.DisablePeerAccess(c1), "DisablePeerAccess 0→1")
		if err := d.DisablePeerAccess(c1); !errors.Is(err, cuerr.PeerAccessNotEnabled) {
			t.Errorf("second DisablePeerAccess 0→1: %v, want 705", err)
		}
		src, err := d.MemAlloc(8)
		must(t, err, "MemAlloc")
		dst, err := d.MemAlloc(8)
		must(t, err, "MemAlloc")
		must(t, d.MemcpyHtoD(src, []byte("peercopy")), "MemcpyHtoD")
		must(t, d.MemcpyPeer(dst, c1, src, c0, 4), "MemcpyPeer")
		must(t, d.MemcpyPeerAsync(dst+4, c1, src+4, c0, 4, Stream{}), "MemcpyPeerAsync")
		got := make([]byte, 8)
		must(t, d.MemcpyDtoH(got, dst), "MemcpyDtoH")
		if string(got) != "peercopy" {
			t.Errorf("peer copies gave %q", got)
		}
		return errors.Join(d.MemFree(src), d.MemFree(dst))
	})
}

func TestIPCHandlesPassByValue(t *testing.T) {
	d, _ := loadStub(t)
	c := retain(t, d, 0)
	in(t, c, func() error {
		p, err := d.MemAlloc(64)
		must(t, err, "MemAlloc")
		defer released(t, "MemFree", func() error { return d.MemFree(p) })
		h, err := d.IPCGetMemHandle(p)
		must(t, err, "IPCGetMemHandle")
		// The stub decodes all 64 bytes of the by-value argument.
		q, err := d.IPCOpenMemHandle(h, cuenum.IPCMemLazyEnablePeerAccess)
		must(t, err, "IPCOpenMemHandle")
		if q != p {
			t.Errorf("IPCOpenMemHandle = %#x, want %#x", q, p)
		}
		must(t, d.IPCCloseMemHandle(q), "IPCCloseMemHandle")
		bad := h
		bad[63] ^= 1
		if _, err := d.IPCOpenMemHandle(bad, cuenum.IPCMemLazyEnablePeerAccess); !errors.Is(err, cuerr.InvalidHandle) {
			t.Errorf("handle with its last byte changed: %v, want INVALID_HANDLE", err)
		}
		if _, err := d.IPCOpenMemHandle(h, 0); !errors.Is(err, cuerr.InvalidValue) {
			t.Errorf("flags 0: %v, want the stub's INVALID_VALUE", err)
		}
		if _, err := d.CreateEvent(cuenum.EventInterprocess); !errors.Is(err, cuerr.InvalidValue) {
			t.Errorf("interprocess event with timing: %v, want INVALID_VALUE", err)
		}
		ev, err := d.CreateEvent(cuenum.EventInterprocess | cuenum.EventDisableTiming)
		must(t, err, "CreateEvent")
		eh, err := d.IPCGetEventHandle(ev)
		must(t, err, "IPCGetEventHandle")
		opened, err := d.IPCOpenEventHandle(eh)
		must(t, err, "IPCOpenEventHandle")
		if opened != ev {
			t.Errorf("IPCOpenEventHandle = %v, want %v", opened, ev)
		}
		return d.DestroyEvent(ev)
	})
}

func TestVMMCalls(t *testing.T) {
	d, _ := loadStub(t)
	c := retain(t, d, 0)
	prop := DeviceAllocationProp(1, cuenum.HandlePosix|cuenum.HandleFabric)
	in(t, c, func() error {
		gmin, err := d.AllocationGranularity(prop, cuenum.GranularityMinimum)
		must(t, err, "AllocationGranularity")
		grec, err := d.AllocationGranularity(prop, cuenum.GranularityRecommended)
		must(t, err, "AllocationGranularity")
		if gmin != 2<<20 || grec != 4<<20 {
			t.Errorf("granularity = %d, %d; want 2 MiB, 4 MiB from the stub", gmin, grec)
		}
		if _, err := d.MemCreate(gmin, AllocationProp{}); !errors.Is(err, cuerr.InvalidValue) {
			t.Errorf("MemCreate with a zero prop: %v, want INVALID_VALUE", err)
		}
		h, err := d.MemCreate(gmin, prop)
		must(t, err, "MemCreate")
		va := mapped(t, d, h, gmin)
		if f, err := d.MemGetAccess(DeviceLocation(0), va); err != nil || f != cuenum.ProtNone {
			t.Errorf("access right after MemMap = %d, %v; want 0", f, err)
		}
		must(t, d.MemSetAccess(va, gmin, AccessDesc{DeviceLocation(0), cuenum.ProtReadWrite}, AccessDesc{DeviceLocation(1), cuenum.ProtRead}), "MemSetAccess")
		for dev, want := range []cuenum.AccessFlags{cuenum.ProtReadWrite, cuenum.ProtRead} {
			if f, err := d.MemGetAccess(DeviceLocation(Device(dev)), va); err != nil || f != want {
				t.Errorf("MemGetAccess(device %d) = %d, %v; want %d", dev, f, err, want)
			}
		}
		must(t, d.MemcpyHtoD(va, []byte("vmm!")), "MemcpyHtoD")
		retained, err := d.RetainAllocationHandle(va + 8)
		must(t, err, "RetainAllocationHandle")
		if retained != h {
			t.Errorf("RetainAllocationHandle = %d, want %d", retained, h)
		}
		must(t, d.MemRelease(retained), "MemRelease(retained)")

		fd, err := d.ExportToFD(h)
		must(t, err, "ExportToFD")
		imported, err := d.ImportFromFD(fd)
		must(t, err, "ImportFromFD")
		closeFD(t, fd)
		va2 := mapped(t, d, imported, gmin)
		got := make([]byte, 4)
		must(t, d.MemcpyDtoH(got, va2), "MemcpyDtoH")
		if string(got) != "vmm!" {
			t.Errorf("through the exported fd: %q, want the exporter's bytes", got)
		}
		fh, err := d.ExportToFabric(h)
		must(t, err, "ExportToFabric")
		fromFabric, err := d.ImportFromFabric(fh)
		must(t, err, "ImportFromFabric")
		if fromFabric != h {
			t.Errorf("ImportFromFabric = %d, want the stub's %d", fromFabric, h)
		}
		if _, err := d.ImportFromFD(1 << 20); !errors.Is(err, cuerr.Unknown) {
			t.Errorf("ImportFromFD(not an fd): %v, want 999 as observed", err)
		}
		return errors.Join(d.MemRelease(fromFabric), d.MemRelease(imported), d.MemRelease(h))
	})
}

// mapped reserves, maps h and registers the unmap and free.
func mapped(t *testing.T, d *Driver, h AllocationHandle, size uint64) DevicePtr {
	t.Helper()
	va, err := d.MemAddressReserve(size, 0, 0)
	must(t, err, "MemAddressReserve")
	must(t, d.MemMap(va, size, 0, h), "MemMap")
	t.Cleanup(func() {
		// Cleanups run outside Do: make a context current again.
		c, err := d.RetainPrimaryContext(0)
		must(t, err, "RetainPrimaryContext")
		in(t, c, func() error { return errors.Join(d.MemUnmap(va, size), d.MemAddressFree(va, size)) })
		must(t, c.Release(), "Release")
	})
	return va
}

const echoPTX = `
.version 7.0
.target sm_70
.address_size 64
.visible .entry p2pc_fake_echo(.param .u64 out, .param .u32 a, .param .u64 b, .param .f32 c, .param .u16 d)
{
	ret;
}
`

func TestModuleLoadAndLaunchMarshalling(t *testing.T) {
	d, logPath := loadStub(t)
	c := retain(t, d, 0)
	in(t, c, func() error {
		m, info, err := d.LoadModule(echoPTX)
		must(t, err, "LoadModule")
		defer released(t, "UnloadModule", func() error { return d.UnloadModule(m) })
		if want := "fake JIT compiled " + itoa(len(echoPTX)) + " bytes"; !strings.Contains(info, want) {
			t.Errorf("info log %q does not contain %q (NUL placement?)", info, want)
		}
		if _, err := d.Function(m, "p2pc_missing"); !errors.Is(err, cuerr.NotFound) {
			t.Errorf("Function(missing): %v, want NOT_FOUND", err)
		}
		f, err := d.Function(m, "p2pc_fake_echo")
		must(t, err, "Function")
		out, err := d.MemAlloc(72)
		must(t, err, "MemAlloc")
		defer released(t, "MemFree", func() error { return d.MemFree(out) })
		s, err := d.CreateStream(cuenum.StreamNonBlocking)
		must(t, err, "CreateStream")
		defer released(t, "DestroyStream", func() error { return d.DestroyStream(s) })
		cfg := LaunchConfig{Grid: Dim3{X: 2, Y: 3}, Block: Dim3{X: 32}, SharedMemBytes: 64, Stream: s}
		args := []any{out, uint32(0xdeadbeef), uint64(1<<40 + 5), float32(1.25), uint16(0xabcd)}
		must(t, d.LaunchKernel(f, cfg, args...), "LaunchKernel")
		checkEcho(t, d, out, s, 1)
		must(t, d.LaunchCooperativeKernel(f, cfg, args...), "LaunchCooperativeKernel")
		checkEcho(t, d, out, s, 2)
		if n, err := d.MaxActiveBlocksPerSM(f, 256, 0); err != nil || n != 8 {
			t.Errorf("MaxActiveBlocksPerSM(256, 0) = %d, %v; want the stub's 2048/256", n, err)
		}
		if n, err := d.MaxActiveBlocksPerSM(f, 256, 1024); err != nil || n != 4 {
			t.Errorf("MaxActiveBlocksPerSM(256, 1024) = %d, %v; want half with shared memory", n, err)
		}
		if err := d.LaunchKernel(f, cfg, out, "text"); err == nil || !strings.Contains(err.Error(), "kernel argument 1") {
			t.Errorf("string argument: %v, want an error naming argument 1", err)
		}
		if err := d.LaunchKernel(f, cfg, out, 7); err == nil || !strings.Contains(err.Error(), "int") {
			t.Errorf("untyped int argument: %v, want an error naming the type", err)
		}
		return nil
	})
	if !strings.Contains(readFile(t, logPath), "launch p2pc_fake_echo 2 3 1 32 1 1 64") {
		t.Errorf("call log lacks the launch shape:\n%s", readFile(t, logPath))
	}
}

func checkEcho(t *testing.T, d *Driver, out DevicePtr, s Stream, kind uint64) {
	t.Helper()
	b := make([]byte, 72)
	must(t, d.MemcpyDtoH(b, out), "MemcpyDtoH")
	le := binary.LittleEndian
	got := []uint64{uint64(le.Uint32(b[0:])), le.Uint64(b[8:]), uint64(le.Uint32(b[16:])), uint64(le.Uint16(b[20:])),
		uint64(le.Uint32(b[24:])), uint64(le.Uint32(b[28:])), uint64(le.Uint32(b[32:])),
		uint64(le.Uint32(b[36:])), uint64(le.Uint32(b[40:])), uint64(le.Uint32(b[44:])), uint64(le.Uint32(b[48:])),
		le.Uint64(b[56:]), le.Uint64(b[64:])}
	want := []uint64{0xdeadbeef, 1<<40 + 5, uint64(math.Float32bits(1.25)), 0xabcd, 2, 3, 1, 32, 1, 1, 64, uint64(s.h), kind}
	if !slices.Equal(got, want) {
		t.Errorf("kernel saw %#x, want %#x", got, want)
	}
}

func TestJITErrorCarriesTheLog(t *testing.T) {
	d, _ := loadStub(t)
	c := retain(t, d, 0)
	in(t, c, func() error {
		_, _, err := d.LoadModule(".version 7.0\n.target sm_70\nFAKE_INVALID_PTX\n")
		var ce *cuerr.Error
		if !errors.As(err, &ce) || ce.Code != cuerr.InvalidPTX || ce.Func != "cuModuleLoadDataEx" {
			t.Fatalf("LoadModule(bad PTX): %v, want cuModuleLoadDataEx INVALID_PTX", err)
		}
		if !strings.Contains(ce.Detail, "fake syntax error") || !strings.Contains(err.Error(), "line 3; fatal") {
			t.Errorf("JIT log missing from %q (Detail %q)", err, ce.Detail)
		}
		return nil
	})
}

func TestQueriesReportNotReadyAsPending(t *testing.T) {
	d, _ := loadStub(t, "FAKECUDA_PENDING_POLLS", "2")
	c := retain(t, d, 0)
	in(t, c, func() error {
		m, _, err := d.LoadModule(".entry p2pc_noop()\n{ ret; }\n")
		must(t, err, "LoadModule")
		f, err := d.Function(m, "p2pc_noop")
		must(t, err, "Function")
		s, err := d.CreateStream(cuenum.StreamNonBlocking)
		must(t, err, "CreateStream")
		ev, err := d.CreateEvent(cuenum.EventDisableTiming)
		must(t, err, "CreateEvent")
		must(t, d.LaunchKernel(f, LaunchConfig{Grid: Dim3{X: 1}, Block: Dim3{X: 1}, Stream: s}), "LaunchKernel")
		must(t, d.RecordEvent(ev, s), "RecordEvent")
		must(t, d.StreamWaitEvent(Stream{}, ev), "StreamWaitEvent")
		var streamPolls, eventPolls []bool
		for range 3 {
			done, err := d.QueryStream(s)
			must(t, err, "QueryStream")
			streamPolls = append(streamPolls, done)
			done, err = d.QueryEvent(ev)
			must(t, err, "QueryEvent")
			eventPolls = append(eventPolls, done)
		}
		want := []bool{false, false, true}
		if !slices.Equal(streamPolls, want) || !slices.Equal(eventPolls, want) {
			t.Errorf("polls: stream %v, event %v; want %v", streamPolls, eventPolls, want)
		}
		must(t, d.SyncEvent(ev), "SyncEvent")
		must(t, d.Synchronize(), "Synchronize")
		if _, err := d.QueryEvent(Event{}); !errors.Is(err, cuerr.InvalidHandle) {
			t.Errorf("QueryEvent(zero Event): %v, want INVALID_HANDLE", err)
		}
		return errors.Join(d.DestroyEvent(ev), d.DestroyStream(s), d.UnloadModule(m))
	})
}

func TestElapsedTime(t *testing.T) {
	d, _ := loadStub(t)
	c := retain(t, d, 0)
	in(t, c, func() error {
		a, err := d.CreateEvent(cuenum.EventDefault)
		must(t, err, "CreateEvent")
		b, err := d.CreateEvent(cuenum.EventBlockingSync)
		must(t, err, "CreateEvent")
		if _, err := d.ElapsedTime(a, b); !errors.Is(err, cuerr.InvalidHandle) {
			t.Errorf("ElapsedTime of unrecorded events: %v, want INVALID_HANDLE", err)
		}
		must(t, d.RecordEvent(a, Stream{}), "RecordEvent")
		must(t, d.RecordEvent(b, Stream{}), "RecordEvent")
		dt, err := d.ElapsedTime(a, b)
		must(t, err, "ElapsedTime")
		if dt != 1.5 {
			t.Errorf("ElapsedTime = %v ms, want the stub's 1.5", dt)
		}
		return errors.Join(d.DestroyEvent(a), d.DestroyEvent(b))
	})
}

func TestUUIDString(t *testing.T) {
	u := UUID{0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	if got, want := u.String(), "GPU-deadbeef-0102-0304-0506-0708090a0b0c"; got != want {
		t.Errorf("UUID.String() = %q, want %q", got, want)
	}
}
