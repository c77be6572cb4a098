// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package proc_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/p2pconf/p2pconf/harness/cuerr"
	"github.com/p2pconf/p2pconf/harness/proc"
)

func TestMain(m *testing.M) {
	if handled, code := proc.Dispatch(); handled {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

type ping struct {
	N    int
	Text string
}

var (
	echoRole = proc.Register("test.echo", func(ctx context.Context, c *proc.Conn) error {
		c.Step("receive")
		var p ping
		if err := c.Recv(&p); err != nil {
			return err
		}
		c.Step("reply")
		return c.Send(ping{N: p.N + 1, Text: strings.ToUpper(p.Text) + strings.Join(c.Args(), ",")})
	})
	// fdRole receives a pipe's write end and writes to it, then sends a
	// pipe's read end of its own.
	fdRole = proc.Register("test.fd", func(ctx context.Context, c *proc.Conn) error {
		c.Step("receive fd")
		var tag string
		f, err := c.RecvFD(&tag)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(f, "written by helper, tag %s", tag); err != nil {
			return err
		}
		f.Close()
		c.Step("send fd")
		r, w, err := os.Pipe()
		if err != nil {
			return err
		}
		defer r.Close()
		if _, err := w.WriteString("from the helper's pipe"); err != nil {
			return err
		}
		w.Close()
		if err := c.SendFD(int(r.Fd()), "back"); err != nil {
			return err
		}
		return c.Recv(nil) // wait until the parent has read
	})
	crashRole = proc.Register("test.crash", func(ctx context.Context, c *proc.Conn) error {
		c.Step("about to crash")
		syscall.Kill(os.Getpid(), syscall.SIGKILL) // as the kernel ends a process
		time.Sleep(time.Minute)
		return nil
	})
	hangRole = proc.Register("test.hang", func(ctx context.Context, c *proc.Conn) error {
		c.Step("spin forever")
		select {} //nolint: this role exists to hang; its own timer ends it
	})
	stopRole = proc.Register("test.stop", func(ctx context.Context, c *proc.Conn) error {
		c.Step("stopped")
		syscall.Kill(os.Getpid(), syscall.SIGSTOP) // only the parent's SIGKILL ends it
		return nil
	})
	cudaRole = proc.Register("test.cuda-error", func(ctx context.Context, c *proc.Conn) error {
		c.Step("launch faulting kernel")
		return fmt.Errorf("synchronize GPU1: %w", &cuerr.Error{Func: "cuStreamSynchronize", Code: cuerr.IllegalAddress})
	})
	sleepRole = proc.Register("test.sleep", func(ctx context.Context, c *proc.Conn) error {
		c.Step("sleep")
		<-ctx.Done()
		return ctx.Err()
	})
)

func start(t *testing.T, role string, opts proc.Options) *proc.Helper {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	if opts.Output == nil {
		opts.Output = testWriter{t}
	}
	h, err := proc.Start(ctx, role, opts)
	if err != nil {
		t.Fatalf("start %s: %v", role, err)
	}
	t.Cleanup(func() {
		if err := h.Close(); err != nil {
			t.Errorf("close %s: %v", role, err)
		}
		if _, err := os.Stat(h.Dir); !os.IsNotExist(err) {
			t.Errorf("helper directory %s still exists after Close (stat: %v)", h.Dir, err)
		}
	})
	return h
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Logf("helper: %s", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func TestRoundTrip(t *testing.T) {
	h := start(t, echoRole, proc.Options{Args: []string{"a", "b"}})
	if _, err := os.Stat(h.Dir); !os.IsNotExist(err) {
		t.Errorf("the private directory %s should be gone once the helper connected (stat: %v)", h.Dir, err)
	}
	if err := h.Send(ping{N: 41, Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	var got ping
	if err := h.Recv(&got); err != nil {
		t.Fatal(err)
	}
	if want := (ping{N: 42, Text: "HIa,b"}); got != want {
		t.Errorf("echo: got %+v, want %+v", got, want)
	}
	if err := h.Wait(context.Background()); err != nil {
		t.Errorf("wait: %v", err)
	}
	if s := h.LastStep(); s != "reply" {
		t.Errorf("last step %q, want %q", s, "reply")
	}
}

func TestFDPassing(t *testing.T) {
	before := countFDs(t)
	h := start(t, fdRole, proc.Options{})
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := h.SendFD(int(w.Fd()), "t1"); err != nil {
		t.Fatal(err)
	}
	w.Close() // the helper holds its own copy now
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if want := "written by helper, tag t1"; string(got) != want {
		t.Errorf("through the passed fd: got %q, want %q", got, want)
	}
	var tag string
	f, err := h.RecvFD(&tag)
	if err != nil {
		t.Fatal(err)
	}
	back, err := io.ReadAll(f)
	f.Close()
	if err != nil || string(back) != "from the helper's pipe" || tag != "back" {
		t.Errorf("fd from helper: read %q (err %v), tag %q", back, err, tag)
	}
	if err := h.Send("done"); err != nil {
		t.Fatal(err)
	}
	if err := h.Wait(context.Background()); err != nil {
		t.Errorf("wait: %v", err)
	}
	h.Close()
	r.Close()
	if after := countFDs(t); after > before {
		t.Errorf("%d descriptors before, %d after", before, after)
	}
}

func TestCrashNamesStep(t *testing.T) {
	h := start(t, crashRole, proc.Options{Output: io.Discard})
	err := h.Wait(context.Background())
	var pe *proc.Error
	if !errors.As(err, &pe) || !errors.Is(err, proc.ErrCrashed) {
		t.Fatalf("want a crash error, got %v", err)
	}
	for _, want := range []string{"helper test.crash crashed", `"about to crash"`, "signal: killed"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	// Receiving from a dead helper fails at once rather than at the deadline.
	if rerr := h.Recv(nil); !errors.Is(rerr, proc.ErrClosed) {
		t.Errorf("recv from a crashed helper: %v, want ErrClosed", rerr)
	}
}

func TestTimeoutNamesStep(t *testing.T) {
	for _, role := range []string{hangRole, stopRole} {
		t.Run(role, func(t *testing.T) {
			begin := time.Now()
			h := start(t, role, proc.Options{Deadline: 500 * time.Millisecond, Output: io.Discard})
			err := h.Wait(context.Background())
			if !errors.Is(err, proc.ErrTimedOut) {
				t.Fatalf("want a timeout, got %v", err)
			}
			if want := "helper " + role + " timed out in step"; !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not contain %q", err, want)
			}
			if d := time.Since(begin); d > 5*time.Second {
				t.Errorf("the helper was stopped only after %s", d)
			}
		})
	}
	t.Run("cooperative", func(t *testing.T) {
		h := start(t, sleepRole, proc.Options{Deadline: 300 * time.Millisecond, Output: io.Discard})
		err := h.Wait(context.Background())
		if !errors.Is(err, proc.ErrTimedOut) || !strings.Contains(err.Error(), `"sleep"`) {
			t.Errorf("want a timeout in step sleep, got %v", err)
		}
	})
}

func TestKill(t *testing.T) {
	h := start(t, sleepRole, proc.Options{Deadline: 20 * time.Second})
	for h.LastStep() != "sleep" {
		time.Sleep(time.Millisecond)
	}
	h.Kill()
	err := h.Wait(context.Background())
	if !errors.Is(err, proc.ErrKilled) || !strings.Contains(err.Error(), `was killed in step "sleep"`) {
		t.Errorf("want killed in step sleep, got %v", err)
	}
}

func TestContextEndStopsHelper(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	h, err := proc.Start(ctx, sleepRole, proc.Options{Deadline: 20 * time.Second, Output: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	cancel()
	select {
	case <-h.Exited():
	case <-time.After(5 * time.Second):
		t.Fatal("the helper outlived its context")
	}
}

func TestCUDACodeCrossesProcesses(t *testing.T) {
	h := start(t, cudaRole, proc.Options{Output: io.Discard})
	err := h.Wait(context.Background())
	if !errors.Is(err, cuerr.IllegalAddress) || !errors.Is(err, proc.ErrFailed) {
		t.Fatalf("want ILLEGAL_ADDRESS from the helper, got %v", err)
	}
	if code, _ := cuerr.Code(err); code != cuerr.IllegalAddress {
		t.Errorf("cuerr.Code = %v", code)
	}
	if !strings.Contains(err.Error(), `failed in step "launch faulting kernel"`) {
		t.Errorf("error %q does not name the step", err)
	}
}

func TestUnknownRole(t *testing.T) {
	_, err := proc.Start(context.Background(), "no.such.role", proc.Options{})
	if !errors.Is(err, proc.ErrStart) {
		t.Errorf("want ErrStart, got %v", err)
	}
}

func countFDs(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}
