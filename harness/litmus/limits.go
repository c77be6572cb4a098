// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

// Limits are the sizes and bounds of a run that a host side written in
// another language (the C reproducers of harness/repro) shares with the
// kernel and the runner (layout.go).
type Limits struct {
	CtlStride  int // bytes of one record of the control block
	CtlRecords int // records: the start gate's, then one per party
	BarBytes   int // bytes of a GPU's barrier block
	MaxIters   int // most iterations of one launch
	PollCap    int // most reads of one polling load
}

// RunLimits are the limits of this package's kernels.
func RunLimits() Limits {
	return Limits{CtlStride: ctlStride, CtlRecords: maxParties + 1, BarBytes: barBytes, MaxIters: maxIters, PollCap: pollCap}
}
