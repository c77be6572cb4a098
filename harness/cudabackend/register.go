// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cudabackend

import (
	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/p2pconf/p2pconf/harness/backend"
)

// The cuda backend opens by name (backend.Open), for harness/machine. Its
// limits are hardware's: the zero backend.Limits.
func init() {
	backend.Register("cuda", func(s backend.OpenSettings) (backend.Backend, error) {
		b, err := Open(s.LibCUDA)
		if err != nil {
			return nil, err
		}
		return b, nil
	}, backend.Limits{})
}

// The backend's NVML view, which machine.NVMLOf reads (it is not part of
// backend.Backend).
var _ interface{ NVML() nvml.Interface } = (*Backend)(nil)
