// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package schedule

import "github.com/p2pconf/p2pconf/harness/settings"

var _ = settings.Declare(settings.Setting{Name: EnvPairMutants,
	Form:    PairMutantsHere + " (the pair's mutants run in its own process) or " + PairMutantsRepresentative + " (they ran on the representative pair of its link class)",
	Default: PairMutantsHere, Check: settings.OneOf(PairMutantsHere, PairMutantsRepresentative)})
