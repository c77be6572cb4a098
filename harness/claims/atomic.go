// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package claims

import (
	"fmt"
	"strings"

	"github.com/p2pconf/p2pconf/harness/backend"
)

// The atomic capability model: what CUDA claims about atomics that kernels
// on one GPU apply to another GPU's memory, read from the P2P attributes
// NATIVE_ATOMIC_SUPPORTED and ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED (13.0+)
// and from cuDeviceGetP2PAtomicCapabilities (13.0+), one mask per
// CUatomicOperation (CUDA Driver API, cuDeviceGetP2PAttribute and
// cuDeviceGetP2PAtomicCapabilities; docs/observations.md, claims on two H200).
//
// CUDA does not publish which capability bits make an operation "complete".
// The suite requires the 32- and 64-bit types of each operation: integer
// add, and, or, xor, exch and cas on 32 and 64 bits; min and max signed and
// unsigned on 32 and 64 bits; inc and dec on u32 (the only type PTX atom
// has for them); float add, min and max on f32 and f64. The contention
// kernels (kernels.ContendOps) apply all of these except float min and max.
// Signedness is required only where it changes the result (min, max). The
// REDUCTION, SCALAR_128 and VECTOR_32x4 bits are decoded and recorded but not
// required, because not every CUDA-valid GPU has those forms.

// AtomicType is one operand type of an atomic operation, as the capability
// bits describe it: a width and, for min and max, a signedness.
type AtomicType struct {
	Bits   int  // 32, 64 or 128
	Signed bool // meaningful for min and max only
	Float  bool
}

// String is the PTX-style type name: "u32", "s64", "b32", "f64".
func (t AtomicType) String() string {
	switch {
	case t.Float:
		return fmt.Sprintf("f%d", t.Bits)
	case t.Signed:
		return fmt.Sprintf("s%d", t.Bits)
	}
	return fmt.Sprintf("u%d", t.Bits)
}

// Atomic operand types.
var (
	AtomU32 = AtomicType{Bits: 32}
	AtomS32 = AtomicType{Bits: 32, Signed: true}
	AtomU64 = AtomicType{Bits: 64}
	AtomS64 = AtomicType{Bits: 64, Signed: true}
	AtomF32 = AtomicType{Bits: 32, Float: true}
	AtomF64 = AtomicType{Bits: 64, Float: true}
)

// RequiredAtomicTypes are the types an operation must cover for the suite to
// count it as fully native (see the comment at the top of this file).
func RequiredAtomicTypes(op backend.AtomicOperation) []AtomicType {
	switch op {
	case backend.AtomicIntegerMin, backend.AtomicIntegerMax:
		return []AtomicType{AtomS32, AtomU32, AtomS64, AtomU64}
	case backend.AtomicIntegerIncrement, backend.AtomicIntegerDecrement:
		return []AtomicType{AtomU32}
	case backend.AtomicFloatAdd, backend.AtomicFloatMin, backend.AtomicFloatMax:
		return []AtomicType{AtomF32, AtomF64}
	}
	return []AtomicType{AtomU32, AtomU64}
}

func signSensitive(op backend.AtomicOperation) bool {
	return op == backend.AtomicIntegerMin || op == backend.AtomicIntegerMax
}

// scalarCap is the SCALAR_32/64/128 bit for an operand width (0 for any
// other width, which no mask covers).
func scalarCap(bits int) backend.AtomicCaps {
	switch bits {
	case 32:
		return backend.CapScalar32
	case 64:
		return backend.CapScalar64
	case 128:
		return backend.CapScalar128
	}
	return 0
}

// CapsCover reports whether mask says op is native on type t.
func CapsCover(op backend.AtomicOperation, mask backend.AtomicCaps, t AtomicType) bool {
	if mask&scalarCap(t.Bits) == 0 {
		return false
	}
	if !signSensitive(op) {
		return true
	}
	if t.Signed {
		return mask&backend.CapSigned != 0
	}
	return mask&backend.CapUnsigned != 0
}

// DecodeAtomicCaps lists the types and forms mask covers for op, e.g.
// "s32 u32 s64 u64 +reduction", or "none".
func DecodeAtomicCaps(op backend.AtomicOperation, mask backend.AtomicCaps) string {
	var parts []string
	for _, bits := range []int{32, 64, 128} {
		if mask&scalarCap(bits) == 0 {
			continue
		}
		switch {
		case op >= backend.AtomicFloatAdd:
			parts = append(parts, fmt.Sprintf("f%d", bits))
		case mask&(backend.CapSigned|backend.CapUnsigned) == 0:
			parts = append(parts, fmt.Sprintf("b%d", bits))
		default:
			if mask&backend.CapSigned != 0 {
				parts = append(parts, fmt.Sprintf("s%d", bits))
			}
			if mask&backend.CapUnsigned != 0 {
				parts = append(parts, fmt.Sprintf("u%d", bits))
			}
		}
	}
	if mask&backend.CapVector32x4 != 0 {
		parts = append(parts, "+vector32x4")
	}
	if mask&backend.CapReduction != 0 {
		parts = append(parts, "+reduction")
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " ")
}

// AtomicCoverage is how much of an operation a mask covers.
type AtomicCoverage int

// Coverage of one operation.
const (
	CoverNone AtomicCoverage = iota
	CoverSome
	CoverAll
)

// Coverage says whether mask covers none, some or all of op's required types
// (any bit at all counts as "some").
func Coverage(op backend.AtomicOperation, mask backend.AtomicCaps) AtomicCoverage {
	all := true
	for _, t := range RequiredAtomicTypes(op) {
		all = all && CapsCover(op, mask, t)
	}
	switch {
	case all:
		return CoverAll
	case mask != 0:
		return CoverSome
	}
	return CoverNone
}

// is1 reports whether an attribute was read and is 1.
func is1(v *int) bool { return v != nil && *v == 1 }

// Advertises reports whether CUDA advertises op on type t as native for this
// direction, and says why (quoting the attributes and the mask) either way.
// NATIVE_ATOMIC_SUPPORTED=1 promises every operation, whatever the masks
// say; with ONLY_PARTIAL=1 the per-operation mask decides.
func (c Claims) Advertises(op backend.AtomicOperation, t AtomicType) (bool, string) {
	cu := c.CUDA
	found := fmt.Sprintf("%s=%s", backend.P2PNativeAtomicSupported, intText(cu.NativeAtomicSupported))
	if cu.PartialNativeAtomic != nil {
		found += fmt.Sprintf(", %s=%d", backend.P2POnlyPartialNativeAtomicSupported, *cu.PartialNativeAtomic)
	}
	if is1(cu.NativeAtomicSupported) {
		return true, found
	}
	if !is1(cu.PartialNativeAtomic) || cu.AtomicCaps == nil {
		return false, found
	}
	mask := cu.AtomicCaps[op]
	found += fmt.Sprintf(", %s mask %s", op, mask)
	return CapsCover(op, mask, t), found
}

// CapsSummary lists every operation's mask: "INTEGER_ADD=0, INTEGER_MIN=0, ...".
func (c Claims) CapsSummary() string {
	if c.CUDA.AtomicCaps == nil {
		return "unavailable"
	}
	parts := make([]string, len(c.CUDA.AtomicCaps))
	for i, op := range backend.AllAtomicOperations() {
		parts[i] = fmt.Sprintf("%s=%s", opName(op), c.CUDA.AtomicCaps[i])
	}
	return strings.Join(parts, ", ")
}

func opName(op backend.AtomicOperation) string {
	return strings.TrimPrefix(op.String(), "CU_ATOMIC_OPERATION_")
}

// intText is an attribute's value, or "null" when it could not be read.
func intText(v *int) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprint(*v)
}
