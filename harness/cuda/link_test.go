// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cuda

import (
	"errors"
	"strings"
	"testing"

	"github.com/p2pconf/p2pconf/harness/cuerr"
)

// TestCompilePTX: the cubin the stub's link returns comes back whole (its
// PTX, NUL not included), with the info log; a PTX error carries the error
// log; without a context the call fails as the driver's does.
func TestCompilePTX(t *testing.T) {
	d, logPath := loadStub(t)
	c := retain(t, d, 0)
	in(t, c, func() error {
		cubin, info, err := d.CompilePTX(echoPTX, "echo.ptx")
		must(t, err, "CompilePTX")
		if want := "FAKECUBIN sm_90\n" + echoPTX; string(cubin) != want {
			t.Errorf("cubin %q, want %q", cubin, want)
		}
		if want := "fake JIT linked " + itoa(len(echoPTX)) + " bytes"; !strings.Contains(info, want) {
			t.Errorf("info log %q does not contain %q", info, want)
		}
		// A lowered optimization level reaches the driver as
		// CU_JIT_OPTIMIZATION_LEVEL; one above 4 is refused before it.
		cubin, _, err = d.CompilePTXLevel(echoPTX, "echo.ptx", 0)
		must(t, err, "CompilePTXLevel 0")
		if want := "FAKECUBIN sm_90 O0\n" + echoPTX; string(cubin) != want {
			t.Errorf("level 0: cubin %q, want %q", cubin, want)
		}
		if _, _, err := d.CompilePTXLevel(echoPTX, "echo.ptx", 5); err == nil || !strings.Contains(err.Error(), "CU_JIT_OPTIMIZATION_LEVEL 5") {
			t.Errorf("level 5: %v", err)
		}
		_, _, err = d.CompilePTX(".version 7.0\n.target sm_70\nFAKE_INVALID_PTX\n", "bad.ptx")
		var ce *cuerr.Error
		if !errors.As(err, &ce) || ce.Code != cuerr.InvalidPTX || ce.Func != "cuLinkAddData" || !strings.Contains(ce.Detail, "fake syntax error in bad.ptx") {
			t.Errorf("CompilePTX(bad PTX): %v, want cuLinkAddData INVALID_PTX with the error log", err)
		}
		return nil
	})
	if log := readFile(t, logPath); !strings.Contains(log, "link_complete "+itoa(len(echoPTX))+" device 0") {
		t.Errorf("the stub's cuLinkComplete was not called:\n%s", log)
	}
}
