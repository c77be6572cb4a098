// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/p2pconf/p2pconf/harness/backend"
)

// The fake backend opens by name (backend.Open), for harness/machine, with
// its limits: its timings are a model, and its memory is the test
// machine's, so a spec times or checks at most MaxTransfer bytes at once.
func init() {
	backend.Register("fake", func(s backend.OpenSettings) (backend.Backend, error) {
		b, err := Open(s.FakePreset, s.FakeDefects)
		if err != nil {
			return nil, err
		}
		return b, nil
	}, limits)
}

// limits are the fake backend's (backend.Limits): simulated timings;
// transfers of at most 4 MiB, so a spec's copies stay milliseconds of Go's
// memmove on any test machine; buffers of at most 256 MiB, since its device
// memory lives in memory-mapped files and gigabyte buffers would only make
// the self-test slow and large on disk without testing anything the
// hardware run does not.
var limits = backend.Limits{Simulated: true, Note: "simulated, not a hardware figure", MaxTransfer: 4 << 20, MaxBuffer: 256 << 20}

// The backend's NVML view, which machine.NVMLOf reads (it is not part of
// backend.Backend).
var _ interface{ NVML() nvml.Interface } = (*Backend)(nil)
