// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cuda

import (
	"errors"
	"testing"
	"time"

	"github.com/p2pconf/p2pconf/harness/cuenum"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

// These tests and the benchmark use the machine's real driver and skip, with
// the loader's or the driver's reason, where there is none.

const emptyPTX = `
.version 7.0
.target sm_70
.address_size 64

// p2pc_empty does nothing: launching it measures launch and completion cost.
.visible .entry p2pc_empty()
{
	ret;
}
`

// loadReal loads and initialises libcuda.so.1 or skips the test.
func loadReal(tb testing.TB) *Driver {
	tb.Helper()
	d, err := Load(DefaultLibrary)
	if err != nil {
		var le *LoadError
		if errors.As(err, &le) {
			err = le.Err
		}
		tb.Skipf("needs %s (found: %v)", DefaultLibrary, err)
	}
	// An initialised libcuda keeps threads of its own running, so the
	// library is not unloaded once cuInit succeeded (see Driver.Close).
	if err := d.Init(); err != nil {
		d.Close()
		if errors.Is(err, cuerr.NoDevice) {
			tb.Skipf("needs a GPU (found: %v)", err)
		}
		tb.Fatalf("the driver loaded but cuInit failed: %v", err)
	}
	return d
}

func TestRealDriverEntryPointsAndDevices(t *testing.T) {
	d := loadReal(t)
	t.Logf("driver: CUDA %s", VersionString(d.Version()))
	for _, ep := range d.EntryPoints() {
		if ep.CUDAVersion <= d.Version() && !ep.Resolved {
			t.Errorf("%s (CUDA %s ABI) not resolved on a CUDA %s driver", ep.Name, VersionString(ep.CUDAVersion), VersionString(d.Version()))
		}
	}
	n, err := d.DeviceCount()
	must(t, err, "DeviceCount")
	for i := range n {
		dev, err := d.Device(i)
		must(t, err, "Device")
		name, err := d.DeviceName(dev)
		must(t, err, "DeviceName")
		bus, err := d.PCIBusID(dev)
		must(t, err, "PCIBusID")
		uuid, err := d.DeviceUUID(dev)
		must(t, err, "DeviceUUID")
		t.Logf("device %d: %s, %s, %s", dev, name, bus, uuid)
	}
	for a := range Device(n) {
		for b := range Device(n) {
			can, err := d.CanAccessPeer(a, b)
			must(t, err, "CanAccessPeer")
			if a == b {
				continue
			}
			access, err := d.P2PAttribute(cuenum.P2PAccessSupported, a, b)
			must(t, err, "P2PAttribute")
			t.Logf("%d→%d: CanAccessPeer %v, ACCESS_SUPPORTED %d", a, b, can, access)
		}
	}
}

func TestRealDriverMemoryAndKernel(t *testing.T) {
	d := loadReal(t)
	c, err := d.RetainPrimaryContext(0)
	must(t, err, "RetainPrimaryContext")
	defer released(t, "Release", func() error { return c.Release() })
	in(t, c, func() error {
		p, err := d.MemAlloc(1 << 20)
		must(t, err, "MemAlloc")
		defer released(t, "MemFree", func() error { return d.MemFree(p) })
		must(t, d.MemsetD32(p, 0x5a5a5a5a, 1<<18), "MemsetD32")
		got := make([]byte, 8)
		must(t, d.MemcpyDtoH(got, p+4096), "MemcpyDtoH")
		if string(got) != "ZZZZZZZZ" {
			t.Errorf("after MemsetD32: % x", got)
		}
		if o, err := d.PointerDeviceOrdinal(p); err != nil || o != 0 {
			t.Errorf("PointerDeviceOrdinal = %d, %v", o, err)
		}
		m, _, err := d.LoadModule(emptyPTX)
		must(t, err, "LoadModule")
		defer released(t, "UnloadModule", func() error { return d.UnloadModule(m) })
		f, err := d.Function(m, "p2pc_empty")
		must(t, err, "Function")
		s, err := d.CreateStream(cuenum.StreamNonBlocking)
		must(t, err, "CreateStream")
		defer released(t, "DestroyStream", func() error { return d.DestroyStream(s) })
		start, err := d.CreateEvent(cuenum.EventDefault)
		must(t, err, "CreateEvent")
		end, err := d.CreateEvent(cuenum.EventDefault)
		must(t, err, "CreateEvent")
		must(t, d.RecordEvent(start, s), "RecordEvent")
		must(t, d.LaunchKernel(f, LaunchConfig{Grid: Dim3{X: 1}, Block: Dim3{X: 32}, Stream: s}), "LaunchKernel")
		must(t, d.RecordEvent(end, s), "RecordEvent")
		must(t, pollUntil(func() (bool, error) { return d.QueryEvent(end) }, 10*time.Second), "wait for the kernel")
		dt, err := d.ElapsedTime(start, end)
		must(t, err, "ElapsedTime")
		t.Logf("empty kernel: %v ms between events", dt)
		return errors.Join(d.DestroyEvent(start), d.DestroyEvent(end))
	})
}

func TestRealDriverVMM(t *testing.T) {
	d := loadReal(t)
	if v, err := d.DeviceAttribute(0, cuenum.AttrVirtualMemoryManagementSupported); err != nil || v == 0 {
		t.Skipf("needs VMM (found: VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = %d, %v)", v, err)
	}
	c, err := d.RetainPrimaryContext(0)
	must(t, err, "RetainPrimaryContext")
	defer released(t, "Release", func() error { return c.Release() })
	in(t, c, func() error {
		prop := DeviceAllocationProp(0, cuenum.HandlePosix)
		g, err := d.AllocationGranularity(prop, cuenum.GranularityMinimum)
		must(t, err, "AllocationGranularity")
		h, err := d.MemCreate(g, prop)
		must(t, err, "MemCreate")
		va, err := d.MemAddressReserve(g, 0, 0)
		must(t, err, "MemAddressReserve")
		must(t, d.MemMap(va, g, 0, h), "MemMap")
		must(t, d.MemSetAccess(va, g, AccessDesc{DeviceLocation(0), cuenum.ProtReadWrite}), "MemSetAccess")
		if f, err := d.MemGetAccess(DeviceLocation(0), va); err != nil || f != cuenum.ProtReadWrite {
			t.Errorf("MemGetAccess = %d, %v; want 3", f, err)
		}
		must(t, d.MemcpyHtoD(va, []byte("vmm")), "MemcpyHtoD")
		got := make([]byte, 3)
		must(t, d.MemcpyDtoH(got, va), "MemcpyDtoH")
		if string(got) != "vmm" {
			t.Errorf("read back %q", got)
		}
		fd, err := d.ExportToFD(h)
		must(t, err, "ExportToFD")
		closeFD(t, fd)
		return errors.Join(d.MemUnmap(va, g), d.MemAddressFree(va, g), d.MemRelease(h))
	})
}

// BenchmarkEmptyKernelLaunch measures one launch of an empty kernel plus
// the host noticing its completion by polling, the way every p2pconf wait
// works (never an uninterruptible synchronize).
func BenchmarkEmptyKernelLaunch(b *testing.B) {
	d := loadReal(b)
	c, err := d.RetainPrimaryContext(0)
	if err != nil {
		b.Fatal(err)
	}
	defer released(b, "Release", func() error { return c.Release() })
	err = c.Do(func() error {
		m, _, err := d.LoadModule(emptyPTX)
		if err != nil {
			return err
		}
		defer released(b, "UnloadModule", func() error { return d.UnloadModule(m) })
		f, err := d.Function(m, "p2pc_empty")
		if err != nil {
			return err
		}
		s, err := d.CreateStream(cuenum.StreamNonBlocking)
		if err != nil {
			return err
		}
		defer released(b, "DestroyStream", func() error { return d.DestroyStream(s) })
		ev, err := d.CreateEvent(cuenum.EventDisableTiming)
		if err != nil {
			return err
		}
		defer released(b, "DestroyEvent", func() error { return d.DestroyEvent(ev) })
		cfg := LaunchConfig{Grid: Dim3{X: 1}, Block: Dim3{X: 32}, Stream: s}
		b.Run("poll=event", func(b *testing.B) { benchLaunch(b, d, f, cfg, func() (bool, error) { return d.QueryEvent(ev) }, ev) })
		b.Run("poll=stream", func(b *testing.B) {
			benchLaunch(b, d, f, cfg, func() (bool, error) { return d.QueryStream(s) }, Event{})
		})
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// benchLaunch runs on its own goroutine (sub-benchmarks do), so it makes
// the context current again for the loop.
func benchLaunch(b *testing.B, d *Driver, f Function, cfg LaunchConfig, poll func() (bool, error), ev Event) {
	c, err := d.RetainPrimaryContext(0)
	if err != nil {
		b.Fatal(err)
	}
	defer released(b, "Release", func() error { return c.Release() })
	err = c.Do(func() error {
		for b.Loop() {
			if err := d.LaunchKernel(f, cfg); err != nil {
				return err
			}
			if ev != (Event{}) {
				if err := d.RecordEvent(ev, cfg.Stream); err != nil {
					return err
				}
			}
			if err := pollUntil(poll, 10*time.Second); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// pollUntil spins on poll until it reports completion, an error, or timeout.
func pollUntil(poll func() (bool, error), timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		done, err := poll()
		if done || err != nil {
			return err
		}
		if time.Now().After(deadline) {
			return errors.New("not complete after " + timeout.String())
		}
	}
}
