// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"errors"
	"fmt"

	. "github.com/onsi/ginkgo/v2"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/claims"
)

// The claims model and the one comparison of its sources live in
// harness/claims; these names keep the suites' spelling, and the methods
// below read claims live inside a spec (a failing query fails the spec).

// Claims is what CUDA and NVML say about one direction.
type Claims = claims.Claims

// Claim topics.
const (
	PeerAccessClaims = claims.PeerAccess
	AtomicsClaims    = claims.Atomics
)

// ClaimDisagreements are the disagreements about topic among the sources
// of c, by the one set of rules the report uses too (claims.Disagreements).
func ClaimDisagreements(c Claims, topic claims.Topic) []claims.Disagreement {
	return claims.Of(claims.Disagreements(c), topic)
}

// AtomicType is one operand type of an atomic operation.
type AtomicType = claims.AtomicType

// RequiredAtomicTypes are the types an operation must cover to count as
// fully native.
func RequiredAtomicTypes(op backend.AtomicOperation) []AtomicType {
	return claims.RequiredAtomicTypes(op)
}

// CapsCover reports whether mask says op is native on type t.
func CapsCover(op backend.AtomicOperation, mask backend.AtomicCaps, t AtomicType) bool {
	return claims.CapsCover(op, mask, t)
}

// DecodeAtomicCaps lists the types and forms mask covers for op.
func DecodeAtomicCaps(op backend.AtomicOperation, mask backend.AtomicCaps) string {
	return claims.DecodeAtomicCaps(op, mask)
}

// ReadClaims asks the driver about p now (claims.Read) and fails the spec
// when a query fails; NVML's part is the one read when the run started
// (NVML is not asked again). A driver without
// cuDeviceGetP2PAtomicCapabilities is no failure: the masks stay nil with
// the reason in CUDA.AtomicCapsErr.
func (h *Harness) ReadClaims(p Pair) Claims {
	GinkgoHelper()
	c, err := claims.Read(h.b, p.A.Ordinal, p.B.Ordinal)
	ExpectNoError(err, "asking CUDA about %s", p)
	c.NVML = p.Claims.NVML
	return c
}

// ReadAtomicClaims is ReadClaims for kernels on accessor touching owner's
// memory.
func (h *Harness) ReadAtomicClaims(accessor, owner GPU) Claims {
	GinkgoHelper()
	p, ok := current().Pair(accessor.Ordinal, owner.Ordinal)
	if !ok {
		p = Pair{A: accessor, B: owner}
		p.Claims.NVML.Err = errors.New("the run has no pair " + p.String())
	}
	return h.ReadClaims(p)
}

// RecordAtomicClaims attaches the atomic claims of c to the spec as report
// claims.
func RecordAtomicClaims(c Claims) {
	link := c.Link()
	cu := c.CUDA
	Claim("cuda", backend.P2PNativeAtomicSupported.String(), *cu.NativeAtomicSupported, link)
	if cu.PartialNativeAtomic != nil {
		Claim("cuda", backend.P2POnlyPartialNativeAtomicSupported.String(), *cu.PartialNativeAtomic, link)
	}
	if cu.AtomicCaps == nil {
		Claim("cuda", "cuDeviceGetP2PAtomicCapabilities", "unavailable", fmt.Sprintf("%s: %v", link, cu.AtomicCapsErr))
		return
	}
	for i, op := range backend.AllAtomicOperations() {
		Claim("cuda", "cuDeviceGetP2PAtomicCapabilities "+op.String(), cu.AtomicCaps[i].String(),
			fmt.Sprintf("%s: covers %s", link, claims.DecodeAtomicCaps(op, cu.AtomicCaps[i])))
	}
}
