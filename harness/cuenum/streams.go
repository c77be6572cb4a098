// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cuenum

// StreamFlags are cuStreamCreate flags (CUstream_flags).
type StreamFlags uint32

// StreamNonBlocking (CU_STREAM_NON_BLOCKING) stops the stream from
// synchronising with the NULL stream, so specs control all ordering.
const StreamNonBlocking StreamFlags = 0x1

// EventFlags are cuEventCreate flags (CUevent_flags).
type EventFlags uint32

// Event flags. Interprocess events need EventDisableTiming too.
const (
	EventDefault       EventFlags = 0x0
	EventBlockingSync  EventFlags = 0x1
	EventDisableTiming EventFlags = 0x2
	EventInterprocess  EventFlags = 0x4
)
