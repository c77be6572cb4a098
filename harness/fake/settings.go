// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"errors"
	"strings"

	"github.com/p2pconf/p2pconf/harness/settings"
)

// The fake backend's settings (package settings checks them before any
// work, whichever backend is chosen: a typo is a typo).
var _ = settings.Declare(
	settings.Setting{Name: EnvPreset, Form: "a fake preset (" + strings.Join(presetNames(), ", ") + "), optionally with @<driver version> such as @12040",
		Default: "nvlink8", Check: CheckPreset},
	settings.Setting{Name: EnvDefects, Form: "fake driver defects, comma separated (make mutation lists them)",
		Check: func(v string) error { _, err := ParseDefects(v); return trim(err) }},
	settings.Setting{Name: EnvForeign, Form: "<ordinal>:<bytes> such as 0:512MiB",
		Check: foreignForm},
	settings.Setting{Name: EnvState, Form: "the fake machine's state directory (set by the fake for its helper processes)", Internal: true},
)

// CheckPreset accepts a P2PCONF_FAKE value ("name" or "name@driver").
func CheckPreset(s string) error {
	if _, err := lookupPreset(s); err != nil {
		if name, _, _ := strings.Cut(strings.TrimSpace(s), "@"); presets[name] == nil {
			return errors.New("no such preset")
		}
		return trim(err)
	}
	return nil
}

func presetNames() []string {
	var out []string
	for _, p := range Presets() {
		out = append(out, p.Name)
	}
	return out
}

// trim drops the "fake: " the package's errors start with, and the
// variable they may name: the setting's error names it already.
func trim(err error) error {
	if err == nil {
		return nil
	}
	s := strings.TrimPrefix(err.Error(), "fake: ")
	if i := strings.Index(s, `": `); strings.HasPrefix(s, "P2PCONF_") && i > 0 {
		s = s[i+3:]
	}
	return errors.New(s)
}

// foreignForm checks the form of P2PCONF_FAKE_FOREIGN; whether the preset
// has the GPU is checked when the fake opens.
func foreignForm(v string) error {
	if _, err := parseForeign(v, 1<<30); err != nil {
		return errors.New("not <ordinal>:<bytes>")
	}
	return nil
}
