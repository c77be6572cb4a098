// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"fmt"
	"io"

	"github.com/p2pconf/p2pconf/harness/checks"
	"github.com/p2pconf/p2pconf/harness/deviations"
)

// knownDeviationsHelp is the help line of run's, report's and diff's flag.
const knownDeviationsHelp = "accept the failures this file of known deviations names (docs/known-deviations.md): they stay failures in every report, with their notes, but alone do not fail the run (diff: are no regression)"

// loadDeviations reads the --known-deviations file ("" for none: nil,
// which accepts nothing). A bad file is bad input, found before anything
// is built, run or written; the error names file:line.
func loadDeviations(file string) (*deviations.Set, error) {
	if file == "" {
		return nil, nil
	}
	s, err := deviations.Load(file, func(id string) bool { _, ok := checks.Lookup(id); return ok })
	if err != nil {
		return nil, inputErr(fmt.Errorf("--known-deviations: %w", err))
	}
	return s, nil
}

// warnUnused prints a warning for each entry that accepted nothing: not an
// error (the deviation may be gone), but a file that accepts nothing any
// more should be pruned.
func warnUnused(stderr io.Writer, cmd string, s *deviations.Set) {
	for _, w := range s.Unused() {
		fmt.Fprintf(stderr, "p2pconf %s: warning: unused known deviation: %s\n", cmd, w)
	}
}
