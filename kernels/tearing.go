// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package kernels

import "time"

// Kernels of ordering.store-tearing; the PTX is kernels/tearing.ptx, whose
// comments give the exact meaning of every parameter. A writer stores
// values k = 1, 2, ... into its slot while readers elsewhere load it, and
// every value carries a check of its own parts (TearValue), so a load that
// returns parts of two different stores shows.
var (
	// TearWrite stores values into slot i (thread i < tw_n) with
	// st.relaxed.sys of width tw_width until *tw_stop != 0.
	TearWrite = define("tearing.ptx", "tear_write", 70, simTearWrite,
		P("tw_slots", Ptr), P("tw_n", U32), P("tw_width", U32), P("tw_stop", Ptr), P("tw_gate", Ptr),
		P("tw_status", Ptr), P("tw_timeout_ns", U64), P("tw_run_ns", U64))
	// TearRead loads slot tl mod tr_n with ld.relaxed.sys until tr_want of
	// its reads saw a changed value, and counts reads, torn reads and changed
	// reads (TearCounts); the last thread done sets *tr_stop.
	TearRead = define("tearing.ptx", "tear_read", 70, simTearRead,
		P("tr_slots", Ptr), P("tr_n", U32), P("tr_width", U32), P("tr_want", U32), P("tr_max_reads", U32),
		P("tr_counts", Ptr), P("tr_stop", Ptr), P("tr_gate", Ptr), P("tr_status", Ptr), P("tr_timeout_ns", U64))
)

// TearSlot is the distance in bytes between slots.
const TearSlot = 16

// TearCounts index the u64 counters of TearRead.
const (
	TearReads   = 0 // loads made
	TearTorn    = 1 // loads whose parts disagree
	TearChanged = 2 // loads that saw another value than the thread's load before
	TearDone    = 3 // reader threads done
)

// Tear status words (u32, both kernels).
const (
	TearGateTimeouts = 0 // CTAs whose start gate timed out
	TearBadWidth     = 1 // threads given a width other than 4, 8 or 16
	TearTimeCapHit   = 2 // threads that stopped at their time cap
)

func mix16(x uint32) uint32 { return (x*0x9E37 ^ 0x5BD1) & 0xFFFF }
func mix32(x uint32) uint32 { return x*0x9E3779B1 ^ 0x5BD1E995 }

// TearValue is value k of a slot of width 4 or 8 (the low word of a
// width-16 slot), as the PTX computes it.
func TearValue(width int, k uint32) uint64 {
	if width == 4 {
		x := k & 0xFFFF
		return uint64(x<<16 | mix16(x))
	}
	return uint64(mix32(k))<<32 | uint64(k)
}

// TearValue128 is value k of a width-16 slot: the width-8 value, then its
// bitwise NOT.
func TearValue128(k uint32) (lo, hi uint64) {
	lo = TearValue(8, k)
	return lo, ^lo
}

// TearWhole reports whether v, a load of width 4 or 8, is one whole value.
func TearWhole(width int, v uint64) bool {
	if width == 4 {
		return uint32(v)&0xFFFF == mix16(uint32(v)>>16&0xFFFF)
	}
	return uint32(v>>32) == mix32(uint32(v))
}

// TearWhole128 reports whether the two halves of a width-16 load are one
// whole value.
func TearWhole128(lo, hi uint64) bool { return TearWhole(8, lo) && hi == ^lo }

// tearStopEvery is how many stores a writer makes between looks at its stop
// word, as in the PTX.
const tearStopEvery = 256

func simTearWrite(g Grid, a []uint64) error {
	slots, n, width, stop, gate, status := a[0], int(a[1]), int(a[2]), a[3], a[4], a[5]
	timeout, run := time.Duration(a[6]), time.Duration(a[7])
	grid, block := g.Shape()
	nl := grid.Count() * block.Count()
	return g.Threads(nl, func(t Thread) error {
		i := t.ID()
		if err := simGate(g, t, gate, 1, timeout, status+4*TearGateTimeouts, i%int(block.X) == 0); err != nil {
			return err
		}
		if i >= n {
			return nil
		}
		if width != 4 && width != 8 && width != 16 {
			_, err := t.Atomic(OpAdd, status+4*TearBadWidth, TU32, 1, 0, Relaxed, Sys)
			return err
		}
		slot, start := slots+uint64(TearSlot*i), g.Now()
		for k := uint32(1); ; k++ {
			var err error
			switch width {
			case 4:
				err = t.Store(slot, TU32, TearValue(4, k), Relaxed, Sys)
			case 8:
				err = t.Store(slot, TU64, TearValue(8, k), Relaxed, Sys)
			default: // a v2.u64 store: two 64-bit accesses, no promise of more
				lo, hi := TearValue128(k)
				if err = t.Store(slot, TU64, lo, Relaxed, Sys); err == nil {
					err = t.Store(slot+8, TU64, hi, Relaxed, Sys)
				}
			}
			if err != nil {
				return err
			}
			// Each access yields, so that the simulated writer and
			// readers interleave as threads of two GPUs would.
			g.Pause()
			if k%tearStopEvery != 0 {
				continue
			}
			s, err := t.Load(stop, TU32, Relaxed, Sys)
			if err != nil || s != 0 {
				return err
			}
			if g.Now()-start >= run {
				_, err := t.Atomic(OpAdd, status+4*TearTimeCapHit, TU32, 1, 0, Relaxed, Sys)
				return err
			}
		}
	})
}

func simTearRead(g Grid, a []uint64) error {
	slots, n, width, want, maxReads := a[0], uint64(a[1]), int(a[2]), uint32(a[3]), uint32(a[4])
	counts, stop, gate, status, timeout := a[5], a[6], a[7], a[8], time.Duration(a[9])
	grid, block := g.Shape()
	nl := grid.Count() * block.Count()
	return g.Threads(nl, func(t Thread) error {
		tl := t.ID()
		if err := simGate(g, t, gate, 1, timeout, status+4*TearGateTimeouts, tl%int(block.X) == 0); err != nil {
			return err
		}
		var reads, torn, changed uint32
		if width != 4 && width != 8 && width != 16 {
			if _, err := t.Atomic(OpAdd, status+4*TearBadWidth, TU32, 1, 0, Relaxed, Sys); err != nil {
				return err
			}
		} else {
			slot, start := slots+TearSlot*(uint64(tl)%n), g.Now()
			var prev uint64
			for {
				var v uint64
				var whole bool
				switch width {
				case 4, 8:
					ty := TU32
					if width == 8 {
						ty = TU64
					}
					x, err := t.Load(slot, ty, Relaxed, Sys)
					if err != nil {
						return err
					}
					v, whole = x, TearWhole(width, x)
				default:
					lo, err := t.Load(slot, TU64, Relaxed, Sys)
					if err != nil {
						return err
					}
					hi, err := t.Load(slot+8, TU64, Relaxed, Sys)
					if err != nil {
						return err
					}
					v, whole = lo, TearWhole128(lo, hi)
				}
				if !whole {
					torn++
				}
				if reads > 0 && v != prev {
					changed++
				}
				prev = v
				reads++
				if changed >= want || reads >= maxReads {
					break
				}
				g.Pause()
				if reads%256 == 0 {
					if g.Now()-start >= timeout {
						if _, err := t.Atomic(OpAdd, status+4*TearTimeCapHit, TU32, 1, 0, Relaxed, Sys); err != nil {
							return err
						}
						break
					}
				}
			}
		}
		for i, c := range []uint32{reads, torn, changed} {
			if _, err := t.Atomic(OpAdd, counts+8*uint64(i), TU64, uint64(c), 0, Relaxed, Sys); err != nil {
				return err
			}
		}
		done, err := t.Atomic(OpAdd, counts+8*TearDone, TU64, 1, 0, AcqRel, Sys)
		if err != nil || done+1 != uint64(nl) {
			return err
		}
		return t.Store(stop, TU32, 1, Relaxed, Sys)
	})
}
