// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

// The command opens the machine (topo, preflight, run's GPU locks, repro's
// check of the target) through harness/machine, which opens the backend
// P2PCONF_BACKEND names by name: the command links both.
import (
	_ "github.com/p2pconf/p2pconf/harness/cudabackend"
	_ "github.com/p2pconf/p2pconf/harness/fake"
)
