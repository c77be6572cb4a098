// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package proc

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
)

// Frame kinds on the wire.
const (
	kindMsg    = "msg"     // a request (to the helper) or a reply (from it)
	kindFD     = "fd"      // a descriptor with SCM_RIGHTS, or none when the call carried none
	kindWantFD = "want-fd" // the role asks for the descriptor its call carries
	kindEnd    = "end"     // the spec ends the session
	kindStep   = "step"    // the helper entered a step
	kindResult = "result"  // how the helper's role ended
	// kindBadFD is queued (never sent) for a descriptor frame that did not
	// carry exactly one descriptor, so the receiver's wait for it fails.
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

// result is what a helper reports when its role ends.
type result struct {
	OK       bool   `json:"ok"`
	Message  string `json:"msg,omitempty"`
	Func     string `json:"func,omitempty"`
	Code     *int32 `json:"code,omitempty"`
	TimedOut bool   `json:"timedOut,omitempty"`
	Panic    bool   `json:"panic,omitempty"`
}

// write sends f as one frame, with fd as SCM_RIGHTS when fd >= 0.
func (c *conn) write(f frame, fd int) error {
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
		if err := c.uc.SetWriteDeadline(c.deadline.Add(2 * hardStopGrace)); err != nil {
			return fmt.Errorf("proc: send %s: bound the write: %w", f.Kind, err)
		}
	}
	if _, _, err := c.uc.WriteMsgUnix(b, oob, nil); err != nil {
		return fmt.Errorf("proc: send %s: %w", f.Kind, err)
	}
	return nil
}

// read runs for the life of the connection: it files step and result frames
// at once and queues the others in order.
func (c *conn) read() {
	defer close(c.done)
	buf := make([]byte, MaxMessage+1024)
	oob := make([]byte, syscall.CmsgSpace(4*16))
	for {
		n, oobn, _, _, err := c.uc.ReadMsgUnix(buf, oob)
		if err == nil && n == 0 && oobn == 0 {
			err = ErrClosed // orderly shutdown of a SOCK_SEQPACKET peer
		}
		if err != nil {
			if errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) {
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

func (c *conn) file(f frame, fds []int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	defer c.wake()
	switch f.Kind {
	case kindStep:
		c.peerStep = f.Step
	case kindResult:
		c.res = f.Result
	case kindFD:
		if len(fds) != 1 {
			closeAll(fds)
			c.queue = append(c.queue, inbound{kind: kindBadFD, fd: -1})
			return
		}
		syscall.CloseOnExec(fds[0])
		c.queue = append(c.queue, inbound{kind: kindFD, fd: fds[0]})
		return
	default:
		c.queue = append(c.queue, inbound{kind: f.Kind, data: f.Data, fd: -1})
	}
	closeAll(fds)
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
