// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package atomics_test checks cross-GPU atomics against what the driver
// advertises: the capability queries against each other and NVML, every
// PTX atomic operation under contention from two GPUs (and within one GPU,
// and between a GPU and host threads) with exact oracles, and an atomic
// counter used as a release flag.
package atomics_test

import (
	"os"
	"testing"

	"github.com/p2pconf/p2pconf/harness"
)

func TestMain(m *testing.M) { os.Exit(harness.Main(m)) }

func TestAtomics(t *testing.T) { harness.RunSuite(t, "atomics") }
