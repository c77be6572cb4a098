// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package bandwidth measures the paths between GPUs and between a GPU and
// the host: copy-engine and kernel-driven copies at sizes from 4 KiB to
// 1 GiB, small-transfer and pointer-chasing latency, the fraction of the
// link's nominal rate that NVML's description of the link promises, and an
// optional gate against a baseline. The specs are in the _test.go files;
// this file, gate.go and links.go are the pure parts, unit-tested without a
// GPU. README.md documents the figures and the baseline formats.
package bandwidth

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Environment variables of the bandwidth suite.
const (
	EnvMaxSize   = "P2PCONF_BW_MAX_SIZE"  // largest transfer, e.g. 1GiB (default) or 64MiB
	EnvBaseline  = "P2PCONF_BASELINE"     // baseline file that turns on the gate
	EnvTolerance = "P2PCONF_BW_TOLERANCE" // allowed drop below a previous run, percent (default 10)
)

// Sizes.
const (
	KiB = uint64(1) << 10
	MiB = uint64(1) << 20
	GiB = uint64(1) << 30

	// MinSize is the smallest transfer measured.
	MinSize = 4 * KiB
	// DefaultMaxSize keeps the suite near a minute on one H200.
	DefaultMaxSize = GiB
	// FakeMaxSize caps the sizes on the fake backend, whose "bandwidth" is
	// Go's memmove and whose memory is the test machine's.
	FakeMaxSize = 4 * MiB
	// DefaultTolerance is the drop below a previous run that the gate allows.
	DefaultTolerance = 0.10
)

// Config is the suite's configuration.
type Config struct {
	MaxSize      uint64
	Tolerance    float64 // fraction, 0.10 for 10 %
	BaselinePath string
	Baseline     *Baseline // nil: the specs only record
}

// ReadConfig reads the suite's variables through getenv. Malformed values
// are errors naming the variable and the value.
func ReadConfig(getenv func(string) string) (Config, error) {
	c := Config{MaxSize: DefaultMaxSize, Tolerance: DefaultTolerance}
	if v := strings.TrimSpace(getenv(EnvMaxSize)); v != "" {
		n, err := ParseSize(v)
		if err != nil || n < MinSize {
			return c, fmt.Errorf("%s=%q: want a byte size of at least 4KiB, such as 4MiB, 256MiB or 1GiB (sizes are measured from 4KiB by powers of four up to it)", EnvMaxSize, v)
		}
		c.MaxSize = n
	}
	if v := strings.TrimSpace(getenv(EnvTolerance)); v != "" {
		f, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), "%"), 64)
		if err != nil || f < 0 || f >= 100 {
			return c, fmt.Errorf("%s=%q: want a percentage from 0 to below 100, such as 10 or 7.5%%", EnvTolerance, v)
		}
		c.Tolerance = f / 100
	}
	if v := strings.TrimSpace(getenv(EnvBaseline)); v != "" {
		data, err := os.ReadFile(v)
		if err != nil {
			return c, fmt.Errorf("%s=%q: %w", EnvBaseline, v, err)
		}
		b, err := ParseBaseline(data, v)
		if err != nil {
			return c, fmt.Errorf("%s=%q: %w", EnvBaseline, v, err)
		}
		c.BaselinePath, c.Baseline = v, b
	}
	return c, nil
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

// Sizes lists the transfer sizes: 4 KiB, then powers of four up to max.
func Sizes(max uint64) []uint64 {
	var out []uint64
	for s := MinSize; s <= max; s *= 4 {
		out = append(out, s)
	}
	return out
}

// SizeLabel names a size as the metrics do: "4KiB", "64MiB", "1GiB".
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
