// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"fmt"
	"unsafe"
)

// HostWord32 is the 32-bit word at byte offset off of mem (pinned host
// memory that kernels share: a HostBuffer's Mem or a slice of it), for host
// threads that read and write it with sync/atomic while a kernel runs. The
// specs need no unsafe code of their own. An address that is not 4-byte
// aligned, or a word past the end, panics: it is a mistake in the spec, and
// an unaligned word is not single-copy atomic, so every check on it would
// mean nothing.
func HostWord32(mem []byte, off int) *uint32 {
	return (*uint32)(hostWord(mem, off, 4))
}

// HostWord64 is HostWord32 for an 8-byte aligned 64-bit word.
func HostWord64(mem []byte, off int) *uint64 {
	return (*uint64)(hostWord(mem, off, 8))
}

func hostWord(mem []byte, off, size int) unsafe.Pointer {
	if off < 0 || off+size > len(mem) {
		panic(fmt.Sprintf("harness: a %d-byte host word at offset %d of %d bytes", size, off, len(mem)))
	}
	p := unsafe.Pointer(&mem[off])
	if uintptr(p)%uintptr(size) != 0 {
		panic(fmt.Sprintf("harness: the %d-byte host word at offset %d (address %#x) is not aligned", size, off, uintptr(p)))
	}
	return p
}
