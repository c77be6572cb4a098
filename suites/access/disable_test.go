// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package access_test

import (
	"context"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/p2pconf/p2pconf/harness"
)

// The disable role runs, in its own process, the steps of
// access.disable-is-directional: a driver that disables both directions
// makes the next kernel fault, and a fault poisons a context for good, so
// it must not happen in the spec's process. Each step's outcome comes back
// as data; the role fails only when it cannot tell (setup, a timeout).
var disableRole = harness.RegisterRole("access.disable-probe",
	func(d harness.Driver) harness.RoleServer[disableReq, disableRep] { return disableProbe{d} })

// disableReq names the pair: access A→B is disabled, B→A must stay.
type disableReq struct {
	A, B  int
	Words int
	Seed  uint32
}

// disableStep is one step's outcome: the driver's answer and, for a kernel
// that read a buffer, what it found.
type disableStep struct {
	Name string `json:"name"`
	harness.DriverAnswer
	Data *harness.Verdict `json:"data,omitempty"`
}

func (s disableStep) String() string {
	switch {
	case s.Code != 0:
		return s.Name + ": " + s.Error
	case s.Data != nil:
		return s.Name + ": " + s.Data.String()
	}
	return s.Name + ": ok"
}

// disableRep lists the steps in the order they ran; the role stops at the
// first that failed (a kernel's fault poisons its context).
type disableRep struct {
	Steps []disableStep `json:"steps"`
}

func (r disableRep) String() string {
	s := make([]string, len(r.Steps))
	for i, st := range r.Steps {
		s[i] = st.String()
	}
	return strings.Join(s, "; ")
}

type disableProbe struct{ b harness.Driver }

func (p disableProbe) Serve(ctx context.Context, s *harness.RoleSession, req disableReq) (disableRep, error) {
	a, b, n := harness.Device(req.A), harness.Device(req.B), uint64(req.Words)
	var rep disableRep
	bufA, err := p.b.Alloc(a, 4*n)
	if err != nil {
		return rep, fmt.Errorf("alloc on GPU%d: %w", a, err)
	}
	bufB, err := p.b.Alloc(b, 4*n)
	if err != nil {
		return rep, fmt.Errorf("alloc on GPU%d: %w", b, err)
	}
	wa, err := harness.NewGPUWork(p.b, a)
	if err != nil {
		return rep, err
	}
	wb, err := harness.NewGPUWork(p.b, b)
	if err != nil {
		return rep, err
	}
	for _, e := range [][2]harness.Device{{a, b}, {b, a}} {
		s.Step(fmt.Sprintf("enable peer access GPU%d→GPU%d", e[0], e[1]))
		if err := p.b.EnablePeerAccess(e[0], e[1]); err != nil {
			return rep, fmt.Errorf("enable peer access GPU%d→GPU%d: %w", e[0], e[1], err)
		}
	}
	// step runs one call and records it; it reports whether to go on.
	step := func(name string, call func() (*harness.Verdict, error)) (bool, error) {
		s.CheckStep(name)
		st := disableStep{Name: name}
		v, err := call()
		if rerr := st.Record(err); rerr != nil {
			return false, fmt.Errorf("%s: %w", name, rerr)
		}
		st.Data = v
		rep.Steps = append(rep.Steps, st)
		return err == nil, nil
	}
	fill := func(w *harness.GPUWork, ptr harness.DevicePtr, seed uint32) func() (*harness.Verdict, error) {
		return func() (*harness.Verdict, error) { return nil, w.Fill(ctx, ptr, n, seed) }
	}
	verify := func(w *harness.GPUWork, ptr harness.DevicePtr, seed uint32) func() (*harness.Verdict, error) {
		return func() (*harness.Verdict, error) {
			v, err := w.Verify(ctx, ptr, n, seed)
			return &v, err
		}
	}
	driver := func(call func() error) func() (*harness.Verdict, error) {
		return func() (*harness.Verdict, error) { return nil, call() }
	}
	steps := []struct {
		name string
		call func() (*harness.Verdict, error)
	}{
		{fmt.Sprintf("disable peer access GPU%d→GPU%d", a, b), driver(func() error { return p.b.DisablePeerAccess(a, b) })},
		{fmt.Sprintf("kernel on GPU%d stores into GPU%d's memory", b, a), fill(wb, bufA, req.Seed)},
		{fmt.Sprintf("kernel on GPU%d reads GPU%d's memory", b, a), verify(wb, bufA, req.Seed)},
		{fmt.Sprintf("kernel on GPU%d reads its own memory", a), verify(wa, bufA, req.Seed)},
		{fmt.Sprintf("enable peer access GPU%d→GPU%d again", a, b), driver(func() error { return p.b.EnablePeerAccess(a, b) })},
		{fmt.Sprintf("kernel on GPU%d stores into GPU%d's memory", a, b), fill(wa, bufB, req.Seed+1)},
		{fmt.Sprintf("kernel on GPU%d reads GPU%d's memory", a, b), verify(wa, bufB, req.Seed+1)},
		{fmt.Sprintf("disable peer access GPU%d→GPU%d", b, a), driver(func() error { return p.b.DisablePeerAccess(b, a) })},
	}
	for _, st := range steps {
		if ok, err := step(st.name, st.call); err != nil || !ok {
			return rep, err
		}
	}
	return rep, nil
}

var _ = Describe("access: disabling peer access", func() {
	h := harness.New()

	/*
		ID: access.disable-is-directional
		Requirement: with peer access enabled both ways between A and B,
		cuCtxDisablePeerAccess for A→B MUST leave B→A enabled and working: a
		kernel on B then stores into and reads A's memory correctly (A's own
		kernel sees the data), and cuCtxDisablePeerAccess B→A still succeeds;
		enabling A→B again MUST succeed and a kernel on A then stores into and
		reads B's memory correctly. Run in a helper process, so a wrong
		disable's fault cannot poison this process's contexts.
		Source: CUDA Driver API cuCtxEnablePeerAccess ("unidirectional"),
		cuCtxDisablePeerAccess ("disables direct access to memory
		allocations in a peer context").
		Applies to: ordered pairs where cuDeviceCanAccessPeer is 1 both
		ways; with one GPU it is skipped (it needs two).
	*/
	if n := len(harness.AllGPUs()); n < 2 {
		for _, g := range harness.GPUs() {
			It(fmt.Sprintf("from %s leaves the other direction working", g),
				harness.GPULabels("access.disable-is-directional", g), func() {
					Skip(fmt.Sprintf("needs 2+ GPUs: the check disables peer access between two (found %d GPU)", n))
				})
		}
	}
	for _, p := range harness.Pairs() {
		It(fmt.Sprintf("%s leaves %s enabled and working, and %s can be enabled again", p, p.Reverse(), p),
			harness.PairLabels("access.disable-is-directional", p, harness.ProcessMulti), func(ctx SpecContext) {
				h.RequirePeerAccess(p)
				h.RequirePeerAccess(p.Reverse())
				req := disableReq{A: int(p.A.Ordinal), B: int(p.B.Ordinal), Words: probeWords, Seed: seed32("access.disable-is-directional", p.ID())}
				By(fmt.Sprintf("in a helper: enabling both ways, disabling %s, then using %s, enabling %s again and using it", p, p.Reverse(), p))
				hp := disableRole.Start(ctx, h, harness.HelperOptions{Deadline: helperDeadline})
				rep, err := hp.Call(ctx, req)
				harness.ExpectNoError(err, "the report of helper %s", disableRole.Name())
				harness.ExpectNoError(hp.End(ctx), "helper %s", disableRole.Name())
				for _, st := range rep.Steps {
					Expect(st.Code).To(BeZero(), "in the helper, after disabling %s only: %s (all steps: %s)", p, st, rep)
					if st.Data != nil {
						Expect(st.Data.Mismatches).To(BeZero(), "in the helper, after disabling %s only: %s", p, st)
					}
				}
				Expect(rep.Steps).To(HaveLen(8), "steps the helper ran: %s", rep)
				harness.Finding("steps after disabling "+p.String(), len(rep.Steps), rep.String())
			}, harness.Timeout(1))
	}
})
