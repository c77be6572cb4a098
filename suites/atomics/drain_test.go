// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package atomics_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/harness/backend"
)

// drainAfter waits (bounded) for the streams' queued work when the spec
// ends, before the fixture frees the memory that work uses. A spec that
// fails half-way otherwise leaves kernels and copies running into memory the
// next spec may be given. Registered after the streams and buffers it
// protects, it runs before they are released (DeferCleanup is LIFO). A
// stream that reports a fault is left to the fixture.
func drainAfter(h *harness.Harness, streams ...backend.Stream) {
	DeferCleanup(func(ctx SpecContext) {
		for _, s := range streams {
			_ = h.Wait(ctx, s, "draining the spec's stream")
		}
	}, NodeTimeout(30*time.Second))
}
