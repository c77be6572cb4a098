// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package managed_test checks Unified Memory (cuMemAllocManaged) on every
// GPU and ordered pair, from the CUDA documentation: the attributes that
// say what managed memory can do, data handed from one processor to another
// with and without prefetches, advice read back through the range
// attributes, read-mostly copies after a write, kernels of two GPUs at once
// on one allocation, and the memory given back by cuMemFree.
package managed_test

import (
	"os"
	"testing"

	"github.com/p2pconf/p2pconf/harness"
)

func TestMain(m *testing.M) { os.Exit(harness.Main(m)) }

func TestManaged(t *testing.T) { harness.RunSuite(t, "managed") }
