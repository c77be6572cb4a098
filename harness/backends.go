// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

// The fixture links both backends, so that harness/machine opens the one
// the run names (P2PCONF_BACKEND) by name; a spec never imports either.
import (
	_ "github.com/p2pconf/p2pconf/harness/cudabackend"
	_ "github.com/p2pconf/p2pconf/harness/fake"
)
