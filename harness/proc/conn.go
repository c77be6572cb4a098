// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package proc

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

// MaxMessage is the largest JSON message Send accepts. Messages are control
// traffic (handles, sizes, verdicts), never bulk data: put data in GPU or
// shared memory and send its handle.
const MaxMessage = 64 << 10

// ErrClosed is wrapped by Recv and RecvFD errors when the other side closed
// the connection (it exited, crashed or was killed) before sending.
var ErrClosed = errors.New("connection closed")

// Frame kinds on the wire.
const (
	kindMsg    = "msg"
	kindFD     = "fd"
	kindStep   = "step"
	kindResult = "result"
	// kindBadFD is queued (never sent) for a descriptor frame that did not
	// carry exactly one descriptor, so the receiver's next call fails.
	kindBadFD = "bad-fd"
)

// frame is one SOCK_SEQPACKET message: a record boundary per frame, and an
// SCM_RIGHTS descriptor travels with the frame it belongs to.
type frame struct {
	Kind   string          `json:"k"`
	Step   string          `json:"s,omitempty"`
	Data   json.RawMessage `json:"d,omitempty"`
	Result *result         `json:"r,omitempty"`
}

// result is what a helper reports when its role returns.
type result struct {
	OK       bool   `json:"ok"`
	Message  string `json:"msg,omitempty"`
	Func     string `json:"func,omitempty"`
	Code     *int32 `json:"code,omitempty"`
	TimedOut bool   `json:"timedOut,omitempty"`
	Panic    bool   `json:"panic,omitempty"`
}

// inbound is a received message or descriptor, kept in arrival order.
type inbound struct {
	kind string
	data json.RawMessage
	fd   int // -1 when none
}

// Conn is one end of the channel between a spec and its helper: JSON
// messages and file descriptors in order, plus the helper's step reports.
// Send, SendFD and Step may be called from several goroutines; Recv and
// RecvFD from one at a time.
type Conn struct {
	uc       *net.UnixConn
	deadline time.Time
	args     []string
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

func newConn(uc *net.UnixConn, deadline time.Time, args []string) *Conn {
	c := &Conn{uc: uc, deadline: deadline, args: args, notify: make(chan struct{}, 1), done: make(chan struct{})}
	go c.read()
	return c
}

// Args are the Options.Args the helper was started with (empty on the
// parent side).
func (c *Conn) Args() []string { return append([]string(nil), c.args...) }

// Deadline is when the helper is stopped.
func (c *Conn) Deadline() time.Time { return c.deadline }

// Step records that this side entered the named step and tells the other
// side. A helper calls it before each phase ("open handle", "launch reader",
// "synchronize"), so that when it crashes or hangs the parent's error names
// the phase.
func (c *Conn) Step(name string) error {
	c.mu.Lock()
	c.ownStep = name
	c.mu.Unlock()
	return c.write(frame{Kind: kindStep, Step: name}, -1)
}

// PeerStep is the last step the other side reported ("" before the first).
func (c *Conn) PeerStep() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.peerStep
}

// Send marshals v as JSON and sends it as one message.
func (c *Conn) Send(v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("proc: send %T: %w", v, err)
	}
	return c.write(frame{Kind: kindMsg, Data: data}, -1)
}

// SendFD sends the descriptor fd with SCM_RIGHTS, together with v (any JSON
// value, or nil). The receiver gets its own descriptor for the same open
// file; the sender keeps fd and closes it when it no longer needs it.
func (c *Conn) SendFD(fd int, v any) error {
	if fd < 0 {
		return fmt.Errorf("proc: send fd %d: not a descriptor", fd)
	}
	var data json.RawMessage
	if v != nil {
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("proc: send fd with %T: %w", v, err)
		}
		data = b
	}
	return c.write(frame{Kind: kindFD, Data: data}, fd)
}

// Recv waits for the next message and unmarshals it into v (a pointer, or
// nil to discard it). It fails when the next item is a descriptor, when the
// other side closed the connection (wrapping ErrClosed) and at the deadline.
func (c *Conn) Recv(v any) error {
	in, err := c.next(kindMsg)
	if err != nil {
		return err
	}
	if v == nil {
		return nil
	}
	if err := json.Unmarshal(in.data, v); err != nil {
		return fmt.Errorf("proc: receive into %T: %w (message %.200s)", v, err, in.data)
	}
	return nil
}

// RecvFD waits for the next descriptor sent with SendFD and unmarshals the
// value sent with it into v (nil to discard). The caller owns the returned
// file and must close it (the fixture's descriptor-leak check counts it).
func (c *Conn) RecvFD(v any) (*os.File, error) {
	in, err := c.next(kindFD)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(in.fd), "scm-rights")
	if v != nil && len(in.data) > 0 {
		if err := json.Unmarshal(in.data, v); err != nil {
			f.Close()
			return nil, fmt.Errorf("proc: receive fd with %T: %w", v, err)
		}
	}
	return f, nil
}

// Close closes the connection and every received descriptor nobody took.
func (c *Conn) Close() error {
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

func (c *Conn) next(kind string) (inbound, error) {
	var timer <-chan time.Time
	if !c.deadline.IsZero() {
		t := time.NewTimer(time.Until(c.deadline))
		defer t.Stop()
		timer = t.C
	}
	for {
		c.mu.Lock()
		if len(c.queue) > 0 {
			in := c.queue[0]
			c.queue = c.queue[1:]
			c.mu.Unlock()
			if in.kind != kind {
				if in.fd >= 0 {
					syscall.Close(in.fd)
				}
				return inbound{}, fmt.Errorf("proc: expected a %s from the other side, got a %s (the two sides disagree on the protocol)", kindName(kind), kindName(in.kind))
			}
			return in, nil
		}
		rerr, step := c.readErr, c.peerStep
		c.mu.Unlock()
		if rerr != nil {
			return inbound{}, fmt.Errorf("proc: waiting for a %s: %w (other side's last step %q)", kindName(kind), rerr, step)
		}
		select {
		case <-c.notify:
		case <-timer:
			return inbound{}, fmt.Errorf("proc: no %s before the deadline %s (other side's last step %q)",
				kindName(kind), c.deadline.Format(time.RFC3339Nano), c.PeerStep())
		}
	}
}

func kindName(k string) string {
	switch k {
	case kindFD:
		return "file descriptor"
	case kindBadFD:
		return "descriptor frame without exactly one descriptor"
	}
	return "message"
}

func (c *Conn) write(f frame, fd int) error {
	b, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("proc: encode frame: %w", err)
	}
	if len(b) > MaxMessage {
		return fmt.Errorf("proc: message of %d bytes exceeds MaxMessage (%d)", len(b), MaxMessage)
	}
	var oob []byte
	if fd >= 0 {
		oob = syscall.UnixRights(fd)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if !c.deadline.IsZero() {
		// Past the deadline a helper still reports its result.
		c.uc.SetWriteDeadline(c.deadline.Add(2 * hardStopGrace))
	}
	if _, _, err := c.uc.WriteMsgUnix(b, oob, nil); err != nil {
		return fmt.Errorf("proc: send %s: %w", f.Kind, err)
	}
	return nil
}

// read runs for the life of the connection: it files step and result frames
// at once (so the parent knows the helper's step even while it does not
// receive) and queues messages and descriptors in order.
func (c *Conn) read() {
	defer close(c.done)
	buf := make([]byte, MaxMessage+1024)
	oob := make([]byte, syscall.CmsgSpace(4*16))
	for {
		n, oobn, _, _, err := c.uc.ReadMsgUnix(buf, oob)
		if err == nil && n == 0 && oobn == 0 {
			err = ErrClosed // orderly shutdown of a SOCK_SEQPACKET peer
		}
		if err != nil {
			if errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.ECONNRESET) || isEOF(err) {
				err = ErrClosed
			}
			c.stop(err)
			return
		}
		fds := parseRights(oob[:oobn])
		var f frame
		if jerr := json.Unmarshal(buf[:n], &f); jerr != nil {
			closeAll(fds)
			c.stop(fmt.Errorf("proc: malformed frame from the other side: %w", jerr))
			return
		}
		c.file(f, fds)
	}
}

func (c *Conn) file(f frame, fds []int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	defer c.signal()
	switch f.Kind {
	case kindStep:
		c.peerStep = f.Step
	case kindResult:
		c.res = f.Result
	case kindMsg:
		c.queue = append(c.queue, inbound{kind: kindMsg, data: f.Data, fd: -1})
	case kindFD:
		if len(fds) != 1 {
			closeAll(fds)
			c.queue = append(c.queue, inbound{kind: kindBadFD, fd: -1})
			return
		}
		syscall.CloseOnExec(fds[0])
		c.queue = append(c.queue, inbound{kind: kindFD, data: f.Data, fd: fds[0]})
		return
	}
	closeAll(fds)
}

func (c *Conn) stop(err error) {
	c.mu.Lock()
	c.readErr = err
	c.mu.Unlock()
	c.signal()
}

func (c *Conn) signal() {
	select {
	case c.notify <- struct{}{}:
	default:
	}
}

func (c *Conn) result() *result {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.res
}

func parseRights(oob []byte) []int {
	if len(oob) == 0 {
		return nil
	}
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var fds []int
	for _, m := range msgs {
		if r, err := syscall.ParseUnixRights(&m); err == nil {
			fds = append(fds, r...)
		}
	}
	return fds
}

func closeAll(fds []int) {
	for _, fd := range fds {
		syscall.Close(fd)
	}
}

func isEOF(err error) bool { return errors.Is(err, io.EOF) }
