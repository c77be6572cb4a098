// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cudabackend

import (
	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/cuda"
	"github.com/p2pconf/p2pconf/kernels"
)

// CompilePTX JIT-compiles ptx for device d as jit says and returns the
// cubin the driver produced, with its info log, loading nothing: the
// compile check of a litmus test that showed a forbidden outcome
// (litmusrun.Diagnose) disassembles it to see which accesses the driver's
// JIT kept. It is not part of backend.Backend: the fake has no JIT.
func (b *Backend) CompilePTX(d backend.Device, ptx, name string, jit kernels.JITOptions) (cubin []byte, info string, err error) {
	level := -1
	if jit.Lowered {
		level = jit.Level
	}
	err = b.in(d, "cuLinkCreate", func(drv *cuda.Driver) error {
		var e error
		cubin, info, e = drv.CompilePTXLevel(ptx, name, level)
		return e
	})
	return cubin, info, err
}
