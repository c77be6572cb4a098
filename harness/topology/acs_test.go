// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package topology

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sysTree builds a sysfs tree under a temporary root: devices at the given
// device-tree paths, each with a config file (nil: none), and the
// /sys/bus/pci/devices links to them.
func sysTree(t *testing.T, devices map[string][]byte) string {
	t.Helper()
	root := t.TempDir()
	bus := filepath.Join(root, "sys/bus/pci/devices")
	if err := os.MkdirAll(bus, 0o755); err != nil {
		t.Fatal(err)
	}
	for path, cfg := range devices {
		dir := filepath.Join(root, "sys/devices", path)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if cfg != nil {
			if err := os.WriteFile(filepath.Join(dir, "config"), cfg, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Symlink(dir, filepath.Join(bus, filepath.Base(path))); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// config is a 4 KiB configuration space whose extended capabilities are a
// first one of id 0x0001 at 0x100 and, when acs is true, ACS at 0x148 with
// control bits ctl.
func config(acs bool, ctl uint16) []byte {
	cfg := make([]byte, 4096)
	next := uint32(0)
	if acs {
		next = 0x148
		binary.LittleEndian.PutUint32(cfg[0x148:], acsCapID|1<<16)
		binary.LittleEndian.PutUint16(cfg[0x148+6:], ctl)
	}
	binary.LittleEndian.PutUint32(cfg[0x100:], 0x0001|1<<16|next<<20)
	return cfg
}

func TestPairACSWalksBothBranchesToTheCommonBridge(t *testing.T) {
	root := sysTree(t, map[string][]byte{
		"pci0000:00/0000:00:01.0":                                        config(true, 0x1d), // root port, shared
		"pci0000:00/0000:00:01.0/0000:01:00.0":                           config(true, 0x00), // switch upstream
		"pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:08.0":              config(true, 0x1d),
		"pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:08.0/0000:1b:00.0": config(false, 0),
		"pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:10.0":              make([]byte, 64), // unprivileged read
		"pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:10.0/0000:43:00.0": config(false, 0),
		"pci0000:80/0000:80:01.0":                                        config(false, 0),
		"pci0000:80/0000:80:01.0/0000:8a:00.0":                           config(false, 0),
	})
	p := PairACS(root, "00000000:1B:00.0", "00000000:43:00.0")
	if len(p.Bridges) != 3 {
		t.Fatalf("bridges: %v", p)
	}
	want := []string{"0000:02:08.0", "0000:01:00.0", "0000:02:10.0"}
	for i, b := range p.Bridges {
		if b.BDF != want[i] {
			t.Errorf("bridge %d is %s, want %s", i, b.BDF, want[i])
		}
	}
	if c := p.Bridges[0].Control; c != "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-" || !p.Bridges[0].Redirects {
		t.Errorf("0x1d reads %q", c)
	}
	if p.Bridges[1].Redirects || !strings.HasPrefix(p.Bridges[2].Control, "unknown: needs root") {
		t.Errorf("bridges: %+v", p.Bridges)
	}
	across := PairACS(root, "0000:1b:00.0", "0000:8a:00.0")
	if len(across.Bridges) != 4 || !strings.Contains(across.String(), "0000:80:01.0 no ACS capability") {
		t.Errorf("across root complexes: %v", across)
	}
}

func TestPairACSWithoutBridges(t *testing.T) {
	root := sysTree(t, map[string][]byte{
		"pci0000:00/0000:00:05.0": config(false, 0),
		"pci0000:00/0000:00:06.0": config(false, 0),
	})
	if p := PairACS(root, "0000:00:05.0", "0000:00:06.0"); len(p.Bridges) != 0 || !strings.Contains(p.Note, "no bridge visible") {
		t.Errorf("GPUs on a root bus: %v", p)
	}
	if p := PairACS(root, "0000:00:05.0", "0000:00:09.0"); !strings.HasPrefix(p.Note, "unknown: resolving") {
		t.Errorf("a GPU sysfs does not show: %v", p)
	}
}

func TestACSControlStopsOnLoops(t *testing.T) {
	cfg := make([]byte, 4096)
	binary.LittleEndian.PutUint32(cfg[0x100:], 0x0001|0x100<<20) // points at itself
	if _, ok := acsControl(cfg); ok {
		t.Error("found ACS in a looping list")
	}
}
