// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/health"
)

// A critical event fails the spec only on the spec's own GPUs, and a
// provoked fault's Xids pass only when the spec said it provokes faults.
func TestSortEventsAttributesEventsToTheSpecsGPUs(t *testing.T) {
	xid := func(gpu string, n uint64) health.Event {
		return health.Event{GPU: gpu, Type: nvml.EventTypeXidCriticalError, Xid: n}
	}
	ecc := health.Event{GPU: "GPU1", Type: nvml.EventTypeDoubleBitEccError}
	evs := []health.Event{xid("GPU0", 31), xid("GPU1", 31), xid("GPU1", 79), ecc, xid("GPU2", 13)}
	pair := []backend.Device{0, 1}
	for _, c := range []struct {
		name                     string
		gpus                     []backend.Device
		provoked                 bool
		bad, expected, elsewhere int
	}{
		{"pair spec", pair, false, 4, 0, 1},
		{"pair spec that provokes faults", pair, true, 2, 2, 1}, // Xid 79 and the ECC error still fail
		{"GPU2 spec", []backend.Device{2}, false, 1, 0, 4},
		{"GPU2 spec that provokes faults", []backend.Device{2}, true, 0, 1, 4},
		{"machine-wide spec", nil, false, 5, 0, 0},
	} {
		bad, expected, elsewhere := sortEvents(evs, c.gpus, c.provoked)
		if len(bad) != c.bad || len(expected) != c.expected || len(elsewhere) != c.elsewhere {
			t.Errorf("%s: %d fail, %d expected, %d elsewhere; want %d, %d, %d", c.name,
				len(bad), len(expected), len(elsewhere), c.bad, c.expected, c.elsewhere)
		}
	}
}
