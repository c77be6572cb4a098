// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package vmm_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

// The importer role imports a shareable handle and uses it, one command
// from the spec at a time, answering each with an importReply. Driver
// errors of the command itself are answered as data (the spec asserts on
// them); anything else ends the role with an error.
var importerRole = harness.RegisterHelper("vmm.importer", runImporter)

// Importer commands.
const (
	opImportFD     = "import-fd"     // an fd follows with SCM_RIGHTS (after the reply "ready")
	opImportNumber = "import-number" // FD is only a number, sent as JSON
	opImportFabric = "import-fabric" // Fabric holds the 64-byte CUmemFabricHandle
	opVerify       = "verify"        // kernel reads every word against Seed
	opFill         = "fill"          // kernel writes every word from Seed
	opUnmap        = "unmap"         // unmap, free the range, release the handle
	opExit         = "exit"
)

type importCmd struct {
	Op     string `json:"op"`
	Device int    `json:"device"`
	Size   uint64 `json:"size,omitempty"`
	FD     int    `json:"fd,omitempty"`
	Fabric []byte `json:"fabric,omitempty"`
	Seed   uint32 `json:"seed,omitempty"`
}

type importReply struct {
	Code    int32               `json:"code"` // the command's CUDA result; 0 for success
	Error   string              `json:"error,omitempty"`
	Handle  uint64              `json:"handle,omitempty"` // what the import returned
	Mapped  uint64              `json:"mapped"`           // where an imported allocation is mapped, 0 if nowhere
	Access  backend.AccessFlags `json:"access"`           // cuMemGetAccess after mapping
	Verdict harness.Verdict     `json:"verdict"`
	// FDs counts the helper's open descriptors: before the exporter's fd
	// arrived (import-fd), after unmapping and releasing (unmap).
	FDs int `json:"fds,omitempty"`
	// FDsImported and FDsClosed count them after the import, before and
	// after closing the received fd (import-fd).
	FDsImported int `json:"fdsImported,omitempty"`
	FDsClosed   int `json:"fdsClosed,omitempty"`
}

// importer is the role's state: at most one imported allocation, mapped.
type importer struct {
	b     backend.Backend
	c     *harness.HelperConn
	dev   backend.Device
	w     *harness.GPUWork
	phys  *physical
	r     *vaRange
	fault bool
}

func runImporter(ctx context.Context, c *harness.HelperConn) (err error) {
	m, err := harness.HelperBackendMachine()
	if err != nil {
		return err
	}
	im := &importer{b: m.Backend, c: c, dev: -1}
	defer func() {
		if !im.fault {
			err = errors.Join(err, im.unmap(), im.closeWork())
		}
	}()
	for {
		var cmd importCmd
		if err := c.Recv(&cmd); err != nil {
			return err
		}
		c.Step(fmt.Sprintf("%s on GPU%d", cmd.Op, cmd.Device))
		if cmd.Op == opExit {
			return nil
		}
		reply, err := im.do(ctx, cmd)
		if err != nil {
			code, ok := cuerr.Code(err)
			if !ok {
				return err
			}
			reply.Code, reply.Error = int32(code), err.Error()
		}
		if err := c.Send(reply); err != nil {
			return err
		}
	}
}

func (im *importer) do(ctx context.Context, cmd importCmd) (importReply, error) {
	var rep importReply
	if im.w == nil || im.dev != backend.Device(cmd.Device) {
		if err := im.closeWork(); err != nil {
			return rep, err
		}
		w, err := harness.NewGPUWork(im.b, backend.Device(cmd.Device))
		if err != nil {
			return rep, err
		}
		im.w, im.dev = w, backend.Device(cmd.Device)
	}
	var err error
	switch cmd.Op {
	case opImportFD:
		rep.FDs = countFDs()
		if err := im.c.Send(importReply{}); err != nil { // ready: send the fd now
			return rep, err
		}
		f, rerr := im.c.RecvFD(nil)
		if rerr != nil {
			return rep, rerr
		}
		var h backend.AllocHandle
		h, err = im.b.ImportFD(im.dev, int(f.Fd()))
		rep.FDsImported = countFDs()
		if cerr := f.Close(); cerr != nil { // closed on every path, before anything else can fail
			return rep, fmt.Errorf("close the received fd: %w", cerr)
		}
		rep.FDsClosed = countFDs()
		if err == nil {
			rep.Handle = uint64(h)
			err = im.mapImported(h, cmd.Size, &rep)
		}
	case opImportNumber:
		var h backend.AllocHandle
		h, err = im.b.ImportFD(im.dev, cmd.FD)
		rep.Handle = uint64(h)
		if err == nil { // not expected; keep it so the spec sees it mapped, and release it at exit
			err = im.mapImported(h, cmd.Size, &rep)
		}
	case opImportFabric:
		var fh backend.FabricHandle
		copy(fh[:], cmd.Fabric)
		var h backend.AllocHandle
		if h, err = im.b.ImportFabric(im.dev, fh); err == nil {
			rep.Handle = uint64(h)
			err = im.mapImported(h, cmd.Size, &rep)
		}
	case opVerify, opFill:
		if im.r == nil || !im.r.mapped {
			return rep, errors.New("nothing is mapped")
		}
		if cmd.Op == opVerify {
			rep.Verdict, err = im.w.Verify(ctx, im.r.ptr, im.r.size/4, cmd.Seed)
		} else {
			err = im.w.Fill(ctx, im.r.ptr, im.r.size/4, cmd.Seed)
		}
		im.fault = im.fault || err != nil // a failed kernel may have poisoned the context
	case opUnmap:
		err = im.unmap()
		rep.FDs = countFDs()
	default:
		return rep, fmt.Errorf("unknown command %q", cmd.Op)
	}
	if im.r != nil && im.r.mapped {
		rep.Mapped = uint64(im.r.ptr)
	}
	return rep, err
}

// mapImported reserves, maps and grants this GPU read-write access.
func (im *importer) mapImported(h backend.AllocHandle, size uint64, rep *importReply) error {
	im.phys = &physical{b: im.b, owner: im.dev, size: size, handle: h}
	r, err := reserve(im.b, im.dev, size)
	if err != nil {
		return err
	}
	im.r = r
	if err := r.mapTo(h); err != nil {
		return err
	}
	if err := r.setAccess(backend.Access{Device: im.dev, Flags: backend.ProtReadWrite}); err != nil {
		return err
	}
	rep.Access, err = r.access(im.dev)
	return err
}

// unmap undoes mapImported: unmap, free the range, release the handle.
func (im *importer) unmap() error {
	var errs []error
	if im.r != nil {
		errs = append(errs, im.r.free())
		im.r = nil
	}
	if im.phys != nil {
		errs = append(errs, im.phys.release())
		im.phys = nil
	}
	return errors.Join(errs...)
}

func (im *importer) closeWork() error {
	if im.w == nil {
		return nil
	}
	err := im.w.Close()
	im.w = nil
	return err
}
