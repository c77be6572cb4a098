// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"os"
	"strings"
	"testing"

	"github.com/p2pconf/p2pconf/harness/topology"
)

func TestForeignProcessStartsAtAnAllocationAfterALook(t *testing.T) {
	t.Setenv(EnvForeign, "1:64MiB")
	b := open(t, "h200x2")
	lib := b.NVML()
	dev := func(i int) *topology.Process {
		t.Helper()
		var found *topology.Process
		for idx := range 2 {
			d, _ := lib.DeviceGetHandleByIndex(idx)
			if uuid, _ := d.GetUUID(); uuid != b.devs[i].info.UUID {
				continue
			}
			procs, err := topology.Processes(lib, d)
			if err != nil {
				t.Fatal(err)
			}
			if len(procs) == 0 || procs[0].PID != uint32(os.Getpid()) && procs[len(procs)-1].PID != uint32(os.Getpid()) {
				t.Fatalf("GPU%d: this process is not listed: %v", i, procs)
			}
			for _, p := range procs {
				if p.PID == ForeignPID {
					found = &p
				}
			}
		}
		return found
	}
	first, total, err := b.MemInfo(1)
	must(t, err)
	if first != total || dev(1) != nil {
		t.Fatalf("first reading: free %d of %d, foreign listed %v; want the GPU alone", first, total, dev(1))
	}
	if again, _, _ := b.MemInfo(1); again != first {
		t.Fatalf("a second reading before any allocation: free %d, want %d", again, first)
	}
	ptr, err := b.Alloc(1, 4096)
	must(t, err)
	defer func() { must(t, b.Free(1, ptr)) }()
	second, _, err := b.MemInfo(1)
	must(t, err)
	if first-second != 64<<20+pageSize {
		t.Errorf("after allocating a page: %d bytes less free, want the page and the foreign 64 MiB", first-second)
	}
	p := dev(1)
	if p == nil || p.Name != ForeignName || p.UsedBytes != 64<<20 {
		t.Errorf("foreign process after it started: %+v", p)
	}
	if dev(0) != nil {
		t.Error("the foreign process is listed on the other GPU")
	}
	if f, _, _ := b.MemInfo(0); f != total {
		t.Errorf("GPU0 free %d of %d: the foreign process took memory on the wrong GPU", f, total)
	}
}

func TestParseForeign(t *testing.T) {
	f, err := parseForeign("0:2GiB", 2)
	if err != nil || f.gpu != 0 || f.bytes != 2<<30 {
		t.Errorf("0:2GiB: %+v, %v", f, err)
	}
	for _, bad := range []string{"2:1", "x:1", "0", "0:0", "0:lots"} {
		if _, err := parseForeign(bad, 2); err == nil || !strings.Contains(err.Error(), EnvForeign) {
			t.Errorf("%q: error %v, want one naming %s", bad, err, EnvForeign)
		}
	}
	if f, err := parseForeign("", 2); f != nil || err != nil {
		t.Error("an empty value modelled a foreign process")
	}
}
