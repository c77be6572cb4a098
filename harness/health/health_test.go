// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package health

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
)

// gpuMock is one GPU: links to peer (or to switches), counters as given.
type gpuMock struct {
	links    int
	down     map[int]bool
	toSwitch bool
	peerBus  uint32
	version  uint32
	replay   map[int]uint64 // per link
	pcie     int
	noECC    bool
	eccRet   nvml.Return
}

func (g gpuMock) device() *mock.Device {
	linkRet := func(l int) nvml.Return {
		if l >= g.links {
			return nvml.ERROR_INVALID_ARGUMENT
		}
		return nvml.SUCCESS
	}
	return &mock.Device{
		GetNvLinkStateFunc: func(l int) (nvml.EnableState, nvml.Return) {
			if g.links == 0 {
				return 0, nvml.ERROR_NOT_SUPPORTED
			}
			if r := linkRet(l); r != nvml.SUCCESS {
				return 0, r
			}
			if g.down[l] {
				return nvml.FEATURE_DISABLED, nvml.SUCCESS
			}
			return nvml.FEATURE_ENABLED, nvml.SUCCESS
		},
		GetNvLinkVersionFunc: func(l int) (uint32, nvml.Return) { return g.version, linkRet(l) },
		GetNvLinkRemotePciInfoFunc: func(l int) (nvml.PciInfo, nvml.Return) {
			if g.toSwitch {
				return nvml.PciInfo{Domain: 0xFFFFFFFF, Bus: 0xFF, Device: 0xFF}, linkRet(l)
			}
			return nvml.PciInfo{Bus: g.peerBus}, linkRet(l)
		},
		GetNvLinkRemoteDeviceTypeFunc: func(l int) (nvml.IntNvLinkDeviceType, nvml.Return) {
			if g.toSwitch {
				return nvml.NVLINK_DEVICE_TYPE_SWITCH, linkRet(l)
			}
			return nvml.NVLINK_DEVICE_TYPE_GPU, linkRet(l)
		},
		GetNvLinkErrorCounterFunc: func(l int, c nvml.NvLinkErrorCounter) (uint64, nvml.Return) {
			if c == nvml.NVLINK_ERROR_DL_CRC_DATA {
				return 0, nvml.ERROR_NOT_SUPPORTED
			}
			if c == nvml.NVLINK_ERROR_DL_REPLAY {
				return g.replay[l], linkRet(l)
			}
			return 0, linkRet(l)
		},
		GetPcieReplayCounterFunc: func() (int, nvml.Return) { return g.pcie, nvml.SUCCESS },
		GetTotalEccErrorsFunc: func(nvml.MemoryErrorType, nvml.EccCounterType) (uint64, nvml.Return) {
			if g.eccRet != 0 {
				return 0, g.eccRet
			}
			if g.noECC {
				return 0, nvml.ERROR_NOT_SUPPORTED
			}
			return 0, nvml.SUCCESS
		},
		GetRemappedRowsFunc: func() (int, int, bool, bool, nvml.Return) { return 0, 1, true, false, nvml.SUCCESS },
		GetRetiredPagesFunc: func(nvml.PageRetirementCause) ([]uint64, nvml.Return) {
			return nil, nvml.ERROR_FUNCTION_NOT_FOUND
		},
		GetCurrentClocksEventReasonsFunc: func() (uint64, nvml.Return) { return 4, nvml.SUCCESS },
	}
}

func take(t *testing.T, g gpuMock, name string) Snapshot {
	t.Helper()
	s, err := Take(g.device(), name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestTakeRecordsUnsupportedAndFailsOnErrors(t *testing.T) {
	s := take(t, gpuMock{links: 18, peerBus: 0x43, version: 6, pcie: 1, noECC: true}, "GPU0")
	if len(s.Links) != 18 || !s.Links[3].Active || s.Links[3].Remote != "00000000:43:00.0" || s.Links[3].Version != 6 {
		t.Errorf("links: %+v", s.Links[3])
	}
	if !s.Links[0].Errors["crc-data"].Unsupported || s.Links[0].Errors["replay"].Unsupported {
		t.Errorf("link counters: %v", s.Links[0].Errors)
	}
	if s.PCIeReplay.N != 1 || !s.ECCCorrected.Unsupported || !s.RetiredSingleBit.Unsupported ||
		s.RemappedUncorrectable.N != 1 || !s.RemapPending || s.ClockEventReasons.N != 4 {
		t.Errorf("snapshot: %+v", s)
	}
	if got := s.ECCCorrected.String(); got != "not supported" {
		t.Errorf("unsupported reads %q", got)
	}
	_, err := Take(gpuMock{links: 2, eccRet: nvml.ERROR_GPU_IS_LOST}.device(), "GPU1")
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, nvml.ERROR_GPU_IS_LOST) || !strings.Contains(err.Error(), "nvmlDeviceGetTotalEccErrors") || !strings.Contains(err.Error(), "GPU1") {
		t.Errorf("a lost GPU: %v", err)
	}
	if s := take(t, gpuMock{}, "GPU2"); len(s.Links) != 0 {
		t.Errorf("a GPU without NVLink has links: %v", s.Links)
	}
}

func TestDiffCountsIncreasesOnly(t *testing.T) {
	before := take(t, gpuMock{links: 4, peerBus: 0x43, version: 6, pcie: 1, replay: map[int]uint64{2: 5}}, "GPU0")
	after := take(t, gpuMock{links: 4, peerBus: 0x43, version: 6, pcie: 3, replay: map[int]uint64{1: 2, 2: 4}}, "GPU0")
	got := Diff(before, after)
	if len(got) != 2 || got[0].Counter != "link 1 replay" || got[1].Counter != "pcie replay" || got[1].From != 1 || got[1].To != 3 {
		t.Fatalf("Diff = %v", got)
	}
	if s := got[0].String(); s != "GPU0 link 1 replay 0 → 2 (+2)" {
		t.Errorf("increase reads %q", s)
	}
	if kept := PairIncreases(got, after, "0000:43:00.0"); len(kept) != 2 {
		t.Errorf("both are on the path to the peer: %v", kept)
	}
	if kept := PairIncreases(got, after, "0000:99:00.0"); len(kept) != 1 || kept[0].Counter != "pcie replay" {
		t.Errorf("only PCIe replay concerns another peer: %v", kept)
	}
	if d := Diff(after, before); len(d) != 1 || d[0].Counter != "link 2 replay" {
		t.Errorf("counters going down are no increase: %v", d)
	}
}

// PairCompared names the counters on the pair's path readable at both ends;
// where NVML answers NOT_SUPPORTED for all of them, nothing was compared.
func TestPairComparedListsWhatWasReadable(t *testing.T) {
	before := take(t, gpuMock{links: 4, peerBus: 0x43, version: 6, pcie: 1}, "GPU0")
	after := take(t, gpuMock{links: 4, peerBus: 0x43, version: 6, pcie: 3}, "GPU0")
	got := PairCompared(before, after, "0000:99:00.0")
	if len(got) != 1 || got[0] != "GPU0 pcie replay" {
		t.Errorf("with a peer no link reaches, only PCIe replay is on the path: %v", got)
	}
	if n := len(PairCompared(before, after, "0000:43:00.0")); n <= 1 {
		t.Errorf("the links to the peer add their counters: %d compared", n)
	}
	before.PCIeReplay, after.PCIeReplay = Reading{Unsupported: true}, Reading{Unsupported: true}
	if got := PairCompared(before, after, "0000:99:00.0"); len(got) != 0 {
		t.Errorf("an unsupported counter was compared: %v", got)
	}
}

func TestJudgeLinks(t *testing.T) {
	speed := Reading{N: 26562}
	a := take(t, gpuMock{links: 18, peerBus: 0x43, version: 6}, "GPU0")
	b := take(t, gpuMock{links: 18, peerBus: 0x1b, version: 6}, "GPU1")
	const busA, busB = "0000:1B:00.0", "0000:43:00.0"
	if v := JudgeLinks(a, b, busA, busB, speed, speed, 18); len(v.Problems) != 0 || v.Counted != "direct" || v.Active != 18 {
		t.Errorf("18 direct links up: %+v", v)
	}
	if v := JudgeLinks(a, b, busA, busB, speed, speed, 12); len(v.Problems) != 1 || !strings.Contains(v.Problems[0], "NV12") {
		t.Errorf("a claim of NV12: %+v", v)
	}
	down := take(t, gpuMock{links: 18, peerBus: 0x43, version: 6, down: map[int]bool{5: true}}, "GPU0")
	v := JudgeLinks(down, b, busA, busB, speed, speed, 17)
	if len(v.Problems) != 2 || !strings.Contains(v.Problems[0], "GPU0 link 5") {
		t.Errorf("a link down: %+v", v)
	}
	if v := JudgeLinks(a, b, busA, busB, speed, Reading{N: 25000}, 18); len(v.Problems) != 1 || !strings.Contains(v.Problems[0], "speeds differ") {
		t.Errorf("two speeds: %+v", v)
	}
	mixed := a
	mixed.Links = append([]Link(nil), a.Links...)
	mixed.Links[0].Version = 5
	if v := JudgeLinks(mixed, b, busA, busB, speed, speed, 18); len(v.Problems) != 1 || !strings.Contains(v.Problems[0], "versions") {
		t.Errorf("two versions: %+v", v)
	}

	// Through NVSwitches, as two H200 of an 8-GPU baseboard report it: the
	// pair has the smaller switch-link count.
	sa := take(t, gpuMock{links: 18, toSwitch: true, version: 6}, "GPU0")
	sb := take(t, gpuMock{links: 18, toSwitch: true, version: 6}, "GPU1")
	if !HasLinks(sa, sb, busA, busB) {
		t.Fatal("switch links join the pair")
	}
	if v := JudgeLinks(sa, sb, busA, busB, speed, speed, 18); len(v.Problems) != 0 || v.Counted != "through NVSwitch" || v.Expected != 18 {
		t.Errorf("NV18 through switches: %+v", v)
	}
	sbDown := take(t, gpuMock{links: 18, toSwitch: true, version: 6, down: map[int]bool{0: true}}, "GPU1")
	if v := JudgeLinks(sa, sbDown, busA, busB, speed, speed, 17); len(v.Problems) != 1 || v.Active != 17 {
		t.Errorf("one switch link down: %+v", v)
	}
	none := take(t, gpuMock{}, "GPU2")
	if HasLinks(none, b, "0000:99:00.0", busB) {
		t.Error("a GPU without NVLink has links to its peer")
	}
}

func TestLinkSpeed(t *testing.T) {
	d := &mock.Device{GetFieldValuesFunc: func(v []nvml.FieldValue) nvml.Return {
		v[0].ValueType = uint32(nvml.VALUE_TYPE_UNSIGNED_INT)
		v[0].Value = [8]byte{0xc2, 0x67} // 26562
		return nvml.SUCCESS
	}}
	if r, err := LinkSpeed(d, "GPU0"); err != nil || r.N != 26562 {
		t.Errorf("LinkSpeed = %v, %v", r, err)
	}
	d.GetFieldValuesFunc = func(v []nvml.FieldValue) nvml.Return {
		v[0].NvmlReturn = uint32(nvml.ERROR_NOT_SUPPORTED)
		return nvml.SUCCESS
	}
	if r, err := LinkSpeed(d, "GPU0"); err != nil || !r.Unsupported {
		t.Errorf("unsupported field: %v, %v", r, err)
	}
}

type fabricMock struct {
	*mock.Device
	info nvml.GpuFabricInfo_v3
	ret  nvml.Return
}

func (f fabricMock) GpuFabricInfoV3() (nvml.GpuFabricInfo_v3, nvml.Return) { return f.info, f.ret }

func TestReadFabric(t *testing.T) {
	ok := nvml.GpuFabricInfo_v3{State: nvml.GPU_FABRIC_STATE_COMPLETED, Status: uint32(nvml.SUCCESS)}
	f, err := ReadFabric(fabricMock{info: ok}, "GPU0")
	if err != nil || !f.OK() {
		t.Errorf("completed: %v, %v", f, err)
	}
	for name, c := range map[string]fabricMock{
		"in progress": {info: nvml.GpuFabricInfo_v3{State: nvml.GPU_FABRIC_STATE_IN_PROGRESS}},
		"failed":      {info: nvml.GpuFabricInfo_v3{State: nvml.GPU_FABRIC_STATE_COMPLETED, Status: uint32(nvml.ERROR_UNKNOWN)}},
		"degraded":    {info: nvml.GpuFabricInfo_v3{State: nvml.GPU_FABRIC_STATE_COMPLETED, HealthMask: nvml.GPU_FABRIC_HEALTH_MASK_DEGRADED_BW_TRUE}},
		"misconfigured": {info: nvml.GpuFabricInfo_v3{State: nvml.GPU_FABRIC_STATE_COMPLETED,
			HealthMask: nvml.GPU_FABRIC_HEALTH_MASK_INCORRECT_CONFIGURATION_NO_PARTITION << nvml.GPU_FABRIC_HEALTH_MASK_SHIFT_INCORRECT_CONFIGURATION}},
	} {
		f, err := ReadFabric(c, "GPU0")
		if err != nil || !f.Supported || f.OK() {
			t.Errorf("%s: %v, %v", name, f, err)
		}
	}
	for _, c := range []fabricMock{{ret: nvml.ERROR_NOT_SUPPORTED}, {info: nvml.GpuFabricInfo_v3{State: nvml.GPU_FABRIC_STATE_NOT_SUPPORTED}}} {
		if f, err := ReadFabric(c, "GPU0"); err != nil || f.Supported || f.Why == "" {
			t.Errorf("no fabric: %v, %v", f, err)
		}
	}
	if _, err := ReadFabric(fabricMock{ret: nvml.ERROR_GPU_IS_LOST}, "GPU3"); err == nil || !strings.Contains(err.Error(), "GPU3") {
		t.Errorf("a lost GPU: %v", err)
	}
}

func TestWatcherCollectsXids(t *testing.T) {
	gpu0 := &mock.Device{
		GetSupportedEventTypesFunc: func() (uint64, nvml.Return) {
			return nvml.EventTypeXidCriticalError | nvml.EventTypeClock, nvml.SUCCESS
		},
		RegisterEventsFunc: func(types uint64, _ nvml.EventSet) nvml.Return {
			if types != nvml.EventTypeXidCriticalError {
				t.Errorf("registered 0x%x, want only the critical types supported", types)
			}
			return nvml.SUCCESS
		},
	}
	gpu1 := &mock.Device{GetSupportedEventTypesFunc: func() (uint64, nvml.Return) { return 0, nvml.ERROR_NOT_SUPPORTED }}
	queued := make(chan nvml.EventData, 1)
	freed := false
	set := &mock.EventSet{
		WaitFunc: func(ms uint32) (nvml.EventData, nvml.Return) {
			select {
			case e := <-queued:
				return e, nvml.SUCCESS
			case <-time.After(time.Duration(ms) * time.Millisecond):
				return nvml.EventData{}, nvml.ERROR_TIMEOUT
			}
		},
		FreeFunc: func() nvml.Return { freed = true; return nvml.SUCCESS },
	}
	lib := &mock.Interface{EventSetCreateFunc: func() (nvml.EventSet, nvml.Return) { return set, nvml.SUCCESS }}
	start := time.Now()
	w, err := Watch(lib, []Watched{{"GPU0", gpu0}, {"GPU1", gpu1}})
	if err != nil {
		t.Fatal(err)
	}
	if r := w.Registrations(); r[0].Types != nvml.EventTypeXidCriticalError || r[1].Types != 0 || r[1].Note == "" {
		t.Errorf("registrations: %+v", r)
	}
	queued <- nvml.EventData{Device: gpu0, EventType: nvml.EventTypeXidCriticalError, EventData: 79}
	w.Drain(time.Second)
	if err := w.Stop(); err != nil {
		t.Fatal(err)
	}
	evs := w.Events("GPU0", start)
	if len(evs) != 1 || evs[0].Xid != 79 || !strings.HasPrefix(evs[0].String(), "Xid 79 on GPU0 at ") {
		t.Errorf("events: %v", evs)
	}
	if len(w.Events("GPU1", start)) != 0 || len(w.Events("", time.Now().Add(time.Hour))) != 0 {
		t.Error("events of another GPU or window")
	}
	if !freed {
		t.Error("Stop left the event set")
	}
	lib.EventSetCreateFunc = func() (nvml.EventSet, nvml.Return) { return nil, nvml.ERROR_NO_PERMISSION }
	if _, err := Watch(lib, nil); err == nil || !strings.Contains(err.Error(), "nvmlEventSetCreate") {
		t.Errorf("a refused event set: %v", err)
	}
}
