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
	"testing"
	"time"

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

// serving registers a role answered by fn, with nothing to release.
func serving[Req, Rep any](name string, fn func(ctx context.Context, s *proc.Session, req Req) (Rep, error)) proc.Role[Req, Rep] {
	return proc.Register(name, func(context.Context, *proc.Session) (proc.Server[Req, Rep], error) {
		return proc.ServerFunc[Req, Rep](fn), nil
	})
}

// counter counts the requests of one session. Its End fails after more
// than one request, naming how many it served, so a test sees that End ran
// on the role's state and that its error reaches the spec.
type counter struct{ n int }

func (c *counter) Serve(_ context.Context, s *proc.Session, req ping) (ping, error) {
	c.n++
	s.Step(fmt.Sprintf("request %d", c.n))
	return ping{N: c.n, Text: req.Text}, nil
}

func (c *counter) End(context.Context) error {
	if c.n > 1 {
		return fmt.Errorf("served %d requests, released nothing", c.n)
	}
	return nil
}

var (
	echoRole = serving("test.echo", func(_ context.Context, s *proc.Session, p ping) (ping, error) {
		s.Step("reply")
		return ping{N: p.N + 1, Text: strings.ToUpper(p.Text)}, nil
	})
	counterRole = proc.Register("test.counter", func(context.Context, *proc.Session) (proc.Server[ping, ping], error) {
		return &counter{}, nil
	})
	// fdRole writes its request's text to the descriptor the request
	// carries, unless told to answer without taking it.
	fdRole = serving("test.fd", func(ctx context.Context, s *proc.Session, p ping) (ping, error) {
		if p.N < 0 {
			return ping{N: -1}, nil
		}
		s.Step("receive fd")
		f, err := s.RecvFD(ctx)
		if err != nil {
			return ping{}, err
		}
		defer f.Close()
		_, err = fmt.Fprintf(f, "written by helper: %s", p.Text)
		return ping{N: p.N}, err
	})
)

func start[Req, Rep any](t *testing.T, role proc.Role[Req, Rep], opts proc.Options) *proc.Client[Req, Rep] {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	if opts.Output == nil {
		opts.Output = testWriter{t}
	}
	c, err := role.Start(ctx, opts)
	if err != nil {
		t.Fatalf("start %s: %v", role.Name(), err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("close %s: %v", role.Name(), err)
		}
		if _, err := os.Stat(c.Dir); !os.IsNotExist(err) {
			t.Errorf("helper directory %s still exists after Close (stat: %v)", c.Dir, err)
		}
	})
	return c
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Logf("helper: %s", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func TestCallAndEnd(t *testing.T) {
	c := start(t, echoRole, proc.Options{})
	if _, err := os.Stat(c.Dir); !os.IsNotExist(err) {
		t.Errorf("the private directory %s should be gone once the helper connected (stat: %v)", c.Dir, err)
	}
	ctx := context.Background()
	for i, text := range []string{"hi", "again"} {
		got, err := c.Call(ctx, ping{N: 41 + i, Text: text})
		if err != nil {
			t.Fatal(err)
		}
		if want := (ping{N: 42 + i, Text: strings.ToUpper(text)}); got != want {
			t.Errorf("call %d: got %+v, want %+v", i, got, want)
		}
	}
	if err := c.End(ctx); err != nil {
		t.Errorf("end: %v", err)
	}
	if s := c.LastStep(); s != "end the session" {
		t.Errorf("last step %q, want %q", s, "end the session")
	}
}

func TestEndReleasesState(t *testing.T) {
	ctx := context.Background()
	c := start(t, counterRole, proc.Options{})
	for n := 1; n <= 2; n++ {
		if got, err := c.Call(ctx, ping{}); err != nil || got.N != n {
			t.Fatalf("request %d: got %+v, %v", n, got, err)
		}
	}
	err := c.End(ctx)
	if !errors.Is(err, proc.ErrFailed) || !strings.Contains(err.Error(), `failed in step "end the session": served 2 requests`) {
		t.Errorf("want the End error of the role's state, got %v", err)
	}
}

func TestCallFD(t *testing.T) {
	before := countFDs(t)
	ctx := context.Background()
	c := start(t, fdRole, proc.Options{})
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rep, taken, err := c.CallFD(ctx, ping{N: 1, Text: "t1"}, int(w.Fd()))
	if err != nil || !taken || rep.N != 1 {
		t.Fatalf("call with fd: %+v, taken %v, %v", rep, taken, err)
	}
	w.Close() // the helper closed its own copy already
	if got, err := io.ReadAll(r); err != nil || string(got) != "written by helper: t1" {
		t.Errorf("through the passed fd: got %q (%v)", got, err)
	}
	if rep, taken, err := c.CallFD(ctx, ping{N: -1}, int(r.Fd())); err != nil || taken || rep.N != -1 {
		t.Errorf("a role that answers without the fd: %+v, taken %v, %v", rep, taken, err)
	}
	if err := c.End(ctx); err != nil {
		t.Errorf("end: %v", err)
	}
	c.Close()
	r.Close()
	if after := countFDs(t); after > before {
		t.Errorf("%d descriptors before, %d after", before, after)
	}
}

func TestCallWithoutTheFDTheRoleAsksFor(t *testing.T) {
	c := start(t, fdRole, proc.Options{Output: io.Discard})
	_, err := c.Call(context.Background(), ping{N: 1})
	if !errors.Is(err, proc.ErrFailed) || !strings.Contains(err.Error(), `failed in step "receive fd"`) {
		t.Errorf("want the role's failure in step receive fd, got %v", err)
	}
}

func countFDs(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}
