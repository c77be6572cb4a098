// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package ordering_test

import (
	. "github.com/onsi/ginkgo/v2"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/harness/litmus"
)

// The litmus placements that need three agents on three GPUs: WRC and ISA2
// with each hop on another GPU, IRIW with its writers on two GPUs and a
// reader on the third. They run on the triples harness.Triples chooses
// (every selected GPU in one, every link class and shape of triple
// covered, not all n³), mutants first within a family as on a GPU or pair,
// in an Ordered container of their own.
var _ = Describe("ordering: the memory-model litmus test on three GPUs", Ordered, ContinueOnFailure, func() {
	h := harness.New()
	env, timeout := litmusEnv()

	for _, tr := range harness.Triples() {
		for _, c := range litmus.RunTripleCases(tr, env.Evidence.Profile) {
			/*
				ID: ordering.litmus
				Requirement: as on a pair, with the threads on three GPUs A, B and
				C of the triple: WRC and ISA2 with T0 on A, T1 on B and T2 on C
				(each hop of the chain crosses a link), IRIW with its writers on
				A (x) and B (y) and its readers on C and beside one writer (T3
				on B, or T2 on A); each location in the memory of the GPU that
				writes it first, reached by the others over peer access.
				Forbidden outcomes (WRC and ISA2 with .sys release/acquire,
				IRIW with fence.sc.sys between both readers' loads) MUST NOT be
				observed; .gpu scope across the GPUs makes a test a mutant.
				Source: PTX ISA "Memory Consistency Model" (causality order,
				cumulativity, Fence-SC; PTX is not multi-copy atomic);
				docs/litmus.md, F cumulativity.
				Applies to: the selected triples whose three GPUs have peer
				access among all three (A↔B, B↔C, A↔C, cuDeviceCanAccessPeer=1
				in all six directions); otherwise the specs skip before the
				first check.
			*/
			It(c.Name(), harness.TripleLabels(litmus.CheckID, tr, c.Labels()...), func(ctx SpecContext) {
				runLitmus(ctx, h, c, env)
			}, timeout)
		}
	}
})
