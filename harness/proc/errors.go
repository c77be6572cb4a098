// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package proc

import (
	"errors"
	"fmt"
	"time"

	"github.com/p2pconf/p2pconf/harness/cuerr"
)

// Sentinels for errors.Is on a helper's *Error.
var (
	// ErrFailed: the role returned an error (the helper reported it).
	ErrFailed = errors.New("helper failed")
	// ErrCrashed: the helper exited without reporting a result (a signal, a
	// runtime crash, os.Exit in a role).
	ErrCrashed = errors.New("helper crashed")
	// ErrTimedOut: the helper ran past its deadline (or the spec's context
	// ended) and was stopped.
	ErrTimedOut = errors.New("helper timed out")
	// ErrKilled: Helper.Kill stopped it.
	ErrKilled = errors.New("helper killed")
	// ErrStart: the helper could not be started or never connected.
	ErrStart = errors.New("helper did not start")
)

// Error is how a helper ended, when it did not succeed. It names the role,
// the helper's last reported step and, where there was one, the CUDA code the
// role failed with: errors.Is(err, cuerr.IllegalAddress) matches a helper
// whose role returned an error carrying that code.
type Error struct {
	Role string
	// Step is the last step the helper reported with Conn.Step ("" if none).
	Step string
	// Kind is one of the sentinels above.
	Kind error
	// Message is the role's error text (ErrFailed, or ErrTimedOut reported by
	// the helper itself).
	Message string
	// Func and Code are set when the role's error carried a CUDA result
	// (a *cuerr.Error or cuerr.Result in its chain); HasCode tells.
	Func    string
	Code    cuerr.Result
	HasCode bool
	// Exit is the process's exit status as the OS reports it ("exit status
	// 1", "signal: killed"), empty while it had not been reaped.
	Exit string
	// After is how long the helper ran.
	After time.Duration
}

func (e *Error) Error() string {
	step := "before its first step"
	if e.Step != "" {
		step = fmt.Sprintf("in step %q", e.Step)
	}
	var s string
	switch e.Kind {
	case ErrFailed:
		s = fmt.Sprintf("helper %s failed %s: %s", e.Role, step, e.Message)
	case ErrTimedOut:
		s = fmt.Sprintf("helper %s timed out %s after %s and was stopped", e.Role, step, e.After.Round(time.Millisecond))
		if e.Message != "" {
			s += ": " + e.Message
		}
	case ErrKilled:
		s = fmt.Sprintf("helper %s was killed %s", e.Role, step)
	case ErrStart:
		s = fmt.Sprintf("helper %s did not start: %s", e.Role, e.Message)
	default:
		s = fmt.Sprintf("helper %s crashed %s", e.Role, step)
		if e.Message != "" {
			s += ": " + e.Message
		}
	}
	if e.Exit != "" && e.Kind != ErrFailed {
		s += " (" + e.Exit + ")"
	}
	return s
}

// Is matches the kind sentinels.
func (e *Error) Is(target error) bool { return target == e.Kind }

// Unwrap exposes the CUDA error the role failed with, so errors.Is with a
// cuerr.Result and cuerr.Code work on a helper's error.
func (e *Error) Unwrap() error {
	if !e.HasCode {
		return nil
	}
	return &cuerr.Error{Func: e.Func, Code: e.Code, Detail: "in helper " + e.Role}
}
