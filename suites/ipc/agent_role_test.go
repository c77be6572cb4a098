// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package ipc_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

// The agent role is the other process of an IPC spec: an importer (or, for
// exporter-exits-first, an exporter) that runs one command from the spec at
// a time and answers each with an agentReply. A driver error of the command
// is answered as data, because the specs assert on it; any other error ends
// the role and fails the spec with the role's last step.
var agentRole = harness.RegisterRole("ipc.agent",
	func(d harness.Driver) harness.RoleServer[agentCmd, agentReply] { return &agent{b: d} })

// Agent commands.
const (
	opExport    = "export"     // allocate Size bytes, fill from Seed, answer the handle
	opOpen      = "open"       // cuIpcOpenMemHandle of Handle (any length, zero-padded to 64 bytes)
	opOpenEvent = "open-event" // cuIpcOpenEventHandle of Handle
	opVerify    = "verify"     // kernel reads Size bytes at the opened pointer against Seed
	opFill      = "fill"       // kernel writes Size bytes at the opened pointer from Seed
	opConsume   = "consume"    // cuStreamWaitEvent on the opened event if Wait, then verify
	opClose     = "close"      // cuIpcCloseMemHandle of the pointer the latest open still held returned
	opProbe     = "probe"      // cuPointerGetAttribute on Ptr, then a kernel reading Size bytes there
	opAbandon   = "abandon"    // skip every cleanup at the end: the process just exits, holding all
)

type agentCmd struct {
	Op     string `json:"op"`
	Device int    `json:"device"`
	Handle []byte `json:"handle,omitempty"`
	Ptr    uint64 `json:"ptr,omitempty"`
	Size   uint64 `json:"size,omitempty"`
	Seed   uint32 `json:"seed,omitempty"`
	Wait   bool   `json:"wait,omitempty"`
}

type agentReply struct {
	// DriverAnswer is the command's CUDA result (0: success).
	harness.DriverAnswer
	Ptr     uint64          `json:"ptr,omitempty"`    // open, export
	Handle  []byte          `json:"handle,omitempty"` // export
	Verdict harness.Verdict `json:"verdict"`          // verify, consume, probe
	// AttrCode and Attr are cuPointerGetAttribute(DEVICE_ORDINAL)'s result (probe).
	AttrCode int32 `json:"attrCode"`
	Attr     int64 `json:"attr"`
}

// agent is the role's state.
type agent struct {
	b        harness.Driver
	dev      harness.Device
	w        *harness.GPUWork
	exported harness.DevicePtr // own allocation (export)
	// opens are the pointers of the successful opens not closed yet, in
	// order: a handle opened twice is closed twice (the driver counts
	// references), and cleanup closes what the spec left open.
	opens   []harness.DevicePtr
	event   harness.Event
	fault   bool // a kernel failed: the context may be poisoned, skip cleanups
	abandon bool // the spec asked to skip every cleanup
}

func (a *agent) Serve(ctx context.Context, s *harness.RoleSession, cmd agentCmd) (agentReply, error) {
	s.Step(fmt.Sprintf("%s on GPU%d", cmd.Op, cmd.Device))
	if cmd.Op == opAbandon {
		a.abandon = true
		return agentReply{}, nil
	}
	a.dev = harness.Device(cmd.Device)
	rep, err := a.do(ctx, cmd)
	return rep, rep.Record(err)
}

// End releases what the agent holds, unless a kernel failed or the spec
// asked it to abandon everything.
func (a *agent) End(context.Context) error {
	if a.fault || a.abandon {
		return nil
	}
	return a.cleanup()
}

func (a *agent) do(ctx context.Context, cmd agentCmd) (agentReply, error) {
	var rep agentReply
	switch cmd.Op {
	case opExport:
		p, err := a.b.Alloc(a.dev, cmd.Size)
		if err != nil {
			return rep, err
		}
		a.exported, rep.Ptr = p, uint64(p)
		if err := a.kernel(func(w *harness.GPUWork) error { return w.Fill(ctx, p, cmd.Size/4, cmd.Seed) }); err != nil {
			return rep, err
		}
		h, err := a.b.IPCGetMemHandle(a.dev, p)
		rep.Handle = h[:]
		return rep, err
	case opOpen:
		var h harness.IPCHandle
		copy(h[:], cmd.Handle)
		p, err := a.b.IPCOpenMemHandle(a.dev, h)
		if err == nil {
			a.opens, rep.Ptr = append(a.opens, p), uint64(p)
		}
		return rep, err
	case opOpenEvent:
		var h harness.IPCHandle
		copy(h[:], cmd.Handle)
		ev, err := a.b.IPCOpenEventHandle(a.dev, h)
		if err == nil {
			a.event = ev
		}
		return rep, err
	case opVerify, opFill, opConsume:
		return rep, a.useOpened(ctx, cmd, &rep)
	case opClose:
		if len(a.opens) == 0 {
			return rep, errors.New("no mapping is open")
		}
		p := a.opens[len(a.opens)-1]
		a.opens = a.opens[:len(a.opens)-1]
		return rep, a.b.IPCCloseMemHandle(a.dev, p)
	case opProbe:
		// The attribute is read before the probe's kernel allocates anything
		// (its stream and result buffer, on a first kernel), so no allocation
		// made for the probe can sit at the address.
		var aerr error
		rep.Attr, aerr = a.b.PointerAttribute(a.dev, harness.PointerDeviceOrdinal, harness.DevicePtr(cmd.Ptr))
		rep.AttrCode = codeOf(aerr)
		return rep, a.kernel(func(w *harness.GPUWork) (err error) {
			rep.Verdict, err = w.Verify(ctx, harness.DevicePtr(cmd.Ptr), cmd.Size/4, cmd.Seed)
			return err
		})
	}
	return rep, fmt.Errorf("unknown command %q", cmd.Op)
}

// useOpened runs a kernel on the opened mapping (waiting on the opened
// event first for consume with Wait).
func (a *agent) useOpened(ctx context.Context, cmd agentCmd, rep *agentReply) error {
	opened := a.opened()
	if opened == 0 {
		return errors.New("no mapping is open")
	}
	return a.kernel(func(w *harness.GPUWork) (err error) {
		switch {
		case cmd.Op == opFill:
			return w.Fill(ctx, opened, cmd.Size/4, cmd.Seed)
		case cmd.Op == opConsume && cmd.Wait:
			if a.event == nil {
				return errors.New("no event is open")
			}
			if err := a.b.StreamWaitEvent(w.Stream(), a.event); err != nil {
				return err
			}
		}
		rep.Verdict, err = w.Verify(ctx, opened, cmd.Size/4, cmd.Seed)
		return err
	})
}

// opened is the pointer of the latest open not closed yet, 0 when none.
func (a *agent) opened() harness.DevicePtr {
	if len(a.opens) == 0 {
		return 0
	}
	return a.opens[len(a.opens)-1]
}

// kernel runs f with this GPU's stream and result buffer, made on first use.
func (a *agent) kernel(f func(w *harness.GPUWork) error) error {
	if a.w == nil || a.w.Device() != a.dev {
		if err := a.closeWork(); err != nil {
			return err
		}
		w, err := harness.NewGPUWork(a.b, a.dev)
		if err != nil {
			return err
		}
		a.w = w
	}
	err := f(a.w)
	a.fault = a.fault || err != nil
	return err
}

func (a *agent) closeWork() error {
	if a.w == nil {
		return nil
	}
	err := a.w.Close()
	a.w = nil
	return err
}

func (a *agent) cleanup() error {
	var errs []error
	for i := len(a.opens) - 1; i >= 0; i-- {
		errs = append(errs, a.b.IPCCloseMemHandle(a.dev, a.opens[i]))
	}
	a.opens = nil
	if a.event != nil {
		errs = append(errs, a.b.DestroyEvent(a.event))
	}
	if a.exported != 0 {
		errs = append(errs, a.b.Free(a.dev, a.exported))
	}
	errs = append(errs, a.closeWork())
	return errors.Join(errs...)
}

func codeOf(err error) int32 {
	code, _ := cuerr.Code(err)
	return int32(code)
}
