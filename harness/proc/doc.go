// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package proc runs parts of a spec in helper processes (DESIGN.md §4): the
// suite's own test binary, re-executed with a role, so a precompiled suite
// binary needs nothing beside it. Helpers carry the multi-process specs (IPC,
// VMM shareable handles) and every spec that expects a device fault, which
// poisons a CUDA context for good and so must never happen in the spec's own
// process.
//
// # Roles
//
// A role is a function registered at package initialisation of the suite:
//
//	var faultRole = proc.Register("access.fault-on-peer", func(ctx context.Context, c *proc.Conn) error {
//		var req faultReq
//		if err := c.Recv(&req); err != nil { return err }
//		c.Step("launch reader on GPU1")
//		...
//		return c.Send(verdict) // or return an error; a *cuerr.Error keeps its code
//	})
//
// Register returns the name, to pass to Start. The suite binary's TestMain
// calls harness.Main, which
// calls Dispatch: in a helper it runs the role named by P2PCONF_HELPER_ROLE
// and exits with its code before any test runs.
//
// Suites use the harness re-exports and never import this package:
// harness.RegisterHelper (Register), harness.HelperConn (Conn),
// harness.HelperOptions (Options), harness.Helper, harness.HelperError and
// harness.ErrHelperFailed/Crashed/TimedOut/Killed. Inside a role,
// harness.HelperBackendMachine() opens the same backend as the parent (the
// helper inherits its environment, so the fake preset and defects too).
//
// # Starting a helper
//
// Specs use the fixture, h.StartHelper(ctx, role, opts), which stops, reaps
// and cleans up every helper after the spec and fails the spec if the
// helper's directory or process is left behind. Underneath:
//
//	h, err := proc.Start(ctx, faultRole, proc.Options{Deadline: 20 * time.Second, Output: GinkgoWriter})
//	defer h.Close()
//	h.Send(req)            // JSON message to the role
//	h.Recv(&verdict)       // next JSON message from the role
//	err = h.Wait(ctx)      // nil, or a *proc.Error
//
// Start makes a private 0700 directory with a SOCK_SEQPACKET Unix socket,
// starts os.Executable() with the parent's environment plus Options.Env and
// the P2PCONF_HELPER_* variables, and accepts the helper's connection
// (checking with SO_PEERCRED that it is the helper). The directory is
// removed as soon as the helper has connected. The child's stdout and
// stderr go to Options.Output.
//
// # The connection
//
// Conn carries, in order, JSON messages (Send / Recv, at most MaxMessage
// bytes) and file descriptors with SCM_RIGHTS (SendFD / RecvFD, each with an
// optional JSON value). Recv and RecvFD are bounded by the helper's deadline
// and fail (wrapping ErrClosed) as soon as the other side has gone. The
// role calls Conn.Step before each phase; the parent always knows the last
// one (Helper.LastStep), and every error names it.
//
// # Deadlines, crashes, kills
//
// Each helper has a deadline: Options.Deadline, or 80 % of the time left on
// the Start context, never later than the context's deadline. The role's
// ctx ends at the deadline; a role that does not return is ended by its own
// timer shortly after (exit 124), and the parent sends SIGKILL a little
// later still. The helper also dies with its parent (Pdeathsig, SIGKILL).
// When the Start context ends (the spec ended or timed out) the helper is
// killed.
//
// Helper.Wait returns nil when the role returned nil, or an *Error:
//
//	helper <role> failed in step "<step>": <role's error>          errors.Is(err, proc.ErrFailed)
//	helper <role> timed out in step "<step>" after 2s and was stopped   proc.ErrTimedOut
//	helper <role> crashed in step "<step>" (signal: segmentation fault) proc.ErrCrashed
//	helper <role> was killed in step "<step>" (signal: killed)     proc.ErrKilled
//
// When the role's error carried a CUDA result, errors.Is(err,
// cuerr.IllegalAddress) and cuerr.Code(err) see it. A role that observes an
// expected fault and wants to report it as data rather than failure sends it
// as a message instead (for example {"code": 700}) and returns nil.
//
// Helper.Kill sends SIGKILL; Helper.Close kills if needed, reaps, closes the
// connection and any descriptor received but not taken, and removes the
// directory.
package proc
