// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package proc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
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
	EnvArgs     = "P2PCONF_HELPER_ARGS"     // JSON array of strings
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

// RoleFunc is a helper's body. ctx ends at the helper's deadline; c talks to
// the spec that started it. A returned error is reported to the parent,
// with its CUDA code when it carries one.
type RoleFunc func(ctx context.Context, c *Conn) error

var (
	rolesMu sync.Mutex
	roles   = map[string]RoleFunc{}
)

// Register makes a role available to Start and Dispatch and returns its
// name. Call it in a package-level var of the suite's test package, so the
// re-executed binary knows the role before TestMain runs:
//
//	var faultRole = proc.Register("access.fault-on-peer", faultOnPeer)
//
// Registering a name twice panics.
func Register(name string, fn RoleFunc) string {
	rolesMu.Lock()
	defer rolesMu.Unlock()
	if name == "" || fn == nil {
		panic("proc: Register needs a name and a function")
	}
	if _, dup := roles[name]; dup {
		panic(fmt.Sprintf("proc: role %q registered twice", name))
	}
	roles[name] = fn
	return name
}

// Roles lists the registered role names.
func Roles() []string {
	rolesMu.Lock()
	defer rolesMu.Unlock()
	var out []string
	for n := range roles {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func lookup(name string) (RoleFunc, bool) {
	rolesMu.Lock()
	defer rolesMu.Unlock()
	fn, ok := roles[name]
	return fn, ok
}

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

func runHelper(role string) int {
	sock, dl, args, parent := os.Getenv(EnvSocket), os.Getenv(EnvDeadline), os.Getenv(EnvArgs), os.Getenv(EnvParent)
	for _, k := range []string{EnvRole, EnvSocket, EnvDeadline, EnvArgs, EnvParent} {
		os.Unsetenv(k)
	}
	logf := func(format string, a ...any) {
		fmt.Fprintf(os.Stderr, "p2pconf helper %s (pid %d): %s\n", role, os.Getpid(), fmt.Sprintf(format, a...))
	}
	// Pdeathsig is set by the parent; this closes the window in which the
	// parent died before the child existed.
	if ppid, err := strconv.Atoi(parent); err == nil && os.Getppid() != ppid {
		logf("parent %d is gone (parent is now %d); exiting", ppid, os.Getppid())
		return ExitSetup
	}
	ns, err := strconv.ParseInt(dl, 10, 64)
	if err != nil {
		logf("bad %s=%q", EnvDeadline, dl)
		return ExitSetup
	}
	deadline := time.Unix(0, ns)
	var argv []string
	if args != "" {
		if err := json.Unmarshal([]byte(args), &argv); err != nil {
			logf("bad %s=%q: %v", EnvArgs, args, err)
			return ExitSetup
		}
	}
	fn, ok := lookup(role)
	if !ok {
		logf("unknown role (registered: %s)", strings.Join(Roles(), ", "))
		return ExitSetup
	}
	d := net.Dialer{Deadline: deadline}
	nc, err := d.Dial("unixpacket", sock)
	if err != nil {
		logf("cannot connect to the parent: %v", err)
		return ExitSetup
	}
	c := newConn(nc.(*net.UnixConn), deadline, argv)
	defer c.Close()

	// The role's context ends at the deadline; a role that ignores it is
	// ended by this timer a little later, reporting its step.
	stop := time.AfterFunc(time.Until(deadline)+hardStopGrace, func() {
		c.mu.Lock()
		step := c.ownStep
		c.mu.Unlock()
		c.write(frame{Kind: kindResult, Result: &result{TimedOut: true,
			Message: fmt.Sprintf("the role did not return by its deadline (own step %q)", step)}}, -1)
		logf("deadline passed in step %q; exiting", step)
		os.Exit(ExitTimedOut)
	})
	defer stop.Stop()
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()

	res, code := runRole(ctx, fn, c)
	if err := c.write(frame{Kind: kindResult, Result: res}, -1); err != nil {
		logf("cannot report the result: %v", err)
	}
	if !res.OK {
		logf("%s", res.Message)
	}
	return code
}

// runRole runs fn and turns its outcome into a result.
func runRole(ctx context.Context, fn RoleFunc, c *Conn) (res *result, code int) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(os.Stderr, "panic: %v\n%s", p, debug.Stack())
			res, code = &result{Panic: true, Message: fmt.Sprintf("panic: %v", p)}, ExitPanic
		}
	}()
	err := fn(ctx, c)
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

// setPdeathsig makes the child die with its parent (see start.go for the
// thread caveat).
func setPdeathsig(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
