// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package proc

import (
	"context"
	"encoding/json"
	"fmt"
)

// Client is the spec's end of a helper serving a Role: it sends typed
// requests and receives typed replies, one call at a time. The embedded
// Helper is the process (Kill, Wait, Close, Pid, LastStep).
type Client[Req, Rep any] struct {
	*Helper
}

// Start runs the suite binary again as a helper serving r and waits for it
// to connect. The helper is stopped (SIGKILL) when ctx ends or its deadline
// passes, whichever is first; Close it (the harness does, after the spec)
// to reap it and remove its directory.
func (r Role[Req, Rep]) Start(ctx context.Context, opts Options) (*Client[Req, Rep], error) {
	h, err := start(ctx, r.name, opts)
	if err != nil {
		return nil, err
	}
	return &Client[Req, Rep]{Helper: h}, nil
}

// Call sends req and waits for the role's reply, at most until the helper's
// deadline or the end of ctx. When no reply comes, the error says why and
// how the helper ended: the role's error (with its CUDA code, for
// errors.Is), a crash, a timeout or a kill, each with the step it was in.
func (c *Client[Req, Rep]) Call(ctx context.Context, req Req) (Rep, error) {
	rep, _, err := c.call(ctx, req, -1)
	return rep, err
}

// CallFD is Call for a request that carries the descriptor fd, sent with
// SCM_RIGHTS when the role asks for it (Session.RecvFD). taken reports
// whether it asked: a role that answers without taking the descriptor (a
// driver error before it needed it) leaves it unsent. The caller keeps fd
// and closes it.
func (c *Client[Req, Rep]) CallFD(ctx context.Context, req Req, fd int) (rep Rep, taken bool, err error) {
	if fd < 0 {
		return rep, false, fmt.Errorf("proc: call helper %s with descriptor %d: not a descriptor", c.Role, fd)
	}
	return c.call(ctx, req, fd)
}

func (c *Client[Req, Rep]) call(ctx context.Context, req Req, fd int) (rep Rep, taken bool, err error) {
	if err := c.c.send(req); err != nil {
		return rep, false, c.broken(ctx, "send the request", err)
	}
	for {
		in, err := c.c.next(ctx, kindMsg, kindWantFD)
		if err != nil {
			return rep, taken, c.broken(ctx, "wait for the reply", err)
		}
		if in.kind == kindWantFD {
			// Without a descriptor the frame goes empty, and the role's
			// RecvFD fails rather than waiting for its deadline.
			if err := c.c.sendFD(fd); err != nil {
				return rep, taken, c.broken(ctx, "send the descriptor", err)
			}
			taken = fd >= 0
			continue
		}
		if err := json.Unmarshal(in.data, &rep); err != nil {
			c.Kill() // the two sides disagree; the session cannot go on
			return rep, taken, c.broken(ctx, "decode the reply", fmt.Errorf("into %T: %w (message %.200s)", rep, err, in.data))
		}
		return rep, taken, nil
	}
}

// broken reports a call that got no reply, with how the helper ended. A
// helper whose connection failed has exited or is about to (its role failed,
// it crashed, or its deadline passed and it is being stopped), so the wait
// for it is short; it is bounded by ctx and the reap timeout regardless.
func (c *Client[Req, Rep]) broken(ctx context.Context, what string, err error) error {
	end := c.Wait(ctx)
	if end == nil {
		return fmt.Errorf("helper %s: %s: %w", c.Role, what, err)
	}
	return fmt.Errorf("helper %s: %s: %v; %w", c.Role, what, err, end)
}

// End ends the session: the role releases what it holds (Ender) and
// returns. End then waits for the helper to exit, bounded by ctx and the
// helper's deadline, and returns nil or how it ended (an *Error).
func (c *Client[Req, Rep]) End(ctx context.Context) error {
	if err := c.c.signal(kindEnd); err != nil {
		if end := c.Wait(ctx); end != nil {
			return end
		}
		return fmt.Errorf("helper %s: end the session: %w", c.Role, err)
	}
	return c.Wait(ctx)
}
