// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
)

// The fake's health, as NVML reports it: error counters that stay where a
// healthy machine leaves them (a PCIe replay count of 1 on GPU0 from before
// the run, as observed on an H200), a fabric registered wherever the preset
// has the FABRIC handle type, and critical events only under the defects
// that deliver them.

// xidDuringSpec is the Xid the xid-during-spec defect delivers: 74, an
// NVLink error, the one a peer-to-peer suite most needs to see.
const xidDuringSpec = 74

// healthState is the fake GPUs' counters and queued events.
type healthState struct {
	// linkErrors[gpu][link][counter] (NVLINK_ERROR_DL_*).
	linkErrors [][][4]atomic.Uint64
	// work counts operations run on each GPU's streams; the
	// xid-during-spec defect delivers its event after the first operation
	// on GPU1 that follows the event registration.
	work       []atomic.Uint64
	xidSent    atomic.Bool
	mu         sync.Mutex
	registered []uint64 // event types registered per GPU
	workAtReg  []uint64
}

func newHealthState(gpus, links int) *healthState {
	h := &healthState{linkErrors: make([][][4]atomic.Uint64, gpus), work: make([]atomic.Uint64, gpus),
		registered: make([]uint64, gpus), workAtReg: make([]uint64, gpus)}
	for i := range h.linkErrors {
		h.linkErrors[i] = make([][4]atomic.Uint64, links)
	}
	return h
}

// noteWork counts an operation on dev's stream.
func (b *Backend) noteWork(dev int) {
	if b.health != nil {
		b.health.work[dev].Add(1)
	}
}

// notePeerCopy applies nvlink-errors-increment: every copy between two GPUs
// adds a replay and a CRC flit error on the source GPU's first link.
func (b *Backend) notePeerCopy(src int) {
	if b.health == nil || !b.defects.has(dNVLinkErrorsIncrement) || len(b.health.linkErrors[src]) == 0 {
		return
	}
	b.health.linkErrors[src][0][nvml.NVLINK_ERROR_DL_REPLAY].Add(1)
	b.health.linkErrors[src][0][nvml.NVLINK_ERROR_DL_CRC_FLIT].Add(1)
}

// linkDown says whether link l of GPU i is down under nvlink-down: the
// first link between GPU0 and GPU1, on both ends.
func (b *Backend) linkDown(i, l int, links []int) bool {
	if !b.defects.has(dNVLinkDown) || i > 1 || len(b.devs) < 2 {
		return false
	}
	for k, peer := range links {
		if peer == 1-i {
			return k == l
		}
	}
	return false
}

// fabricInfo is the preset's fabric registration.
func (b *Backend) fabricInfo() (nvml.GpuFabricInfo_v3, nvml.Return) {
	if b.preset.fabric == fabricUnsupported {
		return nvml.GpuFabricInfo_v3{State: nvml.GPU_FABRIC_STATE_NOT_SUPPORTED}, nvml.SUCCESS
	}
	info := nvml.GpuFabricInfo_v3{State: nvml.GPU_FABRIC_STATE_COMPLETED, Status: uint32(nvml.SUCCESS)}
	if b.defects.has(dFabricNotStarted) {
		info.State, info.Status = nvml.GPU_FABRIC_STATE_IN_PROGRESS, uint32(nvml.ERROR_NOT_READY)
	}
	return info, nvml.SUCCESS
}

// nvmlDev is a fake NVML device: go-nvml's mock plus the fabric call that a
// mock cannot answer through go-nvml's handler (health.FabricReader).
type nvmlDev struct {
	*mock.Device
	fabric func() (nvml.GpuFabricInfo_v3, nvml.Return)
}

// GpuFabricInfoV3 is nvmlDeviceGetGpuFabricInfoV at version 3.
func (d *nvmlDev) GpuFabricInfoV3() (nvml.GpuFabricInfo_v3, nvml.Return) { return d.fabric() }

// addHealth fills the health calls of GPU i's mock.
func (b *Backend) addHealth(d *mock.Device, i int, links []int) {
	h := b.health
	linkCall := func(l int) nvml.Return {
		switch {
		case len(links) == 0:
			return nvml.ERROR_NOT_SUPPORTED
		case l < 0 || l >= len(links):
			return nvml.ERROR_INVALID_ARGUMENT
		}
		return nvml.SUCCESS
	}
	d.GetNvLinkErrorCounterFunc = func(l int, c nvml.NvLinkErrorCounter) (uint64, nvml.Return) {
		if ret := linkCall(l); ret != nvml.SUCCESS {
			return 0, ret
		}
		if c > nvml.NVLINK_ERROR_DL_CRC_DATA || b.defects.has(dErrorCountersUnsupported) {
			return 0, nvml.ERROR_NOT_SUPPORTED
		}
		return h.linkErrors[i][l][c].Load(), nvml.SUCCESS
	}
	d.GetPcieReplayCounterFunc = func() (int, nvml.Return) {
		if b.defects.has(dErrorCountersUnsupported) {
			return 0, nvml.ERROR_NOT_SUPPORTED
		}
		if i == 0 {
			return 1, nvml.SUCCESS
		}
		return 0, nvml.SUCCESS
	}
	d.GetTotalEccErrorsFunc = func(nvml.MemoryErrorType, nvml.EccCounterType) (uint64, nvml.Return) { return 0, nvml.SUCCESS }
	d.GetRemappedRowsFunc = func() (int, int, bool, bool, nvml.Return) { return 0, 0, false, false, nvml.SUCCESS }
	// Hopper retires no pages (row remapping replaced it): NOT_SUPPORTED.
	d.GetRetiredPagesFunc = func(nvml.PageRetirementCause) ([]uint64, nvml.Return) { return nil, nvml.ERROR_NOT_SUPPORTED }
	d.GetCurrentClocksEventReasonsFunc = func() (uint64, nvml.Return) { return 0, nvml.SUCCESS }
	d.GetVirtualizationModeFunc = func() (nvml.GpuVirtualizationMode, nvml.Return) {
		return nvml.GPU_VIRTUALIZATION_MODE_NONE, nvml.SUCCESS
	}
	d.GetPersistenceModeFunc = func() (nvml.EnableState, nvml.Return) { return nvml.FEATURE_ENABLED, nvml.SUCCESS }
	d.GetMigModeFunc = func() (int, int, nvml.Return) { return nvml.DEVICE_MIG_DISABLE, nvml.DEVICE_MIG_DISABLE, nvml.SUCCESS }
	d.GetFieldValuesFunc = func(vals []nvml.FieldValue) nvml.Return {
		for k := range vals {
			vals[k].ValueType = uint32(nvml.VALUE_TYPE_UNSIGNED_INT)
			vals[k].NvmlReturn = uint32(nvml.SUCCESS)
			var v uint32
			switch {
			case len(links) == 0:
				vals[k].NvmlReturn = uint32(nvml.ERROR_NOT_SUPPORTED)
			case vals[k].FieldId == nvml.FI_DEV_NVLINK_SPEED_MBPS_COMMON:
				v = nvlinkSpeedMBps[b.preset.nvlinkVersion]
			case vals[k].FieldId == nvml.FI_DEV_NVLINK_LINK_COUNT:
				v = uint32(len(links))
			default:
				vals[k].NvmlReturn = uint32(nvml.ERROR_NOT_SUPPORTED)
			}
			vals[k].Value = [8]byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)}
		}
		return nvml.SUCCESS
	}
	d.GetSupportedEventTypesFunc = func() (uint64, nvml.Return) {
		return nvml.EventTypeXidCriticalError | nvml.EventTypeDoubleBitEccError | nvml.EventTypeSingleBitEccError |
			nvml.EventTypePState | nvml.EventTypeClock, nvml.SUCCESS
	}
	d.RegisterEventsFunc = func(types uint64, _ nvml.EventSet) nvml.Return {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.registered[i] |= types
		h.workAtReg[i] = h.work[i].Load()
		return nvml.SUCCESS
	}
}

// nvlinkSpeedMBps is FI_DEV_NVLINK_SPEED_MBPS_COMMON by link version, as
// NVML reports it (26562 MB/s on an H200's NVLink 4.0 links).
var nvlinkSpeedMBps = map[nvml.NvlinkVersion]uint32{nvml.NVLINK_VERSION_4_0: 26562}

// eventSet is nvmlEventSetCreate's set: a wait delivers the xid-during-spec
// event once, after GPU1 (or GPU0 on a one-GPU preset) has run work since
// it was registered for Xid events; otherwise it times out after the wait.
func (b *Backend) eventSet(devs []*nvmlDev) nvml.EventSet {
	h := b.health
	target := min(1, len(devs)-1)
	return &mock.EventSet{
		WaitFunc: func(ms uint32) (nvml.EventData, nvml.Return) {
			if b.defects.has(dXidDuringSpec) {
				h.mu.Lock()
				due := h.registered[target]&nvml.EventTypeXidCriticalError != 0 && h.work[target].Load() > h.workAtReg[target]
				h.mu.Unlock()
				if due && h.xidSent.CompareAndSwap(false, true) {
					return nvml.EventData{Device: devs[target], EventType: nvml.EventTypeXidCriticalError, EventData: xidDuringSpec}, nvml.SUCCESS
				}
			}
			time.Sleep(time.Duration(ms) * time.Millisecond)
			return nvml.EventData{}, nvml.ERROR_TIMEOUT
		},
		FreeFunc: func() nvml.Return { return nvml.SUCCESS },
	}
}
