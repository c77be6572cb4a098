// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package repro

import "github.com/p2pconf/p2pconf/harness/settings"

// The reproducers' own variables, read by the C programs this package
// writes, never by p2pconf.
var _ = settings.Declare(
	settings.Setting{Name: "P2PCONF_REPRO_HELPER_FD", Form: "the descriptor a reproducer's helper process serves on", Internal: true},
	settings.Setting{Name: "P2PCONF_REAL_LIBCUDA", Form: "the driver library the interposer forwards to", Internal: true},
)
