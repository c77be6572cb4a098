// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"fmt"
	"os"
	"strings"

	"github.com/p2pconf/p2pconf/harness/machine"
	"github.com/p2pconf/p2pconf/harness/suitesettings"
)

// EnvTriples names the triples to run, roles in the order given
// ("0-1-2,0-2-3"), instead of the selection of machine.SelectTriples. Like
// P2PCONF_PAIRS for pairs, it may name any GPUs of the machine.
const EnvTriples = suitesettings.EnvTriples

// LinkClass is machine.LinkClass: what a pair's link is for the triple
// selection and the bandwidth suite's representative pairs.
func LinkClass(p Pair) string { return machine.LinkClass(p) }

// Triples lists the triples the three-GPU specs run on: those
// P2PCONF_TRIPLES names, else those machine.SelectTriples chooses among the
// GPUs selected for the run (P2PCONF_GPUS; P2PCONF_PAIRS does not narrow
// them). The suite binary checked P2PCONF_TRIPLES before building the
// tree (CheckTriples), so the panic below is a bug, not a user's mistake.
func Triples() []machine.Triple {
	m := current()
	pair := func(a, b GPU) Pair {
		if p, ok := m.Pair(a.Ordinal, b.Ordinal); ok {
			return p
		}
		return Pair{A: a, B: b, Link: "unknown"}
	}
	v := strings.TrimSpace(os.Getenv(EnvTriples))
	if v == "" {
		return machine.SelectTriples(m.GPUs(), pair)
	}
	ts, err := machine.ParseTriples(v, m.AllGPUs(), pair)
	if err != nil {
		panic(fmt.Sprintf("harness: %v", err))
	}
	return ts
}

// RepresentativePair says whether p sweeps every transfer size when the
// bandwidth settings do not ask for all pairs (bandwidth.Settings.SweepAll
// off): it is the first selected pair of its link class (LinkClass), or
// that pair's reverse.
func RepresentativePair(p Pair) bool {
	for _, q := range Pairs() {
		if LinkClass(q) != LinkClass(p) {
			continue
		}
		return q.ID() == p.ID() || q.ID() == p.Reverse().ID()
	}
	return false
}
