// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package suitesettings declares the settings only the suites read (the
// bandwidth suite's gate and sizes, the litmus stopping rule, the triples),
// so that package settings checks them before any spec tree is built and
// cmd/p2pconf, which links no test framework, checks them before it builds
// a suite. The suites read their values through bandwidth.ReadSettings,
// litmus.ReadSettings (package harness/litmus) and harness.Triples; a test
// in package harness holds their answers equal to these checks for every
// variable.
package suitesettings

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/p2pconf/p2pconf/harness/bandwidth"
	"github.com/p2pconf/p2pconf/harness/checks"
	"github.com/p2pconf/p2pconf/harness/machine"
	"github.com/p2pconf/p2pconf/harness/settings"
)

// EnvTriples names the triples of the three-GPU specs (harness/machine
// reads them).
const EnvTriples = machine.EnvTriples

// The bandwidth suite.
var _ = settings.Declare(
	settings.Setting{Name: "P2PCONF_BW_MAX_SIZE", Default: "1GiB", Check: maxSize,
		Form: "a byte size of at least 4KiB, such as 4MiB, 256MiB or 1GiB (sizes are measured from 4KiB by powers of four up to it)"},
	settings.Setting{Name: "P2PCONF_BW_TOLERANCE", Default: "10", Check: settings.Percent(0, 100, true, false),
		Form: "a percentage from 0 to below 100, such as 10 or 7.5%"},
	settings.Setting{Name: "P2PCONF_LINK_EFFICIENCY_MIN", Default: "60", Check: settings.Percent(0, 100, false, true),
		Form: "a percentage above 0 and at most 100, such as 60 or 75%"},
	settings.Setting{Name: "P2PCONF_BW_SWEEP", Default: "representative", Check: settings.OneOf("representative", "all"),
		Form: "representative (every size on one pair per link class and its reverse, the largest on the others) or all"},
	settings.Setting{Name: "P2PCONF_BW_REUSE_SWEEP", Default: "representative", Check: settings.OneOf("representative", "full"),
		Form: "representative (1 MiB and 64 MiB) or full (every power of four from 1 MiB to 1 GiB) for bandwidth.copy-vs-direct"},
	settings.Setting{Name: "P2PCONF_BASELINE", Check: baseline,
		Form: "a readable baseline file: a previous run's conformance.json or a file of minimums (suites/bandwidth/README.md)"},
)

// The litmus tests' stopping rule and evidence.
var _ = settings.Declare(
	settings.Setting{Name: "P2PCONF_LITMUS_PROFILE", Default: "default", Check: settings.OneOf("default", "certify", "space"),
		Form: "default, certify or space"},
	settings.Setting{Name: "P2PCONF_LITMUS_TARGET", Default: "1e9", Check: settings.Count, Form: "a positive whole number such as 1e9"},
	settings.Setting{Name: "P2PCONF_LITMUS_LINK_TARGET", Default: "1e7", Check: settings.Count, Form: "a positive whole number such as 1e7"},
	settings.Setting{Name: "P2PCONF_LITMUS_MUTANT_HITS", Default: "12", Check: settings.Count, Form: "a positive whole number such as 12"},
	settings.Setting{Name: "P2PCONF_LITMUS_MIN_INSTANCES", Default: "100000", Check: settings.Count, Form: "a positive whole number such as 100000"},
	settings.Setting{Name: "P2PCONF_LITMUS_MUTANT_BUDGET", Default: "250ms", Check: settings.Duration(false), Form: "a positive Go duration such as 10s"},
	settings.Setting{Name: "P2PCONF_LITMUS_MUTANT_LONG_BUDGET", Default: "2s", Check: settings.Duration(false),
		Form: "a positive Go duration such as 2s, at least P2PCONF_LITMUS_MUTANT_BUDGET"},
	settings.Setting{Name: "P2PCONF_LITMUS_MIN_FLAG_SHARE", Default: "1e-5", Check: settings.Fraction,
		Form: "a fraction above 0 and at most 1, or a percentage with %, such as 0.001%"},
	settings.Setting{Name: "P2PCONF_LITMUS_MAX_VIOLATION_BOUND", Default: "1e-4", Check: settings.Fraction,
		Form: "a fraction above 0 and at most 1, or a percentage with %, such as 1e-4"},
)

// The three-GPU specs. Whether the machine has the GPUs is checked when it
// is opened (harness.CheckTriples).
var _ = settings.Declare(settings.Setting{Name: EnvTriples, Check: triples,
	Form: "triples of three different GPU ordinals joined by -, comma separated, such as 0-1-2,0-2-3"})

func maxSize(v string) error {
	n, err := bandwidth.ParseSize(v)
	if err != nil {
		return errors.New("not a byte size")
	}
	if n < bandwidth.MinTransferSize {
		return errors.New("below 4KiB")
	}
	return nil
}

// baseline reads and parses the file, so a bad one fails before any GPU
// work as every other setting does.
func baseline(v string) error {
	if err := settings.ReadableFile(v); err != nil {
		return err
	}
	data, err := os.ReadFile(v)
	if err != nil {
		return err
	}
	if _, err := bandwidth.ParseBaseline(data, v); err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), v+": "))
	}
	return nil
}

func triples(v string) error {
	seen := map[string]bool{}
	for _, f := range strings.Split(v, ",") {
		f = strings.TrimSpace(f)
		if _, ok := checks.ParseTripleID(f); !ok {
			return fmt.Errorf("%q is not three different GPU ordinals joined by -", f)
		}
		if seen[f] {
			return fmt.Errorf("%q is named twice; name each triple once", f)
		}
		seen[f] = true
	}
	return nil
}
