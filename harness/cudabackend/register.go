// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cudabackend

import "github.com/p2pconf/p2pconf/harness/backend"

// The cuda backend opens by name (backend.Open), for harness/machine.
func init() {
	backend.Register("cuda", func(s backend.OpenSettings) (backend.Backend, error) {
		b, err := Open(s.LibCUDA)
		if err != nil {
			return nil, err
		}
		return b, nil
	})
}
