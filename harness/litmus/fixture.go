// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"context"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/machine"
	"github.com/p2pconf/p2pconf/kernels"
)

// Fixture is what Run needs from the spec fixture: requirements that skip
// the spec when the machine does not meet them, allocations released after
// the spec, launches and bounded waits. Package litmusrun hands Run the
// harness fixture behind it; this package stays free of the test framework
// so that the reproducers (harness/repro) can build on the same model.
//
// Skip, Fail and the Require and Must methods end the spec (they do not
// return when they do), as NoError does for an error; Helper marks its
// caller as a helper, so a failure names the spec's line, not the runner's.
type Fixture interface {
	B() backend.Backend
	RequireAttribute(g machine.GPU, attr backend.DeviceAttr, want int)
	RequirePeerAccess(p machine.Pair)
	RequireP2PAttribute(p machine.Pair, attr backend.P2PAttr, want int)
	MustEnablePeerAccess(p machine.Pair)
	Attribute(g machine.GPU, attr backend.DeviceAttr) int
	Alloc(g machine.GPU, bytes uint64) backend.DevicePtr
	Fill(g machine.GPU, p backend.DevicePtr, v uint32, n int)
	HostAlloc(g machine.GPU, bytes uint64, flags backend.HostAllocFlags) *backend.HostBuffer
	Stream(g machine.GPU) backend.Stream
	Launch(s backend.Stream, k *kernels.Kernel, cfg backend.LaunchConfig, args ...uint64)
	Wait(ctx context.Context, s backend.Stream, step string) error
	Skip(why string)
	Fail(why string)
	NoError(err error, explain string, args ...any)
	Helper()
}
