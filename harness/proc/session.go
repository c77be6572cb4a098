// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package proc

import (
	"context"
	"fmt"
	"os"
	"time"
)

// Session is the helper's end of the channel, handed to the role's Server
// with every request.
type Session struct {
	c *conn
}

// Step records that the role entered the named phase ("open handle",
// "launch reader", "synchronize") and tells the spec, so that when the
// helper fails, crashes or hangs the spec's error names the phase. A
// connection that is gone is noticed by the next reply, not here.
func (s *Session) Step(name string) { _ = s.c.step(name) }

// CheckStepPrefix starts the name of a step that is the check itself (the
// access whose outcome the spec judges), as opposed to setting it up.
const CheckStepPrefix = "check: "

// CheckStep is Step for the step that is the spec's check: a helper that
// fails there failed on what the spec is about, which `go run
// ./cmd/mutation` counts as the spec's own failure; a failure in any other
// step only says the helper could not set the check up.
func (s *Session) CheckStep(name string) { s.Step(CheckStepPrefix + name) }

// Deadline is when the helper is stopped; the ctx handed to the role ends
// then.
func (s *Session) Deadline() time.Time { return s.c.deadline }

// RecvFD asks the spec for the descriptor the current request carries
// (Client.CallFD) and returns it, received with SCM_RIGHTS. Nothing is sent
// before the role asks, so the role can look at its own descriptors first.
// The role owns the file and closes it. RecvFD fails when the request
// carried no descriptor, when the spec has gone and at the deadline.
func (s *Session) RecvFD(ctx context.Context) (*os.File, error) {
	if err := s.c.signal(kindWantFD); err != nil {
		return nil, fmt.Errorf("ask for the request's descriptor: %w", err)
	}
	in, err := s.c.next(ctx, kindFD)
	if err != nil {
		return nil, fmt.Errorf("receive the request's descriptor: %w", err)
	}
	return os.NewFile(uintptr(in.fd), "scm-rights"), nil
}
