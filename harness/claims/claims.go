// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package claims is what CUDA and NVML say about one ordered GPU pair, as
// typed values, and the one place that compares those sources with each
// other (Disagreements). The suites compare claims through it, and so does
// the report's disagreement section, so a rule cannot differ between a spec
// and the report. It has no test framework and no driver in it: reading
// goes through the backend interface.
package claims

import (
	"errors"
	"fmt"
	"strings"

	"github.com/p2pconf/p2pconf/harness/backend"
)

// Claims is everything CUDA and NVML say about the direction Src→Dst: kernels
// on Src (the accessor) touching Dst's (the owner's) memory. A value a
// source could not give is nil (or, for NVML, Status "" with NVML.Err set),
// so "could not tell" is never mistaken for "unsupported".
type Claims struct {
	Src, Dst backend.Device
	CUDA     CUDA
	NVML     NVML
}

// CUDA is the driver's answer for one direction.
type CUDA struct {
	// CanAccessPeer is cuDeviceCanAccessPeer.
	CanAccessPeer *bool
	// The cuDeviceGetP2PAttribute values. PartialNativeAtomic is nil on
	// drivers older than CUDA 13.0, which do not have the attribute.
	AccessSupported          *int
	NativeAtomicSupported    *int
	PartialNativeAtomic      *int
	PerformanceRank          *int
	CudaArrayAccessSupported *int
	// AtomicCaps holds one cuDeviceGetP2PAtomicCapabilities mask per
	// backend.AllAtomicOperations(); nil when the query failed or the driver
	// lacks it, with the reason in AtomicCapsErr.
	AtomicCaps    []backend.AtomicCaps
	AtomicCapsErr error
}

// NVML is nvmlDeviceGetP2PStatus for each capability and the topology
// between the two GPUs. When NVML could not be read, Err says why and every
// status is "".
type NVML struct {
	Read, Write, NVLink, Atomics, PCI Status
	// TopologyLevel is the common ancestor, e.g. "TOPOLOGY_SYSTEM".
	TopologyLevel string
	NVLinkCount   int
	Err           error
}

// Status is an NVML P2P status by its NVML name ("P2P_STATUS_OK",
// "P2P_STATUS_CHIPSET_NOT_SUPPORTED", ...); "" when it was not read.
type Status string

// StatusOK is NVML's status for a working capability.
const StatusOK Status = "P2P_STATUS_OK"

// OK reports whether NVML says the capability works. The short forms
// nvidia-smi prints ("OK") count too.
func (s Status) OK() bool { return s.short() == "OK" }

// Known reports whether NVML gave an answer (UNKNOWN is no answer).
func (s Status) Known() bool {
	switch s.short() {
	case "", "UNKNOWN", "U", "?":
		return false
	}
	return true
}

func (s Status) short() string {
	return strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(string(s))), "P2P_STATUS_")
}

// Link names the direction the claims are about: "GPU1→GPU0".
func (c Claims) Link() string { return fmt.Sprintf("GPU%d→GPU%d", int(c.Src), int(c.Dst)) }

// Read asks the driver about src→dst: cuDeviceCanAccessPeer, every P2P
// attribute the driver has and the per-operation atomic capabilities. Every
// query is made; one that fails leaves its value nil and is in the returned
// error (naming the call and the direction). A driver without
// cuDeviceGetP2PAtomicCapabilities is not an error: AtomicCaps stays nil
// with the reason in AtomicCapsErr. NVML is left empty; callers that have
// NVML's view fill it in.
func Read(b backend.Backend, src, dst backend.Device) (Claims, error) {
	c := Claims{Src: src, Dst: dst}
	var errs []error
	if ok, err := b.CanAccessPeer(src, dst); err != nil {
		errs = append(errs, fmt.Errorf("cuDeviceCanAccessPeer(%s): %w", c.Link(), err))
	} else {
		c.CUDA.CanAccessPeer = &ok
	}
	attr := func(a backend.P2PAttr) *int {
		v, err := b.P2PAttribute(a, src, dst)
		if err != nil {
			errs = append(errs, fmt.Errorf("cuDeviceGetP2PAttribute(%s, %s): %w", a, c.Link(), err))
			return nil
		}
		return &v
	}
	cu := &c.CUDA
	cu.PerformanceRank = attr(backend.P2PPerformanceRank)
	cu.AccessSupported = attr(backend.P2PAccessSupported)
	cu.NativeAtomicSupported = attr(backend.P2PNativeAtomicSupported)
	cu.CudaArrayAccessSupported = attr(backend.P2PCudaArrayAccessSupported)
	if b.DriverVersion() >= 13000 {
		cu.PartialNativeAtomic = attr(backend.P2POnlyPartialNativeAtomicSupported)
	}
	caps, err := b.P2PAtomicCapabilities(backend.AllAtomicOperations(), src, dst)
	switch {
	case errors.Is(err, backend.ErrMissingEntryPoint):
		cu.AtomicCapsErr = err
	case err != nil:
		cu.AtomicCapsErr = err
		errs = append(errs, fmt.Errorf("cuDeviceGetP2PAtomicCapabilities(all %d operations, %s): %w", backend.AtomicOperationCount, c.Link(), err))
	default:
		cu.AtomicCaps = caps
	}
	return c, errors.Join(errs...)
}

// ParseAtomicCaps reads a mask back from its backend.AtomicCaps String
// form ("SCALAR_32|SCALAR_64|SIGNED", "0", with any unnamed bits as hex),
// as reports store it.
func ParseAtomicCaps(s string) (backend.AtomicCaps, error) {
	s = strings.TrimSpace(s)
	if s == "0" {
		return 0, nil
	}
	var mask backend.AtomicCaps
	for _, part := range strings.Split(s, "|") {
		if bit, ok := capBits[part]; ok {
			mask |= bit
			continue
		}
		var v uint32
		if _, err := fmt.Sscanf(part, "0x%x", &v); err != nil || fmt.Sprintf("0x%x", v) != part {
			return 0, fmt.Errorf("atomic capability mask %q: %q is not a capability", s, part)
		}
		mask |= backend.AtomicCaps(v)
	}
	return mask, nil
}

// capBits maps each named capability bit to its name as String gives it.
var capBits = func() map[string]backend.AtomicCaps {
	m := map[string]backend.AtomicCaps{}
	for i := 0; i < 32; i++ {
		bit := backend.AtomicCaps(1) << i
		if name := bit.String(); !strings.HasPrefix(name, "0x") {
			m[name] = bit
		}
	}
	return m
}()
