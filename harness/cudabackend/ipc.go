// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cudabackend

import (
	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuda"
	"github.com/p2pconf/p2pconf/harness/cuenum"
)

// IPCGetMemHandle wraps cuIpcGetMemHandle in d's context.
func (b *Backend) IPCGetMemHandle(d backend.Device, p backend.DevicePtr) (h backend.IPCHandle, err error) {
	err = b.in(d, "cuIpcGetMemHandle", func(drv *cuda.Driver) error {
		ch, err := drv.IPCGetMemHandle(cuda.DevicePtr(p))
		h = backend.IPCHandle(ch)
		return err
	})
	return h, err
}

// IPCOpenMemHandle wraps cuIpcOpenMemHandle_v2 in d's context with
// CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS.
func (b *Backend) IPCOpenMemHandle(d backend.Device, h backend.IPCHandle) (p backend.DevicePtr, err error) {
	err = b.in(d, "cuIpcOpenMemHandle", func(drv *cuda.Driver) error {
		dp, err := drv.IPCOpenMemHandle(cuda.IPCMemHandle(h), cuenum.IPCMemLazyEnablePeerAccess)
		p = backend.DevicePtr(dp)
		return err
	})
	return p, err
}

// IPCCloseMemHandle wraps cuIpcCloseMemHandle in d's context.
func (b *Backend) IPCCloseMemHandle(d backend.Device, p backend.DevicePtr) error {
	return b.in(d, "cuIpcCloseMemHandle", func(drv *cuda.Driver) error { return drv.IPCCloseMemHandle(cuda.DevicePtr(p)) })
}

// IPCGetEventHandle wraps cuIpcGetEventHandle in e's context.
func (b *Backend) IPCGetEventHandle(e backend.Event) (h backend.IPCHandle, err error) {
	err = b.onEvent(e, "cuIpcGetEventHandle", func(drv *cuda.Driver, ev *event) error {
		ch, err := drv.IPCGetEventHandle(ev.e)
		h = backend.IPCHandle(ch)
		return err
	})
	return h, err
}

// IPCOpenEventHandle wraps cuIpcOpenEventHandle in d's context; the event
// belongs to d from then on (destroy it with DestroyEvent).
func (b *Backend) IPCOpenEventHandle(d backend.Device, h backend.IPCHandle) (backend.Event, error) {
	ev := &event{dev: d}
	err := b.in(d, "cuIpcOpenEventHandle", func(drv *cuda.Driver) (err error) {
		ev.e, err = drv.IPCOpenEventHandle(cuda.IPCEventHandle(h))
		return err
	})
	if err != nil {
		return nil, err
	}
	return ev, nil
}
