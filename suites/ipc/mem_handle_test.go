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

var _ = Describe("ipc: a 64-byte memory handle", func() {
	h := harness.New()

	/*
		ID: ipc.mem-handle-roundtrip
		Requirement: a cuIpcGetMemHandle handle sent as its 64 bytes over a
		Unix socket MUST let another process open the allocation
		(cuIpcOpenMemHandle with LAZY_ENABLE_PEER_ACCESS), read every word the
		exporter wrote, and write a new pattern that the exporter sees once the
		importer's kernel has completed.
		Source: CUDA Driver API cuIpcGetMemHandle / cuIpcOpenMemHandle;
		observed on H200 (one GPU and GPU0→GPU1).
		Applies to: every GPU with UNIFIED_ADDRESSING=1; pairs where the
		importer's GPU B can access A (cuDeviceCanAccessPeer(B, A)=1).
	*/
	roundtrip := func(ctx context.Context, a, b harness.GPU, seed uint32) {
		e := newExported(ctx, h, a, h.GPUWork(a), seed)
		imp := startAgent(ctx, h, b)
		By(fmt.Sprintf("opening the 64-byte handle in a process on %s", b))
		rep := imp.must(agentCmd{Op: opOpen, Handle: e.handle[:]}, fmt.Sprintf("cuIpcOpenMemHandle on %s of %s's allocation", b, a))
		Expect(rep.Ptr).NotTo(BeZero(), "pointer the importer on %s got", b)

		By(fmt.Sprintf("reading every word and writing a new pattern with a kernel on %s", b))
		rep = imp.must(agentCmd{Op: opVerify, Size: ipcBytes, Seed: seed}, "importer's kernel on "+b.String()+" reading")
		Expect(rep.Verdict.Mismatches).To(BeZero(), "data the importer on %s read from %s: %s", b, a, rep.Verdict)
		imp.must(agentCmd{Op: opFill, Size: ipcBytes, Seed: seed + 1}, "importer's kernel on "+b.String()+" writing")
		e.expectWords(ctx, seed+1, "the pattern the importer on "+b.String()+" wrote")

		imp.must(agentCmd{Op: opClose}, "cuIpcCloseMemHandle on "+b.String())
		imp.exit(ctx, false)
	}

	for _, g := range harness.GPUs() {
		It(fmt.Sprintf("lets another process on %s open, read and write an allocation of %s", g, g),
			harness.GPULabels("ipc.mem-handle-roundtrip", g, harness.ProcessMulti), func(ctx SpecContext) {
				requireIPC(h, g)
				roundtrip(ctx, g, g, uint32(harness.Seed("ipc.mem-handle-roundtrip", g)))
			}, harness.Timeout(0.5))
	}
	for _, p := range harness.Pairs() {
		It(fmt.Sprintf("lets a process on %s open, read and write an allocation of %s (%s)", p.B, p.A, p),
			harness.PairLabels("ipc.mem-handle-roundtrip", p, harness.ProcessMulti), func(ctx SpecContext) {
				requireIPC(h, p.A)
				requireIPC(h, p.B)
				h.RequirePeerAccess(p.Reverse())
				roundtrip(ctx, p.A, p.B, uint32(harness.Seed("ipc.mem-handle-roundtrip", p.ID())))
			}, harness.Timeout(0.5))
	}

	for _, g := range harness.GPUs() {
		/*
			ID: ipc.raw-pointer-is-not-a-handle
			Requirement: a process given only the exporter's pointer value MUST
			NOT be able to use it: cuPointerGetAttribute rejects it and a kernel
			dereferencing it does not read the exporter's data. A corrupted or
			truncated handle MUST fail to open. The exporter's context stays
			healthy and its data intact.
			Source: CUDA Driver API cuIpcOpenMemHandle (memory of another process
			is reached only through an opened handle); observed on H200:
			cuPointerGetAttribute 1 INVALID_VALUE, kernel 700 ILLEGAL_ADDRESS.
			Applies to: every GPU with UNIFIED_ADDRESSING=1.
		*/
		It(fmt.Sprintf("is required: another process on %s gets no access through a bare pointer or a damaged handle", g),
			harness.GPULabels("ipc.raw-pointer-is-not-a-handle", g, harness.ProcessMulti), func(ctx SpecContext) {
				requireIPC(h, g)
				seed := uint32(harness.Seed("ipc.raw-pointer-is-not-a-handle", g))
				e := newExported(ctx, h, g, h.GPUWork(g), seed)
				imp := startAgent(ctx, h, g)

				By("opening a corrupted handle (every byte inverted) and a truncated one (16 of 64 bytes)")
				var corrupted [64]byte
				for i, c := range e.handle {
					corrupted[i] = ^c
				}
				for _, bad := range []struct {
					what string
					hnd  []byte
				}{{"corrupted handle", corrupted[:]}, {"truncated handle", e.handle[:16]}} {
					rep := imp.do(agentCmd{Op: opOpen, Handle: bad.hnd})
					harness.Finding("cuIpcOpenMemHandle("+bad.what+")", cuerr.Result(rep.Code).Error(), g.String())
					Expect(rep.Code).NotTo(BeZero(), "cuIpcOpenMemHandle of a %s on %s returned pointer 0x%x", bad.what, g, rep.Ptr)
				}

				By(fmt.Sprintf("giving the importer only the pointer value 0x%x", uint64(e.ptr)))
				harness.ExpectDeviceFaults("the importer's kernel dereferences the exporter's bare pointer")
				rep := imp.do(agentCmd{Op: opProbe, Ptr: uint64(e.ptr), Size: ipcBytes, Seed: seed})
				expectUnusable(rep, fmt.Sprintf("the exporter's bare pointer 0x%x in another process on %s", uint64(e.ptr), g))
				imp.exit(ctx, false)

				By("checking the exporter after the importer's probe: its context works and its data is intact")
				e.expectWords(ctx, seed, "the exporter's data after the importer's probe")
			}, harness.Timeout(0.5))

		/*
			ID: ipc.same-process-open-rejected
			Requirement: cuIpcOpenMemHandle of a handle in the process that
			exported it MUST fail, return no pointer and keep nothing of the
			allocation: once it is freed, free memory returns to its baseline.
			Source: CUDA Runtime API cudaIpcOpenMemHandle ("cannot be opened in
			the process that exported it"); observed on H200: 201 INVALID_CONTEXT.
			Applies to: every GPU with UNIFIED_ADDRESSING=1.
		*/
		It(fmt.Sprintf("of %s cannot be opened in the process that exported it", g),
			harness.GPULabels("ipc.same-process-open-rejected", g), func(ctx SpecContext) {
				requireIPC(h, g)
				warmUp(ctx, h, h.GPUWork(g), g)
				baseline := h.FreeMemory(g)
				mem := h.AllocFreeable(g, ipcBytes)
				hnd := h.IPCMemHandle(g, mem.Ptr)

				By("opening the handle in this, the exporting, process")
				ptr, err := h.TryIPCOpenMemHandle(g, hnd)
				harness.Finding("cuIpcOpenMemHandle in the exporting process", harness.CodeOf(err), g.String())
				Expect(err).To(harness.BeCUDAError(), "cuIpcOpenMemHandle in the exporting process on %s returned 0x%x", g, uint64(ptr))
				Expect(uint64(ptr)).To(BeZero(), "pointer returned by the refused cuIpcOpenMemHandle on %s", g)

				// The returned pointer cannot show a mapping the refused call
				// kept; the memory can.
				By("freeing the allocation: the refused open must hold nothing of it")
				mem.Free()
				h.ExpectFreeMemoryBackTo(ctx, g, baseline, "a refused cuIpcOpenMemHandle in the exporting process, then cuMemFree")
			}, harness.Timeout(0.5))
	}
})
