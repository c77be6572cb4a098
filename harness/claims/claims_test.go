// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package claims

import (
	"errors"
	"strings"
	"testing"

	"github.com/p2pconf/p2pconf/harness/backend"
)

func ptr[T any](v T) *T { return &v }

// atomicClaims are claims of GPU1→GPU0 whose peer-access part agrees, with
// the given atomic attributes, every mask set to caps and NVML's ATOMICS
// status nvml.
func atomicClaims(native, partial int, caps backend.AtomicCaps, nvml Status) Claims {
	c := Claims{Src: 1, Dst: 0}
	c.CUDA.CanAccessPeer, c.CUDA.AccessSupported = ptr(true), ptr(1)
	c.CUDA.NativeAtomicSupported, c.CUDA.PartialNativeAtomic = ptr(native), ptr(partial)
	c.CUDA.AtomicCaps = make([]backend.AtomicCaps, backend.AtomicOperationCount)
	for i := range c.CUDA.AtomicCaps {
		c.CUDA.AtomicCaps[i] = caps
	}
	c.NVML.Read, c.NVML.Write, c.NVML.Atomics = StatusOK, StatusOK, nvml
	return c
}

const fullCaps = backend.CapSigned | backend.CapUnsigned | backend.CapScalar32 | backend.CapScalar64

func texts(ds []Disagreement) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Text
	}
	return out
}

// TestAtomicDisagreements pins the atomics rules: NATIVE=1 ⇔ every
// operation fully covered, ONLY_PARTIAL=1 ⇔ some but not all, NVML OK ⇔
// either attribute; every disagreement names both values.
func TestAtomicDisagreements(t *testing.T) {
	partial := atomicClaims(0, 1, 0, "OK")
	partial.CUDA.AtomicCaps = append([]backend.AtomicCaps(nil), partial.CUDA.AtomicCaps...)
	partial.CUDA.AtomicCaps[backend.AtomicIntegerAdd] = fullCaps
	noPartial := partial
	noPartial.CUDA.PartialNativeAtomic = ptr(0)
	noPartial.NVML.Atomics = "P2P_STATUS_NOT_SUPPORTED"
	for _, c := range []struct {
		name   string
		claims Claims
		want   []string // substrings, one per expected disagreement
	}{
		{"all native and consistent", atomicClaims(1, 0, fullCaps, StatusOK), nil},
		{"nothing native", atomicClaims(0, 0, 0, "P2P_STATUS_NOT_SUPPORTED"), nil},
		{"some native", partial, nil},
		// Observed on 2× H200 with driver 580.159.04.
		{"native but every mask 0", atomicClaims(1, 0, 0, StatusOK),
			[]string{"NATIVE_ATOMIC_SUPPORTED=1 (every atomic native) but cuDeviceGetP2PAtomicCapabilities does not cover every operation with all its types: INTEGER_ADD=0"}},
		{"native and partial", atomicClaims(1, 1, fullCaps, StatusOK),
			[]string{"NATIVE_ATOMIC_SUPPORTED=1 (all atomics native) and CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED=1", "ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED=1 (only some atomics native) but cuDeviceGetP2PAtomicCapabilities covers every operation fully"}},
		{"NVML says no", atomicClaims(1, 0, fullCaps, "P2P_STATUS_NOT_SUPPORTED"),
			[]string{"NVML P2P ATOMICS status is P2P_STATUS_NOT_SUPPORTED but CUDA says CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED=1"}},
		{"NVML unread", atomicClaims(0, 0, 0, ""), []string{"could not be read"}},
		{"full masks without NATIVE", atomicClaims(0, 0, fullCaps, StatusOK),
			[]string{"NVML P2P ATOMICS status is P2P_STATUS_OK but CUDA says", "NATIVE_ATOMIC_SUPPORTED=0 but cuDeviceGetP2PAtomicCapabilities covers every operation"}},
		{"some masks without ONLY_PARTIAL", noPartial,
			[]string{"ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED=0 but cuDeviceGetP2PAtomicCapabilities covers some operations and not others"}},
	} {
		all := Disagreements(c.claims)
		if p := Of(all, PeerAccess); len(p) != 0 {
			t.Errorf("%s: peer access disagreements %q, want none", c.name, texts(p))
		}
		got := texts(Of(all, Atomics))
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

// TestAtomicsBeforeCUDA13: without ONLY_PARTIAL, NATIVE=0 with NVML OK may
// be a partly native link and is no contradiction.
func TestAtomicsBeforeCUDA13(t *testing.T) {
	c := atomicClaims(0, 0, 0, StatusOK)
	c.CUDA.PartialNativeAtomic, c.CUDA.AtomicCaps = nil, nil
	if d := Of(Disagreements(c), Atomics); len(d) != 0 {
		t.Errorf("NATIVE=0, no ONLY_PARTIAL, NVML OK: %q", texts(d))
	}
	c.CUDA.NativeAtomicSupported, c.NVML.Atomics = ptr(1), "P2P_STATUS_NOT_SUPPORTED"
	if d := Of(Disagreements(c), Atomics); len(d) != 1 {
		t.Errorf("NATIVE=1, NVML not supported: %q, want one disagreement", texts(d))
	}
}

// TestPeerAccessDisagreements: cuDeviceCanAccessPeer, ACCESS_SUPPORTED and
// NVML READ+WRITE must agree; NVML that could not be read is an unread
// disagreement, not agreement.
func TestPeerAccessDisagreements(t *testing.T) {
	agree := atomicClaims(1, 0, fullCaps, StatusOK)
	if d := Disagreements(agree); len(d) != 0 {
		t.Fatalf("agreeing claims: %q", texts(d))
	}
	for _, c := range []struct {
		name   string
		change func(*Claims)
		want   string
		unread bool
	}{
		{"attribute", func(c *Claims) { c.CUDA.AccessSupported = ptr(0) }, "cuDeviceCanAccessPeer=1 but P2P attribute ACCESS_SUPPORTED=0", false},
		{"NVML write", func(c *Claims) { c.NVML.Write = "P2P_STATUS_CHIPSET_NOT_SUPPORTED" },
			"cuDeviceCanAccessPeer=1 but NVML P2P status READ=P2P_STATUS_OK WRITE=P2P_STATUS_CHIPSET_NOT_SUPPORTED", false},
		{"NVML unknown", func(c *Claims) { c.NVML.Read = "P2P_STATUS_UNKNOWN" }, "READ=P2P_STATUS_UNKNOWN", false},
		{"NVML unread", func(c *Claims) { c.NVML = NVML{Err: errors.New("no libnvidia-ml")} }, "NVML could not be read (no libnvidia-ml)", true},
		{"CUDA unread", func(c *Claims) { c.CUDA.CanAccessPeer = nil }, "cuDeviceCanAccessPeer gave no answer", true},
	} {
		cl := agree
		c.change(&cl)
		d := Of(Disagreements(cl), PeerAccess)
		if len(d) != 1 || !strings.Contains(d[0].Text, c.want) || d[0].Unread != c.unread {
			t.Errorf("%s: %+v, want one (unread %v) containing %q", c.name, d, c.unread, c.want)
		}
	}
	no := atomicClaims(0, 0, 0, "P2P_STATUS_NOT_SUPPORTED")
	no.CUDA.CanAccessPeer, no.CUDA.AccessSupported = ptr(false), ptr(0)
	no.NVML.Read, no.NVML.Write = "P2P_STATUS_CHIPSET_NOT_SUPPORTED", "P2P_STATUS_CHIPSET_NOT_SUPPORTED"
	if d := Disagreements(no); len(d) != 0 {
		t.Errorf("a pair without P2P that all sources agree on: %q", texts(d))
	}
	if got := Texts(no, []Disagreement{{Text: "x"}}); got[0] != "GPU1→GPU0: x" {
		t.Errorf("Texts = %q", got)
	}
}

// TestAdvertises: NATIVE=1 promises every operation; with ONLY_PARTIAL=1
// the mask decides, signedness only for min and max.
func TestAdvertises(t *testing.T) {
	c := atomicClaims(0, 1, 0, StatusOK)
	c.CUDA.AtomicCaps[backend.AtomicIntegerAdd] = backend.CapScalar32
	c.CUDA.AtomicCaps[backend.AtomicIntegerMin] = backend.CapUnsigned | backend.CapScalar32 | backend.CapScalar64
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
	if got, _ := atomicClaims(1, 0, 0, StatusOK).Advertises(backend.AtomicFloatMax, AtomF64); !got {
		t.Errorf("NATIVE=1 does not advertise FLOAT_MAX f64")
	}
	if got, _ := atomicClaims(0, 0, fullCaps, StatusOK).Advertises(backend.AtomicIntegerAdd, AtomU32); got {
		t.Errorf("NATIVE=0 and ONLY_PARTIAL=0 advertise INTEGER_ADD")
	}
	if Coverage(backend.AtomicIntegerMax, backend.CapSigned|backend.CapScalar32|backend.CapScalar64) != CoverSome {
		t.Errorf("INTEGER_MAX without unsigned is not partly covered")
	}
	if got := DecodeAtomicCaps(backend.AtomicIntegerMin, fullCaps|backend.CapReduction); got != "s32 u32 s64 u64 +reduction" {
		t.Errorf("DecodeAtomicCaps = %q", got)
	}
}

func TestParseAtomicCaps(t *testing.T) {
	for _, m := range []backend.AtomicCaps{0, fullCaps, fullCaps | backend.CapReduction | backend.CapVector32x4, backend.CapScalar128 | 1<<30} {
		got, err := ParseAtomicCaps(m.String())
		if err != nil || got != m {
			t.Errorf("ParseAtomicCaps(%q) = %v, %v; want %v", m.String(), got, err, m)
		}
	}
	if _, err := ParseAtomicCaps("SCALAR_33"); err == nil {
		t.Error("ParseAtomicCaps accepted an unknown capability")
	}
}
