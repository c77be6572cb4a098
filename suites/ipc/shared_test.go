// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package ipc_test

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

// ipcBytes is the size of every exported allocation: a multiple of the 2 MiB
// large page, so the allocation has pages of its own and freeing it returns
// them (small allocations share pooled pages).
const ipcBytes = 8 << 20

// agentHelper is the spec's side of an agent process working on dev. It
// keeps the spec's context to bound every call.
type agentHelper struct {
	ctx context.Context
	hp  *harness.RoleClient[agentCmd, agentReply]
	dev harness.GPU
}

func startAgent(ctx context.Context, h *harness.Harness, dev harness.GPU) *agentHelper {
	GinkgoHelper()
	return &agentHelper{ctx: ctx, hp: agentRole.Start(ctx, h, harness.HelperOptions{Deadline: 40 * time.Second}), dev: dev}
}

// do sends cmd (on the agent's GPU) and returns the answer; an agent that
// fails or does not answer before its deadline fails the spec, naming its
// last step and its error.
func (a *agentHelper) do(cmd agentCmd) agentReply {
	GinkgoHelper()
	cmd.Device = int(a.dev.Ordinal)
	rep, err := a.hp.Call(a.ctx, cmd)
	harness.ExpectNoError(err, "the agent's answer to %q on %s", cmd.Op, a.dev)
	return rep
}

// must is do, failing the spec unless the command succeeded.
func (a *agentHelper) must(cmd agentCmd, what string) agentReply {
	GinkgoHelper()
	rep := a.do(cmd)
	Expect(rep.Code).To(BeZero(), "%s: %s", what, rep.Error)
	return rep
}

// exit ends the agent and checks that it ended well. With abandon the agent
// releases nothing: its process just exits, holding all it had.
func (a *agentHelper) exit(ctx context.Context, abandon bool) {
	GinkgoHelper()
	if abandon {
		a.do(agentCmd{Op: opAbandon})
	}
	harness.ExpectNoError(a.hp.End(ctx), "agent on %s", a.dev)
}

// exported is an allocation of this process filled with a pattern and
// exported with cuIpcGetMemHandle. It is freed after the spec unless the
// spec freed it (mem.Free).
type exported struct {
	g      harness.GPU
	w      *harness.GPUWork
	mem    *harness.Allocation
	ptr    harness.DevicePtr
	handle harness.IPCHandle
}

func newExported(ctx context.Context, h *harness.Harness, g harness.GPU, w *harness.GPUWork, seed uint32) *exported {
	GinkgoHelper()
	By(fmt.Sprintf("allocating %d bytes on %s, filling them and exporting them with cuIpcGetMemHandle", ipcBytes, g))
	mem := h.AllocFreeable(g, ipcBytes)
	e := &exported{g: g, w: w, mem: mem, ptr: mem.Ptr}
	harness.ExpectNoError(w.Fill(ctx, e.ptr, ipcBytes/4, seed), "fill on %s", g)
	e.handle = h.IPCMemHandle(g, e.ptr)
	return e
}

// expectWords checks with a kernel on the exporter's GPU that the
// allocation holds PatternWord(seed, i).
func (e *exported) expectWords(ctx context.Context, seed uint32, what string) {
	GinkgoHelper()
	v, err := e.w.Verify(ctx, e.ptr, ipcBytes/4, seed)
	harness.ExpectNoError(err, "kernel on %s reading its exported allocation", e.g)
	Expect(v.Mismatches).To(BeZero(), "%s, read by the exporter on %s: %s", what, e.g, v)
}

// requireIPC skips where g cannot do legacy IPC (it needs unified addressing).
func requireIPC(h *harness.Harness, g harness.GPU) {
	GinkgoHelper()
	h.RequireAttribute(g, harness.AttrUnifiedAddressing, 1)
}

// warmUp loads and runs the kernels and exports one allocation on g, so
// that what the driver allocates lazily exists before a spec reads its
// free-memory baseline. The warm-up allocation lives until the spec ends.
func warmUp(ctx context.Context, h *harness.Harness, w *harness.GPUWork, g harness.GPU) {
	GinkgoHelper()
	By("warming up the kernels and IPC export on " + g.String())
	p := h.Alloc(g, ipcBytes)
	harness.ExpectNoError(w.Fill(ctx, p, ipcBytes/4, 1), "warm-up fill on %s", g)
	_, err := w.Verify(ctx, p, ipcBytes/4, 1)
	harness.ExpectNoError(err, "warm-up verify on %s", g)
	h.IPCMemHandle(g, p)
}

// expectUnusable checks a probe's answer: the pointer must not give this
// process the exporter's data. cuPointerGetAttribute must fail, and the
// kernel must fault or, where this process happens to have memory of its own
// at the same address (every process lays out its unified address space
// alike), complete without reading the exporter's pattern. Codes are
// recorded; the documentation does not fix them.
func expectUnusable(rep agentReply, what string) {
	GinkgoHelper()
	harness.Finding("cuPointerGetAttribute", cuerr.Result(rep.AttrCode).Error(), what)
	if rep.Code == 0 {
		harness.Finding("kernel", "completed; against the exporter's pattern: "+rep.Verdict.String(), what)
	} else {
		harness.Finding("kernel", cuerr.Result(rep.Code).Error(), what)
	}
	Expect(rep.AttrCode).NotTo(BeZero(), "cuPointerGetAttribute(DEVICE_ORDINAL) on %s answered %d", what, rep.Attr)
	if rep.Code == 0 {
		Expect(rep.Verdict.Mismatches).NotTo(BeZero(), "a kernel dereferencing %s completed and read the exporter's data", what)
	}
}
