// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package machine

import (
	"errors"
	"strconv"
	"strings"

	"github.com/p2pconf/p2pconf/harness/settings"
)

// The machine's settings (package settings checks them all before any
// work; ReadConfig reads them). P2PCONF_FAKE and P2PCONF_FAKE_DEFECTS are
// the fake backend's (harness/fake).
var _ = settings.Declare(
	settings.Setting{Name: EnvBackend, Form: "cuda or fake", Default: "cuda", Check: settings.OneOf("cuda", "fake")},
	settings.Setting{Name: EnvGPUs, Form: "GPU ordinals or UUIDs, comma separated, such as 0,1 or GPU-8b1e…", Check: settings.List(gpuName)},
	settings.Setting{Name: EnvPairs, Form: "ordered pairs SRC-DST of GPU ordinals, comma separated, such as 0-1,1-0",
		Check: func(v string) error { _, err := ParsePairs(v); return trimName(err) }},
	settings.Setting{Name: EnvReportDir, Form: "a directory this user can write, or a path to create one at", Check: settings.WritableDir},
	settings.Setting{Name: EnvLibCUDA, Form: "the driver library's file name (libcuda.so.1) or a path to it", Default: "libcuda.so.1", Check: libcuda},
	settings.Setting{Name: EnvSpecTimeout, Form: "a positive Go duration such as 90s", Default: "2m", Check: settings.Duration(false)},
	settings.Setting{Name: EnvLitmusBudget, Form: "a positive Go duration such as 10s", Default: "2s", Check: settings.Duration(false)},
	settings.Setting{Name: EnvMutantTrials, Form: "a positive number of trials such as 20", Default: "20", Check: settings.Natural(1)},
	settings.Setting{Name: EnvLitmusStress, Form: "1 or 0", Default: "0", Check: settings.Bool},
)

// trimName drops the variable's name an error of ParsePairs starts with:
// the setting's error names it already.
func trimName(err error) error {
	if err == nil {
		return nil
	}
	return errors.New(strings.TrimPrefix(err.Error(), EnvPairs+": "))
}

// gpuName accepts an ordinal or something that can be a UUID; whether the
// machine has it is checked when it is opened (selectGPUs).
func gpuName(v string) error {
	if _, err := strconv.Atoi(v); err == nil {
		if strings.HasPrefix(v, "-") {
			return errors.New("a negative ordinal")
		}
		return nil
	}
	if len(v) < 8 || strings.ContainsAny(v, " /\\") {
		return errors.New("neither an ordinal nor a UUID")
	}
	return settings.Printable(v)
}

// libcuda accepts a bare library name (the dynamic loader searches for it)
// or the path of a readable file.
func libcuda(v string) error {
	if !strings.Contains(v, "/") {
		return settings.Printable(v)
	}
	return settings.ReadableFile(v)
}
