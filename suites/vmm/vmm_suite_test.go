// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package vmm_test checks the virtual memory management calls (cuMem*) and
// shareable handles; faults and imports run in helper processes (the
// suite's own binary re-executed).
package vmm_test

import (
	"os"
	"testing"

	"github.com/p2pconf/p2pconf/harness"
)

func TestMain(m *testing.M) { os.Exit(harness.Main(m)) }

func TestVMM(t *testing.T) { harness.RunSuite(t, "vmm") }
