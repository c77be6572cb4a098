// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/p2pconf/p2pconf/harness/machine"
)

// TestTopoHintFitsHowItRan opens the real backend on a driver library that
// does not exist, as on a machine without a GPU, and checks that topo's
// message names topo as it was started, never `go tool ginkgo`.
func TestTopoHintFitsHowItRan(t *testing.T) {
	t.Setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID")
	missing := filepath.Join(t.TempDir(), "libcuda.so.1")
	_, err := machine.OpenBackend(machine.Config{Backend: "cuda", LibCUDA: missing})
	if err == nil {
		t.Fatalf("OpenBackend(%s) opened a driver that does not exist", missing)
	}
	if !strings.Contains(err.Error(), "go tool ginkgo") {
		t.Fatalf("the backend's message no longer carries the suites' hint that topo replaces; update suitesHint: %v", err)
	}
	for _, tc := range []struct{ argv0, want string }{
		{"./bin/p2pconf", "P2PCONF_BACKEND=fake P2PCONF_FAKE=nvlink8 ./bin/p2pconf topo"},
		{"p2pconf", "P2PCONF_BACKEND=fake P2PCONF_FAKE=nvlink8 p2pconf topo"},
		{"/tmp/go-build123/b001/exe/p2pconf", "P2PCONF_BACKEND=fake P2PCONF_FAKE=nvlink8 go run ./cmd/p2pconf topo"},
	} {
		msg := openError(err, tc.argv0).Error()
		if !strings.Contains(msg, tc.want) {
			t.Errorf("started as %s: the hint lacks %q:\n%s", tc.argv0, tc.want, msg)
		}
		if strings.Contains(msg, "ginkgo") {
			t.Errorf("started as %s: the hint still names ginkgo:\n%s", tc.argv0, msg)
		}
		if !strings.Contains(msg, missing) {
			t.Errorf("started as %s: the loader's message about %s is gone:\n%s", tc.argv0, missing, msg)
		}
	}
}

// TestTopoOtherOpenErrorsPass keeps errors without the driver hint (a bad
// selection, say) whole and unwrappable.
func TestTopoOtherOpenErrorsPass(t *testing.T) {
	base := errors.New(`P2PCONF_GPUS: no GPU "7" on this machine (found: GPU0, GPU1)`)
	err := openError(base, "./bin/p2pconf")
	if !errors.Is(err, base) || strings.Contains(err.Error(), "topo needs the NVIDIA driver") {
		t.Fatalf("openError changed an error that has no driver hint: %v", err)
	}
}
