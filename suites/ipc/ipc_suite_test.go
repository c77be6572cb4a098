// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package ipc_test checks legacy CUDA IPC (cuIpc*) between processes: the
// suite's own binary is re-executed as the exporter or importer helper.
package ipc_test

import (
	"os"
	"testing"

	"github.com/p2pconf/p2pconf/harness"
)

func TestMain(m *testing.M) { os.Exit(harness.Main(m)) }

func TestIPC(t *testing.T) { harness.RunSuite(t, "ipc") }
