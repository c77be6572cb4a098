// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"strings"
	"testing"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/checks"
	"github.com/p2pconf/p2pconf/harness/machine"
)

// TestCaseKeys checks that every case's variant key is well formed, unique
// on its target, free of GPU names and the same on another GPU, pair or
// triple.
func TestCaseKeys(t *testing.T) {
	gpu := func(n int) machine.GPU { return machine.GPU{Ordinal: backend.Device(n)} }
	targets := [][2][]Case{
		{GPUCases(gpu(0)), GPUCases(gpu(3))},
		{PairCases(machine.Pair{A: gpu(0), B: gpu(1)}), PairCases(machine.Pair{A: gpu(2), B: gpu(0)})},
		{TripleCases(machine.Triple{A: gpu(0), B: gpu(1), C: gpu(2)}), TripleCases(machine.Triple{A: gpu(3), B: gpu(0), C: gpu(1)})},
	}
	for _, tc := range targets {
		seen := map[string]string{}
		if len(tc[0]) == 0 || len(tc[0]) != len(tc[1]) {
			t.Fatalf("%d and %d cases", len(tc[0]), len(tc[1]))
		}
		for i, c := range tc[0] {
			k := c.Key()
			if !checks.ValidVariantKey(k) || strings.Contains(k, "gpu0") {
				t.Errorf("%q: key %q is no variant key", c.Name(), k)
			}
			if other, dup := seen[k]; dup {
				t.Errorf("%q and %q share the key %q", other, c.Name(), k)
			}
			seen[k] = c.Name()
			if k2 := tc[1][i].Key(); k2 != k {
				t.Errorf("%q: key %q, but %q on another target", c.Name(), k, k2)
			}
		}
	}
}
