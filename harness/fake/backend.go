// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"crypto/sha256"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

// Backend is the fake machine as one process sees it. It implements
// backend.Backend; all methods are safe for concurrent use.
type Backend struct {
	preset  *presetSpec
	defects defect
	// defectNames are the injected defects as given to Open.
	defectNames []string
	name        string
	devs        []*device
	pairs       [][]pairSpec
	nvml        nvml.Interface
	state       *stateDir
	as          *addrSpace
	slotFD      int

	mu      sync.Mutex
	closed  bool
	peerAPI [][]bool // cuCtxEnablePeerAccess calls in effect (accessor, owner)
	// enabledAt[a][o] is the last allocation number when peer access a→o
	// was enabled (peer-enable-misses-earlier-allocs, guarded by mu).
	enabledAt [][]uint64
	// allocSeq numbers cuMemAlloc regions in the order they were made
	// (guarded by mu).
	allocSeq  uint64
	objects   map[string]*memObject
	allocs    map[uint64]*region // cuMemAlloc base → region
	hosts     map[uint64]*region
	ipcOpen   map[ipcKey]*region
	vmm       map[backend.AllocHandle]*memObject
	reserved  map[uint64]uint64 // cuMemAddressReserve base → size
	events    map[*event]bool
	streams   map[*stream]bool
	nextAlloc backend.AllocHandle

	// unmapped is each device's access at the base of a mapping that
	// cuMemUnmap removed, kept under vmm-unmap-keeps-access for the next
	// mapping there until the reservation is freed (guarded by mu).
	unmapped map[uint64][]uint32

	// access[a][b]: kernels on a may touch b's cuMemAlloc memory (hot path).
	access [][]atomic.Bool
	// active counts operations touching memory; unmaps wait until it is 0.
	active    atomic.Int64
	unmapMu   sync.Mutex
	unmaps    []func()
	remoteRMW atomic.Uint64 // counts RMWs for the lose-updates defects
	foreign   *foreign      // another program on a GPU (P2PCONF_FAKE_FOREIGN), or nil
	// health is what NVML reports about the GPUs' health (health.go).
	health *healthState
	// peerRates caches the modelled rate of copies between two GPUs
	// (timing.go), by [src][dst].
	peerRates sync.Map
	// mm is the Unified Memory model (managed.go).
	mm managedMachine
	// ds is what some defects remember between calls (defects_sim.go).
	ds defectState
}

type device struct {
	info   backend.DeviceInfo
	poison atomic.Pointer[cuerr.Error]
}

// Option changes how Open builds the backend.
type Option func(*options)

type options struct{ stateDir string }

// WithStateDir uses dir as the shared state directory instead of
// P2PCONF_FAKE_STATE (tests use it to keep machines apart).
func WithStateDir(dir string) Option { return func(o *options) { o.stateDir = dir } }

// Open builds the fake machine preset ("nvlink8", or "mixed@12040" for a
// different driver version) with the named defects injected. An unknown
// preset or defect is an error listing the valid names.
func Open(preset string, defects []string, opts ...Option) (*Backend, error) {
	var o options
	for _, f := range opts {
		f(&o)
	}
	ps, err := lookupPreset(preset)
	if err != nil {
		return nil, err
	}
	set, err := parseDefectSet(defects)
	if err != nil {
		return nil, err
	}
	fg, err := foreignFromEnv(len(ps.bus))
	if err != nil {
		return nil, err
	}
	st, err := openStateDir(o.stateDir)
	if err != nil {
		return nil, err
	}
	slot, slotFD, err := st.slot()
	if err != nil {
		st.close()
		return nil, err
	}
	b := &Backend{
		preset: ps, defects: set, state: st, as: newAddrSpace(slot), slotFD: slotFD,
		objects: map[string]*memObject{}, allocs: map[uint64]*region{}, hosts: map[uint64]*region{},
		ipcOpen: map[ipcKey]*region{}, vmm: map[backend.AllocHandle]*memObject{}, reserved: map[uint64]uint64{},
		events: map[*event]bool{}, streams: map[*stream]bool{}, foreign: fg,
		nextAlloc: backend.AllocHandle(randomUint64()&0xffff_ffff)<<16 | 1,
	}
	b.unmapped = map[uint64][]uint32{}
	b.name = "fake:" + ps.name
	for _, d := range defects {
		b.defectNames = append(b.defectNames, strings.TrimSpace(d))
		b.name += "+" + strings.TrimSpace(d)
	}
	n := len(ps.bus)
	b.peerAPI = make([][]bool, n)
	b.access = make([][]atomic.Bool, n)
	b.pairs = make([][]pairSpec, n)
	for i := 0; i < n; i++ {
		b.devs = append(b.devs, &device{info: ps.deviceInfo(i)})
		b.peerAPI[i] = make([]bool, n)
		b.enabledAt = append(b.enabledAt, make([]uint64, n))
		b.access[i] = make([]atomic.Bool, n)
		b.pairs[i] = make([]pairSpec, n)
		for j := 0; j < n; j++ {
			if i != j {
				b.pairs[i][j] = ps.pair(i, j)
			}
		}
	}
	b.nvml = b.buildNVML()
	return b, nil
}

// deviceInfo is what CUDA reports for ordinal i; the UUID is derived from
// the preset so every process builds the same machine.
func (ps *presetSpec) deviceInfo(i int) backend.DeviceInfo {
	h := sha256.Sum256([]byte(fmt.Sprintf("p2pconf-fake/%s/%d", ps.name, i)))
	uuid := fmt.Sprintf("GPU-%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
	return backend.DeviceInfo{
		Ordinal: backend.Device(i), Name: ps.gpuName, UUID: uuid,
		PCIBusID:          fmt.Sprintf("00000000:%02X:00.0", ps.bus[i]),
		ComputeCapability: ps.cc, SMCount: ps.sms, TotalMemory: ps.memMiB << 20,
	}
}

// Name is "fake:<preset>" plus "+<defect>" per injected defect.
func (b *Backend) Name() string { return b.name }

// DriverVersion is the preset's cuDriverGetVersion.
func (b *Backend) DriverVersion() int { return b.preset.driver }

// Devices lists the fake GPUs by ordinal (ascending PCI bus ID).
func (b *Backend) Devices() []backend.DeviceInfo {
	out := make([]backend.DeviceInfo, len(b.devs))
	for i, d := range b.devs {
		out[i] = d.info
	}
	return out
}

// NVML is a go-nvml mock of the same machine.
func (b *Backend) NVML() nvml.Interface { return b.nvml }

// StateDir is the shared state directory (what helpers get in P2PCONF_FAKE_STATE).
func (b *Backend) StateDir() string { return b.state.root }

// DeviceAttribute answers cuDeviceGetAttribute from the preset. It is a
// device query, not a context call, so a poisoned context does not affect it.
func (b *Backend) DeviceAttribute(d backend.Device, a backend.DeviceAttr) (int, error) {
	const fn = "cuDeviceGetAttribute"
	if !b.valid(d) {
		return 0, cuerr.New(fn, cuerr.InvalidDevice, fmt.Sprintf("device %d", int(d)))
	}
	ps := b.preset
	if a == backend.AttrUnifiedAddressing && b.defects.has(dUVAAttributeZero) {
		return 0, nil
	}
	switch a {
	case backend.AttrMultiprocessorCount:
		return ps.sms, nil
	case backend.AttrPCIBusID:
		return int(ps.bus[d]), nil
	case backend.AttrComputeCapabilityMajor:
		return ps.cc / 10, nil
	case backend.AttrComputeCapabilityMinor:
		return ps.cc % 10, nil
	case backend.AttrHostNativeAtomicSupported:
		return boolInt(ps.hostNative), nil
	case backend.AttrHandleTypeFabricSupported:
		return boolInt(ps.fabric != fabricUnsupported), nil
	case backend.AttrOnlyPartialHostNativeAtomicSupported:
		if ps.driver < 13000 {
			return 0, cuerr.New(fn, cuerr.InvalidValue, fmt.Sprintf("%s needs CUDA 13.0 (driver %d)", a, ps.driver))
		}
		return 0, nil
	case backend.AttrManagedMemory, backend.AttrConcurrentManagedAccess, backend.AttrPageableMemoryAccess:
		return b.managedAttribute(a), nil
	case backend.AttrPCIDeviceID, backend.AttrPCIDomainID, backend.AttrComputeMode:
		return 0, nil
	case backend.AttrL2CacheSize:
		return 50 << 20, nil // a Hopper-sized L2; only sizes the latency probe's table
	case backend.AttrCanMapHostMemory, backend.AttrUnifiedAddressing,
		backend.AttrCooperativeLaunch, backend.AttrVirtualMemoryManagementSupported,
		backend.AttrHandleTypePosixFDSupported, backend.AttrMemoryPoolsSupported, backend.AttrIPCEventSupported:
		return 1, nil
	}
	return 0, cuerr.New(fn, cuerr.InvalidValue, fmt.Sprintf("the fake does not model %s", a))
}

// Close stops the stream workers and releases this process's memory and
// locks. Kernels still running keep their memory mapped until they end.
func (b *Backend) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	streams := make([]*stream, 0, len(b.streams))
	for s := range b.streams {
		streams = append(streams, s)
	}
	var objs []*memObject
	for _, o := range b.objects {
		objs = append(objs, o)
	}
	b.objects = map[string]*memObject{}
	hosts := b.hosts
	b.hosts = map[uint64]*region{}
	events := b.events
	b.events = map[*event]bool{}
	b.mu.Unlock()
	for _, s := range streams {
		s.stop()
	}
	b.as.clear()
	for _, o := range objs {
		o := o
		b.unmapLater(func() { o.unmap() })
	}
	for _, r := range hosts {
		mem := r.mem
		b.unmapLater(func() { _ = syscall.Munmap(mem) })
	}
	for e := range events {
		e.release()
	}
	_ = syscall.Close(b.slotFD)
	b.state.close()
	return nil
}

func (b *Backend) valid(d backend.Device) bool { return d >= 0 && int(d) < len(b.devs) }

// ctx checks d for a call made in d's context: the device must exist and its
// context must not be poisoned by an earlier fault.
func (b *Backend) ctx(fn string, d backend.Device) error {
	if !b.valid(d) {
		return cuerr.New(fn, cuerr.InvalidDevice, fmt.Sprintf("device %d (the machine has %d)", int(d), len(b.devs)))
	}
	if p := b.devs[d].poison.Load(); p != nil {
		return &cuerr.Error{Func: fn, Code: p.Code, Detail: fmt.Sprintf("GPU%d's context is poisoned by an earlier fault: %s", int(d), p.Detail)}
	}
	return nil
}

// poison marks d's context as failed for good (sticky errors such as 700).
func (b *Backend) poison(d int, code cuerr.Result, detail string) {
	b.devs[d].poison.CompareAndSwap(nil, &cuerr.Error{Func: "kernel", Code: code, Detail: detail})
}

func boolInt(v bool) int {
	if v {
		return 1
	}
	return 0
}

func errf(fn string, code cuerr.Result, format string, args ...any) error {
	return cuerr.New(fn, code, fmt.Sprintf(format, args...))
}

// enter and exit bracket every operation that touches mapped bytes; unmaps
// requested meanwhile run when the last one exits, so no goroutine ever
// touches memory that was unmapped under it.
func (b *Backend) enter() { b.active.Add(1) }

func (b *Backend) exit() {
	if b.active.Add(-1) == 0 {
		b.flushUnmaps()
	}
}

func (b *Backend) unmapLater(f func()) {
	b.unmapMu.Lock()
	b.unmaps = append(b.unmaps, f)
	b.unmapMu.Unlock()
	if b.active.Load() == 0 {
		b.flushUnmaps()
	}
}

func (b *Backend) flushUnmaps() {
	b.unmapMu.Lock()
	defer b.unmapMu.Unlock()
	if b.active.Load() != 0 {
		return
	}
	for _, f := range b.unmaps {
		f()
	}
	b.unmaps = nil
}

// pid is used in handles to tell the exporting process.
var pid = os.Getpid()

var _ backend.Backend = (*Backend)(nil)
