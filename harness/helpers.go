// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"context"
	"errors"
	"fmt"
	"os"

	. "github.com/onsi/ginkgo/v2"

	"github.com/p2pconf/p2pconf/harness/cuerr"
	"github.com/p2pconf/p2pconf/harness/machine"
	"github.com/p2pconf/p2pconf/harness/proc"
	"github.com/p2pconf/p2pconf/kernels"
)

// Helper processes (package proc), re-exported so suites need not import
// harness/proc. See package proc for the protocol.
type (
	// RoleServer answers a role's requests in the helper process. A server
	// that holds something to release implements End(ctx) error, called when
	// the spec ends the session.
	RoleServer[Req, Rep any] = proc.Server[Req, Rep]
	// RoleSession is the helper's end of the channel: Step names the phase
	// the role is in, RecvFD takes the descriptor a request carries.
	RoleSession = proc.Session
	// RoleClient is the spec's end: Call, CallFD, End, and the process
	// (Kill, Wait, Close, Pid, Dir, LastStep).
	RoleClient[Req, Rep any] = proc.Client[Req, Rep]
	// HelperOptions configure a helper (deadline, environment, output).
	HelperOptions = proc.Options
	// HelperError is how a helper ended when it did not succeed.
	HelperError = proc.Error
)

// Kinds of helper failure, for errors.Is.
var (
	ErrHelperFailed = proc.ErrFailed
	ErrHelperKilled = proc.ErrKilled
)

// Role is a helper role whose requests are Req and replies Rep.
type Role[Req, Rep any] struct{ role proc.Role[Req, Rep] }

// RegisterRole registers a helper role and returns it. Call it in a
// package-level var of the suite's test package. In the helper process, open
// is called once with the helper's Driver (the same backend and
// configuration as the spec's: the helper inherits its environment) and
// returns the server of every request:
//
//	var probeRole = harness.RegisterRole("access.peer-probe",
//		func(d harness.Driver) harness.RoleServer[probeReq, probeRep] { return peerProbe{d} })
//
// The server uses the Driver directly and releases what it takes (in End);
// the process exits right after the role.
func RegisterRole[Req, Rep any](name string, open func(d Driver) RoleServer[Req, Rep]) Role[Req, Rep] {
	return Role[Req, Rep]{proc.Register(name, func(_ context.Context, s *RoleSession) (RoleServer[Req, Rep], error) {
		s.Step("open the machine")
		m, err := machine.Open()
		if err != nil {
			return nil, fmt.Errorf("open the machine in helper %s: %w", name, err)
		}
		return open(m.Backend), nil
	})}
}

// Name is the role's registered name.
func (r Role[Req, Rep]) Name() string { return r.role.Name() }

// Start starts a helper serving r, one of the spec's resources like those h
// hands out. Its output goes to GinkgoWriter. After the spec (DeferCleanup)
// the helper is killed if it still runs, reaped, its connection closed and
// its private directory removed; the cleanup fails the spec if the directory
// or the process is left behind. The helper also dies when ctx ends (pass
// the SpecContext).
func (r Role[Req, Rep]) Start(ctx context.Context, h *Harness, opts HelperOptions) *RoleClient[Req, Rep] {
	GinkgoHelper()
	if h.b == nil {
		Fail(fmt.Sprintf("start helper %s outside a spec: the fixture holds no machine", r.Name()))
	}
	if opts.Output == nil {
		opts.Output = GinkgoWriter
	}
	c, err := r.role.Start(ctx, opts)
	ExpectNoError(err, "start helper %s", r.Name())
	DeferCleanup(func() error { return closeHelper(c.Helper) })
	return c
}

// closeHelper stops and reaps a helper and checks nothing of it is left.
func closeHelper(hp *proc.Helper) error {
	err := hp.Close()
	select {
	case <-hp.Exited():
	default:
		err = errors.Join(err, fmt.Errorf("helper %s (pid %d) was not reaped", hp.Role, hp.Pid))
	}
	if _, serr := os.Stat(hp.Dir); !os.IsNotExist(serr) {
		err = errors.Join(err, fmt.Errorf("helper %s left its directory %s behind (stat: %v)", hp.Role, hp.Dir, serr))
	}
	if err != nil {
		return fmt.Errorf("clean up helper %s: %w", hp.Role, err)
	}
	return nil
}

// DriverAnswer is the part of a role's reply that carries a driver call's
// outcome when the spec asserts on it (an expected failure, a fault): an
// error the role returned would end the helper instead.
type DriverAnswer struct {
	Code  int32  `json:"code"` // the CUDA result; 0 for success
	Error string `json:"error,omitempty"`
}

// Record keeps err in the answer when it is the driver's: a CUDA result.
// Any other error (a timeout, a protocol or setup error) means the role
// cannot tell what the driver did; Record returns it, to end the role.
func (a *DriverAnswer) Record(err error) error {
	if err == nil {
		return nil
	}
	code, ok := cuerr.Code(err)
	if !ok || errors.Is(err, ErrTimeout) {
		return err
	}
	a.Code, a.Error = int32(code), err.Error()
	return nil
}

// ExpectHealthy checks, after a helper's expected fault, that this
// process's contexts on gpus still work (package proc: a fault poisons only
// the context it happens in): on each GPU a kernel fills a new buffer with a
// seeded pattern, and a copy brings back every word.
func (h *Harness) ExpectHealthy(ctx context.Context, gpus ...GPU) {
	GinkgoHelper()
	const n = 1024
	for _, g := range gpus {
		By(fmt.Sprintf("checking this process's context on %s is still healthy", g))
		seed := uint32(Seed("healthy", g))
		p := h.Alloc(g, 4*n)
		ExpectNoError(h.GPUWork(g).Fill(ctx, p, n, seed), "health check on %s after the helper's fault: a kernel filling %d words", g, n)
		if m := Compare(kernels.Pattern(seed, n), h.Download(g, p, n)); m.Count != 0 {
			Fail(fmt.Sprintf("health check on %s after the helper's fault: the words a kernel wrote, copied back: %s", g, m))
		}
	}
}
