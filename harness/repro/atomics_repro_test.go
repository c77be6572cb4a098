// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package repro

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/p2pconf/p2pconf/harness"
)

func TestCounterAsFlagSeedsAndSkips(t *testing.T) {
	p := harness.Pair{A: harness.GPU{Ordinal: 0}, B: harness.GPU{Ordinal: 1}}
	f, err := Generate("atomics.counter-as-flag", Pair(0, 1), "")
	if err != nil {
		t.Fatal(err)
	}
	for r := 0; r < 8; r++ {
		if want := fmt.Sprintf("%du", uint32(harness.Seed("atomics.counter-as-flag", p.ID(), r))); !strings.Contains(f.Source, want) {
			t.Errorf("round %d: the suite's seed %s is not in the reproducer", r, want)
		}
	}
	bin := build(t, "counter-as-flag", f.Source)
	// NATIVE_ATOMIC_SUPPORTED=1 promises every operation, whatever the masks say.
	if code, out := run(t, bin, "FAKECUDA_DEFECT=atomic-masks-zero"); code != ExitConforms {
		t.Errorf("NATIVE=1 with zero masks: exit %d, want 0 (the suite runs the check)\n%s", code, out)
	}
	if code, out := run(t, bin, "FAKECUDA_NO_P2P=1"); code != ExitCannotRun || !strings.Contains(out, "cuDeviceCanAccessPeer(0, 1)=0") {
		t.Errorf("without peer access: exit %d, want 2 naming cuDeviceCanAccessPeer\n%s", code, out)
	}
}

// atomics.host-native skips where HOST_NATIVE_ATOMIC_SUPPORTED is not 1: the
// stub reports 0 unless FAKECUDA_REALISTIC is set.
func TestHostNativeSkipsWithoutNativeHostAtomics(t *testing.T) {
	f, err := Generate("atomics.host-native", GPU(1), "")
	if err != nil {
		t.Fatal(err)
	}
	bin := build(t, "host-native", f.Source)
	cmd := exec.Command(bin)
	cmd.Env = []string{"LD_LIBRARY_PATH=" + stub(t), "PATH=" + os.Getenv("PATH")}
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != ExitCannotRun || !strings.Contains(string(out), "SKIP: needs CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED=1 on GPU1 (found 0)") {
		t.Errorf("HOST_NATIVE_ATOMIC_SUPPORTED=0: %v, want exit 2 and the skip\n%s", err, out)
	}
}
