// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package access_test checks peer capability and directional peer access:
// what CUDA and NVML claim per ordered pair against what the pair does,
// peer enablement and its errors, peer and staged copies, kernels reading
// and writing a peer's memory, UVA ownership and mapped host memory.
// Accesses expected to fault run in helper processes (fault_role_test.go).
package access_test

import (
	"os"
	"testing"

	"github.com/p2pconf/p2pconf/harness"
)

func TestMain(m *testing.M) { os.Exit(harness.Main(m)) }

func TestAccess(t *testing.T) { harness.RunSuite(t, "access") }
