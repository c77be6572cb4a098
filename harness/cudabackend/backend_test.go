// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cudabackend

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuda"
	"github.com/p2pconf/p2pconf/harness/cuerr"
	"github.com/p2pconf/p2pconf/kernels"
)

func TestOpenMissingLibraryFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "libcuda.so.1")
	_, err := Open(path, WithNVML(nil))
	var le *cuda.LoadError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "No such file") {
		t.Fatalf("Open(missing): %v, want a *cuda.LoadError with the dlerror text", err)
	}
}

func TestOpenFailsWhenTheDriverDoesNotInitialise(t *testing.T) {
	path := stubLibrary(t)
	t.Setenv("FAKECUDA_INIT_RESULT", "100")
	_, err := Open(path, WithNVML(nil))
	if !errors.Is(err, cuerr.NoDevice) || !strings.Contains(err.Error(), "did not initialise") {
		t.Fatalf("Open with cuInit failing: %v, want NO_DEVICE and the reason", err)
	}
}

func TestSystem(t *testing.T) {
	b, _ := openStub(t, "FAKECUDA_DEVICES", "2", "FAKECUDA_DRIVER_VERSION", "12080")
	if b.Name() != "cuda" || b.DriverVersion() != 12080 || b.NVML() != nil {
		t.Errorf("Name, DriverVersion, NVML = %q, %d, %v", b.Name(), b.DriverVersion(), b.NVML())
	}
	want := []backend.DeviceInfo{
		{Ordinal: 0, Name: "Fake GPU 0", UUID: "GPU-00010203-0405-0607-0809-0a0b0c0d0e0f", PCIBusID: "00000000:18:00.0", ComputeCapability: 90, SMCount: 132, TotalMemory: 80 << 30},
		{Ordinal: 1, Name: "Fake GPU 1", UUID: "GPU-10111213-1415-1617-1819-1a1b1c1d1e1f", PCIBusID: "00000000:28:00.0", ComputeCapability: 90, SMCount: 132, TotalMemory: 81 << 30},
	}
	if got := b.Devices(); !slices.Equal(got, want) {
		t.Errorf("Devices() =\n%+v\nwant\n%+v", got, want)
	}
	v, err := b.DeviceAttribute(1, backend.AttrVirtualMemoryManagementSupported)
	if err != nil || v != 1 {
		t.Errorf("DeviceAttribute(1, VMM) = %d, %v", v, err)
	}
	_, err = b.DeviceAttribute(2, backend.AttrCooperativeLaunch)
	var ce *cuerr.Error
	if !errors.As(err, &ce) || ce.Code != cuerr.InvalidDevice || ce.Func != "cuDeviceGetAttribute" {
		t.Errorf("DeviceAttribute(device 2 of 2): %v, want cuDeviceGetAttribute INVALID_DEVICE", err)
	}
}

func TestDefaultNVMLAbsentIsNotAnError(t *testing.T) {
	path := stubLibrary(t)
	b, err := Open(path)
	must(t, err, "Open")
	defer b.Close()
	if b.NVML() != nil {
		t.Skip("needs a machine without libnvidia-ml.so.1 (found: NVML initialised)")
	}
	if err := b.NVMLError(); err == nil || !strings.Contains(err.Error(), "nvmlInit") {
		t.Errorf("NVMLError() = %v, want the nvmlInit failure", err)
	}
}

func TestNVMLBusID(t *testing.T) {
	for in, want := range map[string]string{
		"0000:1b:00.0": "00000000:1B:00.0", "0000:1B:00.0": "00000000:1B:00.0", "00000000:1B:00.0": "00000000:1B:00.0",
		"0001:c1:00.0": "00000001:C1:00.0", " 0000:9a:00.0\x00": "00000000:9A:00.0", "10000:01:00.0": "00010000:01:00.0",
		"garbage": "GARBAGE", "zz:01:00.0": "ZZ:01:00.0",
	} {
		if got := NVMLBusID(in); got != want {
			t.Errorf("NVMLBusID(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPeer(t *testing.T) {
	b, _ := openStub(t)
	if ok, err := b.CanAccessPeer(0, 1); err != nil || !ok {
		t.Errorf("CanAccessPeer(0, 1) = %v, %v", ok, err)
	}
	if v, err := b.P2PAttribute(backend.P2PNativeAtomicSupported, 1, 0); err != nil || v != 30100 {
		t.Errorf("P2PAttribute(3, 1, 0) = %d, %v; want the stub's echo 30100", v, err)
	}
	caps, err := b.P2PAtomicCapabilities([]backend.AtomicOperation{backend.AtomicIntegerAdd, backend.AtomicCAS}, 0, 1)
	if want := []backend.AtomicCaps{1 | 1<<12, 10 | 1<<12}; err != nil || !slices.Equal(caps, want) {
		t.Errorf("P2PAtomicCapabilities = %v, %v; want %v", caps, err, want)
	}
	must(t, b.EnablePeerAccess(0, 1), "EnablePeerAccess(0, 1)")
	if err := b.EnablePeerAccess(0, 1); !errors.Is(err, cuerr.PeerAccessAlreadyEnabled) {
		t.Errorf("second EnablePeerAccess(0, 1): %v, want 704", err)
	}
	if err := b.EnablePeerAccess(1, 1); !errors.Is(err, cuerr.PeerAccessUnsupported) {
		t.Errorf("EnablePeerAccess(1, 1): %v, want 217", err)
	}
	must(t, b.DisablePeerAccess(0, 1), "DisablePeerAccess(0, 1)")
	if err := b.DisablePeerAccess(1, 0); !errors.Is(err, cuerr.PeerAccessNotEnabled) {
		t.Errorf("DisablePeerAccess(1, 0) never enabled: %v, want 705", err)
	}
	if err := b.EnablePeerAccess(0, 5); !errors.Is(err, cuerr.InvalidDevice) {
		t.Errorf("EnablePeerAccess(0, 5): %v, want INVALID_DEVICE", err)
	}
}

func TestMissingEntryPointMatchesBackendSentinel(t *testing.T) {
	b, _ := openStub(t, "FAKECUDA_DRIVER_VERSION", "12040")
	_, err := b.P2PAtomicCapabilities(backend.AllAtomicOperations(), 0, 1)
	if !errors.Is(err, backend.ErrMissingEntryPoint) || !errors.Is(err, cuda.ErrMissingEntryPoint) {
		t.Fatalf("P2PAtomicCapabilities on 12.4: %v, want both missing-entry-point sentinels", err)
	}
	if want := "cuDeviceGetP2PAtomicCapabilities needs a driver for CUDA 13.0 (found 12.4)"; err.Error() != want {
		t.Errorf("error text %q, want %q", err, want)
	}
	if _, err := b.HostAtomicCapabilities(backend.AllAtomicOperations(), 0); !errors.Is(err, backend.ErrMissingEntryPoint) {
		t.Errorf("HostAtomicCapabilities on 12.4: %v", err)
	}
}

func TestMemoryRunsInTheDevicesContext(t *testing.T) {
	b, _ := openStub(t)
	p, err := b.Alloc(1, 64)
	must(t, err, "Alloc")
	defer released(t, "Free", func() error { return b.Free(1, p) })
	if o, err := b.PointerAttribute(1, backend.PointerDeviceOrdinal, p); err != nil || o != 1 {
		t.Errorf("PointerAttribute(DEVICE_ORDINAL) = %d, %v; want 1 (allocated in device 1's context)", o, err)
	}
	if mt, err := b.PointerAttribute(0, backend.PointerMemoryType, p); err != nil || mt != backend.MemoryTypeDevice {
		t.Errorf("PointerAttribute(MEMORY_TYPE) = %d, %v", mt, err)
	}
	must(t, b.Memset32(1, p, 0x11223344, 16), "Memset32")
	must(t, b.CopyToDevice(1, p+4, []byte{1, 2, 3, 4}), "CopyToDevice")
	got := make([]byte, 12)
	must(t, b.CopyFromDevice(1, got, p), "CopyFromDevice")
	if want := []byte{0x44, 0x33, 0x22, 0x11, 1, 2, 3, 4, 0x44, 0x33, 0x22, 0x11}; !bytes.Equal(got, want) {
		t.Errorf("device bytes % x, want % x", got, want)
	}
	free, total, err := b.MemInfo(1)
	if err != nil || free == 0 || total != 81<<30 {
		t.Errorf("MemInfo(1) = %d, %d, %v", free, total, err)
	}
	h, err := b.HostAlloc(0, 16, backend.HostAllocPortable|backend.HostAllocDeviceMap)
	must(t, err, "HostAlloc")
	copy(h.Mem, "host bytes here!")
	if dp, err := b.HostDevicePointer(0, h); err != nil || dp != h.Ptr {
		t.Errorf("HostDevicePointer = %#x, %v; want Ptr %#x", dp, err, h.Ptr)
	}
	must(t, b.CopyFromDevice(0, got, h.Ptr), "CopyFromDevice(host pointer)") // UVA: the stub's memcpy
	if string(got) != "host bytes h" {
		t.Errorf("read through Ptr: %q", got)
	}
	must(t, b.HostFree(0, h), "HostFree")
	if err := b.HostFree(0, &backend.HostBuffer{}); !errors.Is(err, cuerr.InvalidValue) {
		t.Errorf("HostFree(foreign buffer): %v", err)
	}
}

func TestQueriesReportNotReadyWhilePending(t *testing.T) {
	b, _ := openStub(t, "FAKECUDA_PENDING_POLLS", "2")
	s, err := b.NewStream(0)
	must(t, err, "NewStream")
	defer released(t, "DestroyStream", func() error { return b.DestroyStream(s) })
	ev, err := b.NewEvent(0, backend.EventDefault)
	must(t, err, "NewEvent")
	defer released(t, "DestroyEvent", func() error { return b.DestroyEvent(ev) })
	must(t, b.Launch(s, kernels.Empty, backend.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(32)}), "Launch")
	must(t, b.RecordEvent(ev, s), "RecordEvent")
	var streamPolls, eventPolls []bool
	for range 3 {
		err := b.StreamQuery(s)
		if err != nil && !errors.Is(err, cuerr.NotReady) {
			t.Fatalf("StreamQuery: %v", err)
		}
		streamPolls = append(streamPolls, err == nil)
		err = b.EventQuery(ev)
		if err != nil && !errors.Is(err, cuerr.NotReady) {
			t.Fatalf("EventQuery: %v", err)
		}
		eventPolls = append(eventPolls, err == nil)
	}
	if want := []bool{false, false, true}; !slices.Equal(streamPolls, want) || !slices.Equal(eventPolls, want) {
		t.Errorf("done after each poll: stream %v, event %v; want %v", streamPolls, eventPolls, want)
	}
	s1, err := b.NewStream(1)
	must(t, err, "NewStream(1)")
	defer released(t, "DestroyStream", func() error { return b.DestroyStream(s1) })
	must(t, b.StreamWaitEvent(s1, ev), "StreamWaitEvent across devices")
	if err := b.RecordEvent(ev, nil); !errors.Is(err, cuerr.InvalidHandle) {
		t.Errorf("RecordEvent on a nil stream: %v, want INVALID_HANDLE", err)
	}
	start, err := b.NewEvent(0, backend.EventDefault)
	must(t, err, "NewEvent")
	defer released(t, "DestroyEvent", func() error { return b.DestroyEvent(start) })
	must(t, b.RecordEvent(start, s), "RecordEvent")
	must(t, b.RecordEvent(ev, s), "RecordEvent")
	for b.EventQuery(ev) != nil {
	}
	if ms, err := b.ElapsedTime(start, ev); err != nil || ms != 1.5 {
		t.Errorf("ElapsedTime = %v, %v; want the stub's 1.5 ms", ms, err)
	}
}

func TestAsyncCopies(t *testing.T) {
	b, _ := openStub(t)
	s, err := b.NewStream(0)
	must(t, err, "NewStream")
	defer released(t, "DestroyStream", func() error { return b.DestroyStream(s) })
	a, err := b.Alloc(0, 16)
	must(t, err, "Alloc")
	defer released(t, "Free", func() error { return b.Free(0, a) })
	c, err := b.Alloc(1, 16)
	must(t, err, "Alloc")
	defer released(t, "Free", func() error { return b.Free(1, c) })
	must(t, b.Memset32Async(s, a, 0xa5a5a5a5, 4), "Memset32Async")
	must(t, b.CopyPeerAsync(s, c, 1, a, 0, 8), "CopyPeerAsync")
	must(t, b.CopyAsync(s, c+8, a, 8), "CopyAsync")
	must(t, b.StreamQuery(s), "StreamQuery")
	got := make([]byte, 16)
	must(t, b.CopyFromDevice(1, got, c), "CopyFromDevice")
	if !bytes.Equal(got, bytes.Repeat([]byte{0xa5}, 16)) {
		t.Errorf("after async copies: % x", got)
	}
}

// echo is the stub's argument-echoing kernel, described the way kernels
// describes real ones; its last .u16 parameter gets a U32 slot, of which the
// stub reads the low two bytes.
var echo = &kernels.Kernel{
	Entry:  "p2pc_fake_echo",
	Module: "echo.ptx",
	PTX:    ".version 7.0\n.target sm_70\n.visible .entry p2pc_fake_echo(.param .u64 out, .param .u32 a, .param .u64 b, .param .f32 c, .param .u16 d)\n{\n\tret;\n}\n",
	Params: []kernels.Param{kernels.P("out", kernels.Ptr), kernels.P("a", kernels.U32), kernels.P("b", kernels.U64), kernels.P("c", kernels.F32), kernels.P("d", kernels.U32)},
}

func TestLaunchMarshalsArgumentsByKindAndCachesModules(t *testing.T) {
	b, logPath := openStub(t)
	out, err := b.Alloc(0, 72)
	must(t, err, "Alloc")
	defer released(t, "Free", func() error { return b.Free(0, out) })
	s, err := b.NewStream(0)
	must(t, err, "NewStream")
	defer released(t, "DestroyStream", func() error { return b.DestroyStream(s) })
	cfg := backend.LaunchConfig{Grid: kernels.Dim3{X: 4, Y: 2, Z: 1}, Block: kernels.D1(64), SharedMem: 128}
	args := []uint64{uint64(out), 0xffffffff_00c0ffee, 1<<63 | 7, uint64(math.Float32bits(-2.5)), 0xbeef}
	must(t, b.Launch(s, echo, cfg, args...), "Launch")
	got := make([]byte, 72)
	must(t, b.CopyFromDevice(0, got, out), "CopyFromDevice")
	le := binary.LittleEndian
	if le.Uint32(got[0:]) != 0x00c0ffee || le.Uint64(got[8:]) != 1<<63|7 ||
		math.Float32frombits(le.Uint32(got[16:])) != -2.5 || le.Uint16(got[20:]) != 0xbeef {
		t.Errorf("kernel saw a=%#x b=%#x c=%v d=%#x", le.Uint32(got[0:]), le.Uint64(got[8:]), math.Float32frombits(le.Uint32(got[16:])), le.Uint16(got[20:]))
	}
	if g := []uint32{le.Uint32(got[24:]), le.Uint32(got[28:]), le.Uint32(got[32:]), le.Uint32(got[36:]), le.Uint32(got[48:])}; !slices.Equal(g, []uint32{4, 2, 1, 64, 128}) {
		t.Errorf("launch shape grid %v block.x shmem, want [4 2 1 64 128]", g)
	}
	cfg.Cooperative = true
	must(t, b.Launch(s, echo, cfg, args...), "cooperative Launch")
	must(t, b.CopyFromDevice(0, got, out), "CopyFromDevice")
	if k := le.Uint64(got[64:]); k != 2 {
		t.Errorf("Cooperative launch reached launch kind %d, want 2 (cuLaunchCooperativeKernel)", k)
	}
	s1, err := b.NewStream(1)
	must(t, err, "NewStream(1)")
	defer released(t, "DestroyStream", func() error { return b.DestroyStream(s1) })
	must(t, b.Launch(s1, kernels.Empty, backend.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(1)}), "Launch on device 1")
	must(t, b.Launch(s1, kernels.Empty, backend.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(1)}), "Launch on device 1")
	if n, err := b.MaxActiveBlocks(1, kernels.Empty, 512); err != nil || n != 4 {
		t.Errorf("MaxActiveBlocks = %d, %v; want the stub's 2048/512", n, err)
	}
	log, err := os.ReadFile(logPath)
	must(t, err, "read call log")
	loads := strings.Count(string(log), "module_load")
	if loads != 2 || !strings.Contains(string(log), "device 0") || !strings.Contains(string(log), "device 1") {
		t.Errorf("%d module loads, want one per device and module:\n%s", loads, log)
	}
	if err := b.Launch(s, echo, cfg, 1, 2); !errors.Is(err, cuerr.InvalidValue) || !strings.Contains(err.Error(), "takes 5 arguments") {
		t.Errorf("Launch with 2 of 5 arguments: %v", err)
	}
}

// TestLoweredKernelLoadsAtItsLevel: a kernel whose JIT options lower the
// optimization level is loaded with CU_JIT_OPTIMIZATION_LEVEL, as a module
// of its own beside the default one (the litmus cause differential relies
// on it; a load that dropped the option reran the default code).
func TestLoweredKernelLoadsAtItsLevel(t *testing.T) {
	b, logPath := openStub(t)
	s, err := b.NewStream(0)
	must(t, err, "NewStream")
	defer released(t, "DestroyStream", func() error { return b.DestroyStream(s) })
	lowered := *kernels.Empty
	lowered.Module += "@O0"
	lowered.JIT = kernels.JITOptions{Lowered: true, Level: 0}
	cfg := backend.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(1)}
	must(t, b.Launch(s, kernels.Empty, cfg), "Launch at the default level")
	must(t, b.Launch(s, &lowered, cfg), "Launch at level 0")
	log, err := os.ReadFile(logPath)
	must(t, err, "read call log")
	if !strings.Contains(string(log), "device 0 level -1") || !strings.Contains(string(log), "device 0 level 0") {
		t.Errorf("module loads, want one at the default level (-1) and one at level 0:\n%s", log)
	}
	high := lowered
	high.Module, high.JIT.Level = "empty@O9", 9
	if err := b.Launch(s, &high, cfg); err == nil || !strings.Contains(err.Error(), "CU_JIT_OPTIMIZATION_LEVEL 9") {
		t.Errorf("Launch at level 9: %v, want a refusal naming the level", err)
	}
}

func TestJITFailureCarriesTheLog(t *testing.T) {
	b, _ := openStub(t)
	s, err := b.NewStream(0)
	must(t, err, "NewStream")
	defer released(t, "DestroyStream", func() error { return b.DestroyStream(s) })
	bad := &kernels.Kernel{Entry: "broken", Module: "broken.ptx", PTX: ".version 7.0\nFAKE_INVALID_PTX\n"}
	err = b.Launch(s, bad, backend.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(1)})
	var ce *cuerr.Error
	if !errors.As(err, &ce) || ce.Code != cuerr.InvalidPTX || !strings.Contains(ce.Detail, "fake syntax error") {
		t.Fatalf("Launch of bad PTX: %v, want INVALID_PTX with the JIT log", err)
	}
	if !strings.Contains(err.Error(), "broken.ptx") {
		t.Errorf("error %q does not name the module", err)
	}
}

func TestAllKernelModulesLoad(t *testing.T) {
	b, _ := openStub(t)
	for _, k := range kernels.All() {
		if _, err := b.MaxActiveBlocks(0, k, 128); err != nil {
			t.Errorf("%s: %v", k, err)
		}
	}
}

func TestIPC(t *testing.T) {
	b, _ := openStub(t)
	p, err := b.Alloc(0, 32)
	must(t, err, "Alloc")
	defer released(t, "Free", func() error { return b.Free(0, p) })
	h, err := b.IPCGetMemHandle(0, p)
	must(t, err, "IPCGetMemHandle")
	q, err := b.IPCOpenMemHandle(1, h) // with LAZY_ENABLE_PEER_ACCESS, or the stub says INVALID_VALUE
	must(t, err, "IPCOpenMemHandle")
	if q != p {
		t.Errorf("IPCOpenMemHandle = %#x, want %#x", q, p)
	}
	must(t, b.IPCCloseMemHandle(1, q), "IPCCloseMemHandle")
	ev, err := b.NewEvent(0, backend.EventInterprocess|backend.EventDisableTiming)
	must(t, err, "NewEvent")
	eh, err := b.IPCGetEventHandle(ev)
	must(t, err, "IPCGetEventHandle")
	opened, err := b.IPCOpenEventHandle(1, eh)
	must(t, err, "IPCOpenEventHandle")
	if opened.Device() != 1 {
		t.Errorf("opened event belongs to device %d, want 1", opened.Device())
	}
	must(t, b.DestroyEvent(ev), "DestroyEvent")
}

func TestVMM(t *testing.T) {
	b, _ := openStub(t)
	prop := backend.AllocProp{Device: 1, HandleTypes: backend.HandlePosix | backend.HandleFabric}
	g, err := b.Granularity(0, prop, false)
	must(t, err, "Granularity")
	if rec, err := b.Granularity(0, prop, true); err != nil || rec != 2*g {
		t.Errorf("recommended granularity = %d, %v; want the stub's %d", rec, err, 2*g)
	}
	h, err := b.MemCreate(0, g, prop)
	must(t, err, "MemCreate")
	va, err := b.AddressReserve(0, g, 0)
	must(t, err, "AddressReserve")
	must(t, b.MemMap(0, va, g, h), "MemMap")
	must(t, b.MemSetAccess(0, va, g, []backend.Access{{Device: 0, Flags: backend.ProtReadWrite}, {Device: 1, Flags: backend.ProtRead}}), "MemSetAccess")
	if f, err := b.MemGetAccess(0, 1, va); err != nil || f != backend.ProtRead {
		t.Errorf("MemGetAccess(device 1) = %v, %v; want PROT_READ", f, err)
	}
	must(t, b.CopyToDevice(0, va, []byte("shared")), "CopyToDevice")
	fd, err := b.ExportFD(0, h)
	must(t, err, "ExportFD")
	imported, err := b.ImportFD(0, fd)
	must(t, err, "ImportFD")
	os.NewFile(uintptr(fd), "exported").Close()
	va2, err := b.AddressReserve(0, g, 0)
	must(t, err, "AddressReserve")
	must(t, b.MemMap(0, va2, g, imported), "MemMap(imported)")
	got := make([]byte, 6)
	must(t, b.CopyFromDevice(0, got, va2), "CopyFromDevice")
	if string(got) != "shared" {
		t.Errorf("through the exported fd: %q", got)
	}
	fh, err := b.ExportFabric(0, h)
	must(t, err, "ExportFabric")
	fromFabric, err := b.ImportFabric(0, fh)
	must(t, err, "ImportFabric")
	for _, err := range []error{
		b.MemUnmap(0, va2, g), b.AddressFree(0, va2, g), b.MemUnmap(0, va, g), b.AddressFree(0, va, g),
		b.MemRelease(0, fromFabric), b.MemRelease(0, imported), b.MemRelease(0, h),
	} {
		must(t, err, "VMM teardown")
	}
}

func TestCloseReleasesContexts(t *testing.T) {
	path := stubLibrary(t)
	b, err := Open(path, WithNVML(nil))
	must(t, err, "Open")
	must(t, b.Launch(mustStream(t, b), kernels.Empty, backend.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(1)}), "Launch")
	must(t, b.Close(), "Close")
	must(t, b.Close(), "second Close")
	if _, err := b.Alloc(0, 16); !errors.Is(err, cuda.ErrNotLoaded) {
		t.Errorf("Alloc after Close: %v, want ErrNotLoaded", err)
	}
	// The stub refuses to release a primary context that is not retained, so
	// a second backend opening and closing cleanly shows the counts balance.
	b2, err := Open(path, WithNVML(nil))
	must(t, err, "Open again")
	must(t, b2.Close(), "Close again")
}

func mustStream(t *testing.T, b *Backend) backend.Stream {
	s, err := b.NewStream(0)
	must(t, err, "NewStream")
	return s
}

// TestCloseShutsDownTheNVMLItInitialised: NVML that Open initialised itself
// is shut down by Close (once); NVML handed in with WithNVML is left alone.
func TestCloseShutsDownTheNVMLItInitialised(t *testing.T) {
	path := stubLibrary(t)
	var inits, shutdowns int
	lib := &mock.Interface{
		InitFunc:     func() nvml.Return { inits++; return nvml.SUCCESS },
		ShutdownFunc: func() nvml.Return { shutdowns++; return nvml.SUCCESS },
	}
	own := func(o *options) { o.newNVML = func() nvml.Interface { return lib } }
	b, err := Open(path, own)
	must(t, err, "Open")
	if b.NVML() != lib || inits != 1 {
		t.Fatalf("NVML() = %v after %d nvmlInit calls, want the initialised library", b.NVML(), inits)
	}
	must(t, b.Close(), "Close")
	must(t, b.Close(), "second Close")
	if shutdowns != 1 {
		t.Errorf("nvmlShutdown called %d times by two Closes, want 1", shutdowns)
	}

	b, err = Open(path, WithNVML(lib))
	must(t, err, "Open WithNVML")
	must(t, b.Close(), "Close")
	if inits != 1 || shutdowns != 1 {
		t.Errorf("WithNVML: nvmlInit %d, nvmlShutdown %d calls in total; the backend must leave a library it was given alone", inits, shutdowns)
	}
}

// A device's context is retained when the process first works on it, not
// at Open and not for queries that need none: suite processes that run at
// the same time on disjoint GPUs must not hold contexts on each other's.
func TestContextsAreRetainedOnFirstUse(t *testing.T) {
	b, _ := openStub(t)
	retained := func() []int {
		b.ctxMu.Lock()
		defer b.ctxMu.Unlock()
		var out []int
		for i, c := range b.ctxs {
			if c != nil {
				out = append(out, i)
			}
		}
		return out
	}
	if len(b.Devices()) < 2 {
		t.Fatalf("the stub has %d devices, the test needs 2", len(b.Devices()))
	}
	_, err := b.DeviceAttribute(0, backend.AttrUnifiedAddressing)
	must(t, err, "DeviceAttribute")
	_, err = b.CanAccessPeer(0, 1)
	must(t, err, "CanAccessPeer")
	if got := retained(); len(got) != 0 {
		t.Fatalf("after Open and context-free queries, contexts of devices %v are retained, want none", got)
	}
	p, err := b.Alloc(1, 64)
	must(t, err, "Alloc(1)")
	defer released(t, "Free", func() error { return b.Free(1, p) })
	if got := retained(); !slices.Equal(got, []int{1}) {
		t.Errorf("after an allocation on device 1, contexts of devices %v are retained, want [1]", got)
	}
}
