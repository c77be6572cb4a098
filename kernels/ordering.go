// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package kernels

import (
	"fmt"
	"time"
)

// Kernels of the ordering suite; the PTX is kernels/ordering.ptx, whose
// comments give the exact meaning of every parameter.
var (
	// MPWrite is the writer of the flag handoff: per instance, relaxed .sys
	// data stores, then the flag as MPMode says.
	MPWrite = define("ordering.ptx", "mp_write", 70, simMPWrite,
		P("mpw_data", Ptr), P("mpw_flags", Ptr), P("mpw_n", U32), P("mpw_words", U32), P("mpw_gen", U32),
		P("mpw_mode", U32), P("mpw_gate", Ptr), P("mpw_status", Ptr), P("mpw_timeout_ns", U64))
	// MPRead is the reader: polls its instance's flag (bounded), then checks
	// the data; outcomes are counted in mpr_counts (MPCounts).
	MPRead = define("ordering.ptx", "mp_read", 70, simMPRead,
		P("mpr_data", Ptr), P("mpr_flags", Ptr), P("mpr_n", U32), P("mpr_words", U32), P("mpr_gen", U32),
		P("mpr_mult", U32), P("mpr_mode", U32), P("mpr_counts", Ptr), P("mpr_gate", Ptr), P("mpr_status", Ptr),
		P("mpr_timeout_ns", U64), P("mpr_spin_ns", U64))

	// HandoffToHost publishes rounds of data to mapped host memory with a
	// release flag and waits for the host's acknowledgement each round.
	HandoffToHost = define("ordering.ptx", "hd_to_host", 70, simHandoffToHost,
		P("hdt_data", Ptr), P("hdt_flag", Ptr), P("hdt_ack", Ptr), P("hdt_words", U32), P("hdt_rounds", U32),
		P("hdt_status", Ptr), P("hdt_timeout_ns", U64))
	// HandoffFromHost receives rounds of data the host publishes with an
	// atomic flag store, checks them after an acquire load and acknowledges
	// each round with a release store.
	HandoffFromHost = define("ordering.ptx", "hd_from_host", 70, simHandoffFromHost,
		P("hdf_data", Ptr), P("hdf_flag", Ptr), P("hdf_ack", Ptr), P("hdf_words", U32), P("hdf_rounds", U32),
		P("hdf_status", Ptr), P("hdf_timeout_ns", U64))

	// WaitReleased holds its stream until the host sets a word of mapped
	// pinned memory: one thread polls wr_flag with ld.relaxed.sys until it is
	// non-zero, for at most wr_timeout_ns, and reports in wr_status[0] how
	// the wait ended (WaitRelease*) and in wr_status[1] the polls made. A
	// spec that needs work to be still pending when it looks uses it instead
	// of a timed delay, so the host's own scheduling cannot end the wait
	// early. Launch it with one thread.
	WaitReleased = define("ordering.ptx", "wait_released", 70, simWaitReleased,
		P("wr_flag", Ptr), P("wr_timeout_ns", U64), P("wr_status", Ptr))
)

// MPMode selects how MPWrite publishes and MPRead observes the flag.
type MPMode uint32

// Flag-handoff modes (mpw_mode / mpr_mode).
const (
	MPReleaseAcquire MPMode = 0 // st.release.sys / ld.acquire.sys
	MPFenceAcqRel    MPMode = 1 // fence.acq_rel.sys around relaxed .sys flag accesses
	MPFenceSC        MPMode = 2 // fence.sc.sys around relaxed .sys flag accesses
	MPRelaxed        MPMode = 3 // relaxed .sys flag, no fence
	MPGPUScope       MPMode = 4 // st.release.gpu / ld.acquire.gpu
)

// MPPreRead is a bit of the reader's mode: or-ed in, it makes MPRead load
// its data words with ld.relaxed.sys before it polls the flag as well as
// after: a read before the synchronisation, whose (counted) values must not
// leak into the reads after it. Only the reader takes it: give the writer
// the plain mode.
const MPPreRead MPMode = 16

// MPStride is the distance in bytes between instances (data and flags).
const MPStride = 128

// MPMaxWords is the most data words an instance has.
const MPMaxWords = 32

// MPCounts indexes the u32 counters of MPRead.
const (
	MPSeen       = 0 // flag seen
	MPStaleInst  = 1 // seen, with at least one stale data word
	MPStaleWords = 2 // stale data words
	MPNotSeen    = 3 // flag not seen within mpr_spin_ns
	MPPreOld     = 4 // MPPreRead: data words the read before the poll found not new yet
)

// MPCountWords is the size of MPRead's counts, in u32 words.
const MPCountWords = 5

// MPWord is data word j of instance i in generation gen.
func MPWord(gen uint32, i, j int) uint32 { return FlagWord(gen, uint32(MPMaxWords*i+j)) }

// WaitReleased status values (word 0 of wr_status).
const (
	WaitReleaseSeen     uint32 = 1 // the host's flag was seen
	WaitReleaseTimedOut uint32 = 2 // wr_timeout_ns passed first
	WaitReleaseCapped   uint32 = 3 // the poll cap was hit first (the timer did not advance)
)

// Handoff status values (word 0 of HandoffToHost/HandoffFromHost status).
const (
	HandoffDone     uint32 = 1
	HandoffTimedOut uint32 = 2
)

func simMPWrite(g Grid, a []uint64) error {
	data, flags, n, words, gen, mode := a[0], a[1], int(a[2]), int(a[3]), uint32(a[4]), MPMode(a[5])
	gate, status, timeout := a[6], a[7], time.Duration(a[8])
	grid, block := g.Shape()
	nl := grid.Count() * block.Count()
	return g.Threads(nl, func(t Thread) error {
		i := t.ID()
		if err := simGate(g, t, gate, uint64(gen), timeout, status, i%int(block.X) == 0); err != nil {
			return err
		}
		if i >= n {
			return nil
		}
		for j := 0; j < words; j++ {
			if err := t.Store(data+uint64(MPStride*i+4*j), TU32, uint64(MPWord(gen, i, j)), Relaxed, Sys); err != nil {
				return err
			}
		}
		flag, v := flags+uint64(MPStride*i), uint64(gen)
		var err error
		switch mode {
		case MPReleaseAcquire:
			err = t.Store(flag, TU32, v, Release, Sys)
		case MPFenceAcqRel, MPFenceSC:
			sem := AcqRel
			if mode == MPFenceSC {
				sem = SC
			}
			if err = t.Fence(sem, Sys); err == nil {
				err = t.Store(flag, TU32, v, Relaxed, Sys)
			}
		case MPRelaxed:
			err = t.Store(flag, TU32, v, Relaxed, Sys)
		case MPGPUScope:
			err = t.Store(flag, TU32, v, Release, GPU)
		default:
			_, err = t.Atomic(OpAdd, status+4, TU32, 1, 0, Relaxed, Sys)
		}
		return err
	})
}

func simMPRead(g Grid, a []uint64) error {
	data, flags, n, words, gen, mult, mode := a[0], a[1], uint64(a[2]), int(a[3]), uint32(a[4]), uint64(a[5]), MPMode(a[6])
	counts, gate, status, timeout, spin := a[7], a[8], a[9], time.Duration(a[10]), time.Duration(a[11])
	pre := mode&MPPreRead != 0
	mode &^= MPPreRead
	grid, block := g.Shape()
	nl := grid.Count() * block.Count()
	return g.Threads(nl, func(t Thread) error {
		tl := t.ID()
		if err := simGate(g, t, gate, uint64(gen), timeout, status, tl%int(block.X) == 0); err != nil {
			return err
		}
		switch {
		case uint64(tl) >= n:
			return nil
		case mode > MPGPUScope:
			_, err := t.Atomic(OpAdd, status+4, TU32, 1, 0, Relaxed, Sys)
			return err
		}
		i := int(uint64(tl) * mult % n)
		if pre {
			if err := simPreRead(t, data+uint64(MPStride*i), words, gen, i, counts); err != nil {
				return err
			}
		}
		seen, err := simPollFlag(g, t, flags+uint64(MPStride*i), gen, mode, spin)
		if err != nil || !seen {
			if err == nil {
				_, err = t.Atomic(OpAdd, counts+4*MPNotSeen, TU32, 1, 0, Relaxed, Sys)
			}
			return err
		}
		stale := 0
		for j := 0; j < words; j++ {
			v, err := t.Load(data+uint64(MPStride*i+4*j), TU32, Relaxed, Sys)
			if err != nil {
				return err
			}
			if uint32(v) != MPWord(gen, i, j) {
				stale++
			}
		}
		return simCount(t, counts, stale)
	})
}

// simPreRead is MPRead's read before the poll: relaxed .sys loads of the
// instance's data words, those not new yet counted in counts[MPPreOld].
func simPreRead(t Thread, data uint64, words int, gen uint32, i int, counts uint64) error {
	old := 0
	for j := 0; j < words; j++ {
		v, err := t.Load(data+uint64(4*j), TU32, Relaxed, Sys)
		if err != nil {
			return err
		}
		if uint32(v) != MPWord(gen, i, j) {
			old++
		}
	}
	if old == 0 {
		return nil
	}
	_, err := t.Atomic(OpAdd, counts+4*MPPreOld, TU32, uint64(old), 0, Relaxed, Sys)
	return err
}

// simPollFlag polls as the PTX does and applies the mode's fence once the
// flag is seen.
func simPollFlag(g Grid, t Thread, flag uint64, gen uint32, mode MPMode, spin time.Duration) (bool, error) {
	sem, scope := Relaxed, Sys
	switch mode {
	case MPReleaseAcquire:
		sem = Acquire
	case MPGPUScope:
		sem, scope = Acquire, GPU
	}
	start := g.Now()
	for {
		v, err := t.Load(flag, TU32, sem, scope)
		if err != nil {
			return false, err
		}
		if uint32(v) == gen {
			break
		}
		if g.Now()-start >= spin {
			return false, nil
		}
		g.Pause()
	}
	switch mode {
	case MPFenceAcqRel:
		return true, t.Fence(AcqRel, Sys)
	case MPFenceSC:
		return true, t.Fence(SC, Sys)
	}
	return true, nil
}

func simCount(t Thread, counts uint64, stale int) error {
	if _, err := t.Atomic(OpAdd, counts+4*MPSeen, TU32, 1, 0, Relaxed, Sys); err != nil || stale == 0 {
		return err
	}
	if _, err := t.Atomic(OpAdd, counts+4*MPStaleInst, TU32, 1, 0, Relaxed, Sys); err != nil {
		return err
	}
	_, err := t.Atomic(OpAdd, counts+4*MPStaleWords, TU32, uint64(stale), 0, Relaxed, Sys)
	return err
}

// simWaitAtLeast polls addr with an acquire .sys load until it holds at
// least want or timeout passes.
func simWaitAtLeast(g Grid, t Thread, addr uint64, want uint32, timeout time.Duration) (bool, error) {
	start := g.Now()
	for {
		v, err := t.Load(addr, TU32, Acquire, Sys)
		if err != nil || uint32(v) >= want {
			return err == nil, err
		}
		if g.Now()-start >= timeout {
			return false, nil
		}
		g.Pause()
	}
}

func simHandoffToHost(g Grid, a []uint64) error {
	data, flag, ack, words, rounds, status, timeout := a[0], a[1], a[2], uint32(a[3]), uint32(a[4]), a[5], time.Duration(a[6])
	return g.Threads(1, func(t Thread) error {
		for r := uint32(1); r <= rounds; r++ {
			for j := uint32(0); j < words; j++ {
				if err := t.Store(data+4*uint64(j), TU32, uint64(FlagWord(r, j)), Weak, GPU); err != nil {
					return err
				}
			}
			if err := t.Store(flag, TU32, uint64(r), Release, Sys); err != nil {
				return err
			}
			ok, err := simWaitAtLeast(g, t, ack, r, timeout)
			if err != nil {
				return err
			}
			if !ok {
				return simStatus(t, status, HandoffTimedOut, r)
			}
		}
		return simStatus(t, status, HandoffDone, rounds)
	})
}

func simHandoffFromHost(g Grid, a []uint64) error {
	data, flag, ack, words, rounds, status, timeout := a[0], a[1], a[2], uint32(a[3]), uint32(a[4]), a[5], time.Duration(a[6])
	return g.Threads(1, func(t Thread) error {
		var stale, first uint32
		for r := uint32(1); r <= rounds; r++ {
			ok, err := simWaitAtLeast(g, t, flag, r, timeout)
			if err != nil {
				return err
			}
			if !ok {
				return simStatus(t, status, HandoffTimedOut, r, stale, first)
			}
			for j := uint32(0); j < words; j++ {
				v, err := t.Load(data+4*uint64(j), TU32, Weak, GPU)
				if err != nil {
					return err
				}
				if uint32(v) != FlagWord(r, j) {
					stale++
					if first == 0 {
						first = r
					}
				}
			}
			if err := t.Store(ack, TU32, uint64(r), Release, Sys); err != nil {
				return err
			}
		}
		return simStatus(t, status, HandoffDone, rounds, stale, first)
	})
}

// simStatus writes status words with plain stores, as the PTX does.
func simStatus(t Thread, status uint64, words ...uint32) error {
	for i, w := range words {
		if err := t.Store(status+4*uint64(i), TU32, uint64(w), Weak, GPU); err != nil {
			return fmt.Errorf("status word %d: %w", i, err)
		}
	}
	return nil
}

// simWaitReleased polls the flag as the PTX does, with the same time bound
// and poll cap, and writes the status with relaxed system-scope stores.
func simWaitReleased(g Grid, a []uint64) error {
	flag, timeout, status := a[0], time.Duration(a[1]), a[2]
	return g.Threads(1, func(t Thread) error {
		limit := a[1]/16 + 1024
		v := WaitReleaseCapped
		var polls uint64
		for polls < limit {
			w, err := t.Load(flag, TU32, Relaxed, Sys)
			if err != nil {
				return fmt.Errorf("wait_released: load of the flag at 0x%x: %w", flag, err)
			}
			polls++
			if w != 0 {
				v = WaitReleaseSeen
				break
			}
			if g.Now() >= timeout {
				v = WaitReleaseTimedOut
				break
			}
			g.Pause()
		}
		if err := t.Store(status, TU32, uint64(v), Relaxed, Sys); err != nil {
			return fmt.Errorf("wait_released: status store at 0x%x: %w", status, err)
		}
		return t.Store(status+4, TU32, uint64(uint32(polls)), Relaxed, Sys)
	})
}
