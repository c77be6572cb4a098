// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package proc

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
)

// Role names a registered helper role whose requests are Req and whose
// replies are Rep. Both travel as JSON, so their exported fields are what
// crosses the process boundary.
type Role[Req, Rep any] struct{ name string }

// Name is the name the role was registered with.
func (r Role[Req, Rep]) Name() string { return r.name }

// Server answers a role's requests inside the helper process, one at a time
// and in order. A returned error ends the role: the helper reports it (with
// its CUDA code when it carries one) and the spec's pending Call fails with
// it and the step the helper was in. An outcome the spec asserts on, such as
// an expected driver error, belongs in the reply instead.
type Server[Req, Rep any] interface {
	Serve(ctx context.Context, s *Session, req Req) (Rep, error)
}

// Ender is implemented by a Server that holds something to release when the
// spec ends the session (Client.End). It is not called after a Serve error:
// the helper process exits then, which releases what it held.
type Ender interface {
	End(ctx context.Context) error
}

// ServerFunc adapts a function to a Server with nothing to release.
type ServerFunc[Req, Rep any] func(ctx context.Context, s *Session, req Req) (Rep, error)

// Serve calls f.
func (f ServerFunc[Req, Rep]) Serve(ctx context.Context, s *Session, req Req) (Rep, error) {
	return f(ctx, s, req)
}

// OpenFunc makes a role's Server once per helper process, before the first
// request; an error ends the role.
type OpenFunc[Req, Rep any] func(ctx context.Context, s *Session) (Server[Req, Rep], error)

// roleMain is a registered role with its types erased: it serves the session
// until the spec ends it or something fails.
type roleMain func(ctx context.Context, s *Session) error

var (
	rolesMu sync.Mutex
	roles   = map[string]roleMain{}
)

// Register makes a role available to Role.Start and Dispatch. Call it in a
// package-level var of the suite's test package, so the re-executed binary
// knows the role before TestMain runs:
//
//	var echoRole = proc.Register("test.echo", openEcho)
//
// Registering a name twice panics.
func Register[Req, Rep any](name string, open OpenFunc[Req, Rep]) Role[Req, Rep] {
	if name == "" || open == nil {
		panic("proc: Register needs a name and an OpenFunc")
	}
	rolesMu.Lock()
	defer rolesMu.Unlock()
	if _, dup := roles[name]; dup {
		panic(fmt.Sprintf("proc: role %q registered twice", name))
	}
	roles[name] = func(ctx context.Context, s *Session) error { return serve(ctx, s, open) }
	return Role[Req, Rep]{name: name}
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

func lookup(name string) (roleMain, bool) {
	rolesMu.Lock()
	defer rolesMu.Unlock()
	fn, ok := roles[name]
	return fn, ok
}

// serve is the helper's side of a session: open the server, then answer
// requests until the spec ends the session. Every wait is bounded by the
// helper's deadline.
func serve[Req, Rep any](ctx context.Context, s *Session, open OpenFunc[Req, Rep]) error {
	s.Step("open the role")
	srv, err := open(ctx, s)
	if err != nil {
		return err
	}
	for n := 1; ; n++ {
		in, err := s.c.next(ctx, kindMsg, kindEnd)
		if err != nil {
			return fmt.Errorf("wait for request %d: %w", n, err)
		}
		if in.kind == kindEnd {
			s.Step("end the session")
			if e, ok := srv.(Ender); ok {
				return e.End(ctx)
			}
			return nil
		}
		var req Req
		if err := json.Unmarshal(in.data, &req); err != nil {
			return fmt.Errorf("decode request %d into %T: %w (message %.200s)", n, req, err, in.data)
		}
		rep, err := srv.Serve(ctx, s, req)
		if err != nil {
			return err
		}
		if err := s.c.send(rep); err != nil {
			return fmt.Errorf("reply to request %d: %w", n, err)
		}
	}
}
