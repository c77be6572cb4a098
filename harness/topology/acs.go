// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package topology

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// ACS (PCIe Access Control Services) on a bridge between two GPUs can
// redirect their peer requests upstream, to the root complex and its IOMMU,
// where a translating IOMMU without a mapping for the peer's BAR drops them:
// the best-known cause of peer writes that vanish while every claim says
// yes. The bits are read from PCI configuration space in sysfs; ACS is an
// extended capability (beyond the first 256 bytes), which Linux shows only
// to root (others read 64 bytes).

// acsCapID is the PCIe extended capability ID of ACS.
const acsCapID = 0x000D

// acsControlBits name the ACS control register's bits as lspci does.
var acsControlBits = []string{"SrcValid", "TransBlk", "ReqRedir", "CmpltRedir", "UpstreamFwd", "EgressCtrl", "DirectTrans"}

// BridgeACS is one bridge on a path and its ACS control bits.
type BridgeACS struct {
	BDF string `json:"bdf"`
	// Control is "SrcValid+ TransBlk- ReqRedir+ ..." (lspci's ACSCtl), or
	// "no ACS capability", or "unknown: needs root" / "unknown: <error>".
	Control string `json:"control"`
	// Redirects says ReqRedir or CmpltRedir is set: peer traffic through
	// this bridge goes up to the root complex.
	Redirects bool `json:"redirects,omitempty"`
}

// PathACS is the ACS state of every bridge between two GPUs.
type PathACS struct {
	Bridges []BridgeACS `json:"bridges,omitempty"`
	// Note explains an empty or partial path ("unknown: no bridge visible").
	Note string `json:"note,omitempty"`
}

func (p PathACS) String() string {
	if len(p.Bridges) == 0 {
		return p.Note
	}
	s := make([]string, len(p.Bridges))
	for i, b := range p.Bridges {
		s[i] = b.BDF + " " + b.Control
	}
	out := strings.Join(s, "; ")
	if p.Note != "" {
		out += " (" + p.Note + ")"
	}
	return out
}

var bdfPattern = regexp.MustCompile(`^[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$`)

// sysfsName is a bus ID as sysfs names devices: "0000:1b:00.0".
func sysfsName(busID string) (string, error) {
	a, err := ParsePCIBusID(busID)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%04x:%02x:%02x.0", a.Domain, a.Bus, a.Device), nil
}

// upstream lists the PCI devices above the GPU at busID, nearest first, by
// resolving /sys/bus/pci/devices/<bdf> under root to its place in the
// device tree.
func upstream(root, busID string) ([]string, error) {
	name, err := sysfsName(busID)
	if err != nil {
		return nil, err
	}
	link := filepath.Join(root, "sys/bus/pci/devices", name)
	real, err := filepath.EvalSymlinks(link)
	if err != nil {
		return nil, fmt.Errorf("resolving %s: %w", link, err)
	}
	parts := strings.Split(filepath.ToSlash(real), "/")
	var out []string
	for i := len(parts) - 2; i >= 0; i-- { // skip the GPU itself
		if bdfPattern.MatchString(parts[i]) {
			out = append(out, parts[i])
		}
	}
	return out, nil
}

// PairACS reads the ACS control bits of every bridge between the GPUs at
// busA and busB: the bridges above each up to and including the lowest one
// they share (all of them when they share none), from the sysfs tree under
// root ("/" on a machine; a directory of files in tests).
func PairACS(root, busA, busB string) PathACS {
	ua, errA := upstream(root, busA)
	ub, errB := upstream(root, busB)
	if errA != nil || errB != nil {
		return PathACS{Note: fmt.Sprintf("unknown: %v", firstErr(errA, errB))}
	}
	onB := map[string]bool{}
	for _, d := range ub {
		onB[d] = true
	}
	var path []string
	seen := map[string]bool{}
	common := ""
	for _, d := range ua {
		path, seen[d] = append(path, d), true
		if onB[d] {
			common = d
			break
		}
	}
	for _, d := range ub {
		if d == common {
			break
		}
		if !seen[d] {
			path = append(path, d)
		}
	}
	if len(path) == 0 {
		return PathACS{Note: "unknown: no bridge visible (the GPUs sit on a root bus, as in many virtual machines)"}
	}
	var p PathACS
	for _, d := range path {
		p.Bridges = append(p.Bridges, bridgeACS(root, d))
	}
	return p
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// bridgeACS reads one device's ACS control register from its config file.
func bridgeACS(root, bdf string) BridgeACS {
	b := BridgeACS{BDF: bdf}
	cfg, err := os.ReadFile(filepath.Join(root, "sys/bus/pci/devices", bdf, "config"))
	switch {
	case err != nil:
		b.Control = "unknown: " + err.Error()
		return b
	case len(cfg) <= 0x100:
		b.Control = "unknown: needs root (extended configuration space not readable)"
		return b
	}
	ctl, found := acsControl(cfg)
	if !found {
		b.Control = "no ACS capability"
		return b
	}
	var bits []string
	for i, name := range acsControlBits {
		sign := "-"
		if ctl&(1<<i) != 0 {
			sign = "+"
		}
		bits = append(bits, name+sign)
	}
	b.Control = strings.Join(bits, " ")
	b.Redirects = ctl&(1<<2|1<<3) != 0
	return b
}

// acsControl walks the extended capability list from offset 0x100 and
// returns the ACS control register. The walk stops at a zero header, a
// pointer outside the space or back into the first 256 bytes, or after as
// many steps as the space could hold.
func acsControl(cfg []byte) (uint16, bool) {
	off := 0x100
	for steps := 0; steps < len(cfg)/4 && off >= 0x100 && off+8 <= len(cfg); steps++ {
		hdr := binary.LittleEndian.Uint32(cfg[off:])
		if hdr == 0 || hdr == 0xFFFFFFFF {
			return 0, false
		}
		if hdr&0xFFFF == acsCapID {
			return binary.LittleEndian.Uint16(cfg[off+6:]), true
		}
		off = int(hdr>>20) &^ 3
	}
	return 0, false
}
