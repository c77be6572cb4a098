// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cuda

/*
#include "shim.h"

static inline CUresult p2pc_cuInit(uintptr_t fn, unsigned int flags) {
	return ((CUresult (*)(unsigned int))fn)(flags);
}
static inline CUresult p2pc_cuDriverGetVersion(uintptr_t fn, int *v) {
	return ((CUresult (*)(int *))fn)(v);
}
static inline CUresult p2pc_cuGetErrorText(uintptr_t fn, CUresult r, const char **s) {
	return ((CUresult (*)(CUresult, const char **))fn)(r, s);
}
static inline CUresult p2pc_cuDeviceGetCount(uintptr_t fn, int *n) {
	return ((CUresult (*)(int *))fn)(n);
}
static inline CUresult p2pc_cuDeviceGet(uintptr_t fn, CUdevice *dev, int ordinal) {
	return ((CUresult (*)(CUdevice *, int))fn)(dev, ordinal);
}
static inline CUresult p2pc_cuDeviceGetName(uintptr_t fn, char *name, int len, CUdevice dev) {
	return ((CUresult (*)(char *, int, CUdevice))fn)(name, len, dev);
}
static inline CUresult p2pc_cuDeviceGetAttribute(uintptr_t fn, int *v, int attr, CUdevice dev) {
	return ((CUresult (*)(int *, int, CUdevice))fn)(v, attr, dev);
}
static inline CUresult p2pc_cuDeviceGetPCIBusId(uintptr_t fn, char *id, int len, CUdevice dev) {
	return ((CUresult (*)(char *, int, CUdevice))fn)(id, len, dev);
}
static inline CUresult p2pc_cuDeviceGetUuid(uintptr_t fn, CUuuid *uuid, CUdevice dev) {
	return ((CUresult (*)(CUuuid *, CUdevice))fn)(uuid, dev);
}
static inline CUresult p2pc_cuDeviceTotalMem(uintptr_t fn, size_t *bytes, CUdevice dev) {
	return ((CUresult (*)(size_t *, CUdevice))fn)(bytes, dev);
}
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/p2pconf/p2pconf/harness/cuenum"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

// Device is a CUDA device ordinal (CUdevice) as this process sees it, i.e.
// after CUDA_VISIBLE_DEVICES. Match devices to NVML by PCI bus ID or UUID,
// never by ordinal.
type Device int32

// UUID is a device UUID as cuDeviceGetUuid_v2 returns it.
type UUID [16]byte

// String formats the UUID the way NVML and nvidia-smi do
// ("GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"), so the two can be compared.
func (u UUID) String() string {
	return fmt.Sprintf("GPU-%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

// Init initialises the driver; wraps cuInit(0). Every call except
// DriverVersion and the error-text lookups needs it first. No context needed.
func (d *Driver) Init() error {
	fn, err := d.proc(cuInit)
	if err != nil {
		return err
	}
	return cuInit.check(C.p2pc_cuInit(fn, 0))
}

// DriverVersion asks the driver again for the newest CUDA version it
// supports; wraps cuDriverGetVersion (allowed before Init).
func (d *Driver) DriverVersion() (int, error) {
	fn, err := d.proc(cuDriverGetVersion)
	if err != nil {
		return 0, err
	}
	var v C.int
	r := C.p2pc_cuDriverGetVersion(fn, &v)
	return int(v), cuDriverGetVersion.check(r)
}

// ErrorName returns the driver's own name for r, e.g.
// "CUDA_ERROR_INVALID_VALUE"; wraps cuGetErrorName. It lets a report show
// names of codes newer than harness/cuerr.
func (d *Driver) ErrorName(r cuerr.Result) (string, error) { return d.errorText(cuGetErrorName, r) }

// ErrorString returns the driver's description of r; wraps cuGetErrorString.
func (d *Driver) ErrorString(r cuerr.Result) (string, error) { return d.errorText(cuGetErrorString, r) }

func (d *Driver) errorText(e entry, r cuerr.Result) (string, error) {
	fn, err := d.proc(e)
	if err != nil {
		return "", err
	}
	var s *C.char
	if err := e.check(C.p2pc_cuGetErrorText(fn, C.CUresult(r), &s)); err != nil || s == nil {
		return "", err
	}
	return C.GoString(s), nil
}

// DeviceCount is the number of devices visible to this process; wraps
// cuDeviceGetCount. No context needed (nor for the other device queries).
func (d *Driver) DeviceCount() (int, error) {
	fn, err := d.proc(cuDeviceGetCount)
	if err != nil {
		return 0, err
	}
	var n C.int
	r := C.p2pc_cuDeviceGetCount(fn, &n)
	return int(n), cuDeviceGetCount.check(r)
}

// Device returns the device with the given ordinal; wraps cuDeviceGet.
func (d *Driver) Device(ordinal int) (Device, error) {
	fn, err := d.proc(cuDeviceGet)
	if err != nil {
		return 0, err
	}
	var dev C.CUdevice
	r := C.p2pc_cuDeviceGet(fn, &dev, C.int(ordinal))
	return Device(dev), cuDeviceGet.check(r)
}

// DeviceName is the marketing name, e.g. "NVIDIA H200"; wraps cuDeviceGetName.
func (d *Driver) DeviceName(dev Device) (string, error) {
	fn, err := d.proc(cuDeviceGetName)
	if err != nil {
		return "", err
	}
	var buf [256]C.char
	r := C.p2pc_cuDeviceGetName(fn, &buf[0], C.int(len(buf)-1), C.CUdevice(dev))
	return C.GoString(&buf[0]), cuDeviceGetName.check(r)
}

// DeviceAttribute reads one attribute; wraps cuDeviceGetAttribute. An
// attribute newer than the driver gives CUDA_ERROR_INVALID_VALUE.
func (d *Driver) DeviceAttribute(dev Device, attr cuenum.DeviceAttr) (int, error) {
	fn, err := d.proc(cuDeviceGetAttribute)
	if err != nil {
		return 0, err
	}
	var v C.int
	r := C.p2pc_cuDeviceGetAttribute(fn, &v, C.int(attr), C.CUdevice(dev))
	return int(v), cuDeviceGetAttribute.check(r)
}

// PCIBusID is the device's PCI address, "dddd:bb:dd.f" (CUDA's form; NVML
// pads the domain to eight digits); wraps cuDeviceGetPCIBusId.
func (d *Driver) PCIBusID(dev Device) (string, error) {
	fn, err := d.proc(cuDeviceGetPCIBusId)
	if err != nil {
		return "", err
	}
	var buf [64]C.char
	r := C.p2pc_cuDeviceGetPCIBusId(fn, &buf[0], C.int(len(buf)-1), C.CUdevice(dev))
	return C.GoString(&buf[0]), cuDeviceGetPCIBusId.check(r)
}

// DeviceUUID is the device's UUID (in MIG mode, the MIG instance's); wraps
// cuDeviceGetUuid_v2.
func (d *Driver) DeviceUUID(dev Device) (UUID, error) {
	fn, err := d.proc(cuDeviceGetUuid)
	if err != nil {
		return UUID{}, err
	}
	var u C.CUuuid
	r := C.p2pc_cuDeviceGetUuid(fn, &u, C.CUdevice(dev))
	return *(*UUID)(unsafe.Pointer(&u)), cuDeviceGetUuid.check(r)
}

// TotalMem is the device memory size in bytes; wraps cuDeviceTotalMem_v2.
func (d *Driver) TotalMem(dev Device) (uint64, error) {
	fn, err := d.proc(cuDeviceTotalMem)
	if err != nil {
		return 0, err
	}
	var n C.size_t
	r := C.p2pc_cuDeviceTotalMem(fn, &n, C.CUdevice(dev))
	return uint64(n), cuDeviceTotalMem.check(r)
}
