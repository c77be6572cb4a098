// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuerr"
	"github.com/p2pconf/p2pconf/harness/topology"
)

func TestOpenNamesAndErrors(t *testing.T) {
	b := open(t, "mixed", "peer-store-dropped", "stream-wait-ignored")
	if b.Name() != "fake:mixed+peer-store-dropped+stream-wait-ignored" {
		t.Errorf("Name = %q", b.Name())
	}
	if _, err := Open("nvlink9", nil, WithStateDir(t.TempDir())); err == nil || !strings.Contains(err.Error(), "h200x2, mixed, nvlink8, pcie4-nop2p, single") {
		t.Errorf("unknown preset: %v", err)
	}
	if _, err := Open("single", []string{"bogus"}, WithStateDir(t.TempDir())); err == nil || !strings.Contains(err.Error(), "peer-store-dropped") {
		t.Errorf("unknown defect: %v", err)
	}
	if got, err := ParseDefects(" a-b ,"); err == nil {
		t.Errorf("ParseDefects accepted %v", got)
	}
	if got, err := ParseDefects("free-leaks, release-not-ordered,"); err != nil || len(got) != 2 {
		t.Errorf("ParseDefects = %v, %v", got, err)
	}
	for _, d := range Defects() {
		if _, ok := presets[d.Preset]; !ok || d.Description == "" {
			t.Errorf("defect %s: preset %q / description %q", d.Name, d.Preset, d.Description)
		}
		switch d.Suite {
		case "access", "ipc", "vmm", "atomics", "ordering", "bandwidth", "health", "managed":
		default:
			t.Errorf("defect %s: suite %q", d.Name, d.Suite)
		}
	}
	if len(Defects()) < 12 || len(Presets()) != 5 {
		t.Errorf("%d defects, %d presets", len(Defects()), len(Presets()))
	}
}

func TestStateDirIsCreatedAndExported(t *testing.T) {
	t.Setenv(EnvState, "")
	b, err := Open("single", nil)
	must(t, err)
	dir := b.StateDir()
	if got := os.Getenv(EnvState); got != dir {
		t.Errorf("%s = %q, want %q for helpers", EnvState, got, dir)
	}
	must(t, b.Close())
	if got := os.Getenv(EnvState); got != "" {
		t.Errorf("%s still set to %q after Close", EnvState, got)
	}
}

// TestPresetsAgree reads every preset's NVML side with the topology oracle
// and checks it against CUDA's answers, as the access and atomics suites do.
func TestPresetsAgree(t *testing.T) {
	for _, p := range Presets() {
		t.Run(p.Name, func(t *testing.T) {
			b := open(t, p.Name)
			view, err := topology.Read(b.NVML(), b.Devices())
			must(t, err)
			if view.CUDAVersion != b.DriverVersion() {
				t.Errorf("NVML CUDA %d, driver %d", view.CUDAVersion, b.DriverVersion())
			}
			for _, pr := range view.Pairs {
				checkPair(t, b, pr)
			}
		})
	}
}

func checkPair(t *testing.T, b *Backend, pr topology.Pair) {
	t.Helper()
	can, err := b.CanAccessPeer(pr.A, pr.B)
	must(t, err)
	acc, err := b.P2PAttribute(backend.P2PAccessSupported, pr.A, pr.B)
	must(t, err)
	if can != (acc == 1) || can != (pr.Read.OK() && pr.Write.OK()) {
		t.Errorf("%d-%d: CanAccessPeer %v, ACCESS_SUPPORTED %d, NVML READ %s WRITE %s", pr.A, pr.B, can, acc, pr.Read, pr.Write)
	}
	if (pr.Link == topology.LinkNVLink) != (b.pairs[pr.A][pr.B].nvlinks > 0) || pr.NVLinks != b.pairs[pr.A][pr.B].nvlinks {
		t.Errorf("%d-%d: link %s with %d NVLinks", pr.A, pr.B, pr.Link, pr.NVLinks)
	}
	native, _ := b.P2PAttribute(backend.P2PNativeAtomicSupported, pr.A, pr.B)
	caps, err := b.P2PAtomicCapabilities(backend.AllAtomicOperations(), pr.A, pr.B)
	if b.DriverVersion() < 13000 {
		if !errors.Is(err, backend.ErrMissingEntryPoint) {
			t.Errorf("CUDA 12 driver: atomic capabilities err = %v", err)
		}
		_, err := b.P2PAttribute(backend.P2POnlyPartialNativeAtomicSupported, pr.A, pr.B)
		wantCode(t, err, cuerr.InvalidValue, "attribute 5 on CUDA 12")
		return
	}
	must(t, err)
	partial, _ := b.P2PAttribute(backend.P2POnlyPartialNativeAtomicSupported, pr.A, pr.B)
	full, some := true, false
	for i, c := range caps {
		full = full && c == fullCaps[i]
		some = some || c != 0
	}
	consistent := (native == 1) == full && (partial == 1) == (some && !full)
	if want := !b.pairs[pr.A][pr.B].zeroCaps; consistent != want {
		t.Errorf("%d-%d: NATIVE %d PARTIAL %d caps %v: consistent=%v, want %v", pr.A, pr.B, native, partial, caps, consistent, want)
	}
	if pr.Atomics.OK() != (native+partial > 0) {
		t.Errorf("%d-%d: NVML ATOMICS %s, NATIVE %d PARTIAL %d", pr.A, pr.B, pr.Atomics, native, partial)
	}
}

func TestDriverVersionOption(t *testing.T) {
	b := open(t, "mixed@12040")
	if b.DriverVersion() != 12040 || b.Name() != "fake:mixed@12040" {
		t.Fatalf("%d %s", b.DriverVersion(), b.Name())
	}
	if _, err := b.HostAtomicCapabilities(backend.AllAtomicOperations(), 0); !errors.Is(err, backend.ErrMissingEntryPoint) {
		t.Errorf("host caps: %v", err)
	}
	_, err := b.DeviceAttribute(0, backend.AttrOnlyPartialHostNativeAtomicSupported)
	wantCode(t, err, cuerr.InvalidValue, "attribute 147 on CUDA 12")
	if _, err := Open("mixed@12.4", nil, WithStateDir(t.TempDir())); err == nil {
		t.Error("accepted a bad driver version")
	}
}

func TestDeviceAttributesAndIdentity(t *testing.T) {
	b := open(t, "h200x2")
	want := map[backend.DeviceAttr]int{
		backend.AttrUnifiedAddressing: 1, backend.AttrCanMapHostMemory: 1, backend.AttrVirtualMemoryManagementSupported: 1,
		backend.AttrHandleTypePosixFDSupported: 1, backend.AttrHandleTypeFabricSupported: 1, backend.AttrIPCEventSupported: 1,
		backend.AttrCooperativeLaunch: 1, backend.AttrHostNativeAtomicSupported: 0, backend.AttrMultiprocessorCount: 132,
		backend.AttrComputeCapabilityMajor: 9, backend.AttrComputeCapabilityMinor: 0, backend.AttrPCIBusID: 0x43,
	}
	for a, v := range want {
		got, err := b.DeviceAttribute(1, a)
		if err != nil || got != v {
			t.Errorf("%s = %d, %v; want %d", a, got, err, v)
		}
	}
	_, err := b.DeviceAttribute(2, backend.AttrUnifiedAddressing)
	wantCode(t, err, cuerr.InvalidDevice, "attribute of GPU2")
	b2 := open(t, "h200x2")
	if b.Devices()[1].UUID != b2.Devices()[1].UUID || b.Devices()[0].UUID == b.Devices()[1].UUID {
		t.Error("UUIDs must be stable per preset and distinct per GPU")
	}
	caps, err := b.P2PAtomicCapabilities([]backend.AtomicOperation{backend.AtomicIntegerAdd}, 0, 1)
	if err != nil || caps[0] != 0 {
		t.Errorf("h200x2 caps = %v, %v; want 0 as observed", caps, err)
	}
	if n, _ := b.P2PAttribute(backend.P2PNativeAtomicSupported, 0, 1); n != 1 {
		t.Errorf("h200x2 NATIVE = %d", n)
	}
}
