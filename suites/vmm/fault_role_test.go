// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package vmm_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

// The fault role builds VMM mappings in its own process and runs kernels on
// them that may fault: a fault poisons the context for good, so it never
// happens in the spec's process (see package harness/proc). The role reports what each
// probe did as data; it fails only when it cannot tell (setup errors, a
// probe that neither completes nor faults).
var faultRole = harness.RegisterRole("vmm.fault",
	func(d harness.Driver) harness.RoleServer[faultReq, faultReply] {
		return &faultProbe{b: d, works: map[harness.Device]*harness.GPUWork{}}
	})

// faultReq: one granule of physical memory on Owner, mapped at len(Ranges)
// address ranges with the access each names; the owner's kernel fills range
// Fill (-1: none) with PatternWord(Seed, i); then the probes run in order
// until one fails. With FillChecked the fill is part of the spec's check:
// its driver error is answered as data (faultReply.Fill) instead of ending
// the role, so that a grant the fill proves broken fails the check itself.
type faultReq struct {
	Owner       int        `json:"owner"`
	Ranges      []rangeReq `json:"ranges"`
	Fill        int        `json:"fill"`
	FillChecked bool       `json:"fillChecked,omitempty"`
	Probes      []probeReq `json:"probes"`
	Seed        uint32     `json:"seed"`
}

// faultReply is what the role saw: the fill (with FillChecked) and one
// result per probe that ran.
type faultReply struct {
	// Fill is cuMemGetAccess(Owner) on the fill's range before the fill
	// and the fill kernel's answer (FillChecked only; a failed fill runs
	// no probe).
	Fill   probeResult   `json:"fill"`
	Probes []probeResult `json:"probes"`
}

type rangeReq struct {
	Access []harness.Access `json:"access,omitempty"` // none: cuMemSetAccess is not called
}

// probeReq is a kernel on Device reading (kernels.Verify) or writing
// (kernels.Fill) every word of range Range.
type probeReq struct {
	Range  int  `json:"range"`
	Device int  `json:"device"`
	Store  bool `json:"store"`
}

// probeResult is what one probe saw.
type probeResult struct {
	Access harness.AccessFlags `json:"access"` // cuMemGetAccess(Device) on the range before the kernel
	// DriverAnswer is the kernel's CUDA result (0: it completed).
	harness.DriverAnswer
	Verdict harness.Verdict `json:"verdict"` // loads that completed
}

func (r probeResult) String() string {
	if r.Code != 0 {
		return fmt.Sprintf("access %s, kernel failed: %s", r.Access, r.Error)
	}
	return fmt.Sprintf("access %s, kernel completed: %s", r.Access, r.Verdict)
}

// faultProbe serves the fault role: one request per helper.
type faultProbe struct {
	b       harness.Driver
	works   map[harness.Device]*harness.GPUWork
	u       undo
	faulted bool // a probe faulted: the context is gone, the process exit cleans up
}

func (f *faultProbe) Serve(ctx context.Context, s *harness.RoleSession, req faultReq) (faultReply, error) {
	var rep faultReply
	s.Step("create and map")
	size, ranges, err := f.mapRanges(req)
	if err != nil {
		return rep, err
	}
	n := size / 4
	if req.Fill >= 0 {
		step := fmt.Sprintf("fill range %d with GPU%d", req.Fill, req.Owner)
		if !req.FillChecked {
			s.Step(step)
			w, err := f.work(harness.Device(req.Owner))
			if err != nil {
				return rep, err
			}
			if err := w.Fill(ctx, ranges[req.Fill].ptr, n, req.Seed); err != nil {
				return rep, err
			}
		} else {
			s.CheckStep(step)
			// The fill is the owner's store probe; a store probe writes
			// PatternWord(seed+1, i), so it gets Seed-1 to write Seed's.
			pr := probeReq{Range: req.Fill, Device: req.Owner, Store: true}
			if rep.Fill, err = f.probe(ctx, ranges[req.Fill], pr, n, req.Seed-1); err != nil {
				return rep, err
			}
			if rep.Fill.Code != 0 {
				f.faulted = true
				return rep, nil
			}
		}
	}
	for i, pr := range req.Probes {
		what := map[bool]string{false: "load", true: "store"}[pr.Store]
		s.CheckStep(fmt.Sprintf("probe %d: %s by GPU%d on range %d", i, what, pr.Device, pr.Range))
		res, err := f.probe(ctx, ranges[pr.Range], pr, n, req.Seed)
		if err != nil {
			return rep, err
		}
		rep.Probes = append(rep.Probes, res)
		if res.Code != 0 {
			f.faulted = true
			break
		}
	}
	return rep, nil
}

// mapRanges creates one granule on the owner and maps it at every range of
// req, with the access each names.
func (f *faultProbe) mapRanges(req faultReq) (size uint64, ranges []*vaRange, err error) {
	owner := harness.Device(req.Owner)
	size, err = f.b.Granularity(owner, harness.AllocProp{Device: owner}, false)
	if err != nil {
		return 0, nil, fmt.Errorf("granularity on GPU%d: %w", req.Owner, err)
	}
	p, err := createPhysical(f.b, owner, size, harness.HandleNone)
	if err != nil {
		return 0, nil, err
	}
	f.u.push(p.release)
	ranges = make([]*vaRange, len(req.Ranges))
	for i, rr := range req.Ranges {
		if ranges[i], err = reserve(f.b, owner, size); err != nil {
			return 0, nil, err
		}
		f.u.push(ranges[i].free)
		if err := ranges[i].mapTo(p.handle); err != nil {
			return 0, nil, err
		}
		if len(rr.Access) > 0 {
			if err := ranges[i].setAccess(rr.Access...); err != nil {
				return 0, nil, err
			}
		}
	}
	return size, ranges, nil
}

// probe runs one kernel on r; its driver error is the result, anything
// else ends the role.
func (f *faultProbe) probe(ctx context.Context, r *vaRange, pr probeReq, n uint64, seed uint32) (probeResult, error) {
	var res probeResult
	d := harness.Device(pr.Device)
	var err error
	if res.Access, err = r.access(d); err != nil {
		return res, err
	}
	w, err := f.work(d)
	if err != nil {
		return res, err
	}
	if pr.Store {
		err = w.Fill(ctx, r.ptr, n, seed+1)
	} else {
		res.Verdict, err = w.Verify(ctx, r.ptr, n, seed)
	}
	return res, res.Record(err)
}

// work is d's kernel stream, made on first use.
func (f *faultProbe) work(d harness.Device) (*harness.GPUWork, error) {
	if w, ok := f.works[d]; ok {
		return w, nil
	}
	w, err := harness.NewGPUWork(f.b, d)
	if err == nil {
		f.works[d] = w
		f.u.push(w.Close)
	}
	return w, err
}

// End releases what the probes used, unless one faulted.
func (f *faultProbe) End(context.Context) error {
	if f.faulted {
		return nil
	}
	return f.u.run()
}

// undo is a stack of cleanups run last first.
type undo []func() error

func (u *undo) push(f func() error) { *u = append(*u, f) }

func (u *undo) run() error {
	var errs []error
	for i := len(*u) - 1; i >= 0; i-- {
		errs = append(errs, (*u)[i]())
	}
	*u = nil
	return errors.Join(errs...)
}

// runProbes runs req in a fault helper and returns one result per probe
// that ran; it fails the spec if the helper fails.
func runProbes(ctx context.Context, h *harness.Harness, req faultReq) []probeResult {
	GinkgoHelper()
	return runFaultRole(ctx, h, req).Probes
}

// runFaultRole runs req in a fault helper and returns its reply; it fails
// the spec if the helper fails.
func runFaultRole(ctx context.Context, h *harness.Harness, req faultReq) faultReply {
	GinkgoHelper()
	harness.ExpectDeviceFaults("a helper process's kernel touches a mapping without (or beyond) its access rights")
	hp := faultRole.Start(ctx, h, harness.HelperOptions{Deadline: 30 * time.Second})
	rep, err := hp.Call(ctx, req)
	harness.ExpectNoError(err, "the probe results of helper %s", hp.Role)
	harness.ExpectNoError(hp.End(ctx), "helper %s", hp.Role)
	return rep
}

// expectFault checks that a probe ran and its kernel did not succeed, and
// records the code (the documentation does not fix it; observed 700).
func expectFault(results []probeResult, i int, what string) {
	GinkgoHelper()
	if len(results) <= i {
		Fail(fmt.Sprintf("%s: the helper ran %d probes, not %d", what, len(results), i+1))
	}
	harness.Finding("fault code", cuerr.Result(results[i].Code).Error(), what)
	if results[i].Code == 0 {
		Fail(fmt.Sprintf("%s: the kernel completed (%s); it must not succeed", what, results[i]))
	}
}
