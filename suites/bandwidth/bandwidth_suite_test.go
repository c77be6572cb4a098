// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package bandwidth

import (
	"os"
	"testing"

	"github.com/p2pconf/p2pconf/harness"
)

func TestMain(m *testing.M) { os.Exit(harness.Main(m)) }

func TestBandwidth(t *testing.T) { harness.RunSuite(t, "bandwidth") }
