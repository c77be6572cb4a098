// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package ipc_test

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

var _ = Describe("ipc: a memory handle opened twice", func() {
	h := harness.New()

	/*
		ID: ipc.open-twice-counts-references
		Requirement: a second cuIpcOpenMemHandle of a handle the current
		context has already opened MUST succeed and return the pointer of the
		first open (it counts a reference). After the first of the two
		cuIpcCloseMemHandle calls the mapping MUST stay usable: the importer's
		kernel reads every word the exporter wrote and writes a pattern the
		exporter sees. The second close MUST succeed and unmap it: a kernel
		dereferencing the pointer then does not read the data and
		cuPointerGetAttribute rejects it. The exporter's allocation stays
		intact throughout.
		Source: CUDA Driver API cuIpcOpenMemHandle ("If the memory handle has
		already been opened by the current context, the reference count on
		the handle is incremented by 1 and the existing device pointer is
		returned") and cuIpcCloseMemHandle ("Decrements the reference count
		of the memory returned by cuIpcOpenMemHandle by 1. When the reference
		count reaches 0, this API unmaps the memory"), as the CUDA Python
		bindings reproduce them
		(nvidia.github.io/cuda-python, cuda.bindings driver
		ipc_open_mem_handle_v2, ipc_close_mem_handle).
		Applies to: every GPU with UNIFIED_ADDRESSING=1; pairs where the
		importer's GPU B can access A (cuDeviceCanAccessPeer(B, A)=1).
	*/
	openTwice := func(ctx context.Context, a, b harness.GPU, seed uint32) {
		e := newExported(ctx, h, a, h.GPUWork(a), seed)
		imp := startAgent(ctx, h, b)

		By(fmt.Sprintf("opening %s's handle twice in one context of a process on %s", a, b))
		first := imp.must(agentCmd{Op: opOpen, Handle: e.handle[:]}, fmt.Sprintf("first cuIpcOpenMemHandle on %s of %s's allocation", b, a))
		Expect(first.Ptr).NotTo(BeZero(), "pointer the first cuIpcOpenMemHandle on %s returned", b)
		second := imp.do(agentCmd{Op: opOpen, Handle: e.handle[:]})
		harness.Finding("second cuIpcOpenMemHandle in the same context", cuerr.Result(second.Code).Error(), b.String())
		Expect(second.Code).To(BeZero(), "second cuIpcOpenMemHandle on %s of a handle its context already opened (the documentation counts a reference): %s", b, second.Error)
		Expect(second.Ptr).To(Equal(first.Ptr), "pointer of the second cuIpcOpenMemHandle on %s: the documentation returns the existing one, 0x%x", b, first.Ptr)

		By("closing once: one reference is left, so the mapping must stay usable")
		imp.must(agentCmd{Op: opClose}, fmt.Sprintf("first of two cuIpcCloseMemHandle on %s", b))
		rep := imp.do(agentCmd{Op: opVerify, Size: ipcBytes, Seed: seed})
		Expect(rep.Code).To(BeZero(), "importer's kernel on %s reading 0x%x after the first of two cuIpcCloseMemHandle (one reference is left): %s", b, first.Ptr, rep.Error)
		Expect(rep.Verdict.Mismatches).To(BeZero(), "data the importer on %s read from %s after the first of two closes: %s", b, a, rep.Verdict)
		rep = imp.do(agentCmd{Op: opFill, Size: ipcBytes, Seed: seed + 1})
		Expect(rep.Code).To(BeZero(), "importer's kernel on %s writing 0x%x after the first of two cuIpcCloseMemHandle: %s", b, first.Ptr, rep.Error)
		e.expectWords(ctx, seed+1, "the pattern the importer on "+b.String()+" wrote after the first of two closes")

		By("closing a second time: the last reference goes and the mapping with it")
		imp.must(agentCmd{Op: opClose}, fmt.Sprintf("second of two cuIpcCloseMemHandle on %s", b))
		harness.ExpectDeviceFaults("the importer's kernel dereferences its pointer after the last cuIpcCloseMemHandle")
		probe := imp.do(agentCmd{Op: opProbe, Ptr: first.Ptr, Size: ipcBytes, Seed: seed + 1})
		expectUnusable(probe, fmt.Sprintf("the importer's pointer 0x%x on %s after both cuIpcCloseMemHandle", first.Ptr, b))
		imp.exit(ctx, false)

		By("checking the exporter's allocation survived both closes")
		e.expectWords(ctx, seed+1, "the importer's pattern after the importer closed twice")
	}

	for _, g := range harness.GPUs() {
		It(fmt.Sprintf("in one context of another process on %s counts references: it stays mapped until the second close", g),
			harness.GPULabels("ipc.open-twice-counts-references", g, harness.ProcessMulti), func(ctx SpecContext) {
				requireIPC(h, g)
				openTwice(ctx, g, g, uint32(harness.Seed("ipc.open-twice-counts-references", g)))
			}, harness.Timeout(0.5))
	}
	for _, p := range harness.Pairs() {
		It(fmt.Sprintf("in one context of a process on %s counts references to %s's allocation: it stays mapped until the second close (%s)", p.B, p.A, p),
			harness.PairLabels("ipc.open-twice-counts-references", p, harness.ProcessMulti), func(ctx SpecContext) {
				requireIPC(h, p.A)
				requireIPC(h, p.B)
				h.RequirePeerAccess(p.Reverse())
				openTwice(ctx, p.A, p.B, uint32(harness.Seed("ipc.open-twice-counts-references", p.ID())))
			}, harness.Timeout(0.5))
	}
})
