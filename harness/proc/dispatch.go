// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package proc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/p2pconf/p2pconf/harness/cuerr"
)

// Environment variables a helper is started with. They are removed from the
// helper's environment before its role runs, so that a role may start
// helpers of its own.
const (
	EnvRole     = "P2PCONF_HELPER_ROLE"     // the role to run
	EnvSocket   = "P2PCONF_HELPER_SOCKET"   // the parent's Unix socket
	EnvDeadline = "P2PCONF_HELPER_DEADLINE" // Unix nanoseconds
	EnvParent   = "P2PCONF_HELPER_PARENT"   // the parent's pid
)

// Exit codes of a helper process.
const (
	ExitOK       = 0
	ExitFailed   = 1   // the role returned an error
	ExitSetup    = 2   // unknown role, bad environment, no connection
	ExitPanic    = 3   // the role panicked
	ExitTimedOut = 124 // the helper's own deadline passed
)

// hardStopGrace is how long after its deadline a helper whose role ignores
// its context is ended by its own timer (the parent kills later still).
const hardStopGrace = 500 * time.Millisecond

// Dispatch runs a helper role when this process was started as a helper,
// and reports whether it did and the exit code. Suite binaries call it
// (through harness.Main) before running any test.
func Dispatch() (handled bool, exitCode int) {
	role := os.Getenv(EnvRole)
	if role == "" {
		return false, 0
	}
	return true, runHelper(role)
}

// helperEnv is what the parent handed the helper in its environment.
type helperEnv struct {
	role     string
	sock     string
	deadline time.Time
}

func (e helperEnv) logf(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "p2pconf helper %s (pid %d): %s\n", e.role, os.Getpid(), fmt.Sprintf(format, a...))
}

func runHelper(role string) int {
	env, err := readEnv(role)
	if err != nil {
		env.logf("%v", err)
		return ExitSetup
	}
	body, ok := lookup(role)
	if !ok {
		env.logf("unknown role (registered: %s)", strings.Join(Roles(), ", "))
		return ExitSetup
	}
	d := net.Dialer{Deadline: env.deadline}
	nc, err := d.Dial("unixpacket", env.sock)
	if err != nil {
		env.logf("cannot connect to the parent: %v", err)
		return ExitSetup
	}
	c := newConn(nc.(*net.UnixConn), env.deadline)
	defer c.Close()
	defer hardStop(env, c).Stop()
	ctx, cancel := context.WithDeadline(context.Background(), env.deadline)
	defer cancel()

	res, code := runRole(ctx, body, &Session{c: c})
	if err := c.write(frame{Kind: kindResult, Result: res}, -1); err != nil {
		env.logf("cannot report the result: %v", err)
	}
	if !res.OK {
		env.logf("%s", res.Message)
	}
	return code
}

// readEnv reads and then removes the helper's variables.
func readEnv(role string) (helperEnv, error) {
	env := helperEnv{role: role, sock: os.Getenv(EnvSocket)}
	dl, parent := os.Getenv(EnvDeadline), os.Getenv(EnvParent)
	for _, k := range []string{EnvRole, EnvSocket, EnvDeadline, EnvParent} {
		os.Unsetenv(k)
	}
	// Pdeathsig is set by the parent; this closes the window in which the
	// parent died before the child existed.
	if ppid, err := strconv.Atoi(parent); err == nil && os.Getppid() != ppid {
		return env, fmt.Errorf("parent %d is gone (parent is now %d); exiting", ppid, os.Getppid())
	}
	ns, err := strconv.ParseInt(dl, 10, 64)
	if err != nil {
		return env, fmt.Errorf("bad %s=%q", EnvDeadline, dl)
	}
	env.deadline = time.Unix(0, ns)
	return env, nil
}

// hardStop ends the helper a little after its deadline, reporting its
// step, when the role ignores its context.
func hardStop(env helperEnv, c *conn) *time.Timer {
	return time.AfterFunc(time.Until(env.deadline)+hardStopGrace, func() {
		step, _ := c.stepNames()
		// Best effort: the parent also learns the timeout from the exit code.
		if err := c.write(frame{Kind: kindResult, Result: &result{TimedOut: true,
			Message: fmt.Sprintf("the role did not return by its deadline (own step %q)", step)}}, -1); err != nil {
			env.logf("could not report the timeout to the parent: %v", err)
		}
		env.logf("deadline passed in step %q; exiting", step)
		os.Exit(ExitTimedOut)
	})
}

// runRole serves the session and turns its outcome into a result.
func runRole(ctx context.Context, body roleMain, s *Session) (res *result, code int) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(os.Stderr, "panic: %v\n%s", p, debug.Stack())
			res, code = &result{Panic: true, Message: fmt.Sprintf("panic: %v", p)}, ExitPanic
		}
	}()
	err := body(ctx, s)
	if err == nil {
		return &result{OK: true}, ExitOK
	}
	res = &result{Message: err.Error()}
	if r, ok := cuerr.Code(err); ok {
		v := int32(r)
		res.Code = &v
		var ce *cuerr.Error
		if errors.As(err, &ce) {
			res.Func = ce.Func
		}
	}
	if ctx.Err() != nil {
		res.TimedOut = true
		return res, ExitTimedOut
	}
	return res, ExitFailed
}
