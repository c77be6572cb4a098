// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package proc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/p2pconf/p2pconf/harness/cuerr"
)

// DefaultDeadline bounds a helper whose Options name no deadline and whose
// context has none.
const DefaultDeadline = 60 * time.Second

// reapTimeout bounds the wait for a helper to be reaped once it has been
// sent SIGKILL. A process blocked in the kernel (a GPU driver call that
// does not return) is not ended by SIGKILL; the parent then reports it
// instead of hanging with it.
const reapTimeout = 10 * time.Second

// Options configure a helper.
type Options struct {
	// Deadline is how long the helper may run. Zero means 80 % of the time
	// left on the Start context, or DefaultDeadline when it has no deadline.
	// It is also capped by the context, so a helper never outlives the spec
	// that started it.
	Deadline time.Duration
	// Env adds KEY=VALUE entries to the parent's environment.
	Env []string
	// Args are handed to the role (Conn.Args).
	Args []string
	// Output receives the helper's stdout and stderr (GinkgoWriter in
	// specs). Nil means os.Stderr.
	Output io.Writer
}

// Helper is a running helper process, seen from the spec. Its embedded Conn
// sends to and receives from the role.
type Helper struct {
	*Conn
	Role  string
	Dir   string // the private 0700 directory that held the socket
	Pid   int
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

// Start runs the suite binary again as a helper with the given role and
// waits for it to connect. The helper is stopped (SIGKILL) when ctx ends or
// its deadline passes, whichever is first; Close it (the harness fixture
// does) to reap it and remove its directory.
func Start(ctx context.Context, role string, opts Options) (*Helper, error) {
	if _, ok := lookup(role); !ok {
		return nil, &Error{Role: role, Kind: ErrStart, Message: "no such role registered in this binary"}
	}
	startErr := func(format string, a ...any) error {
		return &Error{Role: role, Kind: ErrStart, Message: fmt.Sprintf(format, a...)}
	}
	now := time.Now()
	deadline := now.Add(DefaultDeadline)
	if opts.Deadline > 0 {
		deadline = now.Add(opts.Deadline)
	} else if d, ok := ctx.Deadline(); ok {
		deadline = now.Add(time.Until(d) * 8 / 10)
	}
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, startErr("cannot find the test binary: %v", err)
	}
	dir, err := privateDir()
	if err != nil {
		return nil, startErr("%v", err)
	}
	sock := filepath.Join(dir, "s")
	ln, err := net.ListenUnix("unixpacket", &net.UnixAddr{Name: sock, Net: "unixpacket"})
	if err != nil {
		os.RemoveAll(dir)
		return nil, startErr("listen on %s: %v", sock, err)
	}
	argv, _ := json.Marshal(opts.Args)
	out := opts.Output
	if out == nil {
		out = os.Stderr
	}
	cmd := exec.Command(exe, "-test.run=^$") // if dispatch is missing, run nothing
	cmd.Env = append(append(os.Environ(), opts.Env...),
		EnvRole+"="+role, EnvSocket+"="+sock, EnvDeadline+"="+strconv.FormatInt(deadline.UnixNano(), 10),
		EnvArgs+"="+string(argv), EnvParent+"="+strconv.Itoa(os.Getpid()))
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = time.Second
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	setPdeathsig(cmd.SysProcAttr)

	h := &Helper{Role: role, Dir: dir, start: now, dl: deadline, exited: make(chan struct{})}
	started := make(chan error, 1)
	// Pdeathsig fires when the thread that forked the child exits, not the
	// process; the goroutine that starts the child therefore holds its
	// thread until the child has been reaped.
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		h.mu.Lock()
		h.proc, h.Pid = cmd.Process, cmd.Process.Pid
		h.mu.Unlock()
		started <- nil
		err := cmd.Wait()
		h.mu.Lock()
		h.waitErr, h.state = err, cmd.ProcessState
		h.mu.Unlock()
		close(h.exited)
	}()
	if err := <-started; err != nil {
		ln.Close()
		os.RemoveAll(dir)
		return nil, startErr("exec %s: %v", exe, err)
	}
	go h.watch(ctx)

	uc, err := accept(ln, h, deadline)
	ln.Close()
	rmErr := os.RemoveAll(dir) // nothing else ever connects
	if err != nil {
		h.Kill()
		return nil, startErr("%v", errors.Join(err, h.reap()))
	}
	if rmErr != nil {
		uc.Close()
		h.Kill()
		return nil, startErr("remove %s: %v", dir, errors.Join(rmErr, h.reap()))
	}
	h.Conn = newConn(uc, deadline, nil)
	return h, nil
}

// privateDir makes a 0700 directory for the socket, short enough for a
// socket path (108 bytes) even when TMPDIR is long.
func privateDir() (string, error) {
	base := os.TempDir()
	if len(base) > 80 {
		base = "/tmp"
	}
	dir, err := os.MkdirTemp(base, "p2pconf-helper-")
	if err != nil {
		return "", fmt.Errorf("create the helper's private directory: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("chmod 0700 %s: %w", dir, err)
	}
	return dir, nil
}

// accept waits for the helper's connection, giving up when the helper exits
// first or the deadline passes, and checks that the peer is the helper.
func accept(ln *net.UnixListener, h *Helper, deadline time.Time) (*net.UnixConn, error) {
	type got struct {
		uc  *net.UnixConn
		err error
	}
	ch := make(chan got, 1)
	ln.SetDeadline(deadline)
	go func() {
		uc, err := ln.AcceptUnix()
		ch <- got{uc, err}
	}()
	select {
	case g := <-ch:
		if g.err != nil {
			return nil, fmt.Errorf("no connection from the helper before its deadline: %v", g.err)
		}
		if err := checkPeer(g.uc, h.Pid); err != nil {
			g.uc.Close()
			return nil, err
		}
		return g.uc, nil
	case <-h.exited:
		ln.Close()
		if g := <-ch; g.uc != nil {
			g.uc.Close()
		}
		h.mu.Lock()
		stopped := h.stopKind
		h.mu.Unlock()
		if stopped != nil {
			return nil, fmt.Errorf("the helper was stopped before it connected: its deadline passed or the spec's context ended (%s)", h.exitText())
		}
		return nil, fmt.Errorf("the helper exited before connecting (%s); is proc.Dispatch called from TestMain (harness.Main)?", h.exitText())
	}
}

// checkPeer verifies with SO_PEERCRED that the connection comes from the
// helper process.
func checkPeer(uc *net.UnixConn, pid int) error {
	rc, err := uc.SyscallConn()
	if err != nil {
		return err
	}
	var cred *syscall.Ucred
	var cerr error
	if err := rc.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return err
	}
	if cerr != nil {
		return fmt.Errorf("SO_PEERCRED: %w", cerr)
	}
	if int(cred.Pid) != pid {
		return fmt.Errorf("a process other than the helper (pid %d, not %d) connected to its socket", cred.Pid, pid)
	}
	return nil
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
		h.proc.Signal(syscall.SIGKILL)
	}
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

// LastStep is the last step the helper reported.
func (h *Helper) LastStep() string {
	if h.Conn == nil {
		return ""
	}
	return h.PeerStep()
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
	case <-h.Conn.done:
	case <-time.After(2 * time.Second):
	}
	return h.outcome()
}

func (h *Helper) outcome() error {
	h.mu.Lock()
	kind, state, werr := h.stopKind, h.state, h.waitErr
	h.mu.Unlock()
	res := h.Conn.result()
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
	if h.Conn != nil {
		errs = append(errs, h.Conn.Close())
	}
	if err := os.RemoveAll(h.Dir); err != nil {
		errs = append(errs, fmt.Errorf("remove the helper's directory: %w", err))
	}
	return errors.Join(errs...)
}
