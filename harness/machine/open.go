// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package machine

import (
	"fmt"
	"os"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cudabackend"
	"github.com/p2pconf/p2pconf/harness/fake"
)

// OpenBackend opens the backend the configuration names. This is the one
// place that knows the backends; suites only ever see backend.Backend.
func OpenBackend(cfg Config) (backend.Backend, error) {
	switch cfg.Backend {
	case "fake":
		b, err := fake.Open(cfg.FakePreset, cfg.FakeDefects)
		if err != nil {
			return nil, fmt.Errorf("fake backend: %w", err)
		}
		return b, nil
	default:
		// Number GPUs by PCI address, as nvidia-smi does, unless the user chose.
		if os.Getenv("CUDA_DEVICE_ORDER") == "" {
			os.Setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID")
		}
		b, err := cudabackend.Open(cfg.LibCUDA)
		if err != nil {
			return nil, fmt.Errorf("cuda backend: %w\n"+
				"The suite needs the NVIDIA driver (%s) on this machine. To run it without a GPU, use the in-memory backend:\n"+
				"  %s=fake %s=%s go tool ginkgo --keep-going ./suites/... (no GPU needed)", err, cfg.LibCUDA, EnvBackend, EnvFakePreset, EnvDefaultPreset)
		}
		return b, nil
	}
}
