// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"errors"
	"strings"

	"github.com/p2pconf/p2pconf/harness/settings"
)

// The report's settings, checked with every other before any work: both
// are written into every report, so neither may carry a control character
// or a path separator.
var _ = settings.Declare(
	settings.Setting{Name: EnvHost, Form: "a host name such as node1", Check: name},
	settings.Setting{Name: EnvRunID, Form: "a run ID of letters, digits and . _ - (p2pconf run sets it)", Check: name},
)

func name(v string) error {
	if strings.ContainsAny(v, "/\\ ") {
		return errors.New("holds a space or a path separator")
	}
	return settings.Printable(v)
}
