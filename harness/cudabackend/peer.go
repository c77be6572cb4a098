// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cudabackend

import (
	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuda"
)

// CanAccessPeer wraps cuDeviceCanAccessPeer(accessor, owner).
func (b *Backend) CanAccessPeer(accessor, owner backend.Device) (bool, error) {
	if err := b.devices("cuDeviceCanAccessPeer", accessor, owner); err != nil {
		return false, err
	}
	ok, err := b.drv.CanAccessPeer(cuda.Device(accessor), cuda.Device(owner))
	return ok, convert(err)
}

// P2PAttribute wraps cuDeviceGetP2PAttribute(attr, src, dst).
func (b *Backend) P2PAttribute(attr backend.P2PAttr, src, dst backend.Device) (int, error) {
	if err := b.devices("cuDeviceGetP2PAttribute", src, dst); err != nil {
		return 0, err
	}
	v, err := b.drv.P2PAttribute(attr, cuda.Device(src), cuda.Device(dst))
	return v, convert(err)
}

// P2PAtomicCapabilities wraps cuDeviceGetP2PAtomicCapabilities (CUDA 13.0+;
// older drivers give an error matching backend.ErrMissingEntryPoint).
func (b *Backend) P2PAtomicCapabilities(ops []backend.AtomicOperation, src, dst backend.Device) ([]backend.AtomicCaps, error) {
	if err := b.devices("cuDeviceGetP2PAtomicCapabilities", src, dst); err != nil {
		return nil, err
	}
	caps, err := b.drv.P2PAtomicCapabilities(ops, cuda.Device(src), cuda.Device(dst))
	return caps, convert(err)
}

// HostAtomicCapabilities wraps cuDeviceGetHostAtomicCapabilities (13.0+).
func (b *Backend) HostAtomicCapabilities(ops []backend.AtomicOperation, d backend.Device) ([]backend.AtomicCaps, error) {
	if err := b.devices("cuDeviceGetHostAtomicCapabilities", d); err != nil {
		return nil, err
	}
	caps, err := b.drv.HostAtomicCapabilities(ops, cuda.Device(d))
	return caps, convert(err)
}

// EnablePeerAccess wraps cuCtxEnablePeerAccess with accessor's primary
// context current and owner's as the peer.
func (b *Backend) EnablePeerAccess(accessor, owner backend.Device) error {
	peer, err := b.ctx(owner, "cuCtxEnablePeerAccess")
	if err != nil {
		return err
	}
	return b.in(accessor, "cuCtxEnablePeerAccess", func(drv *cuda.Driver) error { return drv.EnablePeerAccess(peer) })
}

// DisablePeerAccess wraps cuCtxDisablePeerAccess the same way.
func (b *Backend) DisablePeerAccess(accessor, owner backend.Device) error {
	peer, err := b.ctx(owner, "cuCtxDisablePeerAccess")
	if err != nil {
		return err
	}
	return b.in(accessor, "cuCtxDisablePeerAccess", func(drv *cuda.Driver) error { return drv.DisablePeerAccess(peer) })
}

// devices checks ordinals for calls that need no context, so an unknown
// ordinal reads like the other methods' errors. The driver still sees the
// call for valid ordinals, src == dst included (its answer is under test).
func (b *Backend) devices(fn string, ds ...backend.Device) error {
	for _, d := range ds {
		if err := b.checkDevice(d, fn); err != nil {
			return err
		}
	}
	return nil
}
