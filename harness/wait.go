// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuerr"
)

// ErrTimeout is wrapped by every error of a wait that ran out of time.
var ErrTimeout = errors.New("timed out")

// WaitFor polls done until it reports true or an error, or until ctx ends.
// A blocking driver call cannot be interrupted, so the harness never makes
// one: it polls, and a hang becomes an error naming step.
func WaitFor(ctx context.Context, step string, done func() (bool, error)) error {
	start := time.Now()
	sleep := time.Duration(0)
	for i := 0; ; i++ {
		ok, err := done()
		if err != nil {
			return fmt.Errorf("%s: %w", step, err)
		}
		if ok {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%w after %s waiting for %s", ErrTimeout, time.Since(start).Round(time.Millisecond), step)
		}
		// Spin briefly (completions are often microseconds away), then back off.
		switch {
		case i < 200:
			runtime.Gosched()
			continue
		case sleep == 0:
			sleep = 5 * time.Microsecond
		case sleep < time.Millisecond:
			sleep *= 2
		}
		select {
		case <-ctx.Done():
		case <-time.After(sleep):
		}
	}
}

// Wait polls s until its work is done. A fault in the work (e.g.
// ILLEGAL_ADDRESS) is returned as the error.
func (h *Harness) Wait(ctx context.Context, s backend.Stream, step string) error {
	return WaitFor(ctx, fmt.Sprintf("%s (stream of GPU%d)", step, int(s.Device())), func() (bool, error) {
		return queryDone(h.b.StreamQuery(s))
	})
}

// WaitEvent polls e until it has completed.
func (h *Harness) WaitEvent(ctx context.Context, e backend.Event, step string) error {
	return WaitFor(ctx, fmt.Sprintf("%s (event of GPU%d)", step, int(e.Device())), func() (bool, error) {
		return queryDone(h.b.EventQuery(e))
	})
}

// MustWait is Wait that fails the spec on error; the message carries step,
// the stream's GPU and the driver's error or the time waited.
func (h *Harness) MustWait(ctx context.Context, s backend.Stream, step string) {
	GinkgoHelper()
	ExpectNoError(h.Wait(ctx, s, step), "wait")
}

// MustWaitEvent is WaitEvent that fails the spec on error, like MustWait.
func (h *Harness) MustWaitEvent(ctx context.Context, e backend.Event, step string) {
	GinkgoHelper()
	ExpectNoError(h.WaitEvent(ctx, e, step), "wait")
}

func queryDone(err error) (bool, error) {
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, cuerr.NotReady):
		return false, nil
	}
	return false, err
}
