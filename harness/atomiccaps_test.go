// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"strings"
	"testing"

	"github.com/p2pconf/p2pconf/harness/backend"
)

func claimsWith(native, partial int, caps backend.AtomicCaps) AtomicClaims {
	c := AtomicClaims{Accessor: GPU{Ordinal: 1}, Owner: GPU{Ordinal: 0}, Native: native, Partial: partial, PartialKnown: true,
		Caps: make([]backend.AtomicCaps, backend.AtomicOperationCount)}
	for i := range c.Caps {
		c.Caps[i] = caps
	}
	return c
}

const fullCaps = backend.CapSigned | backend.CapUnsigned | backend.CapScalar32 | backend.CapScalar64

// TestAtomicClaimsAgreement pins the capability-report rules: NATIVE=1 ⇔
// every operation fully covered, ONLY_PARTIAL=1 ⇔ some but not all, NVML OK
// ⇔ either attribute; every disagreement names both values.
func TestAtomicClaimsAgreement(t *testing.T) {
	partial := claimsWith(0, 1, 0)
	partial.Caps[backend.AtomicIntegerAdd] = fullCaps
	for _, c := range []struct {
		name   string
		claims AtomicClaims
		nvml   string
		want   []string // substrings, one per expected disagreement
	}{
		{"all native and consistent", claimsWith(1, 0, fullCaps), "P2P_STATUS_OK", nil},
		{"nothing native", claimsWith(0, 0, 0), "P2P_STATUS_NOT_SUPPORTED", nil},
		{"some native", partial, "OK", nil},
		// Observed on 2× H200 with driver 580.159.04.
		{"native but every mask 0", claimsWith(1, 0, 0), "P2P_STATUS_OK",
			[]string{"NATIVE_ATOMIC_SUPPORTED=1 (every atomic native) but cuDeviceGetP2PAtomicCapabilities does not cover every operation with all its types: INTEGER_ADD=0"}},
		{"native and partial", claimsWith(1, 1, fullCaps), "P2P_STATUS_OK",
			[]string{"NATIVE_ATOMIC_SUPPORTED=1 (all atomics native) and CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED=1", "ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED=1 (only some atomics native) but cuDeviceGetP2PAtomicCapabilities covers every operation fully"}},
		{"NVML says no", claimsWith(1, 0, fullCaps), "P2P_STATUS_NOT_SUPPORTED",
			[]string{"NVML P2P ATOMICS status is P2P_STATUS_NOT_SUPPORTED but CUDA says CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED=1"}},
		{"NVML unread", claimsWith(0, 0, 0), "", []string{"could not be read"}},
		{"full masks without NATIVE", claimsWith(0, 0, fullCaps), "P2P_STATUS_OK",
			[]string{"NVML P2P ATOMICS status is P2P_STATUS_OK but CUDA says", "NATIVE_ATOMIC_SUPPORTED=0 but cuDeviceGetP2PAtomicCapabilities covers every operation"}},
		{"some masks without ONLY_PARTIAL", func() AtomicClaims { c := partial; c.Partial = 0; return c }(), "P2P_STATUS_NOT_SUPPORTED",
			[]string{"ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED=0 but cuDeviceGetP2PAtomicCapabilities covers some operations and not others"}},
	} {
		got := append(c.claims.AttributeDisagreements(c.nvml, ""), c.claims.MaskDisagreements()...)
		if len(got) != len(c.want) {
			t.Errorf("%s: %d disagreements, want %d: %q", c.name, len(got), len(c.want), got)
			continue
		}
		for i, w := range c.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("%s: disagreement %d is %q, want it to contain %q", c.name, i, got[i], w)
			}
		}
	}
}

// TestAtomicClaimsBeforeCUDA13: without ONLY_PARTIAL, NATIVE=0 with NVML
// OK may be a partly native link and is no contradiction.
func TestAtomicClaimsBeforeCUDA13(t *testing.T) {
	c := AtomicClaims{Accessor: GPU{Ordinal: 1}, Owner: GPU{Ordinal: 0}}
	if d := c.AttributeDisagreements("P2P_STATUS_OK", ""); len(d) != 0 {
		t.Errorf("NATIVE=0, no ONLY_PARTIAL, NVML OK: %q", d)
	}
	c.Native = 1
	if d := c.AttributeDisagreements("P2P_STATUS_NOT_SUPPORTED", ""); len(d) != 1 {
		t.Errorf("NATIVE=1, NVML not supported: %q, want one disagreement", d)
	}
}

// TestAdvertises: NATIVE=1 promises every operation; with ONLY_PARTIAL=1
// the mask decides, signedness only for min and max.
func TestAdvertises(t *testing.T) {
	c := claimsWith(0, 1, 0)
	c.Caps[backend.AtomicIntegerAdd] = backend.CapScalar32
	c.Caps[backend.AtomicIntegerMin] = backend.CapUnsigned | backend.CapScalar32 | backend.CapScalar64
	for _, x := range []struct {
		op   backend.AtomicOperation
		t    AtomicType
		want bool
	}{
		{backend.AtomicIntegerAdd, AtomU32, true},
		{backend.AtomicIntegerAdd, AtomU64, false},
		{backend.AtomicIntegerMin, AtomU64, true},
		{backend.AtomicIntegerMin, AtomS32, false},
		{backend.AtomicCAS, AtomU32, false},
	} {
		if got, found := c.Advertises(x.op, x.t); got != x.want || !strings.Contains(found, "ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED=1") {
			t.Errorf("Advertises(%s, %s) = %v (%s), want %v", x.op, x.t, got, found, x.want)
		}
	}
	if got, _ := claimsWith(1, 0, 0).Advertises(backend.AtomicFloatMax, AtomF64); !got {
		t.Errorf("NATIVE=1 does not advertise FLOAT_MAX f64")
	}
	if got, _ := claimsWith(0, 0, fullCaps).Advertises(backend.AtomicIntegerAdd, AtomU32); got {
		t.Errorf("NATIVE=0 and ONLY_PARTIAL=0 advertise INTEGER_ADD")
	}
	if Coverage(backend.AtomicIntegerMax, backend.CapSigned|backend.CapScalar32|backend.CapScalar64) != CoverSome {
		t.Errorf("INTEGER_MAX without unsigned is not partly covered")
	}
	if got := DecodeAtomicCaps(backend.AtomicIntegerMin, fullCaps|backend.CapReduction); got != "s32 u32 s64 u64 +reduction" {
		t.Errorf("DecodeAtomicCaps = %q", got)
	}
}
