// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/p2pconf/p2pconf/harness/litmus"
	"github.com/p2pconf/p2pconf/harness/litmussass"
)

// TestNoToolkitCannotRun: without nvdisasm or cuobjdump the check says so
// and exits 2, before touching the driver.
func TestNoToolkitCannotRun(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv("CUDA_HOME", "")
	t.Setenv("CUDA_PATH", "")
	if litmussass.Tool("nvdisasm") != "" || litmussass.Tool("cuobjdump") != "" {
		t.Skip("a CUDA toolkit is installed in /usr/local/cuda")
	}
	var out, errOut bytes.Buffer
	if code := run(nil, &out, &errOut); code != exitCannotRun || !strings.Contains(errOut.String(), "needs the CUDA toolkit's nvdisasm or cuobjdump") {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
	for _, bad := range [][]string{{"-gpu", "-1"}, {"-O", "5"}, {"-O", "-2"}} {
		if code := run(bad, &out, &errOut); code != exitCannotRun {
			t.Errorf("%v: exit %d", bad, code)
		}
	}
}

func TestSelectTests(t *testing.T) {
	all := litmus.Catalogue()
	got, err := selectTests(all, "")
	if err != nil || len(got) != len(all) {
		t.Fatalf("no expression: %d of %d tests, %v", len(got), len(all), err)
	}
	got, err = selectTests(all, "^(MP|WRC|ISA2|CoW)")
	if err != nil || len(got) == 0 || len(got) >= len(all) {
		t.Fatalf("^(MP|WRC|ISA2|CoW): %d of %d tests, %v", len(got), len(all), err)
	}
	for _, tc := range got {
		if !strings.HasPrefix(tc.Name(), "MP") && !strings.HasPrefix(tc.Name(), "WRC") && !strings.HasPrefix(tc.Name(), "ISA2") && !strings.HasPrefix(tc.Name(), "CoW") {
			t.Errorf("kept %q", tc.Name())
		}
	}
	t.Logf("%d of %d tests match", len(got), len(all))
	for _, bad := range []string{"(", "no such test"} {
		if _, err := selectTests(all, bad); err == nil {
			t.Errorf("-match %q accepted", bad)
		}
	}
}
