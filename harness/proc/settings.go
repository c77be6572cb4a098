// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package proc

import "github.com/p2pconf/p2pconf/harness/settings"

// A helper's variables are set by the process that starts it and removed
// before its role runs.
var _ = settings.Declare(
	settings.Setting{Name: EnvRole, Form: "a registered helper role", Internal: true},
	settings.Setting{Name: EnvSocket, Form: "the parent's Unix socket", Internal: true},
	settings.Setting{Name: EnvDeadline, Form: "Unix nanoseconds", Internal: true},
	settings.Setting{Name: EnvParent, Form: "the parent's pid", Internal: true},
)
