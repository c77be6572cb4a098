// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"errors"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"

	"github.com/p2pconf/p2pconf/harness/backend"
)

// The atomic capability model: what CUDA claims about atomics that kernels
// on one GPU apply to another GPU's memory, read from the P2P attributes
// NATIVE_ATOMIC_SUPPORTED and ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED (13.0+)
// and from cuDeviceGetP2PAtomicCapabilities (13.0+), one mask per
// CUatomicOperation (reference/cuda-p2p-facts.md §2.4–2.5).
//
// CUDA does not publish which capability bits make an operation "complete".
// The suite takes the types the PTX atom instruction offers for each
// operation on sm_70 (the types its kernels test): integer add, and, or,
// xor, exch and cas on 32 and 64 bits; min and max signed and unsigned on 32
// and 64 bits; inc and dec on u32; float add, min and max on f32 and f64.
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

// CapsCover reports whether mask says op is native on type t.
func CapsCover(op backend.AtomicOperation, mask backend.AtomicCaps, t AtomicType) bool {
	width := map[int]backend.AtomicCaps{32: backend.CapScalar32, 64: backend.CapScalar64, 128: backend.CapScalar128}[t.Bits]
	if mask&width == 0 {
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
		w := map[int]backend.AtomicCaps{32: backend.CapScalar32, 64: backend.CapScalar64, 128: backend.CapScalar128}[bits]
		if mask&w == 0 {
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

// AtomicClaims is what CUDA claims about atomics applied by kernels on
// Accessor to memory of Owner.
type AtomicClaims struct {
	Accessor, Owner GPU
	// Native is CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED.
	Native int
	// Partial is ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED; PartialKnown is false
	// on drivers older than CUDA 13.0, which do not have the attribute.
	Partial      int
	PartialKnown bool
	// Caps holds one mask per backend.AllAtomicOperations(); nil when the
	// driver lacks cuDeviceGetP2PAtomicCapabilities (CapsMissing says why).
	Caps        []backend.AtomicCaps
	CapsMissing error
}

// Link names the direction the claims are about: "GPU1→GPU0".
func (c AtomicClaims) Link() string { return c.Accessor.String() + "→" + c.Owner.String() }

// ReadAtomicClaims queries the claims for kernels on accessor touching
// owner's memory. A failing query fails the spec; a driver without the
// per-operation entry point leaves Caps nil with the reason in CapsMissing.
func (h *Harness) ReadAtomicClaims(accessor, owner GPU) AtomicClaims {
	GinkgoHelper()
	c := AtomicClaims{Accessor: accessor, Owner: owner}
	link := c.Link()
	var err error
	c.Native, err = h.b.P2PAttribute(backend.P2PNativeAtomicSupported, accessor.Ordinal, owner.Ordinal)
	ExpectNoError(err, "cuDeviceGetP2PAttribute(%s, %s)", backend.P2PNativeAtomicSupported, link)
	if h.b.DriverVersion() >= 13000 {
		c.Partial, err = h.b.P2PAttribute(backend.P2POnlyPartialNativeAtomicSupported, accessor.Ordinal, owner.Ordinal)
		ExpectNoError(err, "cuDeviceGetP2PAttribute(%s, %s)", backend.P2POnlyPartialNativeAtomicSupported, link)
		c.PartialKnown = true
	}
	caps, err := h.b.P2PAtomicCapabilities(backend.AllAtomicOperations(), accessor.Ordinal, owner.Ordinal)
	switch {
	case errors.Is(err, backend.ErrMissingEntryPoint):
		c.CapsMissing = err
	case err != nil:
		ExpectNoError(err, "cuDeviceGetP2PAtomicCapabilities(all %d operations, %s)", backend.AtomicOperationCount, link)
	default:
		c.Caps = caps
	}
	return c
}

// Record attaches the claims to the spec as report claims.
func (c AtomicClaims) Record() {
	link := c.Link()
	Claim("cuda", backend.P2PNativeAtomicSupported.String(), c.Native, link)
	if c.PartialKnown {
		Claim("cuda", backend.P2POnlyPartialNativeAtomicSupported.String(), c.Partial, link)
	}
	if c.Caps == nil {
		Claim("cuda", "cuDeviceGetP2PAtomicCapabilities", "unavailable", fmt.Sprintf("%s: %v", link, c.CapsMissing))
		return
	}
	for i, op := range backend.AllAtomicOperations() {
		Claim("cuda", "cuDeviceGetP2PAtomicCapabilities "+op.String(), c.Caps[i].String(),
			fmt.Sprintf("%s: covers %s", link, DecodeAtomicCaps(op, c.Caps[i])))
	}
}

// CapsSummary lists every operation's mask: "INTEGER_ADD=0, INTEGER_MIN=0, ...".
func (c AtomicClaims) CapsSummary() string {
	if c.Caps == nil {
		return "unavailable"
	}
	parts := make([]string, len(c.Caps))
	for i, op := range backend.AllAtomicOperations() {
		parts[i] = fmt.Sprintf("%s=%s", strings.TrimPrefix(op.String(), "CU_ATOMIC_OPERATION_"), c.Caps[i])
	}
	return strings.Join(parts, ", ")
}

// Advertises reports whether CUDA advertises op on type t as native for this
// link, and says why (quoting the attributes and the mask) either way.
// NATIVE_ATOMIC_SUPPORTED=1 promises every operation, whatever the masks
// say; with ONLY_PARTIAL=1 the per-operation mask decides.
func (c AtomicClaims) Advertises(op backend.AtomicOperation, t AtomicType) (bool, string) {
	found := fmt.Sprintf("%s=%d", backend.P2PNativeAtomicSupported, c.Native)
	if c.PartialKnown {
		found += fmt.Sprintf(", %s=%d", backend.P2POnlyPartialNativeAtomicSupported, c.Partial)
	}
	if c.Native == 1 {
		return true, found
	}
	if c.Partial != 1 || c.Caps == nil {
		return false, found
	}
	mask := c.Caps[op]
	found += fmt.Sprintf(", %s mask %s", op, mask)
	return CapsCover(op, mask, t), found
}
