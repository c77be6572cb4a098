// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package bandwidth

import (
	"fmt"
	"strconv"
	"strings"
)

// Byte sizes, binary.
const (
	KiB = uint64(1) << 10
	MiB = uint64(1) << 20
	GiB = uint64(1) << 30
)

// MinTransferSize is the smallest transfer the bandwidth suite measures;
// TransferSizes climbs from it by powers of four. The gate relies on that
// ladder to reject a minimum naming a size that is never measured.
const MinTransferSize = 4 * KiB

// TransferSizes lists the transfer sizes measured up to max: 4 KiB, then
// powers of four (16 KiB, 64 KiB, … 1 GiB).
func TransferSizes(max uint64) []uint64 {
	var out []uint64
	for s := MinTransferSize; s <= max; s *= 4 {
		out = append(out, s)
	}
	return out
}

// SizeLabel names a size as the bandwidth metrics do: "4KiB", "64MiB",
// "1GiB" (the last part of "bandwidth_gbps.ce.uni.1GiB").
func SizeLabel(n uint64) string {
	switch {
	case n >= GiB && n%GiB == 0:
		return fmt.Sprintf("%dGiB", n/GiB)
	case n >= MiB && n%MiB == 0:
		return fmt.Sprintf("%dMiB", n/MiB)
	case n >= KiB && n%KiB == 0:
		return fmt.Sprintf("%dKiB", n/KiB)
	}
	return fmt.Sprintf("%dB", n)
}

// ParseSize parses "4096", "4K", "4KiB", "64M", "64MiB", "1G", "1GiB"
// (binary units; "KB"/"MB"/"GB" are read as binary too, as memory sizes
// usually are).
func ParseSize(s string) (uint64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	mult := uint64(1)
	for _, u := range []struct {
		suffix string
		mult   uint64
	}{{"KIB", KiB}, {"MIB", MiB}, {"GIB", GiB}, {"KB", KiB}, {"MB", MiB}, {"GB", GiB}, {"K", KiB}, {"M", MiB}, {"G", GiB}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseUint(t, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a byte size", s)
	}
	if n > (1<<62)/mult {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return n * mult, nil
}
