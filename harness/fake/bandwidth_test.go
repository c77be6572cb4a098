// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/kernels"
)

// TestNVMLLinksAndPCIe checks the NVML calls the bandwidth suite makes for a
// link's nominal rate (harness/topology/nominal.go) on every preset: every
// in-use link has the preset's version and a GPU at the far end, unused
// links answer as NVML does, and the PCIe link is the preset's.
func TestNVMLLinksAndPCIe(t *testing.T) {
	want := map[string]struct {
		version    nvml.NvlinkVersion
		gen, lanes int
	}{
		"nvlink8": {nvml.NVLINK_VERSION_4_0, 5, 16}, "mixed": {nvml.NVLINK_VERSION_4_0, 5, 16},
		"single": {nvml.NVLINK_VERSION_4_0, 5, 16}, "h200x2": {nvml.NVLINK_VERSION_4_0, 5, 16},
		"pcie4-nop2p": {nvml.NVLINK_VERSION_INVALID, 4, 16},
	}
	for _, p := range Presets() {
		t.Run(p.Name, func(t *testing.T) {
			b := open(t, p.Name)
			w := want[p.Name]
			lib := b.NVML()
			for i, info := range b.Devices() {
				d, ret := lib.DeviceGetHandleByUUID(info.UUID)
				if ret != nvml.SUCCESS {
					t.Fatalf("GPU%d: handle by UUID: %v", i, ret)
				}
				for _, c := range []struct {
					name string
					call func() (int, nvml.Return)
					want int
				}{
					{"CurrPcieLinkGeneration", d.GetCurrPcieLinkGeneration, w.gen},
					{"MaxPcieLinkGeneration", d.GetMaxPcieLinkGeneration, w.gen},
					{"CurrPcieLinkWidth", d.GetCurrPcieLinkWidth, w.lanes},
					{"MaxPcieLinkWidth", d.GetMaxPcieLinkWidth, w.lanes},
				} {
					if v, ret := c.call(); ret != nvml.SUCCESS || v != c.want {
						t.Errorf("GPU%d %s = %d, %v; want %d", i, c.name, v, ret, c.want)
					}
				}
				checkLinks(t, b, i, d, uint32(w.version))
			}
		})
	}
}

func checkLinks(t *testing.T, b *Backend, i int, d nvml.Device, version uint32) {
	t.Helper()
	peers := b.nvLinkPeers(i)
	if len(peers) == 0 {
		if _, ret := d.GetNvLinkVersion(0); ret != nvml.ERROR_NOT_SUPPORTED {
			t.Errorf("GPU%d without NVLink: version of link 0 answers %v, want NOT_SUPPORTED", i, ret)
		}
		return
	}
	used := 0
	for l, peer := range peers {
		v, ret := d.GetNvLinkVersion(l)
		if ret != nvml.SUCCESS || v != version {
			t.Errorf("GPU%d link %d: version %d, %v; want %d", i, l, v, ret, version)
		}
		typ, ret := d.GetNvLinkRemoteDeviceType(l)
		switch {
		case peer < 0 && ret != nvml.ERROR_INVALID_ARGUMENT:
			t.Errorf("GPU%d unused link %d: remote type %d, %v; want INVALID_ARGUMENT", i, l, typ, ret)
		case peer >= 0 && (ret != nvml.SUCCESS || typ != nvml.NVLINK_DEVICE_TYPE_GPU):
			t.Errorf("GPU%d link %d: remote type %d, %v; want GPU", i, l, typ, ret)
		}
		if peer >= 0 {
			used++
		}
	}
	if _, ret := d.GetNvLinkVersion(len(peers)); ret != nvml.ERROR_INVALID_ARGUMENT {
		t.Errorf("GPU%d link %d (past the last): %v, want INVALID_ARGUMENT", i, len(peers), ret)
	}
	total := 0
	for j := range b.devs {
		if j != i {
			total += b.pairs[i][j].nvlinks
		}
	}
	if used != total {
		t.Errorf("GPU%d: %d links in use, the pair table has %d", i, used, total)
	}
}

// slowPeerBufs is a source on GPU0 and destinations on GPU0 and GPU1.
type slowPeerBufs struct{ src0, dst0, dst1 backend.DevicePtr }

const slowPeerBytes = 256 << 10

func newSlowPeerBufs(t *testing.T, b *Backend) slowPeerBufs {
	t.Helper()
	var p slowPeerBufs
	for _, a := range []struct {
		ptr *backend.DevicePtr
		dev backend.Device
	}{{&p.src0, 0}, {&p.dst0, 0}, {&p.dst1, 1}} {
		ptr, err := b.Alloc(a.dev, slowPeerBytes)
		must(t, err)
		*a.ptr = ptr
	}
	return p
}

// eventTime is the event time (ms) of what enqueue queues on a new stream
// of dev, after a warm-up run (the first touch of the state directory's
// files can be slower than slow-peer-copy's rate on a loaded machine).
func eventTime(t *testing.T, b *Backend, dev backend.Device, enqueue func(s backend.Stream) error) float32 {
	t.Helper()
	s, err := b.NewStream(dev)
	must(t, err)
	defer func() { must(t, b.DestroyStream(s)) }()
	start, err := b.NewEvent(dev, backend.EventDefault)
	must(t, err)
	end, err := b.NewEvent(dev, backend.EventDefault)
	must(t, err)
	must(t, enqueue(s))
	must(t, b.RecordEvent(start, s))
	must(t, enqueue(s))
	must(t, b.RecordEvent(end, s))
	must(t, wait(t, b, s))
	ms, err := b.ElapsedTime(start, end)
	must(t, err)
	return ms
}

// slowPeerMs is the least event time (ms) of a peer copy of slowPeerBytes
// under slow-peer-copy.
var slowPeerMs = float32(slowPeerTime(slowPeerBytes).Seconds() * 1e3)

// TestSlowPeerWorkIsRecognised checks, without timing, which work
// slow-peer-copy stalls: copies between two GPUs' memory and kernels'
// accesses to a peer's memory (counted in bytes), not work within one GPU
// or with host memory, and nothing without the defect.
func TestSlowPeerWorkIsRecognised(t *testing.T) {
	for _, injected := range []bool{false, true} {
		var b *Backend
		if injected {
			b = open(t, "h200x2", "slow-peer-copy")
		} else {
			b = open(t, "h200x2")
		}
		p := newSlowPeerBufs(t, b)
		must(t, b.EnablePeerAccess(0, 1))
		host, err := b.HostAlloc(0, 4096, backend.HostAllocDeviceMap|backend.HostAllocPortable)
		must(t, err)
		copyCase := func(dst, src backend.DevicePtr, dstDev, srcDev int) bool {
			check := func() (*region, []byte, *region, []byte, error) {
				dr, dm, err := b.span("test", dstDev, uint64(dst), 4096, true)
				must(t, err)
				sr, sm, err := b.span("test", srcDev, uint64(src), 4096, false)
				must(t, err)
				return dr, dm, sr, sm, nil
			}
			return b.runCopy(&stream{b: b, dev: 0}, check, 4096)
		}
		for name, c := range map[string]struct{ got, want bool }{
			"GPU0→GPU1":        {copyCase(p.dst1, p.src0, 1, 0), true},
			"within GPU0":      {copyCase(p.dst0, p.src0, 0, 0), false},
			"host→GPU1 memory": {copyCase(p.dst1, host.Ptr, 1, 0), false},
		} {
			if c.got != c.want {
				t.Errorf("a copy %s counted as peer work: %v, want %v", name, c.got, c.want)
			}
		}
		kernelCase := func(dst, src backend.DevicePtr) uint64 {
			return b.runKernel(0, kernels.BWCopy, one, []uint64{uint64(dst), uint64(src), 4096 / 16})
		}
		for name, c := range map[string]struct{ got, want uint64 }{
			"writing GPU1's memory":      {kernelCase(p.dst1, p.src0), map[bool]uint64{true: 4096}[injected]},
			"reading GPU0's memory":      {kernelCase(p.src0, p.dst1), map[bool]uint64{true: 4096}[injected]},
			"within its memory":          {kernelCase(p.dst0, p.src0), 0},
			"reading pinned host memory": {kernelCase(p.dst0, host.Ptr), 0},
		} {
			if c.got != c.want {
				t.Errorf("injected=%v: a kernel on GPU0 %s: %d bytes of peer work, want %d", injected, name, c.got, c.want)
			}
		}
	}
}

// TestSlowPeerCopyStallsInEventTime: under slow-peer-copy every kind of
// peer work takes at least bytes/slowPeerRate in event time, a bound that
// load on the test machine cannot break.
func TestSlowPeerCopyStallsInEventTime(t *testing.T) {
	b := open(t, "h200x2", "slow-peer-copy")
	p := newSlowPeerBufs(t, b)
	must(t, b.EnablePeerAccess(0, 1))
	for name, enqueue := range map[string]func(s backend.Stream) error{
		"cuMemcpyPeerAsync GPU0→GPU1": func(s backend.Stream) error { return b.CopyPeerAsync(s, p.dst1, 1, p.src0, 0, slowPeerBytes) },
		"cuMemcpyAsync GPU0→GPU1":     func(s backend.Stream) error { return b.CopyAsync(s, p.dst1, p.src0, slowPeerBytes) },
		"a kernel on GPU0 copying into GPU1's memory": func(s backend.Stream) error {
			return b.Launch(s, kernels.BWCopy, one, uint64(p.dst1), uint64(p.src0), slowPeerBytes/16)
		},
	} {
		if ms := eventTime(t, b, 0, enqueue); ms < slowPeerMs {
			t.Errorf("%s of %d bytes: %.3f ms in event time, want at least %.3f ms", name, slowPeerBytes, ms, slowPeerMs)
		}
	}
}

func TestOnlySlowPeerCopyIsGated(t *testing.T) {
	for _, d := range Defects() {
		if d.Gated() != (d.Name == "slow-peer-copy") {
			t.Errorf("%s: Gated() = %v", d.Name, d.Gated())
		}
	}
	if (DefectInfo{Name: "no-such-defect"}).Gated() {
		t.Error("an unknown defect is gated")
	}
}
