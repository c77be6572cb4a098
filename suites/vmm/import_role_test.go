// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package vmm_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/p2pconf/p2pconf/harness"
)

// The importer role imports a shareable handle and uses it, one command
// from the spec at a time, answering each with an importReply. Driver
// errors of the command itself are answered as data (the spec asserts on
// them); anything else ends the role with an error.
var importerRole = harness.RegisterRole("vmm.importer",
	func(d harness.Driver) harness.RoleServer[importCmd, importReply] { return &importer{b: d, dev: -1} })

// Importer commands.
const (
	opImportFD     = "import-fd"     // the exporter's fd comes with SCM_RIGHTS (CallFD)
	opImportNumber = "import-number" // FD is only a number, sent as JSON
	opImportFabric = "import-fabric" // Fabric holds the 64-byte CUmemFabricHandle
	opVerify       = "verify"        // kernel reads every word against Seed
	opFill         = "fill"          // kernel writes every word from Seed
	opUnmap        = "unmap"         // unmap, free the range, release the handle
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
	// DriverAnswer is the command's CUDA result (0: success).
	harness.DriverAnswer
	Handle  uint64              `json:"handle,omitempty"` // what the import returned
	Mapped  uint64              `json:"mapped"`           // where an imported allocation is mapped, 0 if nowhere
	Access  harness.AccessFlags `json:"access"`           // cuMemGetAccess after mapping
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
	b     harness.Driver
	dev   harness.Device
	w     *harness.GPUWork
	phys  *physical
	r     *vaRange
	fault bool // a kernel failed: the context may be poisoned, skip cleanups
}

func (im *importer) Serve(ctx context.Context, s *harness.RoleSession, cmd importCmd) (importReply, error) {
	s.Step(fmt.Sprintf("%s on GPU%d", cmd.Op, cmd.Device))
	rep, err := im.do(ctx, s, cmd)
	return rep, rep.Record(err)
}

// End unmaps and releases what is still imported, unless a kernel failed.
func (im *importer) End(context.Context) error {
	if im.fault {
		return nil
	}
	return errors.Join(im.unmap(), im.closeWork())
}

func (im *importer) do(ctx context.Context, s *harness.RoleSession, cmd importCmd) (rep importReply, err error) {
	if err := im.useDevice(harness.Device(cmd.Device)); err != nil {
		return rep, err
	}
	switch cmd.Op {
	case opImportFD:
		err = im.importFD(ctx, s, cmd.Size, &rep)
	case opImportNumber:
		var h harness.AllocHandle
		h, err = im.b.ImportFD(im.dev, cmd.FD)
		rep.Handle = uint64(h)
		if err == nil { // not expected; keep it so the spec sees it mapped, and release it at the end
			err = im.mapImported(h, cmd.Size, &rep)
		}
	case opImportFabric:
		var fh harness.FabricHandle
		copy(fh[:], cmd.Fabric)
		var h harness.AllocHandle
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

// useDevice makes the kernel stream of dev, once per device.
func (im *importer) useDevice(dev harness.Device) error {
	if im.w != nil && im.dev == dev {
		return nil
	}
	if err := im.closeWork(); err != nil {
		return err
	}
	w, err := harness.NewGPUWork(im.b, dev)
	if err != nil {
		return err
	}
	im.w, im.dev = w, dev
	return nil
}

// importFD counts this process's descriptors, then takes the exporter's fd
// (SCM_RIGHTS), imports it, closes it on every path and maps the import.
func (im *importer) importFD(ctx context.Context, s *harness.RoleSession, size uint64, rep *importReply) error {
	rep.FDs = countFDs()
	f, err := s.RecvFD(ctx)
	if err != nil {
		return err
	}
	h, err := im.b.ImportFD(im.dev, int(f.Fd()))
	rep.FDsImported = countFDs()
	if cerr := f.Close(); cerr != nil { // closed on every path, before anything else can fail
		return fmt.Errorf("close the received fd: %w", cerr)
	}
	rep.FDsClosed = countFDs()
	if err != nil {
		return err
	}
	rep.Handle = uint64(h)
	return im.mapImported(h, size, rep)
}

// mapImported reserves, maps and grants this GPU read-write access.
func (im *importer) mapImported(h harness.AllocHandle, size uint64, rep *importReply) error {
	im.phys = &physical{b: im.b, owner: im.dev, size: size, handle: h}
	r, err := reserve(im.b, im.dev, size)
	if err != nil {
		return err
	}
	im.r = r
	if err := r.mapTo(h); err != nil {
		return err
	}
	if err := r.setAccess(harness.Access{Device: im.dev, Flags: harness.ProtReadWrite}); err != nil {
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
