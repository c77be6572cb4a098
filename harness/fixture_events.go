// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	. "github.com/onsi/ginkgo/v2"
)

// Event operations of the fixture. Specs order work across streams and GPUs
// with events and time copies with them; a failed record or wait is a broken
// setup, not the observation, so these fail the spec with a message naming
// the call and the GPUs. A spec whose observation is the event's state (not
// ready yet, done) queries it through Raw.

// RecordEvent records e on s (cuEventRecord) and fails the spec if the
// driver refuses.
func (h *Harness) RecordEvent(e Event, s Stream) {
	if err := h.b.RecordEvent(e, s); err != nil {
		GinkgoHelper()
		ExpectNoError(err, "cuEventRecord of an event of GPU%d on a stream of GPU%d", int(e.Device()), int(s.Device()))
	}
}

// StreamWaitEvent makes s wait for e (cuStreamWaitEvent; e may belong to
// another GPU) and fails the spec if the driver refuses.
func (h *Harness) StreamWaitEvent(s Stream, e Event) {
	if err := h.b.StreamWaitEvent(s, e); err != nil {
		GinkgoHelper()
		ExpectNoError(err, "cuStreamWaitEvent: a stream of GPU%d waiting for an event of GPU%d", int(s.Device()), int(e.Device()))
	}
}

// ElapsedTime is the time in milliseconds between two completed events
// (cuEventElapsedTime); the spec fails if the driver cannot tell it.
func (h *Harness) ElapsedTime(start, end Event) float32 {
	GinkgoHelper()
	ms, err := h.b.ElapsedTime(start, end)
	ExpectNoError(err, "cuEventElapsedTime between an event of GPU%d and an event of GPU%d", int(start.Device()), int(end.Device()))
	return ms
}
