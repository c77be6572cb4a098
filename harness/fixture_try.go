// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"

	"github.com/p2pconf/p2pconf/harness/backend"
)

// The Try methods make one driver call and return the driver's answer
// without asserting, for the negative checks whose observation is that
// answer (a second enable of peer access, an IPC handle opened in its own
// process, a query on a pair the driver must refuse). Each error names the
// call and its target; the driver's code stays reachable through
// errors.As, so MatchCUDAError and CodeOf see it. Whatever a call acquires
// when it succeeds (an event, a mapping) is released after the spec like
// everything else the fixture makes.

// TryEventQuery is cuEventQuery: nil once the work before e completed, the
// NotReady code while it runs.
func (h *Harness) TryEventQuery(e Event) error {
	if err := h.b.EventQuery(e); err != nil {
		return fmt.Errorf("cuEventQuery: %w", err)
	}
	return nil
}

// TryElapsedTime is cuEventElapsedTime(start, end), in milliseconds.
func (h *Harness) TryElapsedTime(start, end Event) (float32, error) {
	ms, err := h.b.ElapsedTime(start, end)
	if err != nil {
		return ms, fmt.Errorf("cuEventElapsedTime: %w", err)
	}
	return ms, nil
}

// TryP2PAttribute is cuDeviceGetP2PAttribute(attr, a, b).
func (h *Harness) TryP2PAttribute(attr P2PAttr, a, b GPU) (int, error) {
	v, err := h.b.P2PAttribute(attr, a.Ordinal, b.Ordinal)
	if err != nil {
		return v, fmt.Errorf("cuDeviceGetP2PAttribute(%v, %s, %s): %w", attr, a, b, err)
	}
	return v, nil
}

// TryP2PAtomicCapabilities is cuDeviceGetP2PAtomicCapabilities(ops, a, b);
// a driver without the entry point answers ErrMissingEntryPoint (wrapped).
func (h *Harness) TryP2PAtomicCapabilities(ops []AtomicOperation, a, b GPU) ([]backend.AtomicCaps, error) {
	caps, err := h.b.P2PAtomicCapabilities(ops, a.Ordinal, b.Ordinal)
	if err != nil {
		return caps, fmt.Errorf("cuDeviceGetP2PAtomicCapabilities(%s, %s): %w", a, b, err)
	}
	return caps, nil
}

// TryDisablePeerAccess is cuCtxDisablePeerAccess for p.A→p.B. Unlike
// PeerGrant.Disable it does not assert: the answer to disabling access
// that is not enabled is the observation.
func (h *Harness) TryDisablePeerAccess(p Pair) error {
	if err := h.b.DisablePeerAccess(p.A.Ordinal, p.B.Ordinal); err != nil {
		return fmt.Errorf("cuCtxDisablePeerAccess %s: %w", p, err)
	}
	return nil
}

// TryNewEvent is cuEventCreate(flags) on g; an event it creates is
// destroyed after the spec.
func (h *Harness) TryNewEvent(g GPU, flags backend.EventFlags) (Event, error) {
	e, err := h.b.NewEvent(g.Ordinal, flags)
	if err != nil {
		return e, fmt.Errorf("cuEventCreate(flags 0x%x) on %s: %w", uint32(flags), g, err)
	}
	DeferCleanup(func() error { return wrapf(h.b.DestroyEvent(e), "destroy an event of %s", g) })
	return e, nil
}

// TryIPCEventHandle is cuIpcGetEventHandle of e.
func (h *Harness) TryIPCEventHandle(e Event) (IPCHandle, error) {
	hnd, err := h.b.IPCGetEventHandle(e)
	if err != nil {
		return hnd, fmt.Errorf("cuIpcGetEventHandle: %w", err)
	}
	return hnd, nil
}

// TryIPCOpenMemHandle is cuIpcOpenMemHandle of hnd in g's context, in this
// process; a mapping it opens is closed after the spec.
func (h *Harness) TryIPCOpenMemHandle(g GPU, hnd IPCHandle) (DevicePtr, error) {
	ptr, err := h.b.IPCOpenMemHandle(g.Ordinal, hnd)
	if err != nil {
		return ptr, fmt.Errorf("cuIpcOpenMemHandle on %s: %w", g, err)
	}
	DeferCleanup(func() error { return wrapf(h.b.IPCCloseMemHandle(g.Ordinal, ptr), "close an IPC mapping on %s", g) })
	return ptr, nil
}

// TryGranularity is cuMemGetAllocationGranularity for prop on g (the
// recommended granularity when recommended, else the minimum).
func (h *Harness) TryGranularity(g GPU, prop AllocProp, recommended bool) (uint64, error) {
	size, err := h.b.Granularity(g.Ordinal, prop, recommended)
	if err != nil {
		return size, fmt.Errorf("cuMemGetAllocationGranularity(handle types %d) on %s: %w", uint32(prop.HandleTypes), g, err)
	}
	return size, nil
}

// TryExportFabric is cuMemExportToShareableHandle(FABRIC) of p.
func (h *Harness) TryExportFabric(p *Physical) (FabricHandle, error) {
	fh, err := h.b.ExportFabric(p.GPU.Ordinal, p.Handle)
	if err != nil {
		return fh, fmt.Errorf("cuMemExportToShareableHandle(FABRIC) on %s: %w", p.GPU, err)
	}
	return fh, nil
}
