// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package ipc_test

import (
	"fmt"
	"os"
	"syscall"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

var _ = Describe("ipc: exported memory", func() {
	h := harness.New()

	for _, g := range harness.GPUs() {
		/*
			ID: ipc.close-then-free
			Requirement: after the importer's cuIpcCloseMemHandle the importer's
			pointer MUST no longer be usable, the exporter's allocation MUST be
			intact (close unmaps, it does not free), the exporter's cuMemFree MUST
			succeed and device free memory MUST return to its baseline.
			Source: CUDA Driver API cuIpcCloseMemHandle ("unmaps memory returned
			by cuIpcOpenMemHandle ... the original allocation in the exporting
			process ... is not affected").
			Applies to: every GPU with UNIFIED_ADDRESSING=1.
		*/
		It(fmt.Sprintf("is unmapped on close in the importer and freed by the exporter's cuMemFree on %s", g),
			harness.GPULabels("ipc.close-then-free", g, harness.ProcessMulti), func(ctx SpecContext) {
				requireIPC(h, g)
				seed, w := uint32(harness.Seed("ipc.close-then-free", g)), h.GPUWork(g)
				warmUp(ctx, h, w, g)
				baseline := h.FreeMemory(g)
				e := newExported(ctx, h, g, w, seed)
				imp := startAgent(ctx, h, g)
				rep := imp.must(agentCmd{Op: opOpen, Handle: e.handle[:]}, "cuIpcOpenMemHandle on "+g.String())
				imp.must(agentCmd{Op: opFill, Size: ipcBytes, Seed: seed + 1}, "importer's kernel writing")

				By("closing in the importer, then using its pointer there")
				imp.must(agentCmd{Op: opClose}, "cuIpcCloseMemHandle on "+g.String())
				harness.ExpectDeviceFaults("the importer's kernel dereferences its pointer after cuIpcCloseMemHandle")
				probe := imp.do(agentCmd{Op: opProbe, Ptr: rep.Ptr, Size: ipcBytes, Seed: seed + 1})
				expectUnusable(probe, fmt.Sprintf("the importer's pointer 0x%x after cuIpcCloseMemHandle on %s", rep.Ptr, g))
				imp.exit(ctx, false)

				By("checking the exporter's allocation survived the close, then freeing it")
				e.expectWords(ctx, seed+1, "the importer's pattern after the importer closed")
				Expect(h.FreeMemory(g)).To(BeNumerically("<=", baseline-ipcBytes),
					"free memory on %s after the importer closed, before the exporter freed (baseline %d)", g, baseline)
				e.mem.Free()
				h.ExpectFreeMemoryBackTo(ctx, g, baseline, "the importer closed and the exporter freed")
			}, harness.Timeout(0.5))

		/*
			ID: ipc.importer-killed
			Requirement: when an importer holding a mapping is killed with
			SIGKILL, the exporter MUST stay healthy: its data intact, cuMemFree
			succeeds and device free memory returns to its baseline. No helper
			process, descriptor or socket file outlives the importer.
			Source: CUDA Driver API (process teardown releases a context's
			mappings); package harness/proc (helper processes).
			Applies to: every GPU with UNIFIED_ADDRESSING=1.
		*/
		It(fmt.Sprintf("stays healthy on %s when an importer holding a mapping is killed", g),
			harness.GPULabels("ipc.importer-killed", g, harness.ProcessMulti), func(ctx SpecContext) {
				requireIPC(h, g)
				seed, w := uint32(harness.Seed("ipc.importer-killed", g)), h.GPUWork(g)
				warmUp(ctx, h, w, g)
				baseline := h.FreeMemory(g)
				e := newExported(ctx, h, g, w, seed)
				fds := countFDs() // before the importer exists
				imp := startAgent(ctx, h, g)
				imp.must(agentCmd{Op: opOpen, Handle: e.handle[:]}, "cuIpcOpenMemHandle on "+g.String())
				rep := imp.must(agentCmd{Op: opVerify, Size: ipcBytes, Seed: seed}, "importer's kernel reading")
				Expect(rep.Verdict.Mismatches).To(BeZero(), "data the importer on %s read: %s", g, rep.Verdict)

				By("killing the importer with SIGKILL while it maps the allocation")
				imp.hp.Kill()
				Expect(imp.hp.Wait(ctx)).To(MatchError(harness.ErrHelperKilled), "importer after SIGKILL")
				harness.ExpectNoError(imp.hp.Close(), "close the killed importer")
				Expect(syscall.Kill(imp.hp.Pid, 0)).To(MatchError(syscall.ESRCH), "the killed importer's pid %d must be gone", imp.hp.Pid)
				_, err := os.Stat(imp.hp.Dir)
				Expect(err).To(MatchError(os.ErrNotExist), "the importer's socket directory %s must be gone", imp.hp.Dir)
				Expect(countFDs()).To(Equal(fds), "this process's open descriptors after the importer was killed")

				By("checking the exporter: data intact, cuMemFree succeeds, memory back to baseline")
				e.expectWords(ctx, seed, "the exporter's data after the importer was killed")
				e.mem.Free()
				h.ExpectFreeMemoryBackTo(ctx, g, baseline, "the importer was killed and the exporter freed")
			}, harness.Timeout(0.5))

		/*
			ID: ipc.exporter-exits-first (info)
			Records: what an importer observes (a kernel reading the mapping,
			then cuIpcCloseMemHandle) after the exporting process exited without
			freeing. The documentation leaves it undefined.
			Applies to: every GPU with UNIFIED_ADDRESSING=1.
		*/
		It(fmt.Sprintf("after the exporter exits, as an importer on %s observes it, is recorded", g),
			harness.GPULabels("ipc.exporter-exits-first", g, harness.ProcessMulti), func(ctx SpecContext) {
				requireIPC(h, g)
				seed := uint32(harness.Seed("ipc.exporter-exits-first", g))
				exp, imp := startAgent(ctx, h, g), startAgent(ctx, h, g)
				hnd := exp.must(agentCmd{Op: opExport, Size: ipcBytes, Seed: seed}, "exporter's allocation on "+g.String()).Handle
				imp.must(agentCmd{Op: opOpen, Handle: hnd}, "cuIpcOpenMemHandle on "+g.String())
				rep := imp.must(agentCmd{Op: opVerify, Size: ipcBytes, Seed: seed}, "importer's kernel reading")
				Expect(rep.Verdict.Mismatches).To(BeZero(), "data the importer on %s read while the exporter lived: %s", g, rep.Verdict)

				By("letting the exporter exit without freeing, then reading and closing in the importer")
				exp.exit(ctx, true)
				rep = imp.do(agentCmd{Op: opVerify, Size: ipcBytes, Seed: seed})
				harness.Finding("importer's kernel read after the exporter exited", cuerr.Result(rep.Code).Error(), outcome(rep))
				if rep.Code == 0 {
					rep = imp.do(agentCmd{Op: opClose})
					harness.Finding("cuIpcCloseMemHandle after the exporter exited", cuerr.Result(rep.Code).Error(), g.String())
				}
				imp.exit(ctx, rep.Code != 0)
			}, harness.Timeout(0.5))
	}
})

// countFDs counts this process's open descriptors.
func countFDs() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(ents)
}

// outcome is what a kernel command found: the error when the kernel failed
// (its verdict is then empty), the verdict otherwise.
func outcome(rep agentReply) string {
	if rep.Code != 0 {
		return rep.Error
	}
	return rep.Verdict.String()
}
