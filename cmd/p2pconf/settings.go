// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/p2pconf/p2pconf/harness/checks"
	"github.com/p2pconf/p2pconf/harness/machine"
	"github.com/p2pconf/p2pconf/harness/settings"
	"github.com/p2pconf/p2pconf/harness/suitesettings"
)

// checkSettings is the validation pass of the commands that run or plan
// suites: every declared P2PCONF_* setting (the suites' own included:
// package suitesettings declares them here too), the near misses of their
// names, and the settings that name GPUs against the machine's GPUs (the
// backend is opened only to list them, and only when one of those is set).
// A bad one is an input error (exit 2), before anything is built.
func checkSettings() error {
	if err := settings.ValidateEnv(); err != nil {
		return inputErr(err)
	}
	if unknown := settings.Unknown(os.Environ()); len(unknown) > 0 {
		return inputErr(fmt.Errorf("%s", strings.Join(unknown, "\n")))
	}
	if os.Getenv(machine.EnvGPUs) == "" && os.Getenv(machine.EnvPairs) == "" && os.Getenv(suitesettings.EnvTriples) == "" {
		return nil
	}
	m, err := machine.OpenNew()
	if err != nil {
		if settings.IsSetting(err) {
			return inputErr(err)
		}
		return nil // no driver: every suite process says so, and the report shows it
	}
	defer func() { _ = m.Backend.Close() }()
	return checkTriples(m)
}

// checkTriples checks that P2PCONF_TRIPLES names GPUs of m (its form was
// checked with every setting).
func checkTriples(m *machine.Machine) error {
	v := strings.TrimSpace(os.Getenv(suitesettings.EnvTriples))
	if v == "" {
		return nil
	}
	have := map[int]bool{}
	var ords []string
	for _, g := range m.AllGPUs() {
		have[int(g.Ordinal)] = true
		ords = append(ords, fmt.Sprint(int(g.Ordinal)))
	}
	for _, f := range strings.Split(v, ",") {
		t, _ := checks.ParseTripleID(strings.TrimSpace(f))
		for _, o := range t {
			if !have[o] {
				return inputErr(settings.Errorf(suitesettings.EnvTriples, v, "triples of this machine's GPUs ("+strings.Join(ords, ",")+")", "the machine has no GPU%d", o))
			}
		}
	}
	return nil
}
