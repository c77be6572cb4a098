// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	. "github.com/onsi/ginkgo/v2"
)

// PeerAccess is peer access enabled by a spec that also disables it on
// purpose (to see what disabling does). EnablePeerAccess's cleanup would
// disable it a second time and fail; this one disables after the spec only
// what is still enabled then.
type PeerAccess struct {
	h  *Harness
	p  Pair
	on bool
}

// GrantPeerAccess enables access from p.A to p.B's memory
// (cuCtxEnablePeerAccess) and fails the spec if it cannot; unless the spec
// disables it, it is disabled after the spec (after the spec's streams are
// drained, as EnablePeerAccess does).
func (h *Harness) GrantPeerAccess(p Pair) *PeerAccess {
	GinkgoHelper()
	ExpectNoError(h.b.EnablePeerAccess(p.A.Ordinal, p.B.Ordinal), "cuCtxEnablePeerAccess %s", p)
	a := &PeerAccess{h: h, p: p, on: true}
	DeferCleanup(func() error {
		if !a.on {
			return nil
		}
		return wrapf(h.b.DisablePeerAccess(p.A.Ordinal, p.B.Ordinal), "disable peer access %s after the spec", p)
	})
	return a
}

// Disable disables the access now (cuCtxDisablePeerAccess) and fails the
// spec if the driver refuses. A second disable, whose refusal is what a
// spec observes, goes through Raw.
func (a *PeerAccess) Disable() {
	GinkgoHelper()
	ExpectNoError(a.h.b.DisablePeerAccess(a.p.A.Ordinal, a.p.B.Ordinal), "cuCtxDisablePeerAccess %s after enabling it", a.p)
	a.on = false
}
