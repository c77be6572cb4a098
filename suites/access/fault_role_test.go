// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package access_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

// The probe role runs, in its own process, a kernel on one GPU that reads
// another GPU's memory when that access is expected to fault: a fault
// poisons the CUDA context for good, so it never happens in the spec's
// process (DESIGN.md §4). The role reports what the access did as data; it
// fails only when it cannot tell (a setup error, a kernel that neither
// completes nor faults before the deadline).
var probeRole = harness.RegisterHelper("access.peer-probe", runPeerProbe)

// helperDeadline bounds one probe helper.
const helperDeadline = 30 * time.Second

// probeReq: the owner's kernel fills Words words of the owner's memory with
// PatternWord(Seed, i); peer access Enable is enabled (accessor, owner
// ordinals); if Before, a kernel on Accessor reads the buffer once (which
// must work); Disable is disabled; then a kernel on Accessor reads the
// buffer: that is the probe.
type probeReq struct {
	Accessor int      `json:"accessor"`
	Owner    int      `json:"owner"`
	Enable   [][2]int `json:"enable,omitempty"`
	Before   bool     `json:"before,omitempty"`
	Disable  [][2]int `json:"disable,omitempty"`
	Words    int      `json:"words"`
	Seed     uint32   `json:"seed"`
}

// probeRep is what the probe saw.
type probeRep struct {
	// Before is what the read before the disable found (nil when Before
	// was not asked).
	Before *harness.Verdict `json:"before,omitempty"`
	// Code is the CUDA result of the probe (0: the kernel completed) and
	// Error its text.
	Code  int32  `json:"code"`
	Error string `json:"error,omitempty"`
	// Data is what a completed probe read, compared with the pattern.
	Data harness.Verdict `json:"data"`
}

func (r probeRep) String() string {
	if r.Code != 0 {
		return "the kernel failed: " + r.Error
	}
	return "the kernel completed and read: " + r.Data.String()
}

// runPeerProbe reads with kernels.Verify, whose loads are the access under
// test, on a stream of the accessor; the fill runs on a stream of the owner.
// Nothing is released: the probe is expected to poison the accessor's
// context, and the process exits right after the role.
func runPeerProbe(ctx context.Context, c *harness.HelperConn) error {
	var req probeReq
	if err := c.Recv(&req); err != nil {
		return err
	}
	m, err := harness.HelperBackendMachine()
	if err != nil {
		return err
	}
	b := m.Backend
	acc, own, n := backend.Device(req.Accessor), backend.Device(req.Owner), uint64(req.Words)
	c.Step(fmt.Sprintf("fill GPU%d's buffer", own))
	buf, err := b.Alloc(own, 4*n)
	if err != nil {
		return fmt.Errorf("alloc on GPU%d: %w", own, err)
	}
	wo, err := harness.NewGPUWork(b, own)
	if err != nil {
		return err
	}
	if err := wo.Fill(ctx, buf, n, req.Seed); err != nil {
		return fmt.Errorf("fill on GPU%d: %w", own, err)
	}
	wa, err := harness.NewGPUWork(b, acc)
	if err != nil {
		return err
	}
	for _, e := range req.Enable {
		c.Step(fmt.Sprintf("enable peer access GPU%d→GPU%d", e[0], e[1]))
		if err := b.EnablePeerAccess(backend.Device(e[0]), backend.Device(e[1])); err != nil {
			return fmt.Errorf("enable peer access GPU%d→GPU%d: %w", e[0], e[1], err)
		}
	}
	var rep probeRep
	if req.Before {
		c.Step(fmt.Sprintf("kernel on GPU%d reads GPU%d's memory before the disable", acc, own))
		v, err := wa.Verify(ctx, buf, n, req.Seed)
		if err != nil {
			return fmt.Errorf("kernel on GPU%d reading GPU%d's memory with peer access enabled: %w", acc, own, err)
		}
		rep.Before = &v
	}
	for _, d := range req.Disable {
		c.Step(fmt.Sprintf("disable peer access GPU%d→GPU%d", d[0], d[1]))
		if err := b.DisablePeerAccess(backend.Device(d[0]), backend.Device(d[1])); err != nil {
			return fmt.Errorf("disable peer access GPU%d→GPU%d: %w", d[0], d[1], err)
		}
	}
	c.Step(fmt.Sprintf("probe: kernel on GPU%d reads GPU%d's memory", acc, own))
	if rep.Data, err = wa.Verify(ctx, buf, n, req.Seed); err != nil {
		code, ok := cuerr.Code(err)
		if !ok || errors.Is(err, harness.ErrTimeout) {
			return fmt.Errorf("the probe neither completed nor faulted: %w", err)
		}
		rep.Code, rep.Error, rep.Data = int32(code), err.Error(), harness.Verdict{}
	}
	return c.Send(rep)
}

// probe runs the probe role for this spec and returns its report. A helper
// that fails, crashes or hangs fails the spec with its last step.
func probe(ctx context.Context, h *harness.Harness, req probeReq) probeRep {
	GinkgoHelper()
	hp := h.StartHelper(ctx, probeRole, harness.HelperOptions{Deadline: helperDeadline})
	harness.ExpectNoError(hp.Send(req), "send the request to helper %s", probeRole)
	var rep probeRep
	h.RecvFromHelper(ctx, hp, &rep, "the report of helper %s", probeRole)
	harness.ExpectNoError(hp.Wait(ctx), "helper %s", probeRole)
	return rep
}

// expectNoAccess asserts that the probe did not succeed and records the code
// the driver gave (the documentation does not fix it).
func expectNoAccess(rep probeRep, what string) {
	GinkgoHelper()
	harness.Finding(what, cuerr.Result(rep.Code).Error(), rep.Error)
	Expect(rep.Code).NotTo(BeZero(), "%s: want a failure (e.g. CUDA_ERROR_ILLEGAL_ADDRESS), but %s", what, rep)
}
