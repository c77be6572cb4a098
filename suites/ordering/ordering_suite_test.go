// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package ordering_test checks ordering between GPUs and between a GPU and
// the host: stream and event semantics across devices (waits, completion,
// elapsed time, source reuse), release/acquire flag handoffs at system scope
// with their weak mutants, GPU↔host handoffs through mapped pinned memory,
// and the memory-model litmus tests.
package ordering_test

import (
	"os"
	"testing"

	"github.com/p2pconf/p2pconf/harness"
)

func TestMain(m *testing.M) { os.Exit(harness.Main(m)) }

func TestOrdering(t *testing.T) { harness.RunSuite(t, "ordering") }
