// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"context"
	"errors"
	"fmt"
	"os"

	. "github.com/onsi/ginkgo/v2"

	"github.com/p2pconf/p2pconf/harness/proc"
	"github.com/p2pconf/p2pconf/kernels"
)

// Helper processes (DESIGN.md §4), re-exported so suites need not import
// harness/proc. See package proc for the protocol.
type (
	// Helper is a running helper process seen from the spec.
	Helper = proc.Helper
	// HelperConn is the role's end of the channel (and the spec's, embedded
	// in Helper).
	HelperConn = proc.Conn
	// HelperOptions configure a helper (deadline, environment, arguments).
	HelperOptions = proc.Options
	// HelperError is how a helper ended when it did not succeed.
	HelperError = proc.Error
)

// Kinds of helper failure, for errors.Is.
var (
	ErrHelperFailed   = proc.ErrFailed
	ErrHelperCrashed  = proc.ErrCrashed
	ErrHelperTimedOut = proc.ErrTimedOut
	ErrHelperKilled   = proc.ErrKilled
)

// RegisterHelper registers a helper role and returns its name. Call it in a
// package-level var of the suite's test package:
//
//	var faultRole = harness.RegisterHelper("access.fault-on-peer", faultOnPeer)
func RegisterHelper(name string, fn func(ctx context.Context, c *HelperConn) error) string {
	return proc.Register(name, fn)
}

// HelperBackendMachine opens the machine inside a helper process (the same
// configuration as the parent: the helper inherits its environment). Roles
// use its Backend directly and release what they take; the process exits
// right after the role.
func HelperBackendMachine() (*Machine, error) { return OpenMachine() }

// StartHelper starts a helper running role for this spec. Its output goes to
// GinkgoWriter. After the spec (DeferCleanup) the helper is killed if it
// still runs, reaped, its connection closed and its private directory
// removed; the cleanup fails the spec if the directory or the process is
// left behind. The helper also dies when ctx ends (pass the SpecContext).
func (h *Harness) StartHelper(ctx context.Context, role string, opts HelperOptions) *Helper {
	GinkgoHelper()
	if opts.Output == nil {
		opts.Output = GinkgoWriter
	}
	hp, err := proc.Start(ctx, role, opts)
	ExpectNoError(err, "start helper %s", role)
	DeferCleanup(func() error { return closeHelper(hp) })
	return hp
}

// closeHelper stops and reaps a helper and checks nothing of it is left.
func closeHelper(hp *Helper) error {
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

// WaitHelper waits for hp to finish and returns how it ended (nil on
// success, a *HelperError otherwise), bounded by ctx.
func (h *Harness) WaitHelper(ctx context.Context, hp *Helper) error {
	return hp.Wait(ctx)
}

// RecvFromHelper receives hp's next message into v (bounded by the helper's
// deadline). When none comes, it fails the spec with what explains, the
// receive error and how the helper ended (its role's error with the CUDA
// code, its last step): the receive error alone only says that the
// connection closed.
func (h *Harness) RecvFromHelper(ctx context.Context, hp *Helper, v any, explain string, args ...any) {
	GinkgoHelper()
	if err := hp.Recv(v); err != nil {
		Fail(fmt.Sprintf("%s: %v; %v", fmt.Sprintf(explain, args...), err, hp.Wait(ctx)))
	}
}

// ExpectHealthy checks, after a helper's expected fault, that this
// process's contexts on gpus still work (DESIGN.md §4: a fault poisons only
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
