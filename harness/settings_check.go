// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/p2pconf/p2pconf/harness/machine"
	// P2PCONF_PAIR_MUTANTS is declared where the schedule sets it; every
	// suite binary checks it, whether or not it runs litmus specs.
	_ "github.com/p2pconf/p2pconf/harness/schedule"
	"github.com/p2pconf/p2pconf/harness/settings"
	"github.com/p2pconf/p2pconf/harness/suitesettings"
)

// ExitBadSettings is the exit status of a suite binary whose settings are
// wrong: the caller's mistake (as p2pconf's usage errors), not a failed
// conformance check, and no result is written.
const ExitBadSettings = 2

// checkSettings is the suite binary's one validation pass, run before any
// spec tree is built, any report is written and (but for reading which
// GPUs the machine has, when a setting names GPUs) before the backend is
// opened. It prints one line per bad setting, naming the suite binary, and
// returns ExitBadSettings, or 0 when every setting is good.
func checkSettings(stderr io.Writer) int {
	err := CheckSettings()
	if err == nil {
		return 0
	}
	name := strings.TrimSuffix(filepath.Base(os.Args[0]), ".test")
	for _, line := range strings.Split(err.Error(), "\n") {
		fmt.Fprintf(stderr, "p2pconf %s: %s\n", name, line)
	}
	return ExitBadSettings
}

// CheckSettings validates every P2PCONF_* setting (package settings), and
// those that name GPUs (P2PCONF_GPUS, P2PCONF_PAIRS, P2PCONF_TRIPLES)
// against the machine's GPUs. It returns nil, or an error that
// settings.IsSetting recognises. An error opening the machine for another
// reason (no driver) is left to RunSuite, which fails the suite with it.
func CheckSettings() error {
	if err := settings.ValidateEnv(); err != nil {
		return err
	}
	if unknown := settings.Unknown(os.Environ()); len(unknown) > 0 {
		var es settings.Errors
		for _, u := range unknown {
			k, _, _ := strings.Cut(u, " ")
			es = append(es, &settings.Error{Name: k, Value: os.Getenv(k), Why: strings.TrimPrefix(u, k+" is "), Form: "a declared setting (docs/usage.md, the settings table)"})
		}
		return es
	}
	if os.Getenv(machine.EnvGPUs) == "" && os.Getenv(machine.EnvPairs) == "" && os.Getenv(suitesettings.EnvTriples) == "" {
		return nil
	}
	m, err := machine.Open()
	if err != nil {
		if settings.IsSetting(err) {
			return err
		}
		return nil
	}
	if err := CheckTriples(m); err != nil {
		// The binary exits without running: release the backend (the
		// fake's state folder) here.
		_ = m.Backend.Close()
		return err
	}
	return nil
}

// CheckTriples checks that the GPUs P2PCONF_TRIPLES names are m's.
func CheckTriples(m *machine.Machine) error {
	v := strings.TrimSpace(os.Getenv(EnvTriples))
	if v == "" {
		return nil
	}
	_, err := machine.ParseTriples(v, m.AllGPUs(), func(a, b GPU) Pair { return Pair{A: a, B: b} })
	if err != nil {
		var ords []string
		for _, g := range m.AllGPUs() {
			ords = append(ords, fmt.Sprint(int(g.Ordinal)))
		}
		return settings.Errorf(EnvTriples, v, "triples of this machine's GPUs ("+strings.Join(ords, ",")+")", "%s", strings.TrimPrefix(err.Error(), fmt.Sprintf("%s=%q: ", EnvTriples, v)))
	}
	return nil
}
