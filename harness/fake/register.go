// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/p2pconf/p2pconf/harness/backend"
)

// The fake backend opens by name (backend.Open), for harness/machine.
func init() {
	backend.Register("fake", func(s backend.OpenSettings) (backend.Backend, error) {
		b, err := Open(s.FakePreset, s.FakeDefects)
		if err != nil {
			return nil, err
		}
		return b, nil
	})
}

// The backend's NVML view, which machine.NVMLOf reads (it is not part of
// backend.Backend).
var _ interface{ NVML() nvml.Interface } = (*Backend)(nil)
