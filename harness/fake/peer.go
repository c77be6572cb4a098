// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"fmt"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

// claimsP2P is what the driver says about a→b (a ≠ b): the truth, unless
// the can-access-peer-lies defect makes every pair claim P2P.
func (b *Backend) claimsP2P(a, o int) bool {
	return b.pairs[a][o].p2p || b.defects.has(dCanAccessPeerLies)
}

func (b *Backend) twoDevices(fn string, a, o backend.Device) error {
	if !b.valid(a) || !b.valid(o) {
		return errf(fn, cuerr.InvalidDevice, "devices %d and %d (the machine has %d)", int(a), int(o), len(b.devs))
	}
	if a == o {
		return errf(fn, cuerr.InvalidDevice, "source and destination are both GPU%d", int(a))
	}
	return nil
}

// CanAccessPeer is cuDeviceCanAccessPeer: 0 for a device and itself.
func (b *Backend) CanAccessPeer(accessor, owner backend.Device) (bool, error) {
	const fn = "cuDeviceCanAccessPeer"
	if !b.valid(accessor) || !b.valid(owner) {
		return false, errf(fn, cuerr.InvalidDevice, "devices %d and %d", int(accessor), int(owner))
	}
	if accessor == owner {
		return b.defects.has(dSelfPeerAllowed), nil
	}
	return b.claimsP2P(int(accessor), int(owner)), nil
}

// P2PAttribute is cuDeviceGetP2PAttribute.
func (b *Backend) P2PAttribute(attr backend.P2PAttr, src, dst backend.Device) (int, error) {
	const fn = "cuDeviceGetP2PAttribute"
	if err := b.twoDevices(fn, src, dst); err != nil {
		return 0, err
	}
	ps := b.pairs[src][dst]
	claim := b.claimsP2P(int(src), int(dst))
	native, partial := ps.nativeAttrs()
	switch attr {
	case backend.P2PPerformanceRank:
		return ps.rank, nil
	case backend.P2PAccessSupported, backend.P2PCudaArrayAccessSupported:
		return boolInt(claim), nil
	case backend.P2PNativeAtomicSupported:
		return native, nil
	case backend.P2POnlyPartialNativeAtomicSupported:
		if b.preset.driver < 13000 {
			return 0, errf(fn, cuerr.InvalidValue, "%s needs CUDA 13.0 (driver %d)", attr, b.preset.driver)
		}
		return partial, nil
	}
	return 0, errf(fn, cuerr.InvalidValue, "unknown attribute %d", int(attr))
}

func (b *Backend) missingEntryPoint(fn string) error {
	return fmt.Errorf("%s: %w: driver %d is older than CUDA 13.0", fn, backend.ErrMissingEntryPoint, b.preset.driver)
}

func checkOps(fn string, ops []backend.AtomicOperation) error {
	if len(ops) == 0 {
		return errf(fn, cuerr.InvalidValue, "count 0")
	}
	for _, op := range ops {
		if op < 0 || op >= backend.AtomicOperationCount {
			return errf(fn, cuerr.InvalidValue, "operation %d", int(op))
		}
	}
	return nil
}

// P2PAtomicCapabilities is cuDeviceGetP2PAtomicCapabilities (CUDA 13.0+).
func (b *Backend) P2PAtomicCapabilities(ops []backend.AtomicOperation, src, dst backend.Device) ([]backend.AtomicCaps, error) {
	const fn = "cuDeviceGetP2PAtomicCapabilities"
	if b.preset.driver < 13000 {
		return nil, b.missingEntryPoint(fn)
	}
	if err := b.twoDevices(fn, src, dst); err != nil {
		return nil, err
	}
	if err := checkOps(fn, ops); err != nil {
		return nil, err
	}
	ps := b.pairs[src][dst]
	native, _ := ps.nativeAttrs()
	overstate := b.defects.has(dAtomicCapsOverstate) && native == 0
	out := make([]backend.AtomicCaps, len(ops))
	for i, op := range ops {
		out[i] = ps.claimedCaps(op, overstate)
	}
	return out, nil
}

// HostAtomicCapabilities is cuDeviceGetHostAtomicCapabilities (CUDA 13.0+):
// everything when the preset's host link has native atomics, else nothing.
func (b *Backend) HostAtomicCapabilities(ops []backend.AtomicOperation, d backend.Device) ([]backend.AtomicCaps, error) {
	const fn = "cuDeviceGetHostAtomicCapabilities"
	if b.preset.driver < 13000 {
		return nil, b.missingEntryPoint(fn)
	}
	if !b.valid(d) {
		return nil, errf(fn, cuerr.InvalidDevice, "device %d", int(d))
	}
	if err := checkOps(fn, ops); err != nil {
		return nil, err
	}
	out := make([]backend.AtomicCaps, len(ops))
	for i, op := range ops {
		if b.preset.hostNative {
			out[i] = fullCaps[op]
		}
	}
	return out, nil
}

// EnablePeerAccess is cuCtxEnablePeerAccess from accessor's context.
func (b *Backend) EnablePeerAccess(accessor, owner backend.Device) error {
	const fn = "cuCtxEnablePeerAccess"
	if err := b.ctx(fn, accessor); err != nil {
		return err
	}
	if !b.valid(owner) {
		return errf(fn, cuerr.InvalidContext, "no context for device %d", int(owner))
	}
	a, o := int(accessor), int(owner)
	if a == o {
		// Observed on the H200: 217, not the 201 the documentation suggests.
		return errf(fn, cuerr.PeerAccessUnsupported, "GPU%d's own context", a)
	}
	if !b.claimsP2P(a, o) {
		return errf(fn, cuerr.PeerAccessUnsupported, "cuDeviceCanAccessPeer(GPU%d, GPU%d) = 0", a, o)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.peerAPI[a][o] {
		return errf(fn, cuerr.PeerAccessAlreadyEnabled, "GPU%d→GPU%d", a, o)
	}
	b.peerAPI[a][o] = true
	b.enabledAt[a][o] = b.allocSeq
	b.access[a][o].Store(true)
	if b.defects.has(dPeerEnableBothWays) || b.defects.has(dReversePeerAccessTimesOut) {
		b.access[o][a].Store(true)
	}
	if b.defects.has(dReversePeerAccessTimesOut) && !b.peerAPI[o][a] {
		b.ds.reverse.Store([2]int{o, a}, true)
	}
	b.ds.reverse.Delete([2]int{a, o})
	b.noteEnable(a, o)
	return nil
}

// DisablePeerAccess is cuCtxDisablePeerAccess from accessor's context.
func (b *Backend) DisablePeerAccess(accessor, owner backend.Device) error {
	const fn = "cuCtxDisablePeerAccess"
	if err := b.ctx(fn, accessor); err != nil {
		return err
	}
	if !b.valid(owner) {
		return errf(fn, cuerr.InvalidContext, "no context for device %d", int(owner))
	}
	a, o := int(accessor), int(owner)
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.peerAPI[a][o] {
		return errf(fn, cuerr.PeerAccessNotEnabled, "GPU%d→GPU%d", a, o)
	}
	b.peerAPI[a][o] = false
	if b.defects.has(dPeerDisableIgnored) {
		return nil
	}
	if b.defects.has(dPeerDisableBothWays) {
		b.peerAPI[o][a] = false
		b.access[o][a].Store(false)
	}
	b.access[a][o].Store(false)
	if b.defects.has(dPeerEnableBothWays) || b.defects.has(dReversePeerAccessTimesOut) {
		b.access[o][a].Store(b.peerAPI[o][a])
		b.ds.reverse.Delete([2]int{o, a})
	}
	return nil
}
