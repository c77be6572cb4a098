// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"fmt"
	"strings"

	"github.com/p2pconf/p2pconf/harness/bandwidth"
)

// EnvBWReuseSweep chooses the sizes of bandwidth.copy-vs-direct:
// "representative" (default) or "full".
const EnvBWReuseSweep = "P2PCONF_BW_REUSE_SWEEP"

// ReuseMinSize and ReuseMaxSize bound the sizes of bandwidth.copy-vs-direct.
const (
	ReuseMinSize = bandwidth.MiB
	ReuseMaxSize = bandwidth.GiB
)

// representativeReuseSizes are the default sizes of bandwidth.copy-vs-direct:
// one that fits in every recent GPU's L2 cache and one that does not (an
// H200's L2 is 50 MiB), so the default run shows both regimes in about a
// second per target.
var representativeReuseSizes = []uint64{bandwidth.MiB, 64 * bandwidth.MiB}

// ReuseSizes are the buffer sizes bandwidth.copy-vs-direct measures, smallest
// first, none above maxSize (P2PCONF_BW_MAX_SIZE): by default the
// representative ones, with "full" every power of four from 1 MiB to 1 GiB.
// A malformed value is an error naming the variable, the value and the
// accepted ones.
func ReuseSizes(getenv func(string) string, maxSize uint64) ([]uint64, error) {
	var sizes []uint64
	switch v := strings.TrimSpace(getenv(EnvBWReuseSweep)); v {
	case "", "representative":
		sizes = representativeReuseSizes
	case "full":
		for n := uint64(ReuseMinSize); n <= ReuseMaxSize; n *= 4 {
			sizes = append(sizes, n)
		}
	default:
		return nil, fmt.Errorf("%s=%q: want representative (1MiB and 64MiB) or full (every power of four from 1MiB to 1GiB)", EnvBWReuseSweep, v)
	}
	var out []uint64
	for _, n := range sizes {
		if n <= maxSize {
			out = append(out, n)
		}
	}
	return out, nil
}
