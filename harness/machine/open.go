// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package machine

import (
	"fmt"
	"os"

	"github.com/p2pconf/p2pconf/harness/backend"
)

// OpenBackend opens the backend the configuration names, as registered
// with package backend by harness/cudabackend or harness/fake: the program
// links the one it may use (the spec fixture, package harness, links both;
// so does the p2pconf command), so this package needs neither the cgo
// binding nor the fake. Suites only ever see backend.Backend.
func OpenBackend(cfg Config) (backend.Backend, error) {
	switch cfg.Backend {
	case "fake":
		b, err := backend.Open("fake", backend.OpenSettings{FakePreset: cfg.FakePreset, FakeDefects: cfg.FakeDefects})
		if err != nil {
			return nil, fmt.Errorf("fake backend: %w", err)
		}
		return b, nil
	default:
		// Number GPUs by PCI address, as nvidia-smi does, unless the user chose.
		if os.Getenv("CUDA_DEVICE_ORDER") == "" {
			os.Setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID")
		}
		b, err := backend.Open("cuda", backend.OpenSettings{LibCUDA: cfg.LibCUDA})
		if err != nil {
			return nil, fmt.Errorf("cuda backend: %w\n"+
				"The suite needs the NVIDIA driver (%s) on this machine. To run it without a GPU, use the in-memory backend:\n"+
				"  %s=fake %s=%s go tool ginkgo --keep-going ./suites/... (no GPU needed)", err, cfg.LibCUDA, EnvBackend, EnvFakePreset, EnvDefaultPreset)
		}
		return b, nil
	}
}
