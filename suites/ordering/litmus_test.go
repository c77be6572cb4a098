// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package ordering_test

import (
	"fmt"
	"os"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/harness/litmus"
	"github.com/p2pconf/p2pconf/harness/litmusrun"
)

// The litmus tests are data (harness/litmus: catalogue*.go); each one runs
// as one spec per placement and GPU or pair: between CTAs of each GPU, with
// host threads on each GPU, and across each ordered pair with the locations
// in either GPU's memory or split between them. Within a family and
// placement the mutants come first, so a forbidden spec can say whether its
// own mutants (same shape and placement, weakened) showed power; the
// container is Ordered (all its specs share one code location, which Ginkgo
// would otherwise order by name) and ContinueOnFailure (a violation in one
// test must not skip the others).
var _ = Describe("ordering: the memory-model litmus test", Ordered, ContinueOnFailure, func() {
	h := harness.New()
	env, timeout := litmusEnv()

	for _, g := range harness.GPUs() {
		for _, c := range litmus.RunGPUCases(g, env.Evidence.Profile) {
			/*
				ID: ordering.litmus
				Requirement: for a litmus test whose outcome the PTX memory model
				forbids in its placement (the executable model of package
				ptxmodel decides every verdict), the
				outcome MUST NOT be observed in any instance, run between CTAs of
				one GPU, between two warps of one CTA where the placement groups
				threads into one CTA, and between GPU threads and host threads
				(host side with sync/atomic, sequentially consistent); nor may
				any other outcome the model forbids there, in a mutant too. The
				tests are the catalogue's and the generated space's (the nine
				families of the PLDI 2026 cuda-litmus table and MP, SB, LB, CoRR,
				CoRW, CoWR, CoWW and RMW atomicity over every grouping of threads
				into CTAs, scope and fence): the default and certify profiles
				run the subset the model picks (each verdict and scope relation
				once), P2PCONF_LITMUS_PROFILE=space all of it. Each run records
				instances, time, instances/s, the outcome histogram and the 95 %
				upper bound on the violation probability. A forbidden run stops
				at its instance target (P2PCONF_LITMUS_TARGET between CTAs,
				P2PCONF_LITMUS_LINK_TARGET with host threads or other GPUs) or
				its cap (P2PCONF_LITMUS_BUDGET), and says which; a mutant after
				P2PCONF_LITMUS_MUTANT_HITS weak outcomes or its cap
				(P2PCONF_LITMUS_MUTANT_BUDGET; P2PCONF_LITMUS_MUTANT_LONG_BUDGET
				once it has shown some). A forbidden run without a
				violation is inconclusive (an error, not a pass) when it counted
				fewer instances than P2PCONF_LITMUS_MIN_INSTANCES, vacuous (an
				error) when a value its threads store to a location it observes
				was never observed, when a polled
				flag was seen set in a smaller share of instances than
				P2PCONF_LITMUS_MIN_FLAG_SHARE, or when its 95 % bound exceeds
				P2PCONF_LITMUS_MAX_VIOLATION_BOUND; it names its evidence
				classes (weak, interleaving, checker). A mutant (an allowed outcome:
				weaker semantics, a missing fence, a narrower scope) never fails
				on its outcome; it records its weak outcomes per second and power
				for the forbidden tests of its shape and placement (none when its
				outcome is sequentially consistent). Both fail when no instance completes
				or a value no operation wrote is read. A run that shows an outcome
				the model forbids fails with its cause: the same case runs again
				with the driver's JIT at CU_JIT_OPTIMIZATION_LEVEL 0 and, where the
				CUDA toolkit's disassembler is on the node, the kernel goes through
				the compile check (every access of the PTX kept, one per unrolled
				iteration of a poll loop); the cause is compiler (an access lost,
				or the outcome gone at level 0), hardware (every access kept and
				the outcome shown at level 0 too) or undetermined, saying why.
				Source: PTX ISA "Memory Consistency Model" (scopes, morally
				strong, release/acquire patterns, Fence-SC); Lustig et al., ASPLOS 2019; docs/litmus.md
				families A-G; reeselevine/cuda-litmus, PLDI 2026 artifact
				(pldi26-output/results.csv) for the generated families.
				Applies to: every GPU; host placements where
				CAN_MAP_HOST_MEMORY=1 (and HOST_NATIVE_ATOMIC_SUPPORTED=1 for
				read-modify-writes on host memory).
			*/
			It(c.Name(), harness.GPULabels(litmus.CheckID, g, c.Labels()...), func(ctx SpecContext) {
				runLitmus(ctx, h, c, env)
			}, timeout)
		}
	}

	for _, p := range harness.Pairs() {
		for _, c := range litmus.RunPairCases(p, env.Evidence.Profile) {
			/*
				ID: ordering.litmus
				Requirement: as above, with the threads on the two GPUs of the
				pair (the third thread of WRC and ISA2 on either GPU) and the
				locations in one GPU's memory or split between the two (for a
				two-thread test x in A's memory and y in B's, and the reverse, so
				each thread's store crosses the link), reached by the other over
				peer access: forbidden outcomes MUST NOT be observed; .gpu scope
				across the GPUs makes a test a mutant.
				Source: PTX ISA "Memory Consistency Model"; docs/litmus.md,
				"Observed on H200s" (weak outcomes seen between two H200s).
				Applies to: ordered pairs with peer access both ways
				(cuDeviceCanAccessPeer=1) and, for read-modify-writes across
				the link, NATIVE_ATOMIC_SUPPORTED=1 both ways.
			*/
			It(c.Name(), harness.PairLabels(litmus.CheckID, p, c.Labels()...), func(ctx SpecContext) {
				runLitmus(ctx, h, c, env)
			}, timeout)
		}
	}
})

// litmusEnv is the litmus environment of the run and the timeout of a
// litmus spec: a spec runs its test until its target or its time cap, so
// its timeout grows with the longer cap (P2PCONF_LITMUS_BUDGET,
// P2PCONF_LITMUS_MUTANT_BUDGET). A malformed litmus variable stops the
// suite at tree construction, naming the variable.
func litmusEnv() (litmus.Env, SpecTimeout) {
	cfg := harness.RunConfig()
	evidence, err := litmus.ReadSettings(os.Getenv, cfg.Limits().Simulated)
	if err != nil {
		panic(fmt.Sprintf("ordering.litmus: %v", err))
	}
	return litmus.DefaultEnv(cfg, evidence), harness.TimeoutPlus(1, 3*evidence.LongestBudget())
}

// runLitmus runs one case until its goal, reports what it saw, and judges
// it.
func runLitmus(ctx SpecContext, h *harness.Harness, c litmus.Case, env litmus.Env) {
	GinkgoHelper()
	By(fmt.Sprintf("running %s %s until %s, with up to %d instances per iteration", c.Test.Name(), c.Where(), env.Goal(c), env.Instances))
	if c.Verdict == litmus.Allowed && c.Why != "" {
		By("this is a mutant here: " + c.Why)
	} else if c.Why != "" {
		By("forbidden here: " + c.Why)
	}
	r := litmusrun.Run(ctx, h, c, env)
	litmusrun.Report(r, env)

	By("checking that instances completed and read only values the test writes")
	Expect(r.Instances()).To(BeNumerically(">", 0), "no instance of %s on %s completed: %s", c.Test.Name(), c.Target(), r.Summary())
	Expect(r.Count(litmus.Impossible)).To(BeZero(), "values no operation wrote were read on %s: %s", c.Target(), r.Summary())
	By("checking that no outcome the PTX memory model forbids here appeared")
	cause := ""
	if r.Violations() > 0 {
		// A forbidden outcome is a failure with its cause: the compiler
		// (the driver's code lost an access the PTX has) or the hardware.
		cause = "\n" + litmus.CauseLine(litmus.JudgeCause(litmusrun.Diagnose(ctx, h, r, env)))
	}
	if c.Verdict == litmus.Forbidden {
		Expect(r.Violations()).To(BeZero(), "forbidden outcome %s observed on %s in %d of %d instances, other outcomes the PTX memory model forbids in %d: %s%s",
			c.Test.TargetText(), c.Target(), r.Count(litmus.Target), r.Instances(), r.Violations()-r.Count(litmus.Target), r.Summary(), cause)
	} else {
		Expect(r.Violations()).To(BeZero(), "outcomes the PTX memory model forbids here observed on %s in %d of %d instances (the allowed outcome %s is the mutant's target): %s%s",
			c.Target(), r.Violations(), r.Instances(), c.Test.TargetText(), r.Summary(), cause)
	}
	if c.Verdict == litmus.Forbidden {
		By("checking that the run tested something: enough instances, every stored value observed, the polled flag seen, a small enough bound")
		if why := litmus.Inconclusive(r, env.Evidence); why != "" {
			// Not a verdict on the GPUs either way: the spec ends as an error.
			harness.Inconclusive("%s, in %s %s on %s; %s", why, c.Test.Name(), c.Where(), c.Target(), r.Summary())
		}
	}
}
