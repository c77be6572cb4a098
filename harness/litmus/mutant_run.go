// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

// MutantRun is what a mutant spec saw, kept for its forbidden siblings: the
// runner remembers the mutants that ran in its process (package litmusrun)
// and Evidence judges a forbidden case from them.
type MutantRun struct {
	Test   string  `json:"test"`
	Hits   uint64  `json:"weak_outcomes"`
	Trials uint64  `json:"instances"`
	Rate   float64 `json:"weak_outcomes_per_second"`
	// Spec is the mutant's case (not in the report: Test names it).
	Spec Case `json:"-"`
}
