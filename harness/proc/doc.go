// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package proc runs parts of a spec in helper processes: the
// suite's own test binary, re-executed with a role, so a precompiled suite
// binary needs nothing beside it. Helpers carry the multi-process specs (IPC,
// VMM shareable handles) and every spec that expects a device fault, which
// poisons a CUDA context for good and so must never happen in the spec's own
// process.
//
// # Roles
//
// A role is a typed request/reply service, registered at package
// initialisation of the suite so the re-executed binary knows it:
//
//	var probeRole = proc.Register("access.peer-probe", openProbe) // proc.Role[probeReq, probeRep]
//
// In the helper, the OpenFunc makes the role's Server once; then each request
// the spec sends is decoded into a Req and handed to Server.Serve, whose Rep
// is the reply. A Serve error ends the role and is reported to the spec with
// its CUDA code; an outcome the spec asserts on (an expected driver error,
// a fault) belongs in the reply. A Server that holds something implements
// Ender: End runs when the spec ends the session. The suite binary's
// TestMain calls harness.Main, which calls Dispatch: in a helper it serves
// the role named by P2PCONF_HELPER_ROLE and exits with its code before any
// test runs.
//
// Suites use the harness re-exports and never import this package:
// harness.RegisterRole (Register, handing the role the helper's Driver),
// harness.Role, harness.RoleServer (Server), harness.RoleSession (Session),
// harness.RoleClient (Client), harness.HelperOptions (Options),
// harness.HelperError and harness.ErrHelperFailed/Crashed/TimedOut/Killed.
//
// # Steps
//
// Inside Serve the role calls Session.Step before each phase ("open handle",
// "launch reader", "synchronize"); the protocol adds its own ("open the
// role", "end the session"). The spec always knows the last one
// (Helper.LastStep), and every error names it, so a helper that fails, dies
// or hangs is reported with the phase it was in.
//
// # The spec's side
//
// Specs start a helper through the harness, which closes it after the spec.
// Underneath:
//
//	c, err := probeRole.Start(ctx, proc.Options{Deadline: 20 * time.Second, Output: GinkgoWriter})
//	defer c.Close()
//	rep, err := c.Call(ctx, req)       // typed request, typed reply
//	rep, taken, err := c.CallFD(ctx, req, fd) // the same, carrying a descriptor
//	err = c.End(ctx)                   // the role releases and returns; nil, or a *proc.Error
//
// Start makes a private 0700 directory with a SOCK_SEQPACKET Unix socket,
// starts os.Executable() with the parent's environment plus Options.Env and
// the P2PCONF_HELPER_* variables, and accepts the helper's connection
// (checking with SO_PEERCRED that it is the helper). The directory is
// removed as soon as the helper has connected. The child's stdout and
// stderr go to Options.Output.
//
// A descriptor travels with SCM_RIGHTS only when the role asks for it
// (Session.RecvFD), so the role can look at its own descriptors before it
// arrives; CallFD reports whether it did.
//
// # Deadlines, crashes, kills
//
// Every wait on either side is bounded. Each helper has a deadline:
// Options.Deadline, or 80 % of the time left on the Start context, never
// later than the context's deadline. The role's ctx ends at the deadline; a
// role that does not return is ended by its own timer shortly after (exit
// 124), and the parent sends SIGKILL a little later still. The helper also
// dies with its parent (Pdeathsig, SIGKILL). When the Start context ends
// (the spec ended or timed out) the helper is killed. A Call that gets no
// reply returns as soon as the helper is gone, or at its deadline, with how
// it ended:
//
//	helper <role> failed in step "<step>": <role's error>          errors.Is(err, proc.ErrFailed)
//	helper <role> timed out in step "<step>" after 2s and was stopped   proc.ErrTimedOut
//	helper <role> crashed in step "<step>" (signal: segmentation fault) proc.ErrCrashed
//	helper <role> was killed in step "<step>" (signal: killed)     proc.ErrKilled
//
// When the role's error carried a CUDA result, errors.Is(err,
// cuerr.IllegalAddress) and cuerr.Code(err) see it.
//
// Helper.Kill sends SIGKILL; Helper.Close kills if needed, reaps, closes the
// connection and any descriptor received but not taken, and removes the
// directory.
package proc
