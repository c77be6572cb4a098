// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	. "github.com/onsi/ginkgo/v2"
)

// Legacy CUDA IPC of the fixture. A handle is only bytes and needs no
// release; what a spec opens in its own process is closed after the spec,
// after its streams are drained, so a failed spec never leaves a mapping of
// another allocation behind. The negative checks (a handle opened in the
// process that made it, a handle of an event without the interprocess
// flag) observe the driver's error and go through Raw.

// IPCMemHandle is cuIpcGetMemHandle of the allocation at p on g.
func (h *Harness) IPCMemHandle(g GPU, p DevicePtr) IPCHandle {
	GinkgoHelper()
	hnd, err := h.b.IPCGetMemHandle(g.Ordinal, p)
	ExpectNoError(err, "cuIpcGetMemHandle of 0x%x on %s", uint64(p), g)
	return hnd
}

// IPCOpenMemHandle maps the allocation behind hnd in g's context
// (cuIpcOpenMemHandle); it is closed (cuIpcCloseMemHandle) after the spec.
func (h *Harness) IPCOpenMemHandle(g GPU, hnd IPCHandle) DevicePtr {
	GinkgoHelper()
	p, err := h.b.IPCOpenMemHandle(g.Ordinal, hnd)
	ExpectNoError(err, "cuIpcOpenMemHandle on %s", g)
	DeferCleanup(func() error {
		return wrapf(h.b.IPCCloseMemHandle(g.Ordinal, p), "cuIpcCloseMemHandle of 0x%x on %s", uint64(p), g)
	})
	return p
}

// IPCEventHandle is cuIpcGetEventHandle of e, which must have been created
// with EventInterprocess|EventDisableTiming.
func (h *Harness) IPCEventHandle(e Event) IPCHandle {
	GinkgoHelper()
	hnd, err := h.b.IPCGetEventHandle(e)
	ExpectNoError(err, "cuIpcGetEventHandle of an event of GPU%d", int(e.Device()))
	return hnd
}
