// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package proc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"syscall"
	"time"
)

// MaxMessage is the largest encoded request or reply. Messages are control
// traffic (handles, sizes, verdicts), never bulk data: put data in GPU or
// shared memory and send its handle.
const MaxMessage = 64 << 10

// ErrClosed is wrapped by the errors of a wait that ended because the other
// side closed the connection (it exited, crashed or was killed).
var ErrClosed = errors.New("connection closed")

// inbound is a received frame that waits in the queue, in arrival order.
type inbound struct {
	kind string
	data json.RawMessage
	fd   int // -1 when none
}

// conn is one end of the channel between a spec and its helper: frames in
// order, plus the helper's step and result reports, which a reader files at
// once so the spec knows the helper's step even while it does not wait.
// Writes may come from several goroutines; next from one at a time.
type conn struct {
	uc       *net.UnixConn
	deadline time.Time
	wmu      sync.Mutex

	mu       sync.Mutex
	queue    []inbound
	notify   chan struct{} // signalled (non-blocking) when queue or state changes
	readErr  error         // set when the reader stops
	peerStep string        // last step the other side reported
	ownStep  string        // last step this side reported
	res      *result       // the helper's result, when it sent one
	done     chan struct{} // closed when the reader stops
}

func newConn(uc *net.UnixConn, deadline time.Time) *conn {
	c := &conn{uc: uc, deadline: deadline, notify: make(chan struct{}, 1), done: make(chan struct{})}
	go c.read()
	return c
}

// step records that this side entered the named step and tells the other.
func (c *conn) step(name string) error {
	c.mu.Lock()
	c.ownStep = name
	c.mu.Unlock()
	return c.write(frame{Kind: kindStep, Step: name}, -1)
}

func (c *conn) stepNames() (own, peer string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ownStep, c.peerStep
}

// send marshals v as JSON and sends it as one message.
func (c *conn) send(v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("proc: encode %T: %w", v, err)
	}
	return c.write(frame{Kind: kindMsg, Data: data}, -1)
}

// signal sends a frame of the given kind with no data.
func (c *conn) signal(kind string) error { return c.write(frame{Kind: kind}, -1) }

// sendFD sends fd with SCM_RIGHTS; fd < 0 sends the frame without one (the
// call carried none, and the role's wait for it fails). The receiver gets its
// own descriptor for the same open file; the sender keeps fd.
func (c *conn) sendFD(fd int) error { return c.write(frame{Kind: kindFD}, fd) }

// next waits for the next queued frame, which must be of one of kinds. It
// fails at once when the other side has gone (wrapping ErrClosed), at the
// helper's deadline and when ctx ends.
func (c *conn) next(ctx context.Context, kinds ...string) (inbound, error) {
	var timer <-chan time.Time
	if !c.deadline.IsZero() {
		t := time.NewTimer(time.Until(c.deadline))
		defer t.Stop()
		timer = t.C
	}
	for {
		in, ok, err := c.pop(kinds)
		if ok || err != nil {
			return in, err
		}
		select {
		case <-c.notify:
		case <-timer:
			_, peer := c.stepNames()
			return inbound{}, fmt.Errorf("proc: no %s before the deadline %s (other side's last step %q)",
				kindName(kinds[0]), c.deadline.Format(time.RFC3339Nano), peer)
		case <-ctx.Done():
			_, peer := c.stepNames()
			return inbound{}, fmt.Errorf("proc: waiting for a %s: %w (other side's last step %q)", kindName(kinds[0]), ctx.Err(), peer)
		}
	}
}

// pop takes the first queued frame; ok is false when the queue is empty and
// the connection still open.
func (c *conn) pop(kinds []string) (in inbound, ok bool, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.queue) == 0 {
		if c.readErr != nil {
			return inbound{}, false, fmt.Errorf("proc: waiting for a %s: %w (other side's last step %q)", kindName(kinds[0]), c.readErr, c.peerStep)
		}
		return inbound{}, false, nil
	}
	in = c.queue[0]
	c.queue = c.queue[1:]
	if !slices.Contains(kinds, in.kind) {
		if in.fd >= 0 {
			syscall.Close(in.fd)
		}
		return inbound{}, false, fmt.Errorf("proc: expected a %s from the other side, got a %s (the two sides disagree on the protocol)", kindName(kinds[0]), kindName(in.kind))
	}
	return in, true, nil
}

func kindName(k string) string {
	switch k {
	case kindFD:
		return "file descriptor"
	case kindBadFD:
		return "descriptor frame without exactly one descriptor"
	case kindWantFD:
		return "request for a descriptor"
	case kindEnd:
		return "end of the session"
	}
	return "message"
}

// Close closes the connection and every received descriptor nobody took.
func (c *conn) Close() error {
	err := c.uc.Close()
	<-c.done
	c.mu.Lock()
	for _, in := range c.queue {
		if in.fd >= 0 {
			syscall.Close(in.fd)
		}
	}
	c.queue = nil
	c.mu.Unlock()
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}

func (c *conn) stop(err error) {
	c.mu.Lock()
	c.readErr = err
	c.mu.Unlock()
	c.wake()
}

func (c *conn) wake() {
	select {
	case c.notify <- struct{}{}:
	default:
	}
}

func (c *conn) result() *result {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.res
}
