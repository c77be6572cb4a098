// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package proc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"time"
)

// DefaultDeadline bounds a helper whose Options name no deadline and whose
// context has none.
const DefaultDeadline = 60 * time.Second

// Options configure a helper.
type Options struct {
	// Deadline is how long the helper may run. Zero means 80 % of the time
	// left on the Start context, or DefaultDeadline when it has no deadline.
	// It is also capped by the context, so a helper never outlives the spec
	// that started it.
	Deadline time.Duration
	// Env adds KEY=VALUE entries to the parent's environment.
	Env []string
	// Output receives the helper's stdout and stderr (GinkgoWriter in
	// specs). Nil means os.Stderr.
	Output io.Writer
}

// start runs the suite binary again as a helper with the given role and
// waits for it to connect.
func start(ctx context.Context, role string, opts Options) (*Helper, error) {
	if _, ok := lookup(role); !ok {
		return nil, startError(role, "no such role registered in this binary")
	}
	now := time.Now()
	deadline := helperDeadline(ctx, opts.Deadline, now)
	exe, err := os.Executable()
	if err != nil {
		return nil, startError(role, "cannot find the test binary: %v", err)
	}
	dir, err := privateDir()
	if err != nil {
		return nil, startError(role, "%v", err)
	}
	sock := filepath.Join(dir, "s")
	ln, err := net.ListenUnix("unixpacket", &net.UnixAddr{Name: sock, Net: "unixpacket"})
	if err != nil {
		os.RemoveAll(dir)
		return nil, startError(role, "listen on %s: %v", sock, err)
	}
	h := &Helper{Role: role, Dir: dir, start: now, dl: deadline, exited: make(chan struct{})}
	if err := h.launch(command(exe, role, sock, deadline, opts)); err != nil {
		ln.Close()
		os.RemoveAll(dir)
		return nil, startError(role, "exec %s: %v", exe, err)
	}
	go h.watch(ctx)
	if err := h.connect(ln); err != nil {
		return nil, startError(role, "%v", err)
	}
	return h, nil
}

func startError(role, format string, a ...any) error {
	return &Error{Role: role, Kind: ErrStart, Message: fmt.Sprintf(format, a...)}
}

// helperDeadline is when a helper started now is stopped: opts' deadline or
// 80 % of the time left on ctx, never later than ctx's deadline.
func helperDeadline(ctx context.Context, d time.Duration, now time.Time) time.Time {
	deadline := now.Add(DefaultDeadline)
	ctxDeadline, bounded := ctx.Deadline()
	if d > 0 {
		deadline = now.Add(d)
	} else if bounded {
		deadline = now.Add(ctxDeadline.Sub(now) * 8 / 10)
	}
	if bounded && ctxDeadline.Before(deadline) {
		deadline = ctxDeadline
	}
	return deadline
}

// command is the helper's command line: the test binary running no tests
// (should dispatch be missing), with the parent's environment, opts.Env and
// what the helper needs to find its role and its parent.
func command(exe, role, sock string, deadline time.Time, opts Options) *exec.Cmd {
	out := opts.Output
	if out == nil {
		out = os.Stderr
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(append(os.Environ(), opts.Env...),
		EnvRole+"="+role, EnvSocket+"="+sock, EnvDeadline+"="+strconv.FormatInt(deadline.UnixNano(), 10),
		EnvParent+"="+strconv.Itoa(os.Getpid()))
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = time.Second
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // the helper dies with its parent
	return cmd
}

// launch starts cmd and reaps it in the background, closing h.exited then.
func (h *Helper) launch(cmd *exec.Cmd) error {
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
		recordStarted(cmd.Process.Pid)
		started <- nil
		err := cmd.Wait()
		h.mu.Lock()
		h.waitErr, h.state = err, cmd.ProcessState
		h.mu.Unlock()
		close(h.exited)
	}()
	return <-started
}

// connect accepts the helper's connection on ln and removes the private
// directory at once: nothing else ever connects. On failure the helper is
// killed and reaped.
func (h *Helper) connect(ln *net.UnixListener) error {
	uc, err := accept(ln, h)
	ln.Close()
	rmErr := os.RemoveAll(h.Dir)
	if err != nil {
		h.Kill()
		return errors.Join(err, h.reap())
	}
	if rmErr != nil {
		uc.Close()
		h.Kill()
		return fmt.Errorf("remove %s: %w", h.Dir, errors.Join(rmErr, h.reap()))
	}
	h.c = newConn(uc, h.dl)
	return nil
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
// first or its deadline passes, and checks that the peer is the helper.
func accept(ln *net.UnixListener, h *Helper) (*net.UnixConn, error) {
	type got struct {
		uc  *net.UnixConn
		err error
	}
	ch := make(chan got, 1)
	if err := ln.SetDeadline(h.dl); err != nil {
		return nil, fmt.Errorf("proc: bound the wait for helper %s to connect: %w", h.Role, err)
	}
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
		if h.stopped() != nil {
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
