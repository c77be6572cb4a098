// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package proc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/p2pconf/p2pconf/harness/cuerr"
)

// reapTimeout bounds the wait for a helper to be reaped once it has been
// sent SIGKILL. A process blocked in the kernel (a GPU driver call that
// does not return) is not ended by SIGKILL; the parent then reports it
// instead of hanging with it.
const reapTimeout = 10 * time.Second

// resultGrace bounds the wait, once the helper has been reaped, for the
// reader to file the result frame the helper sent before it exited.
const resultGrace = 2 * time.Second

// Helper is a running helper process, seen from the spec.
type Helper struct {
	Role  string // the role's name
	Dir   string // the private 0700 directory that held the socket
	Pid   int
	c     *conn
	start time.Time
	dl    time.Time

	mu       sync.Mutex
	stopKind error // ErrTimedOut or ErrKilled when the parent stopped it
	exited   chan struct{}
	waitErr  error // from cmd.Wait
	state    *os.ProcessState
	proc     *os.Process
	closed   bool
}

// watch stops the helper at its deadline or when ctx ends.
func (h *Helper) watch(ctx context.Context) {
	// The helper ends itself shortly after its deadline; the parent kills
	// it a little later still, in case it cannot (stopped, stuck in the
	// kernel driver).
	t := time.NewTimer(time.Until(h.dl) + 2*hardStopGrace)
	defer t.Stop()
	select {
	case <-h.exited:
	case <-t.C:
		h.stop(ErrTimedOut)
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			h.stop(ErrTimedOut)
		} else {
			h.stop(ErrKilled)
		}
	}
}

func (h *Helper) stop(kind error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	select {
	case <-h.exited:
		return
	default:
	}
	if h.stopKind == nil {
		h.stopKind = kind
	}
	if h.proc != nil {
		// An error here means the process is gone already, which is what
		// the kill is for; its exit is reaped and reported either way.
		_ = h.proc.Signal(syscall.SIGKILL)
	}
}

// stopped is why the parent stopped the helper (ErrTimedOut, ErrKilled), or
// nil.
func (h *Helper) stopped() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.stopKind
}

// Kill sends SIGKILL to the helper (if it still runs). Wait then reports
// ErrKilled with its last step.
func (h *Helper) Kill() { h.stop(ErrKilled) }

// reap waits, at most reapTimeout, until a helper that was sent SIGKILL has
// been reaped.
func (h *Helper) reap() error {
	t := time.NewTimer(reapTimeout)
	defer t.Stop()
	select {
	case <-h.exited:
		return nil
	case <-t.C:
		return fmt.Errorf("helper %s (pid %d) was not reaped within %s of SIGKILL (blocked in the kernel?)", h.Role, h.Pid, reapTimeout)
	}
}

// LastStep is the last step the helper reported ("" before the first).
func (h *Helper) LastStep() string {
	if h.c == nil {
		return ""
	}
	_, peer := h.c.stepNames()
	return peer
}

// Exited is closed when the helper process has been reaped.
func (h *Helper) Exited() <-chan struct{} { return h.exited }

// Wait waits until the helper exits and returns nil when its role
// succeeded, or an *Error: the role's error (with its CUDA code), a crash
// (with the last step and exit status), a timeout or a kill. If ctx ends
// first the helper is killed (and waited for at most reapTimeout more).
func (h *Helper) Wait(ctx context.Context) error {
	select {
	case <-h.exited:
	case <-ctx.Done():
		h.stop(ErrTimedOut)
		if err := h.reap(); err != nil {
			return &Error{Role: h.Role, Step: h.LastStep(), Kind: ErrTimedOut, Message: err.Error(), After: time.Since(h.start)}
		}
	}
	// The result frame was sent before the helper exited; the reader sees
	// it before the end of the stream.
	select {
	case <-h.c.done:
	case <-time.After(resultGrace):
	}
	return h.outcome()
}

// outcome turns the helper's exit and its reported result into nil or an
// *Error.
func (h *Helper) outcome() error {
	h.mu.Lock()
	kind, state, werr := h.stopKind, h.state, h.waitErr
	h.mu.Unlock()
	res := h.c.result()
	e := &Error{Role: h.Role, Step: h.LastStep(), After: time.Since(h.start)}
	if state != nil {
		e.Exit = state.String()
	} else if werr != nil {
		e.Exit = werr.Error()
	}
	if res != nil {
		e.Message = res.Message
		if res.Code != nil {
			e.HasCode, e.Code, e.Func = true, cuerr.Result(*res.Code), res.Func
		}
	}
	switch {
	case kind != nil && (res == nil || res.OK):
		e.Kind = kind
	case res == nil:
		e.Kind = ErrCrashed
	case res.TimedOut:
		e.Kind = ErrTimedOut
	case res.Panic:
		e.Kind = ErrCrashed
	case !res.OK:
		e.Kind = ErrFailed
	case state != nil && !state.Success():
		e.Kind, e.Message = ErrCrashed, "the role succeeded but the process exited abnormally"
	default:
		return nil
	}
	return e
}

func (h *Helper) exitText() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.state != nil {
		return h.state.String()
	}
	return "still running"
}

// Close kills the helper if it still runs, reaps it (waiting at most
// reapTimeout), closes the connection (and any descriptor received but not
// taken) and removes its directory. It is safe to call more than once.
func (h *Helper) Close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	h.mu.Unlock()
	h.stop(ErrKilled)
	errs := []error{h.reap()}
	if h.c != nil {
		errs = append(errs, h.c.Close())
	}
	if err := os.RemoveAll(h.Dir); err != nil {
		errs = append(errs, fmt.Errorf("remove the helper's directory: %w", err))
	}
	return errors.Join(errs...)
}
