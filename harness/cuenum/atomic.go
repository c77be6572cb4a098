// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package cuenum

import (
	"fmt"
	"strings"
)

// AtomicOperation is a CUatomicOperation value (CUDA 13.0), the operations
// cuDeviceGetP2PAtomicCapabilities and cuDeviceGetHostAtomicCapabilities
// report on.
type AtomicOperation int32

// Atomic operations, numbered as in cuda.h. The numbers are written out
// rather than counted by iota so that a reordering here cannot renumber them.
const (
	AtomicIntegerAdd       AtomicOperation = 0
	AtomicIntegerMin       AtomicOperation = 1
	AtomicIntegerMax       AtomicOperation = 2
	AtomicIntegerIncrement AtomicOperation = 3
	AtomicIntegerDecrement AtomicOperation = 4
	AtomicAnd              AtomicOperation = 5
	AtomicOr               AtomicOperation = 6
	AtomicXor              AtomicOperation = 7
	AtomicExchange         AtomicOperation = 8
	AtomicCAS              AtomicOperation = 9
	AtomicFloatAdd         AtomicOperation = 10
	AtomicFloatMin         AtomicOperation = 11
	AtomicFloatMax         AtomicOperation = 12
	// AtomicOperationCount is CU_ATOMIC_OPERATION_MAX, one past the last
	// operation: the operations are exactly 0 .. AtomicOperationCount-1.
	AtomicOperationCount AtomicOperation = 13
)

var atomicOpNames = [AtomicOperationCount]string{
	AtomicIntegerAdd:       "INTEGER_ADD",
	AtomicIntegerMin:       "INTEGER_MIN",
	AtomicIntegerMax:       "INTEGER_MAX",
	AtomicIntegerIncrement: "INTEGER_INCREMENT",
	AtomicIntegerDecrement: "INTEGER_DECREMENT",
	AtomicAnd:              "AND",
	AtomicOr:               "OR",
	AtomicXor:              "XOR",
	AtomicExchange:         "EXCHANGE",
	AtomicCAS:              "CAS",
	AtomicFloatAdd:         "FLOAT_ADD",
	AtomicFloatMin:         "FLOAT_MIN",
	AtomicFloatMax:         "FLOAT_MAX",
}

// String gives the cuda.h name, e.g. "CU_ATOMIC_OPERATION_INTEGER_ADD".
func (o AtomicOperation) String() string {
	if o >= 0 && o < AtomicOperationCount {
		return "CU_ATOMIC_OPERATION_" + atomicOpNames[o]
	}
	return fmt.Sprintf("CU_ATOMIC_OPERATION_%d", int32(o))
}

// AllAtomicOperations lists every CUatomicOperation in enum order, so a
// capability query covers them all and its answer indexes by operation.
func AllAtomicOperations() []AtomicOperation {
	ops := make([]AtomicOperation, AtomicOperationCount)
	for i := range ops {
		ops[i] = AtomicOperation(i)
	}
	return ops
}

// AtomicCaps is a CUatomicOperationCapability bit mask: how one atomic
// operation is supported natively over a link.
type AtomicCaps uint32

// CUatomicOperationCapability bits.
const (
	CapSigned     AtomicCaps = 1 << 0
	CapUnsigned   AtomicCaps = 1 << 1
	CapReduction  AtomicCaps = 1 << 2
	CapScalar32   AtomicCaps = 1 << 3
	CapScalar64   AtomicCaps = 1 << 4
	CapScalar128  AtomicCaps = 1 << 5
	CapVector32x4 AtomicCaps = 1 << 6
)

// capNames[i] names bit i.
var capNames = [...]string{"SIGNED", "UNSIGNED", "REDUCTION", "SCALAR_32", "SCALAR_64", "SCALAR_128", "VECTOR_32x4"}

// String lists the set bits by their cuda.h suffix, e.g.
// "SIGNED|UNSIGNED|SCALAR_32", unknown bits in hex, or "0".
func (c AtomicCaps) String() string {
	var parts []string
	for i, n := range capNames {
		if c&(1<<i) != 0 {
			parts = append(parts, n)
		}
	}
	if rest := c &^ (1<<len(capNames) - 1); rest != 0 {
		parts = append(parts, fmt.Sprintf("0x%x", uint32(rest)))
	}
	if len(parts) == 0 {
		return "0"
	}
	return strings.Join(parts, "|")
}
