// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cudabackend

import (
	"cmp"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuda"
	"github.com/p2pconf/p2pconf/harness/cuenum"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

// Backend is the CUDA machine as this process sees it. It implements
// backend.Backend; all methods are safe for concurrent use.
type Backend struct {
	drv   *cuda.Driver
	infos []backend.DeviceInfo
	// ctxs holds each device's primary context, by ordinal, retained on
	// first use (see ctx): a process that works on some GPUs leaves the
	// others without a context of its own, so suite processes running at
	// the same time on disjoint GPUs do not show up on, or take memory
	// from, each other's GPUs.
	ctxMu   sync.Mutex
	ctxs    []*cuda.Context
	nvml    nvml.Interface // nil when NVML could not be initialised
	nvmlErr error
	ownNVML bool // Close shuts NVML down

	closed  atomic.Bool
	mu      sync.Mutex // guards modules
	modules map[moduleKey]*module
}

var _ backend.Backend = (*Backend)(nil)

// Option changes how Open builds the backend.
type Option func(*options)

type options struct {
	nvml    nvml.Interface
	nvmlSet bool
	newNVML func() nvml.Interface // the library Open initialises and owns; nvml.New unless a test says otherwise
}

// WithNVML uses lib (already initialised, or nil for none) instead of
// loading libnvidia-ml.so.1; Close then leaves it alone. Tests pass a mock.
func WithNVML(lib nvml.Interface) Option {
	return func(o *options) { o.nvml, o.nvmlSet = lib, true }
}

// Open loads the driver library at libPath (cuda.DefaultLibrary unless the
// run says otherwise), initialises it, reads every device's identity and
// opens NVML. A device's primary context is retained when the process first
// uses the device. A driver that cannot be loaded or initialised is an
// error (a *cuda.LoadError keeps the dlerror text): the run must fail, never
// fall back. NVML that cannot be loaded is not: NVML() is then nil and
// NVMLError says why.
func Open(libPath string, opts ...Option) (*Backend, error) {
	var o options
	for _, f := range opts {
		f(&o)
	}
	drv, err := cuda.Load(libPath)
	if err != nil {
		return nil, err
	}
	b := &Backend{drv: drv, modules: map[moduleKey]*module{}}
	if err := b.openDevices(); err != nil {
		return nil, errors.Join(err, b.releaseContexts())
	}
	b.openNVML(o)
	return b, nil
}

// openDevices initialises the driver and reads each device's identity (no
// context needed). The library stays loaded for the life of the process (see
// Close).
func (b *Backend) openDevices() error {
	if err := b.drv.Init(); err != nil {
		return fmt.Errorf("cudabackend: %s loaded (CUDA %s) but did not initialise: %w", b.drv.Path(), cuda.VersionString(b.drv.Version()), err)
	}
	n, err := b.drv.DeviceCount()
	if err != nil {
		return err
	}
	for i := range n {
		dev, err := b.drv.Device(i)
		if err != nil {
			return err
		}
		info, err := b.deviceInfo(dev)
		if err != nil {
			return fmt.Errorf("cudabackend: reading device %d: %w", i, err)
		}
		b.ctxs = append(b.ctxs, nil)
		b.infos = append(b.infos, info)
	}
	return nil
}

// deviceInfo reads what identifies a device. UUID and bus ID are written as
// NVML writes them, because the harness matches CUDA ordinals to NVML
// devices by these strings.
func (b *Backend) deviceInfo(dev cuda.Device) (backend.DeviceInfo, error) {
	name, err1 := b.drv.DeviceName(dev)
	uuid, err2 := b.drv.DeviceUUID(dev)
	bus, err3 := b.drv.PCIBusID(dev)
	mem, err4 := b.drv.TotalMem(dev)
	major, err5 := b.drv.DeviceAttribute(dev, cuenum.AttrComputeCapabilityMajor)
	minor, err6 := b.drv.DeviceAttribute(dev, cuenum.AttrComputeCapabilityMinor)
	sms, err7 := b.drv.DeviceAttribute(dev, cuenum.AttrMultiprocessorCount)
	if err := cmp.Or(err1, err2, err3, err4, err5, err6, err7); err != nil {
		return backend.DeviceInfo{}, err
	}
	return backend.DeviceInfo{
		Ordinal: backend.Device(dev), Name: name, UUID: uuid.String(), PCIBusID: NVMLBusID(bus),
		ComputeCapability: major*10 + minor, SMCount: sms, TotalMemory: mem,
	}, nil
}

// NVMLBusID writes a PCI bus ID from cuDeviceGetPCIBusId ("0000:1b:00.0",
// 4-digit domain) the way NVML's nvmlPciInfo_t.busId and dcgm-exporter's
// pci_bus_id label write it ("00000000:1B:00.0": 8-digit domain, upper-case
// hex), so reports and metrics join with NVML-based tools on the string. A
// string it cannot parse comes back trimmed and upper-cased.
func NVMLBusID(s string) string {
	s = strings.ToUpper(strings.TrimRight(strings.TrimSpace(s), "\x00"))
	domain, rest, ok := strings.Cut(s, ":")
	if !ok || len(domain) > 8 {
		return s
	}
	if _, err := strconv.ParseUint(domain, 16, 32); err != nil {
		return s
	}
	return strings.Repeat("0", 8-len(domain)) + domain + ":" + rest
}

// openNVML initialises go-nvml's default library unless an option chose one.
func (b *Backend) openNVML(o options) {
	if o.nvmlSet {
		b.nvml = o.nvml
		return
	}
	var lib nvml.Interface
	if o.newNVML != nil {
		lib = o.newNVML()
	} else {
		lib = nvml.New()
	}
	if ret := lib.Init(); ret != nvml.SUCCESS {
		b.nvmlErr = fmt.Errorf("nvmlInit: %w (%d)", ret, int32(ret))
		return
	}
	b.nvml, b.ownNVML = lib, true
}

// Name is "cuda": results come from the real driver.
func (b *Backend) Name() string { return "cuda" }

// DriverVersion is cuDriverGetVersion as read at Open.
func (b *Backend) DriverVersion() int { return b.drv.Version() }

// Devices lists the GPUs by ordinal.
func (b *Backend) Devices() []backend.DeviceInfo {
	return append([]backend.DeviceInfo(nil), b.infos...)
}

// NVML is the initialised NVML library, or nil when it could not be loaded
// (NVMLError says why).
func (b *Backend) NVML() nvml.Interface { return b.nvml }

// NVMLError is why NVML() is nil, or nil.
func (b *Backend) NVMLError() error { return b.nvmlErr }

// DeviceAttribute wraps cuDeviceGetAttribute (no context needed).
func (b *Backend) DeviceAttribute(d backend.Device, a backend.DeviceAttr) (int, error) {
	if err := b.checkDevice(d, "cuDeviceGetAttribute"); err != nil {
		return 0, err
	}
	v, err := b.drv.DeviceAttribute(cuda.Device(d), a)
	return v, convert(err)
}

// Close unloads the cached modules, releases every primary context (which
// frees what was allocated in them) and shuts NVML down. The driver library
// itself stays loaded: libcuda runs threads of its own and is not built to
// be unloaded from a live process. Closing twice is harmless.
func (b *Backend) Close() error {
	if b.closed.Swap(true) {
		return nil
	}
	errs := []error{b.unloadModules(), b.releaseContexts()}
	if b.ownNVML {
		if ret := b.nvml.Shutdown(); ret != nvml.SUCCESS {
			errs = append(errs, fmt.Errorf("nvmlShutdown: %w (%d)", ret, int32(ret)))
		}
	}
	return errors.Join(errs...)
}

func (b *Backend) releaseContexts() error {
	b.ctxMu.Lock()
	defer b.ctxMu.Unlock()
	var errs []error
	for i, c := range b.ctxs {
		if c == nil {
			continue
		}
		b.ctxs[i] = nil
		if err := c.Release(); err != nil {
			errs = append(errs, fmt.Errorf("releasing the primary context of device %d: %w", c.Device(), err))
		}
	}
	return errors.Join(errs...)
}

// checkDevice is the error ctx gives for an unknown ordinal or a closed
// backend, for calls that need no context (they must not retain one).
func (b *Backend) checkDevice(d backend.Device, fn string) error {
	if b.closed.Load() {
		return fmt.Errorf("cudabackend: %s after Close: %w", fn, cuda.ErrNotLoaded)
	}
	if d < 0 || int(d) >= len(b.infos) {
		return cuerr.New(fn, cuerr.InvalidDevice, fmt.Sprintf("device %d: the machine has %d", d, len(b.infos)))
	}
	return nil
}

// ctx is d's primary context, retained on the first call for d, or an error
// naming fn, the driver entry point the caller was about to use.
func (b *Backend) ctx(d backend.Device, fn string) (*cuda.Context, error) {
	if err := b.checkDevice(d, fn); err != nil {
		return nil, err
	}
	b.ctxMu.Lock()
	defer b.ctxMu.Unlock()
	if b.ctxs[d] == nil {
		c, err := b.drv.RetainPrimaryContext(cuda.Device(d))
		if err != nil {
			return nil, fmt.Errorf("cudabackend: retaining the primary context of device %d before %s: %w", int(d), fn, err)
		}
		b.ctxs[d] = c
	}
	return b.ctxs[d], nil
}

// in runs f in d's context; fn names the driver call for errors found
// before f runs.
func (b *Backend) in(d backend.Device, fn string, f func(drv *cuda.Driver) error) error {
	c, err := b.ctx(d, fn)
	if err != nil {
		return err
	}
	return convert(c.Do(func() error { return f(b.drv) }))
}

// convert makes a missing entry point match backend.ErrMissingEntryPoint as
// well as cuda.ErrMissingEntryPoint, keeping the binding's message ("... needs
// a driver for CUDA 13.0 (found 12.4)").
func convert(err error) error {
	if err != nil && errors.Is(err, cuda.ErrMissingEntryPoint) {
		return &missingEntryPoint{err}
	}
	return err
}

type missingEntryPoint struct{ err error }

func (e *missingEntryPoint) Error() string        { return e.err.Error() }
func (e *missingEntryPoint) Unwrap() error        { return e.err }
func (e *missingEntryPoint) Is(target error) bool { return target == backend.ErrMissingEntryPoint }
