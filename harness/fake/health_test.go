// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/health"
)

// The probes of the health defects, added to the table every defect's probe
// is run from (TestEachDefectShowsAlone).
func init() {
	symptoms["nvlink-down"] = func(t *testing.T, b *Backend) bool {
		for _, d := range nvmlDevs(t, b) {
			snap, err := health.Take(d, "GPU")
			must(t, err)
			for _, l := range snap.Links {
				if l.Remote != "" && !l.Active {
					return true
				}
			}
		}
		return false
	}
	symptoms["host-staged-peer-copy"] = func(t *testing.T, b *Backend) bool {
		must(t, b.EnablePeerAccess(0, 1))
		nominal := 18 * 26.5625e9
		return b.peerRate(0, 1) < 0.5*nominal
	}
	symptoms["xid-during-spec"] = func(t *testing.T, b *Backend) bool {
		devs := nvmlDevs(t, b)
		set, _ := b.NVML().EventSetCreate()
		must(t, retErr(devs[1].RegisterEvents(nvml.EventTypeXidCriticalError, set)))
		p := newSlowPeerBufs(t, b)
		s, err := b.NewStream(1)
		must(t, err)
		must(t, b.CopyPeerAsync(s, p.src0, 0, p.dst1, 1, 4096))
		must(t, wait(t, b, s))
		must(t, b.DestroyStream(s))
		data, ret := set.Wait(1)
		return ret == nvml.SUCCESS && data.EventData == xidDuringSpec
	}
	symptoms["nvlink-errors-increment"] = func(t *testing.T, b *Backend) bool {
		d := nvmlDevs(t, b)[0]
		before, err := health.Take(d, "GPU0")
		must(t, err)
		p := newSlowPeerBufs(t, b)
		s, err := b.NewStream(0)
		must(t, err)
		must(t, b.CopyPeerAsync(s, p.dst1, 1, p.src0, 0, 4096))
		must(t, wait(t, b, s))
		must(t, b.DestroyStream(s))
		after, err := health.Take(d, "GPU0")
		must(t, err)
		return len(health.Diff(before, after)) > 0
	}
	symptoms["fabric-not-started"] = func(t *testing.T, b *Backend) bool {
		f, err := health.ReadFabric(nvmlDevs(t, b)[0], "GPU0")
		must(t, err)
		return !f.OK()
	}
}

// nvmlDevs are b's NVML devices by CUDA ordinal.
func nvmlDevs(t *testing.T, b *Backend) []nvml.Device {
	t.Helper()
	var out []nvml.Device
	for i := range b.devs {
		d, ret := b.NVML().DeviceGetHandleByUUID(b.devs[i].info.UUID)
		must(t, retErr(ret))
		out = append(out, d)
	}
	return out
}

func retErr(ret nvml.Return) error {
	if ret == nvml.SUCCESS {
		return nil
	}
	return ret
}

// A clean preset is healthy as NVML tells it: counters readable (retired
// pages NOT_SUPPORTED, as on Hopper), every NVLink that reaches a GPU
// active, the fabric registered where the preset has one, and no event.
func TestCleanPresetIsHealthy(t *testing.T) {
	b := open(t, "h200x2")
	devs := nvmlDevs(t, b)
	a, err := health.Take(devs[0], "GPU0")
	must(t, err)
	c, err := health.Take(devs[1], "GPU1")
	must(t, err)
	if a.PCIeReplay.N != 1 || !a.RetiredDoubleBit.Unsupported || len(a.Links) != 18 {
		t.Errorf("GPU0 snapshot: PCIe replay %v, retired %v, %d links", a.PCIeReplay, a.RetiredDoubleBit, len(a.Links))
	}
	speed, err := health.LinkSpeed(devs[0], "GPU0")
	must(t, err)
	v := health.JudgeLinks(a, c, b.devs[0].info.PCIBusID, b.devs[1].info.PCIBusID, speed, speed, 18)
	if len(v.Problems) != 0 || v.Counted != "direct" || v.Active != 18 {
		t.Errorf("links: %+v", v)
	}
	f, err := health.ReadFabric(devs[0], "GPU0")
	if err != nil || !f.OK() {
		t.Errorf("fabric %v, %v", f, err)
	}
	f, err = health.ReadFabric(nvmlDevs(t, open(t, "mixed"))[0], "GPU0")
	if err != nil || f.Supported {
		t.Errorf("mixed: fabric %v, %v; want none", f, err)
	}
	w, err := health.Watch(b.NVML(), []health.Watched{{Name: "GPU0", Device: devs[0]}, {Name: "GPU1", Device: devs[1]}})
	must(t, err)
	w.Drain(health.Poll * 5)
	must(t, w.Stop())
	if ev := w.Events("", time.Time{}); len(ev) != 0 {
		t.Errorf("events on a clean preset: %v", ev)
	}
}

// A peer copy's event time follows the modelled rate, 83 % of NVML's
// nominal, not the host's memcpy speed. The copies are large so that the
// modelled time (about 2.7 ms) dwarfs the wall time the stream spends
// outside them (scheduling the goroutines on a loaded machine: tens of
// microseconds, which made 256 KiB copies miss the band in CI).
func TestPeerCopyEventTimeIsModelled(t *testing.T) {
	b := open(t, "h200x2")
	must(t, b.EnablePeerAccess(0, 1))
	const n = 16 << 20
	src, err := b.Alloc(0, n)
	must(t, err)
	dst, err := b.Alloc(1, n)
	must(t, err)
	ms := eventTime(t, b, 0, func(s backend.Stream) error {
		for range 64 {
			if err := b.CopyPeerAsync(s, dst, 1, src, 0, n); err != nil {
				return err
			}
		}
		return nil
	})
	gbps := float64(64*n) / float64(ms) / 1e6
	nominal := 18 * 26.5625
	if gbps > nominal*1.05 || gbps < nominal*0.6 {
		t.Errorf("64 peer copies of %d bytes: %.1f GB/s in event time, want about %.0f (83 %% of %.0f)", n, gbps, nominal*0.83, nominal)
	}
}
