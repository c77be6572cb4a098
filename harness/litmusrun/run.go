// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmusrun

import (
	"context"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/harness/litmus"
)

// Run runs case c on the spec's fixture h until its goal (litmus.Run) and
// returns what it saw. Requirements the machine does not meet skip the
// spec; harness and driver errors fail it.
func Run(ctx context.Context, h *harness.Harness, c litmus.Case, env litmus.Env) *litmus.Result {
	ginkgo.GinkgoHelper()
	return litmus.Run(ctx, &fixture{h}, c, env)
}

// fixture is the harness fixture as a litmus.Fixture: the fixture's own
// methods, and Ginkgo for the spec's end.
type fixture struct{ *harness.Harness }

func (*fixture) Skip(why string) {
	ginkgo.GinkgoHelper()
	ginkgo.Skip(why)
}

func (*fixture) Fail(why string) {
	ginkgo.GinkgoHelper()
	ginkgo.Fail(why)
}

func (*fixture) NoError(err error, explain string, args ...any) {
	ginkgo.GinkgoHelper()
	harness.ExpectNoError(err, explain, args...)
}

// Helper marks the function that calls it (in package litmus) as a helper,
// as ginkgo.GinkgoHelper would if that package could call it.
func (*fixture) Helper() { types.MarkAsHelper(1) }

var _ litmus.Fixture = (*fixture)(nil)
