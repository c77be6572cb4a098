// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"path/filepath"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

// Handles (IPC memory and event handles, fabric handles) are 64 bytes:
// magic[8] pid[4] device[4] size[8] id[16] kind[1] zero[19] crc32[4]. The
// checksum makes a corrupted or truncated handle fail to open.
var (
	magicIPCMem   = [8]byte{'P', '2', 'P', 'C', 'I', 'P', 'C', 'M'}
	magicIPCEvent = [8]byte{'P', '2', 'P', 'C', 'I', 'P', 'C', 'E'}
	magicFabric   = [8]byte{'P', '2', 'P', 'C', 'F', 'A', 'B', 'R'}
)

type handleData struct {
	pid  uint32
	dev  int
	size uint64
	id   string
	kind byte
}

func encodeHandle(magic [8]byte, h handleData) (out [64]byte) {
	copy(out[0:8], magic[:])
	binary.LittleEndian.PutUint32(out[8:12], h.pid)
	binary.LittleEndian.PutUint32(out[12:16], uint32(h.dev))
	binary.LittleEndian.PutUint64(out[16:24], h.size)
	copy(out[24:40], h.id)
	out[40] = h.kind
	binary.LittleEndian.PutUint32(out[60:64], crc32.ChecksumIEEE(out[:60]))
	return out
}

func decodeHandle(fn string, magic [8]byte, raw [64]byte) (handleData, error) {
	if [8]byte(raw[0:8]) != magic || binary.LittleEndian.Uint32(raw[60:64]) != crc32.ChecksumIEEE(raw[:60]) {
		return handleData{}, errf(fn, cuerr.InvalidValue, "not a handle made by this driver (bad magic or checksum)")
	}
	h := handleData{
		pid:  binary.LittleEndian.Uint32(raw[8:12]),
		dev:  int(int32(binary.LittleEndian.Uint32(raw[12:16]))),
		size: binary.LittleEndian.Uint64(raw[16:24]),
		id:   string(raw[24:40]),
		kind: raw[40],
	}
	if _, err := hex.DecodeString(h.id); err != nil || h.dev < 0 {
		return handleData{}, errf(fn, cuerr.InvalidValue, "malformed handle")
	}
	return h, nil
}

type ipcKey struct {
	id  string
	dev int
}

// IPCGetMemHandle is cuIpcGetMemHandle: p must be the base of a cuMemAlloc
// allocation.
func (b *Backend) IPCGetMemHandle(d backend.Device, p backend.DevicePtr) (backend.IPCHandle, error) {
	const fn = "cuIpcGetMemHandle"
	if err := b.ctx(fn, d); err != nil {
		return backend.IPCHandle{}, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	r, ok := b.allocs[uint64(p)]
	if !ok {
		return backend.IPCHandle{}, errf(fn, cuerr.InvalidValue, "0x%x is not the base of a cuMemAlloc allocation", uint64(p))
	}
	return encodeHandle(magicIPCMem, handleData{pid: uint32(pid), dev: r.phys, size: r.size, id: r.obj.id, kind: 'm'}), nil
}

// IPCOpenMemHandle is cuIpcOpenMemHandle_v2 with LAZY_ENABLE_PEER_ACCESS.
// Opening in the exporting process fails with INVALID_CONTEXT (observed on
// the H200); opening the same handle again in the same context returns the
// same pointer and counts a reference (under ipc-reopen-not-counted it does
// not count it).
func (b *Backend) IPCOpenMemHandle(d backend.Device, raw backend.IPCHandle) (backend.DevicePtr, error) {
	const fn = "cuIpcOpenMemHandle"
	if err := b.ctx(fn, d); err != nil {
		return 0, err
	}
	h, err := decodeHandle(fn, magicIPCMem, raw)
	if err != nil {
		return 0, err
	}
	if h.dev >= len(b.devs) {
		return 0, errf(fn, cuerr.InvalidValue, "handle of GPU%d, which this machine does not have", h.dev)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if o := b.objects[h.id]; o != nil && o.local && !b.defects.has(dIPCSameProcessOpen) {
		if b.defects.has(dIPCRefusedOpenKeeps) {
			b.keep(o)
		}
		return 0, errf(fn, cuerr.InvalidContext, "the handle was exported by this process")
	}
	key := ipcKey{h.id, int(d)}
	if r := b.ipcOpen[key]; r != nil {
		if !b.defects.has(dIPCReopenNotCounted) {
			r.ipcRefs++
		}
		return backend.DevicePtr(r.base), nil
	}
	if int(d) != h.dev && !b.claimsP2P(int(d), h.dev) {
		return 0, errf(fn, cuerr.PeerAccessUnsupported, "GPU%d cannot access GPU%d's memory", int(d), h.dev)
	}
	o, err := b.openObject(fn, filepath.Join(b.state.root, "mem", memName(h.dev, 'm', h.id)))
	if err != nil {
		return 0, err
	}
	o.refs++
	if h.size > o.size {
		b.unref(o)
		return 0, errf(fn, cuerr.InvalidValue, "handle size %d exceeds the allocation", h.size)
	}
	base, ok := b.as.reserve(h.size, 512)
	if !ok {
		b.unref(o)
		return 0, errf(fn, cuerr.OutOfMemory, "the fake address space is full")
	}
	r := &region{base: base, size: h.size, mem: o.mem[:h.size], kind: kindIPC, phys: h.dev, ctx: int(d), obj: o, ipcRefs: 1}
	b.as.insert(r)
	b.ipcOpen[key] = r
	return backend.DevicePtr(base), nil
}

// IPCCloseMemHandle is cuIpcCloseMemHandle: the mapping goes at the last close.
func (b *Backend) IPCCloseMemHandle(d backend.Device, p backend.DevicePtr) error {
	const fn = "cuIpcCloseMemHandle"
	if err := b.ctx(fn, d); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	var key ipcKey
	var r *region
	for k, x := range b.ipcOpen {
		if x.base == uint64(p) {
			key, r = k, x
		}
	}
	if r == nil {
		return errf(fn, cuerr.InvalidValue, "0x%x is not an opened IPC mapping", uint64(p))
	}
	if r.ipcRefs--; r.ipcRefs > 0 {
		return nil
	}
	delete(b.ipcOpen, key)
	b.as.remove(r)
	b.as.unreserve(r.base)
	if b.defects.has(dIPCCloseFreesExporter) {
		r.obj.freeNow()
	}
	b.unref(r.obj)
	return nil
}

// IPCGetEventHandle is cuIpcGetEventHandle: only for INTERPROCESS events.
func (b *Backend) IPCGetEventHandle(ev backend.Event) (backend.IPCHandle, error) {
	const fn = "cuIpcGetEventHandle"
	e, err := b.event(fn, ev)
	if err != nil {
		return backend.IPCHandle{}, err
	}
	if e.id == "" {
		return backend.IPCHandle{}, errf(fn, cuerr.InvalidValue, "the event was not created with INTERPROCESS")
	}
	return encodeHandle(magicIPCEvent, handleData{pid: uint32(pid), dev: e.dev, id: e.id, kind: 'e'}), nil
}

// IPCOpenEventHandle is cuIpcOpenEventHandle: the event of d's context that
// shares its state with the exported one. It behaves as DISABLE_TIMING.
func (b *Backend) IPCOpenEventHandle(d backend.Device, raw backend.IPCHandle) (backend.Event, error) {
	const fn = "cuIpcOpenEventHandle"
	if err := b.ctx(fn, d); err != nil {
		return nil, err
	}
	h, err := decodeHandle(fn, magicIPCEvent, raw)
	if err != nil {
		return nil, err
	}
	e, err := b.mapEventFile(fn, h.id, false)
	if err != nil {
		return nil, err
	}
	e.dev, e.origin, e.flags = int(d), h.dev, backend.EventInterprocess|backend.EventDisableTiming
	b.mu.Lock()
	b.events[e] = true
	b.mu.Unlock()
	return e, nil
}
