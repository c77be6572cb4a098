// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package doccheck

import (
	"os"
	"strings"
	"testing"
)

// TestReadmeStartsWithWhatRunsHere: a newcomer without a GPU finds, in the
// README's first 40 lines, the command that runs the suite on the fake
// backend with reports written (a block the doc test runs as written) and
// the command that runs the tests; the reference lives in docs/, so the
// README stays short.
func TestReadmeStartsWithWhatRunsHere(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n > 150 {
		t.Errorf("README.md has %d lines; the reference belongs in docs/usage.md (at most 150)", n)
	}
	blocks, err := Extract("README.md", data)
	if err != nil {
		t.Fatal(err)
	}
	var suite, tests bool
	for _, b := range blocks {
		if b.Line > 40 {
			break
		}
		if b.Needs == "" && strings.Contains(b.Code, "P2PCONF_BACKEND=fake") && strings.Contains(b.Code, "p2pconf run --run") {
			suite = true
		}
		if strings.TrimSpace(b.Code) == "make test" {
			tests = true
		}
	}
	if !suite || !tests {
		t.Errorf("README.md's first 40 lines: the fake-backend run with reports %v, the test command %v; want both", suite, tests)
	}
	if !strings.Contains(string(readFile(t, "../../.ci/run")), "make test") {
		t.Error(".ci/run does not run the README's test command, make test")
	}
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
