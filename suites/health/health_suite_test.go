// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package health is the suite that judges the machine around the other
// verdicts: Xid events, NVLink and PCIe error counters, the NVLinks' state
// and the fabric registration, all as NVML reports them.
package health

import (
	"os"
	"testing"

	"github.com/p2pconf/p2pconf/harness"
)

func TestMain(m *testing.M) { os.Exit(harness.Main(m)) }

func TestHealth(t *testing.T) { harness.RunSuite(t, "health") }
