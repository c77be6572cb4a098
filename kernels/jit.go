// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package kernels

import "fmt"

// JITOptions are how the driver's JIT compiles a kernel's module. The zero
// value is the driver's default. A lowered optimization level is the
// differential that tells a compiler's merge of accesses from the
// hardware's reordering: the same PTX, compiled keeping every access.
type JITOptions struct {
	// Lowered asks for CU_JIT_OPTIMIZATION_LEVEL Level instead of the
	// driver's default (4).
	Lowered bool
	Level   int
}

// String is "" for the driver's default, else "O<level>".
func (o JITOptions) String() string {
	if !o.Lowered {
		return ""
	}
	return fmt.Sprintf("O%d", o.Level)
}
