// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package gpulock

import (
	"errors"
	"strconv"
	"strings"

	"github.com/p2pconf/p2pconf/harness/settings"
)

// The lock's settings, checked with every other before any work.
var _ = settings.Declare(
	settings.Setting{Name: EnvDir, Form: "a directory every user of the GPUs can write, or a path to create one at",
		Default: "/run/lock/p2pconf", Check: settings.WritableDir},
	settings.Setting{Name: EnvWait, Form: "a Go duration such as 30s or 10m (0: do not wait)", Default: "0", Check: settings.Duration(true)},
	settings.Setting{Name: EnvHeld, Form: "<dir>:<pid> (p2pconf run sets it for its suite processes)", Internal: true, Check: heldForm},
)

func heldForm(v string) error {
	i := strings.LastIndexByte(v, ':')
	if i <= 0 {
		return errors.New("no <dir>:<pid>")
	}
	if pid, err := strconv.Atoi(v[i+1:]); err != nil || pid <= 0 {
		return errors.New("no pid after the colon")
	}
	return nil
}
