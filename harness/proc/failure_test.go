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

// How a helper that does not answer is reported: every error names the
// step the helper was in, and no wait outlives the helper's deadline by
// more than the stop's grace.

var (
	cudaRole = serving("test.cuda-error", func(_ context.Context, s *proc.Session, _ ping) (ping, error) {
		s.Step("launch faulting kernel")
		return ping{}, fmt.Errorf("synchronize GPU1: %w", &cuerr.Error{Func: "cuStreamSynchronize", Code: cuerr.IllegalAddress})
	})
	// hangRole stops answering in the step its request names: "spin" ignores the
	// context, "stop" stops the process (only SIGKILL ends it), "crash"
	// dies as the kernel ends a process, "sleep" waits for the context.
	hangRole = serving("test.hang", func(ctx context.Context, s *proc.Session, p ping) (ping, error) {
		s.Step(p.Text)
		switch p.Text {
		case "spin":
			select {}
		case "stop":
			if err := syscall.Kill(os.Getpid(), syscall.SIGSTOP); err != nil {
				return ping{}, err
			}
		case "crash":
			if err := syscall.Kill(os.Getpid(), syscall.SIGKILL); err != nil {
				return ping{}, err
			}
			time.Sleep(time.Minute)
		}
		<-ctx.Done()
		return ping{}, ctx.Err()
	})
)

func TestCrashNamesStep(t *testing.T) {
	c := start(t, hangRole, proc.Options{Output: io.Discard})
	_, err := c.Call(context.Background(), ping{Text: "crash"})
	if !errors.Is(err, proc.ErrCrashed) {
		t.Fatalf("want a crash error, got %v", err)
	}
	for _, want := range []string{"helper test.hang crashed", `"crash"`, "signal: killed", proc.ErrClosed.Error()} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}

// TestHangNamesStep: a helper that hangs in a step fails the call soon after
// its deadline, with the step, whether its role ignores its context, stops
// the process or waits for the context to end.
func TestHangNamesStep(t *testing.T) {
	for _, step := range []string{"spin", "stop", "sleep"} {
		t.Run(step, func(t *testing.T) {
			c := start(t, hangRole, proc.Options{Deadline: 500 * time.Millisecond, Output: io.Discard})
			_, err := c.Call(context.Background(), ping{Text: step})
			t.Logf("call: %v", err)
			if !errors.Is(err, proc.ErrTimedOut) {
				t.Fatalf("want a timeout, got %v", err)
			}
			if want := fmt.Sprintf("helper test.hang timed out in step %q", step); !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not contain %q", err, want)
			}
			if err := c.Wait(context.Background()); !errors.Is(err, proc.ErrTimedOut) {
				t.Errorf("wait after the failed call: %v", err)
			}
		})
	}
}

func TestKill(t *testing.T) {
	c := start(t, hangRole, proc.Options{Deadline: 20 * time.Second})
	called := make(chan error, 1)
	go func() {
		_, err := c.Call(context.Background(), ping{Text: "sleep"})
		called <- err
	}()
	for c.LastStep() != "sleep" {
		time.Sleep(time.Millisecond)
	}
	c.Kill()
	for _, err := range []error{<-called, c.Wait(context.Background())} {
		if !errors.Is(err, proc.ErrKilled) || !strings.Contains(err.Error(), `was killed in step "sleep"`) {
			t.Errorf("want killed in step sleep, got %v", err)
		}
	}
}

func TestContextEndStopsHelper(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	c, err := hangRole.Start(ctx, proc.Options{Deadline: 20 * time.Second, Output: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cancel()
	select {
	case <-c.Exited():
	case <-time.After(5 * time.Second):
		t.Fatal("the helper outlived its context")
	}
}

func TestCUDACodeCrossesProcesses(t *testing.T) {
	c := start(t, cudaRole, proc.Options{Output: io.Discard})
	_, err := c.Call(context.Background(), ping{})
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
	_, err := proc.Role[ping, ping]{}.Start(context.Background(), proc.Options{})
	if !errors.Is(err, proc.ErrStart) {
		t.Errorf("want ErrStart, got %v", err)
	}
}
