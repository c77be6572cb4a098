// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package access_test

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

// The probe role runs, in its own process, a kernel on one GPU that reads
// another GPU's memory when that access is expected to fault: a fault
// poisons the CUDA context for good, so it never happens in the spec's
// process (see package harness/proc). The role reports what the access did as data; it
// fails only when it cannot tell (a setup error, a kernel that neither
// completes nor faults before the deadline).
var probeRole = harness.RegisterRole("access.peer-probe",
	func(d harness.Driver) harness.RoleServer[probeReq, probeRep] { return peerProbe{d} })

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
	// DriverAnswer is the probe's CUDA result (0: the kernel completed).
	harness.DriverAnswer
	// Data is what a completed probe read, compared with the pattern.
	Data harness.Verdict `json:"data"`
}

func (r probeRep) String() string {
	if r.Code != 0 {
		return "the kernel failed: " + r.Error
	}
	return "the kernel completed and read: " + r.Data.String()
}

// peerProbe serves the probe role. It reads with kernels.Verify, whose loads
// are the access under test, on a stream of the accessor; the fill runs on a
// stream of the owner. Nothing is released: the probe is expected to poison
// the accessor's context, and the process exits right after the role.
type peerProbe struct{ b harness.Driver }

func (p peerProbe) Serve(ctx context.Context, s *harness.RoleSession, req probeReq) (probeRep, error) {
	acc, own, n := harness.Device(req.Accessor), harness.Device(req.Owner), uint64(req.Words)
	buf, wa, err := p.prepare(ctx, s, req)
	if err != nil {
		return probeRep{}, err
	}
	var rep probeRep
	if req.Before {
		// The spec asserts this read too (it must work), so it is part of
		// the check, not its setup.
		s.CheckStep(fmt.Sprintf("kernel on GPU%d reads GPU%d's memory before the disable", acc, own))
		v, err := wa.Verify(ctx, buf, n, req.Seed)
		if err != nil {
			return rep, fmt.Errorf("kernel on GPU%d reading GPU%d's memory with peer access enabled: %w", acc, own, err)
		}
		rep.Before = &v
	}
	for _, d := range req.Disable {
		s.Step(fmt.Sprintf("disable peer access GPU%d→GPU%d", d[0], d[1]))
		if err := p.b.DisablePeerAccess(harness.Device(d[0]), harness.Device(d[1])); err != nil {
			return rep, fmt.Errorf("disable peer access GPU%d→GPU%d: %w", d[0], d[1], err)
		}
	}
	s.CheckStep(fmt.Sprintf("kernel on GPU%d reads GPU%d's memory", acc, own))
	if rep.Data, err = wa.Verify(ctx, buf, n, req.Seed); err != nil {
		rep.Data = harness.Verdict{}
		if err := rep.Record(err); err != nil {
			return rep, fmt.Errorf("the probe neither completed nor faulted: %w", err)
		}
	}
	return rep, nil
}

// prepare fills the owner's buffer and enables the requested peer access,
// and returns the buffer and the accessor's kernel stream.
func (p peerProbe) prepare(ctx context.Context, s *harness.RoleSession, req probeReq) (harness.DevicePtr, *harness.GPUWork, error) {
	acc, own, n := harness.Device(req.Accessor), harness.Device(req.Owner), uint64(req.Words)
	s.Step(fmt.Sprintf("fill GPU%d's buffer", own))
	buf, err := p.b.Alloc(own, 4*n)
	if err != nil {
		return 0, nil, fmt.Errorf("alloc on GPU%d: %w", own, err)
	}
	wo, err := harness.NewGPUWork(p.b, own)
	if err != nil {
		return 0, nil, err
	}
	if err := wo.Fill(ctx, buf, n, req.Seed); err != nil {
		return 0, nil, fmt.Errorf("fill on GPU%d: %w", own, err)
	}
	wa, err := harness.NewGPUWork(p.b, acc)
	if err != nil {
		return 0, nil, err
	}
	for _, e := range req.Enable {
		s.Step(fmt.Sprintf("enable peer access GPU%d→GPU%d", e[0], e[1]))
		if err := p.b.EnablePeerAccess(harness.Device(e[0]), harness.Device(e[1])); err != nil {
			return 0, nil, fmt.Errorf("enable peer access GPU%d→GPU%d: %w", e[0], e[1], err)
		}
	}
	return buf, wa, nil
}

// probe runs the probe role for this spec and returns its report. A helper
// that fails, crashes or hangs fails the spec with its last step.
func probe(ctx context.Context, h *harness.Harness, req probeReq) probeRep {
	GinkgoHelper()
	harness.ExpectDeviceFaults("a helper process's kernel dereferences peer memory it was not granted")
	hp := probeRole.Start(ctx, h, harness.HelperOptions{Deadline: helperDeadline})
	rep, err := hp.Call(ctx, req)
	harness.ExpectNoError(err, "the report of helper %s", probeRole.Name())
	harness.ExpectNoError(hp.End(ctx), "helper %s", probeRole.Name())
	return rep
}

// expectNoAccess asserts that the probe's kernel faulted on the access with
// one of the codes the CUDA documentation gives for a kernel dereferencing
// memory it may not access (harness.AccessFaultCodes), and records the
// code. Any other failure (a launch refused, a timeout) is not "no access":
// it says nothing about the access the check is about.
func expectNoAccess(rep probeRep, what string) {
	GinkgoHelper()
	harness.Finding(what, cuerr.Result(rep.Code).Error(), rep.Error)
	Expect(rep.Code).NotTo(BeZero(), "%s: want a fault (%s), but %s", what, harness.AccessFaultList(), rep)
	Expect(harness.IsAccessFault(rep.Code)).To(BeTrue(), "%s: want a fault (%s), but %s: a failure for another reason says nothing about the access",
		what, harness.AccessFaultList(), rep)
}
