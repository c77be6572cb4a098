// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmusenv

import (
	"os"

	"github.com/p2pconf/p2pconf/harness/settings"
)

// The environment file is checked with every other setting before any
// work: a file that does not parse is the caller's mistake, never a result.
var _ = settings.Declare(settings.Setting{
	Name:    EnvVar,
	Form:    "a litmus environment file written by p2pconf tune",
	Default: "",
	Check:   checkFile,
})

func checkFile(v string) error {
	if err := settings.ReadableFile(v); err != nil {
		return err
	}
	data, err := os.ReadFile(v)
	if err != nil {
		return err
	}
	_, err = Parse(data)
	return err
}
