// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package health

import (
	"fmt"
	"strings"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// FabricReader is a device that answers nvmlDeviceGetGpuFabricInfoV at
// version 3 directly. go-nvml's handler for that call wraps the library's
// own device type and cannot be built by a mock, so mocks (the unit tests,
// the fake backend) provide this method instead; a real device goes through
// GetGpuFabricInfoV().V3().
type FabricReader interface {
	GpuFabricInfoV3() (nvml.GpuFabricInfo_v3, nvml.Return)
}

// Fabric is a GPU's registration with the NVLink fabric (NVSwitch systems,
// where CUDA is unusable until it completes).
type Fabric struct {
	// Supported is false when the call or the state says the GPU has no
	// fabric (NOT_SUPPORTED); the rest is then empty.
	Supported bool   `json:"supported"`
	State     string `json:"state,omitempty"`  // NOT_STARTED, IN_PROGRESS, COMPLETED
	Status    string `json:"status,omitempty"` // NVML's return for the registration
	Clique    uint32 `json:"clique,omitempty"`
	// HealthMask is the v3 health mask; Unhealthy names its bad fields.
	HealthMask uint32   `json:"health_mask,omitempty"`
	Unhealthy  []string `json:"unhealthy,omitempty"`
	// Why says why Supported is false.
	Why string `json:"why,omitempty"`
}

// OK reports whether the registration completed with success and no bad
// health field.
func (f Fabric) OK() bool {
	return f.Supported && f.State == "COMPLETED" && f.Status == nvml.SUCCESS.String() && len(f.Unhealthy) == 0
}

func (f Fabric) String() string {
	if !f.Supported {
		return "no fabric (" + f.Why + ")"
	}
	s := fmt.Sprintf("state %s, status %s, clique %d, health mask 0x%x", f.State, f.Status, f.Clique, f.HealthMask)
	if len(f.Unhealthy) > 0 {
		s += " (" + strings.Join(f.Unhealthy, ", ") + ")"
	}
	return s
}

var fabricStates = map[uint8]string{
	nvml.GPU_FABRIC_STATE_NOT_SUPPORTED: "NOT_SUPPORTED",
	nvml.GPU_FABRIC_STATE_NOT_STARTED:   "NOT_STARTED",
	nvml.GPU_FABRIC_STATE_IN_PROGRESS:   "IN_PROGRESS",
	nvml.GPU_FABRIC_STATE_COMPLETED:     "COMPLETED",
}

// ReadFabric reads d's fabric registration.
func ReadFabric(d nvml.Device, name string) (Fabric, error) {
	var info nvml.GpuFabricInfo_v3
	var ret nvml.Return
	if r, ok := d.(FabricReader); ok {
		info, ret = r.GpuFabricInfoV3()
	} else {
		info, ret = d.GetGpuFabricInfoV().V3()
	}
	switch {
	case unsupported(ret):
		return Fabric{Why: "nvmlDeviceGetGpuFabricInfoV: " + ret.Error()}, nil
	case ret != nvml.SUCCESS:
		return Fabric{}, &Error{Func: "nvmlDeviceGetGpuFabricInfoV", Ret: ret, Subject: name}
	case info.State == nvml.GPU_FABRIC_STATE_NOT_SUPPORTED:
		return Fabric{Why: "fabric state NOT_SUPPORTED"}, nil
	}
	f := Fabric{Supported: true, State: fabricStates[info.State], Status: nvml.Return(info.Status).String(),
		Clique: info.CliqueId, HealthMask: info.HealthMask}
	if f.State == "" {
		f.State = fmt.Sprintf("state %d", info.State)
	}
	f.Unhealthy = unhealthy(info.HealthMask)
	return f, nil
}

// unhealthy names the health mask's fields that report trouble: a 2-bit
// field at TRUE (degraded bandwidth, route recovery, unhealthy route,
// access-timeout recovery), or an incorrect-configuration value other than
// NOT_SUPPORTED or NONE.
func unhealthy(mask uint32) []string {
	var out []string
	flags := []struct {
		name  string
		shift uint32
	}{
		{"degraded bandwidth", nvml.GPU_FABRIC_HEALTH_MASK_SHIFT_DEGRADED_BW},
		{"route recovery in progress", nvml.GPU_FABRIC_HEALTH_MASK_SHIFT_ROUTE_RECOVERY},
		{"route unhealthy", nvml.GPU_FABRIC_HEALTH_MASK_SHIFT_ROUTE_UNHEALTHY},
		{"access timeout recovery", nvml.GPU_FABRIC_HEALTH_MASK_SHIFT_ACCESS_TIMEOUT_RECOVERY},
	}
	for _, f := range flags {
		if mask>>f.shift&0x3 == 1 { // the *_TRUE value of each 2-bit field
			out = append(out, f.name)
		}
	}
	cfg := mask >> nvml.GPU_FABRIC_HEALTH_MASK_SHIFT_INCORRECT_CONFIGURATION & nvml.GPU_FABRIC_HEALTH_MASK_WIDTH_INCORRECT_CONFIGURATION
	if cfg > nvml.GPU_FABRIC_HEALTH_MASK_INCORRECT_CONFIGURATION_NONE {
		out = append(out, fmt.Sprintf("incorrect configuration (value %d)", cfg))
	}
	return out
}
