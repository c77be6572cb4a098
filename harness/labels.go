// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"

	"github.com/p2pconf/p2pconf/harness/checks"
	"github.com/p2pconf/p2pconf/harness/machine"
)

// The label grammar is harness/checks'; these helpers turn it into Ginkgo
// Labels for the suites.

// Plain labels the suites add to a check's labels.
const (
	// ProcessMulti marks specs that run helper processes.
	ProcessMulti = checks.ProcessMulti
	// Slow marks specs that take long by design (litmus, bandwidth).
	Slow = checks.Slow
)

// Extra labels that may be added to a check's labels.
type Extra = string

// Variant declares the spec's variant key, for a check with several specs
// on one target: PairLabels(id, p, Variant("4-kib-no-peer")). The key names
// the variant in reports and `p2pconf repro --variant`; the spec's text
// keeps its GPU names.
func Variant(key string) Extra { return checks.VariantLabel(key) }

// GPULabels are the labels of a per-GPU spec of check id on g.
func GPULabels(id string, g GPU, extra ...Extra) Labels {
	return checkLabels(id, checks.OnGPU, []string{checks.GPULabel(int(g.Ordinal))}, extra)
}

// PairLabels are the labels of a per-pair spec of check id on p.
func PairLabels(id string, p Pair, extra ...Extra) Labels {
	return checkLabels(id, checks.OnPair, []string{checks.LabelPair + p.ID(), checks.LabelLink + p.Link}, extra)
}

// TripleLabels are the labels of a three-GPU spec of check id on t: its
// triple: label and the link: label of its least capable link.
func TripleLabels(id string, t machine.Triple, extra ...Extra) Labels {
	return checkLabels(id, checks.OnThree, []string{checks.LabelTriple + t.ID(), checks.LabelLink + t.Link()}, extra)
}

// checkLabels builds the labels from the catalogue. An unknown id panics at
// tree construction: that is a bug in the suite.
func checkLabels(id string, scope checks.Scope, target, extra []string) Labels {
	l, err := checks.Format(id, scope, target, extra)
	if err != nil {
		panic(fmt.Sprintf("harness: %v", err))
	}
	return Labels(l)
}
