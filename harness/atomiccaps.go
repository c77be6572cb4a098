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

// AttributeDisagreements compares the two P2P attributes with each other and
// with NVML's P2P ATOMICS status for the same direction (nvmlStatus as the
// report holds it, "P2P_STATUS_OK"; nvmlErr when NVML could not be read).
// NVML has no "partial" status, so OK must mean some atomics are native:
// NATIVE=1 or ONLY_PARTIAL=1 (before CUDA 13.0, which has no ONLY_PARTIAL,
// only NATIVE=1 with NVML not OK is a contradiction). Each disagreement
// names both values.
func (c AtomicClaims) AttributeDisagreements(nvmlStatus, nvmlErr string) []string {
	var out []string
	native := fmt.Sprintf("%s=%d", backend.P2PNativeAtomicSupported, c.Native)
	partial := fmt.Sprintf("%s=%d", backend.P2POnlyPartialNativeAtomicSupported, c.Partial)
	if c.PartialKnown && c.Native == 1 && c.Partial == 1 {
		out = append(out, fmt.Sprintf("%s: %s (all atomics native) and %s (only some) contradict each other", c.Link(), native, partial))
	}
	cudaSome := c.Native == 1 || (c.PartialKnown && c.Partial == 1)
	cudaSays := native
	if c.PartialKnown {
		cudaSays += ", " + partial
	}
	status := strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(nvmlStatus)), "P2P_STATUS_")
	switch {
	case status == "" || status == "UNKNOWN":
		out = append(out, fmt.Sprintf("%s: NVML's P2P ATOMICS status could not be read (found %q, NVML error %q), so CUDA's %s cannot be checked against it",
			c.Link(), nvmlStatus, nvmlErr, cudaSays))
	case status == "OK" && !cudaSome && !c.PartialKnown:
		// A driver older than CUDA 13.0 cannot say "some atomics native":
		// NATIVE=0 with NVML OK may be such a link, so it is not a contradiction.
	case (status == "OK") != cudaSome:
		out = append(out, fmt.Sprintf("%s: NVML P2P ATOMICS status is %s but CUDA says %s", c.Link(), nvmlStatus, cudaSays))
	}
	return out
}

// MaskDisagreements compares the per-operation masks with the attributes:
// every operation covering all its types ⇔ NATIVE=1; some but not all
// covered ⇔ ONLY_PARTIAL=1 (where the driver has that attribute). It needs
// Caps (nil on drivers without cuDeviceGetP2PAtomicCapabilities).
func (c AtomicClaims) MaskDisagreements() []string {
	var full, some, none []string
	for i, op := range backend.AllAtomicOperations() {
		name := strings.TrimPrefix(op.String(), "CU_ATOMIC_OPERATION_")
		switch Coverage(op, c.Caps[i]) {
		case CoverAll:
			full = append(full, name)
		case CoverSome:
			some = append(some, fmt.Sprintf("%s=%s (covers %s)", name, c.Caps[i], DecodeAtomicCaps(op, c.Caps[i])))
		default:
			none = append(none, fmt.Sprintf("%s=%s", name, c.Caps[i]))
		}
	}
	allFull := len(full) == len(c.Caps)
	anyNative := len(full)+len(some) > 0
	var out []string
	switch {
	case c.Native == 1 && !allFull:
		out = append(out, fmt.Sprintf("%s: %s=1 (every atomic native) but cuDeviceGetP2PAtomicCapabilities does not cover every operation with all its types: %s",
			c.Link(), backend.P2PNativeAtomicSupported, strings.Join(append(some, none...), ", ")))
	case c.Native != 1 && allFull:
		out = append(out, fmt.Sprintf("%s: %s=%d but cuDeviceGetP2PAtomicCapabilities covers every operation with all its types (%s)",
			c.Link(), backend.P2PNativeAtomicSupported, c.Native, c.CapsSummary()))
	}
	if !c.PartialKnown {
		return out
	}
	partial := anyNative && !allFull
	switch {
	case c.Partial == 1 && !partial:
		what := "no operation"
		if allFull {
			what = "every operation fully"
		}
		out = append(out, fmt.Sprintf("%s: %s=1 (only some atomics native) but cuDeviceGetP2PAtomicCapabilities covers %s (%s)",
			c.Link(), backend.P2POnlyPartialNativeAtomicSupported, what, c.CapsSummary()))
	case c.Partial != 1 && partial:
		out = append(out, fmt.Sprintf("%s: %s=%d but cuDeviceGetP2PAtomicCapabilities covers some operations and not others (full: %s; partly: %s; not: %s)",
			c.Link(), backend.P2POnlyPartialNativeAtomicSupported, c.Partial, strings.Join(full, " "), strings.Join(some, ", "), strings.Join(none, ", ")))
	}
	return out
}
