// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package kernels

import (
	"encoding/binary"
	"fmt"
	"math"
)

// CASProbe runs compare-and-swap cases one after the other in one thread
// (kernels/cas.ptx): for each, it stores the case's initial value into the
// word at cp_word, applies atom.cas.b32 or .b64 (.sys scope) with the
// case's expected and new values and loads the word back, recording what
// the CAS returned and what the word holds. A 32-bit case also stores a
// guard into the 32 bits above the word and loads it back, so a CAS that
// reads or writes beyond its width shows. Launch it with one thread; the
// cases and the out slots live in memory the GPU can reach (its own).
var CASProbe = define("cas.ptx", "cas_probe", 70, simCASProbe,
	P("cp_cases", Ptr), P("cp_n", U32), P("cp_word", Ptr), P("cp_out", Ptr))

// CASCase is one case of CASProbe.
type CASCase struct {
	Width               uint32 // 32 or 64
	Init, Expected, New uint64 // a 32-bit case uses the low 32 bits
	Guard               uint32 // the word above a 32-bit case's word
}

// CASCaseBytes is the size of one case record, and CASOutBytes of one
// out slot.
const (
	CASCaseBytes = 32
	CASOutBytes  = 16
)

// EncodeCASCases lays cases out as CASProbe reads them.
func EncodeCASCases(cases []CASCase) []byte {
	b := make([]byte, CASCaseBytes*len(cases))
	for i, c := range cases {
		r := b[CASCaseBytes*i:]
		binary.LittleEndian.PutUint64(r[0:], c.Init)
		binary.LittleEndian.PutUint64(r[8:], c.Expected)
		binary.LittleEndian.PutUint64(r[16:], c.New)
		binary.LittleEndian.PutUint32(r[24:], c.Width)
		binary.LittleEndian.PutUint32(r[28:], c.Guard)
	}
	return b
}

// CASResult is what CASProbe recorded for one case: the value the CAS
// returned and the word after it (a 32-bit case: the word in the low half,
// the guard as loaded in the high half).
type CASResult struct{ Returned, After uint64 }

// DecodeCASResults reads n out slots.
func DecodeCASResults(b []byte, n int) []CASResult {
	out := make([]CASResult, n)
	for i := range out {
		out[i] = CASResult{binary.LittleEndian.Uint64(b[CASOutBytes*i:]), binary.LittleEndian.Uint64(b[CASOutBytes*i+8:])}
	}
	return out
}

// Stores reports whether the CAS must store: the whole word (the low 32
// bits for a 32-bit case) equals the expected value.
func (c CASCase) Stores() bool {
	if c.Width == 32 {
		return uint32(c.Init) == uint32(c.Expected)
	}
	return c.Init == c.Expected
}

// Want is what the PTX atom.cas demands of the case: the CAS returns the
// word's value before it (init) and stores New exactly when the whole word
// equals Expected; a 32-bit CAS leaves the guard above it alone.
func (c CASCase) Want() CASResult {
	init, nv := c.Init, c.New
	if c.Width == 32 {
		init, nv = init&math.MaxUint32, nv&math.MaxUint32
	}
	after := init
	if c.Stores() {
		after = nv
	}
	if c.Width == 32 {
		after |= uint64(c.Guard) << 32
	}
	return CASResult{Returned: init, After: after}
}

func simCASProbe(g Grid, a []uint64) error {
	cases, n, word, out := a[0], uint32(a[1]), a[2], a[3]
	return g.Threads(1, func(t Thread) error {
		for i := uint32(0); i < n; i++ {
			rec, err := g.Read(cases+CASCaseBytes*uint64(i), CASCaseBytes)
			if err != nil {
				return err
			}
			init, exp, nv := binary.LittleEndian.Uint64(rec[0:]), binary.LittleEndian.Uint64(rec[8:]), binary.LittleEndian.Uint64(rec[16:])
			width, guard := binary.LittleEndian.Uint32(rec[24:]), binary.LittleEndian.Uint32(rec[28:])
			var ret, after uint64
			if width == 32 {
				if err := t.Store(word+4, TU32, uint64(guard), Relaxed, Sys); err != nil {
					return err
				}
				if err := t.Store(word, TU32, init&math.MaxUint32, Relaxed, Sys); err != nil {
					return err
				}
				if ret, err = t.Atomic(OpCAS, word, TU32, exp&math.MaxUint32, nv&math.MaxUint32, Relaxed, Sys); err != nil {
					return fmt.Errorf("cas_probe: %w", err)
				}
				lo, err := t.Load(word, TU32, Relaxed, Sys)
				if err != nil {
					return err
				}
				hi, err := t.Load(word+4, TU32, Relaxed, Sys)
				if err != nil {
					return err
				}
				after = lo | hi<<32
			} else {
				if err := t.Store(word, TU64, init, Relaxed, Sys); err != nil {
					return err
				}
				if ret, err = t.Atomic(OpCAS, word, TU64, exp, nv, Relaxed, Sys); err != nil {
					return fmt.Errorf("cas_probe: %w", err)
				}
				if after, err = t.Load(word, TU64, Relaxed, Sys); err != nil {
					return err
				}
			}
			var slot [CASOutBytes]byte
			binary.LittleEndian.PutUint64(slot[0:], ret)
			binary.LittleEndian.PutUint64(slot[8:], after)
			if err := g.Write(out+CASOutBytes*uint64(i), slot[:]); err != nil {
				return err
			}
		}
		return nil
	})
}
