// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package vmm_test

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

var _ = Describe("vmm: a POSIX file descriptor handle", func() {
	h := harness.New()

	/*
		ID: vmm.fd-export-import
		Requirement: a POSIX-FD shareable handle sent with SCM_RIGHTS MUST let
		another process import, reserve, map and set access, read every word
		the exporter wrote and write a pattern the exporter then sees. Every
		descriptor is closed on every path; when the importer is killed while
		it maps the allocation, the exporter MUST still unmap and release it and
		free memory MUST return to its baseline.
		Source: CUDA Driver API cuMemExportToShareableHandle /
		cuMemImportFromShareableHandle; cuda-samples memMapIPCDrv; observed on H200.
		Applies to: GPUs with HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED=1; pairs
		where also cuDeviceCanAccessPeer(B, A)=1.
	*/
	fdExportImport := func(ctx context.Context, a, b harness.GPU, seed uint32) {
		e := newExport(ctx, h, a, seed)
		imp := startImporter(ctx, h)
		e.sendTo(imp, b)

		By(fmt.Sprintf("reading every word and writing a new pattern with a kernel on %s in the importer", b))
		rep := imp.do(importCmd{Op: opVerify, Device: int(b.Ordinal), Seed: seed})
		Expect(rep.Code).To(BeZero(), "importer's kernel on %s reading %s's memory: %s", b, a, rep.Error)
		Expect(rep.Verdict.Mismatches).To(BeZero(), "data the importer on %s read: %s", b, rep.Verdict)
		rep = imp.do(importCmd{Op: opFill, Device: int(b.Ordinal), Seed: seed + 1})
		Expect(rep.Code).To(BeZero(), "importer's kernel on %s writing %s's memory: %s", b, a, rep.Error)
		e.expectWords(ctx, seed+1, "the pattern the importer on "+b.String()+" wrote")

		By("killing the importer while it maps the allocation; the exporter unmaps and releases it")
		imp.hp.Kill()
		Expect(imp.hp.Wait(ctx)).To(MatchError(harness.ErrHelperKilled), "importer after SIGKILL")
		e.r.Unmap()
		e.p.Release()
		h.ExpectFreeMemoryBackTo(ctx, a, e.baseline, "the importer was killed and the exporter unmapped and released")
	}

	for _, g := range harness.GPUs() {
		It(fmt.Sprintf("shares memory of %s with another process when sent with SCM_RIGHTS", g),
			harness.GPULabels("vmm.fd-export-import", g, harness.ProcessMulti), func(ctx SpecContext) {
				fdExportImport(ctx, g, g, uint32(harness.Seed("vmm.fd-export-import", g)))
			}, harness.Timeout(0.5))
	}
	for _, p := range harness.Pairs() {
		It(fmt.Sprintf("shares memory of %s with a process on %s when sent with SCM_RIGHTS (%s)", p.A, p.B, p),
			harness.PairLabels("vmm.fd-export-import", p, harness.ProcessMulti), func(ctx SpecContext) {
				h.RequirePeerAccess(p.Reverse())
				fdExportImport(ctx, p.A, p.B, uint32(harness.Seed("vmm.fd-export-import", p.ID())))
			}, harness.Timeout(0.5))
	}

	for _, g := range harness.GPUs() {
		/*
			ID: vmm.fd-number-is-not-a-handle
			Requirement: an importer given only the integer value of the
			exporter's descriptor (no SCM_RIGHTS) MUST fail to import it, and
			the failed import MUST hold nothing of the allocation: once the
			exporter closes its descriptor and releases the allocation, free
			memory returns to its baseline while the importer still runs.
			Source: CUDA Driver API cuMemImportFromShareableHandle (the handle is
			an fd of the importing process); observed on H200: 999 UNKNOWN.
			Applies to: GPUs with HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED=1.
		*/
		It(fmt.Sprintf("of %s cannot be imported from the bare number of the descriptor", g),
			harness.GPULabels("vmm.fd-number-is-not-a-handle", g, harness.ProcessMulti), func(ctx SpecContext) {
				size := posixGranule(h, g)
				r := h.AddressReserve(g, size)
				warmUp(ctx, h, h.GPUWork(g), g, r)
				imp := startImporter(ctx, h)
				// The importer's context and kernel stream on g exist
				// before the baseline: only what the import keeps counts.
				imp.do(importCmd{Op: opUnmap, Device: int(g.Ordinal)})
				baseline := h.FreeMemory(g)
				p := mustCreate(h, g, size, harness.HandlePosix)
				f := h.ExportFD(p)

				By(fmt.Sprintf("sending only the number %d as JSON", f.Fd()))
				rep := imp.do(importCmd{Op: opImportNumber, Device: int(g.Ordinal), Size: size, FD: int(f.Fd())})
				Expect(rep.Code).NotTo(BeZero(), "import of the bare number %d on %s (handle 0x%x)", f.Fd(), g, rep.Handle)
				harness.Finding("cuMemImportFromShareableHandle(bare fd number)", cuerr.Result(rep.Code).Error(), g.String())

				// The importer's own account of what it mapped cannot show a
				// reference the failed call kept: the memory can. It must be
				// free again while the importer still runs.
				By("closing the descriptor and releasing the allocation while the importer still runs")
				harness.ExpectNoError(f.Close(), "close the exported fd on %s", g)
				p.Release()
				h.ExpectFreeMemoryBackTo(ctx, g, baseline, "a failed import of the bare number, the exporter closed its descriptor and released the allocation")
				imp.exit(ctx)
			}, harness.Timeout(0.5))

		/*
			ID: vmm.import-outlives-exporter-release
			Requirement: after an importer has mapped an allocation, the exporter
			unmapping and releasing it MUST NOT free it: the importer's data
			stays valid until the importer unmaps and releases; then free memory
			returns to its baseline.
			Source: CUDA Driver API cuMemRelease ("memory is freed when all
			handles ... and mappings are released"), including imported handles.
			Applies to: GPUs with HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED=1.
		*/
		It(fmt.Sprintf("keeps memory of %s valid in an importer after the exporter unmaps and releases it", g),
			harness.GPULabels("vmm.import-outlives-exporter-release", g, harness.ProcessMulti), func(ctx SpecContext) {
				seed := uint32(harness.Seed("vmm.import-outlives-exporter-release", g))
				e := newExport(ctx, h, g, seed)
				imp := startImporter(ctx, h)
				fds := e.sendTo(imp, g)

				By("unmapping and releasing on the exporter's side")
				e.r.Unmap()
				e.p.Release()
				Expect(h.FreeMemory(g)).To(BeNumerically("<=", e.baseline-e.p.Size),
					"free memory on %s while only the importer maps the %d bytes (baseline %d)", g, e.p.Size, e.baseline)

				By("reading every word in the importer, then unmapping there")
				rep := imp.do(importCmd{Op: opVerify, Device: int(g.Ordinal), Seed: seed})
				Expect(rep.Code).To(BeZero(), "importer's kernel after the exporter released: %s", rep.Error)
				Expect(rep.Verdict.Mismatches).To(BeZero(), "importer's data after the exporter released: %s", rep.Verdict)
				rep = imp.do(importCmd{Op: opUnmap, Device: int(g.Ordinal)})
				Expect(rep.Code).To(BeZero(), "importer's unmap and release: %s", rep.Error)
				Expect(rep.FDs).To(Equal(fds), "the importer's open descriptors after unmapping and releasing the import")
				imp.exit(ctx)
				h.ExpectFreeMemoryBackTo(ctx, g, e.baseline, "both sides unmapped and released")
			}, harness.Timeout(0.5))
	}
})

// export is memory of one GPU made exportable as a POSIX fd, mapped in this
// process with read-write access and filled with a pattern.
type export struct {
	h        *harness.Harness
	g        harness.GPU
	w        *harness.GPUWork
	p        *harness.Physical
	r        *harness.AddressRange
	baseline uint64 // free memory before the allocation
}

func newExport(ctx context.Context, h *harness.Harness, g harness.GPU, seed uint32) *export {
	GinkgoHelper()
	size := posixGranule(h, g)
	e := &export{h: h, g: g, w: h.GPUWork(g)}
	r := h.AddressReserve(g, size)
	warmUp(ctx, h, e.w, g, r)
	e.r, e.baseline = r, h.FreeMemory(g)

	By(fmt.Sprintf("creating %d bytes on %s for POSIX fd export, mapping and filling them", size, g))
	e.p = mustCreate(h, g, size, harness.HandlePosix)
	r.Map(e.p)
	r.SetAccess(rw(g))
	harness.ExpectNoError(e.w.Fill(ctx, r.Ptr, size/4, seed), "fill on %s", g)
	return e
}

// sendTo exports the allocation as a POSIX fd and sends it to the importer,
// which imports and maps it on dev. The exporter's descriptor count must be
// back to where it was before the export, and the importer must have closed
// the descriptor it received; sendTo returns the importer's count before it
// received it.
func (e *export) sendTo(imp *importerHelper, dev harness.GPU) (importerFDs int) {
	GinkgoHelper()
	By(fmt.Sprintf("exporting a POSIX fd and sending it with SCM_RIGHTS; the importer imports, maps and grants %s", dev))
	fds := countFDs()
	f := e.h.ExportFD(e.p)
	rep := imp.importFD(int(f.Fd()), importCmd{Device: int(dev.Ordinal), Size: e.p.Size})
	harness.ExpectNoError(f.Close(), "close the exported fd after sending it")
	Expect(countFDs()).To(Equal(fds), "the exporter's open descriptors after exporting, sending and closing the fd")
	Expect(rep.FDsClosed).To(Equal(rep.FDsImported-1), "the importer's open descriptors after importing, before and after closing the received fd")
	Expect(rep.Code).To(BeZero(), "import and map on %s of %s's memory: %s", dev, e.g, rep.Error)
	Expect(rep.Access).To(Equal(harness.ProtReadWrite), "cuMemGetAccess(%s) in the importer after granting", dev)
	return rep.FDs
}

// expectWords checks with a kernel on the exporter's GPU that its mapping
// holds PatternWord(seed, i).
func (e *export) expectWords(ctx context.Context, seed uint32, what string) {
	GinkgoHelper()
	v, err := e.w.Verify(ctx, e.r.Ptr, e.p.Size/4, seed)
	harness.ExpectNoError(err, "kernel on %s reading its mapping", e.g)
	Expect(v.Mismatches).To(BeZero(), "%s, read by the exporter on %s: %s", what, e.g, v)
}

func posixGranule(h *harness.Harness, g harness.GPU) uint64 {
	GinkgoHelper()
	size := granule(h, g, harness.HandlePosix)
	h.RequireAttribute(g, harness.AttrHandleTypePosixFDSupported, 1)
	return size
}
