// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cuda

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/p2pconf/p2pconf/harness/cuenum"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

func TestLoadMissingLibraryKeepsDlerrorText(t *testing.T) {
	path := filepath.Join(t.TempDir(), "libcuda.so.1")
	d, err := Load(path)
	if d != nil || err == nil {
		t.Fatalf("Load(%s) = %v, %v; want nil and an error", path, d, err)
	}
	var le *LoadError
	if !errors.As(err, &le) {
		t.Fatalf("Load error %T %q is not a *LoadError", err, err)
	}
	if le.Path != path {
		t.Errorf("LoadError.Path = %q, want %q", le.Path, path)
	}
	t.Logf("Load(missing): %v", err)
	// glibc's dlerror text names the file and the reason.
	if msg := le.Err.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, "No such file") {
		t.Errorf("LoadError.Err = %q, want the dlerror text naming %s", msg, path)
	}
	if !strings.HasPrefix(err.Error(), "cuda: load "+path+": ") {
		t.Errorf("Error() = %q", err)
	}
}

func TestLoadLibraryWithoutGetProcAddress(t *testing.T) {
	path := stubLibrary(t, "nogpa")
	_, err := Load(path)
	var le *LoadError
	if !errors.As(err, &le) {
		t.Fatalf("Load(%s) error = %v, want a *LoadError", path, err)
	}
	t.Logf("Load(nogpa stub): %v", err)
	for _, want := range []string{"cuGetProcAddress_v2", "CUDA 12.0", "undefined symbol"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

// wantVersions is the CUDA driver's versioned export names (cudaTypedefs.h for
// the rows it does not list), written out again so that a change of the
// table in entrypoints.go must be made twice, on purpose.
var wantVersions = map[string]int{
	"cuInit": 2000, "cuDriverGetVersion": 2020, "cuGetErrorName": 6000, "cuGetErrorString": 6000,
	"cuDeviceGetCount": 2000, "cuDeviceGet": 2000, "cuDeviceGetName": 2000, "cuDeviceGetAttribute": 2000,
	"cuDeviceGetPCIBusId": 4010, "cuDeviceGetUuid": 11040, "cuDeviceTotalMem": 3020,
	"cuDevicePrimaryCtxRetain": 7000, "cuDevicePrimaryCtxRelease": 11000,
	"cuCtxGetCurrent": 4000, "cuCtxSetCurrent": 4000, "cuCtxSynchronize": 2000,
	"cuMemGetInfo": 3020, "cuMemAlloc": 3020, "cuMemFree": 3020,
	"cuMemHostAlloc": 2020, "cuMemFreeHost": 2000, "cuMemHostGetDevicePointer": 3020,
	"cuMemsetD8": 3020, "cuMemsetD32": 3020, "cuMemsetD32Async": 3020,
	"cuMemcpyHtoD": 3020, "cuMemcpyDtoH": 3020, "cuMemcpyDtoD": 3020, "cuMemcpyAsync": 4000,
	"cuMemcpyHtoDAsync": 3020, "cuMemcpyDtoHAsync": 3020, "cuMemcpyPeer": 4000, "cuMemcpyPeerAsync": 4000,
	"cuPointerGetAttribute": 4000,
	"cuStreamCreate":        2000, "cuStreamDestroy": 4000, "cuStreamQuery": 2000, "cuStreamSynchronize": 2000,
	"cuStreamWaitEvent": 3020,
	"cuEventCreate":     2000, "cuEventRecord": 2000, "cuEventQuery": 2000, "cuEventSynchronize": 2000,
	"cuEventElapsedTime": 2000, "cuEventDestroy": 4000,
	"cuModuleLoadDataEx": 2010, "cuModuleGetFunction": 2000, "cuModuleUnload": 2000,
	"cuLinkCreate": 6050, "cuLinkAddData": 6050, "cuLinkComplete": 5050, "cuLinkDestroy": 5050,
	"cuLaunchKernel": 4000, "cuLaunchCooperativeKernel": 9000, "cuOccupancyMaxActiveBlocksPerMultiprocessor": 6050,
	"cuDeviceCanAccessPeer": 4000, "cuCtxEnablePeerAccess": 4000, "cuCtxDisablePeerAccess": 4000,
	"cuDeviceGetP2PAttribute":          8000,
	"cuDeviceGetP2PAtomicCapabilities": 13000, "cuDeviceGetHostAtomicCapabilities": 13000,
	"cuIpcGetMemHandle": 4010, "cuIpcOpenMemHandle": 11000, "cuIpcCloseMemHandle": 4010,
	"cuIpcGetEventHandle": 4010, "cuIpcOpenEventHandle": 4010,
	"cuMemGetAllocationGranularity": 10020, "cuMemCreate": 10020, "cuMemRelease": 10020,
	"cuMemAddressReserve": 10020, "cuMemAddressFree": 10020, "cuMemMap": 10020, "cuMemUnmap": 10020,
	"cuMemSetAccess": 10020, "cuMemGetAccess": 10020,
	"cuMemExportToShareableHandle": 10020, "cuMemImportFromShareableHandle": 10020,
	"cuMemRetainAllocationHandle": 11000,
	// The CUmemLocation forms cuMemPrefetchAsync_v2 and cuMemAdvise_v2.
	"cuMemAllocManaged": 6000, "cuMemPrefetchAsync": 12020, "cuMemAdvise": 12020,
	"cuMemRangeGetAttribute": 8000, "cuMemRangeGetAttributes": 8000,
}

// TestEntryPointsArePinned reads what the stub was asked for: every entry
// point by its base name, at its pinned version, with flags 0.
func TestEntryPointsArePinned(t *testing.T) {
	_, logPath := loadStub(t)
	f, err := os.Open(logPath)
	must(t, err, "open call log")
	defer f.Close()
	asked := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 4 || fields[0] != "getproc" {
			continue
		}
		v, _ := strconv.Atoi(fields[2])
		if prev, dup := asked[fields[1]]; dup && prev != v {
			t.Errorf("%s asked at %d and at %d", fields[1], prev, v)
		}
		asked[fields[1]] = v
		if fields[3] != "0" {
			t.Errorf("%s asked with flags %s, want 0 (CU_GET_PROC_ADDRESS_DEFAULT)", fields[1], fields[3])
		}
	}
	for name, want := range wantVersions {
		if got, ok := asked[name]; !ok {
			t.Errorf("%s was never resolved", name)
		} else if got != want {
			t.Errorf("%s resolved at CUDA version %d, want %d", name, got, want)
		}
	}
	for name := range asked {
		if _, ok := wantVersions[name]; !ok {
			t.Errorf("%s resolved but not in the reference table of this test", name)
		}
	}
}

// TestPinnedVersionsSelectCurrentABI: the stub hands legacy variants to
// versions below the _v2 ABI and makes them fail with 9999, so these calls
// succeeding shows cuMemAlloc_v2, cuIpcOpenMemHandle_v2 and the v1
// cuEventElapsedTime (not _v2) were reached.
func TestPinnedVersionsSelectCurrentABI(t *testing.T) {
	d, _ := loadStub(t)
	c := retain(t, d, 0)
	in(t, c, func() error {
		p, err := d.MemAlloc(64)
		must(t, err, "MemAlloc")
		h, err := d.IPCGetMemHandle(p)
		must(t, err, "IPCGetMemHandle")
		_, err = d.IPCOpenMemHandle(h, cuenum.IPCMemLazyEnablePeerAccess)
		must(t, err, "IPCOpenMemHandle")
		must(t, d.IPCCloseMemHandle(p), "IPCCloseMemHandle")
		a, err := d.CreateEvent(cuenum.EventDefault)
		must(t, err, "CreateEvent")
		b, err := d.CreateEvent(cuenum.EventDefault)
		must(t, err, "CreateEvent")
		must(t, d.RecordEvent(a, Stream{}), "RecordEvent")
		must(t, d.RecordEvent(b, Stream{}), "RecordEvent")
		_, err = d.ElapsedTime(a, b)
		must(t, err, "ElapsedTime")
		return d.MemFree(p)
	})
}

func TestMissingEntryPointIsASymbolError(t *testing.T) {
	d, _ := loadStub(t, "FAKECUDA_DRIVER_VERSION", "12040")
	if d.Version() != 12040 {
		t.Fatalf("Version() = %d, want 12040", d.Version())
	}
	_, err := d.P2PAtomicCapabilities([]cuenum.AtomicOperation{cuenum.AtomicIntegerAdd}, 0, 1)
	var se *SymbolError
	if !errors.As(err, &se) {
		t.Fatalf("P2PAtomicCapabilities on a 12.4 driver: %v, want a *SymbolError", err)
	}
	if *se != (SymbolError{Name: "cuDeviceGetP2PAtomicCapabilities", CUDAVersion: 13000, DriverVersion: 12040}) {
		t.Errorf("SymbolError = %+v", *se)
	}
	if want := "cuDeviceGetP2PAtomicCapabilities needs a driver for CUDA 13.0 (found 12.4)"; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err, want)
	}
	if !errors.Is(err, ErrMissingEntryPoint) {
		t.Errorf("errors.Is(%v, ErrMissingEntryPoint) = false", err)
	}
	if _, err := d.HostAtomicCapabilities([]cuenum.AtomicOperation{cuenum.AtomicIntegerAdd}, 0); !errors.Is(err, ErrMissingEntryPoint) {
		t.Errorf("HostAtomicCapabilities on 12.4: %v, want ErrMissingEntryPoint", err)
	}
	// Attribute 5 is also 13.0+, but as a value, so it is the driver's
	// INVALID_VALUE and not a missing entry point.
	if _, err := d.P2PAttribute(cuenum.P2POnlyPartialNativeAtomicSupported, 0, 1); !errors.Is(err, cuerr.InvalidValue) {
		t.Errorf("P2PAttribute(5) on 12.4: %v, want CUDA_ERROR_INVALID_VALUE", err)
	}
	for _, ep := range d.EntryPoints() {
		wantResolved := ep.CUDAVersion <= 12040
		if ep.Resolved != wantResolved {
			t.Errorf("EntryPoints: %s resolved=%v, want %v", ep.Name, ep.Resolved, wantResolved)
		}
	}
}

func TestSymbolErrorText(t *testing.T) {
	for _, tc := range []struct {
		e    SymbolError
		want string
	}{
		{SymbolError{"cuX", 13000, 12080}, "cuX needs a driver for CUDA 13.0 (found 12.8)"},
		{SymbolError{"cuX", 13000, 0}, "cuX needs a driver for CUDA 13.0 (found driver version unknown)"},
		{SymbolError{"cuX", 10020, 13000}, "cuX (CUDA 10.2 ABI) is not provided by this driver (CUDA 13.0)"},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.e, got, tc.want)
		}
	}
}

func TestNilAndClosedDriver(t *testing.T) {
	var nilDriver *Driver
	if err := nilDriver.Init(); !errors.Is(err, ErrNotLoaded) {
		t.Errorf("nil Driver Init: %v, want ErrNotLoaded", err)
	}
	if _, err := nilDriver.CanAccessPeer(0, 1); !errors.Is(err, ErrNotLoaded) {
		t.Errorf("nil Driver CanAccessPeer: %v, want ErrNotLoaded", err)
	}
	if err := nilDriver.Close(); err != nil {
		t.Errorf("nil Driver Close: %v", err)
	}
	d, err := Load(stubLibrary(t, ""))
	must(t, err, "Load")
	must(t, d.Close(), "Close")
	must(t, d.Close(), "second Close")
	if _, err := d.DeviceCount(); !errors.Is(err, ErrNotLoaded) {
		t.Errorf("closed Driver DeviceCount: %v, want ErrNotLoaded", err)
	}
}

func TestVersionString(t *testing.T) {
	for v, want := range map[int]string{12040: "12.4", 13000: "13.0", 12080: "12.8", 11040: "11.4", 2020: "2.2"} {
		if got := VersionString(v); got != want {
			t.Errorf("VersionString(%d) = %q, want %q", v, got, want)
		}
	}
}
