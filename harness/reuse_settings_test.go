// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"slices"
	"strings"
	"testing"

	"github.com/p2pconf/p2pconf/harness/bandwidth"
)

func TestReuseSizes(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == EnvBWReuseSweep {
				return v
			}
			return ""
		}
	}
	const mib = bandwidth.MiB
	for _, c := range []struct {
		value string
		max   uint64
		want  []uint64
	}{
		{"", bandwidth.GiB, []uint64{mib, 64 * mib}},
		{"representative", 4 * mib, []uint64{mib}},
		{" full ", bandwidth.GiB, []uint64{mib, 4 * mib, 16 * mib, 64 * mib, 256 * mib, bandwidth.GiB}},
		{"full", 16 * mib, []uint64{mib, 4 * mib, 16 * mib}},
		{"full", 512 * 1024, nil},
	} {
		got, err := ReuseSizes(env(c.value), c.max)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("ReuseSizes(%q, max %d) = %v, %v; want %v", c.value, c.max, got, err, c.want)
		}
	}
	if _, err := ReuseSizes(env("all"), bandwidth.GiB); err == nil || !strings.Contains(err.Error(), `P2PCONF_BW_REUSE_SWEEP="all"`) {
		t.Errorf("a bad value: %v, want an error naming the variable and the value", err)
	}
}
