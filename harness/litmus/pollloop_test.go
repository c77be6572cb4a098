// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/p2pconf/p2pconf/harness"
	"github.com/p2pconf/p2pconf/kernels"
)

// A polled reader whose data load is strong at system scope reads it
// inside the poll loop (Op.InPoll), so that no branch on the flag's value
// stands between the flag and the data load; a weak data load stays after
// the loop, except in the weak-x variants, which read it weakly in the loop
// (docs/litmus.md, "The reader's poll loop"). These tests hold the
// catalogue, the PTX, the Sim and the host side to that.

// TestPolledReadersReadInTheLoop: every polled reader whose next
// operations are loads (after fences, perhaps) reads them in its loop when
// the load is strong at .sys, after it otherwise, and no store is in a
// loop; the catalogue has readers of both forms.
func TestPolledReadersReadInTheLoop(t *testing.T) {
	readers, inLoop := 0, 0
	for _, tt := range Catalogue() {
		for ti, th := range tt.Threads {
			for i, op := range th {
				if !op.loops() {
					continue
				}
				next := i + 1
				for next < len(th) && th[next].Kind == Fence {
					next++
				}
				if next < len(th) && th[next].Kind == Load {
					readers++
					want := next - i // the fences and the load after the poll
					if !th[next].strongSys() || tt.Family == "MP" {
						want = 0 // weak data, or MP's readers (readAfterLoop)
					}
					if strings.Contains(tt.Variant, "weak x in loop") {
						want = next - i // readInLoopWeak
					}
					if strings.Contains(tt.Variant, "also weak x") {
						continue // compilerVariants: checked by TestCompilerVariants
					}
					if want > 0 {
						inLoop++
					}
					if got := pollBody(th, i); got != want {
						t.Errorf("%s T%d: %d operations in the poll loop, want %d (the data load is %v %v)", tt.Name(), ti, got, want, th[next].Sem, th[next].Scope)
					}
				}
				for _, o := range th[i+1:] {
					if o.InPoll && o.Kind == Store {
						t.Errorf("%s T%d: a store inside a poll loop", tt.Name(), ti)
					}
				}
			}
		}
	}
	if readers == 0 || inLoop == 0 || inLoop == readers {
		t.Fatalf("%d polled readers followed by a load, %d of them reading in the loop: want readers of both forms", readers, inLoop)
	}
}

// TestPTXReadsInsideThePollLoop checks every role's code in both code
// paths (one role per item, every role in every thread): the poll and the
// operations of its loop lie between the loop's label and its exit
// branch, before the first branch of the loop; every other operation lies
// outside any loop.
func TestPTXReadsInsideThePollLoop(t *testing.T) {
	checked := 0
	for _, tt := range Catalogue() {
		ptx := tt.Kernel().PTX
		for r, th := range tt.Threads {
			var want []bool // per operation: inside a poll loop
			for _, op := range th {
				if op.Kind == Fence || op.Kind == Load || op.Kind == Store || op.Kind == RMW {
					want = append(want, op.loops() || op.InPoll)
				}
			}
			sections := map[string]string{
				"per item":             section(ptx, fmt.Sprintf("ROLE%d:", r), "\tbra ITEM_NEXT;"),
				"every role":           everyRoleSection(ptx, r, len(tt.Threads), false),
				"every role, reversed": everyRoleSection(ptx, r, len(tt.Threads), true),
			}
			for path, sec := range sections {
				if sec == "" {
					t.Fatalf("%s T%d: no %s section in the PTX", tt.Name(), r, path)
				}
				var got []bool
				inLoop, branched := false, false
				for _, line := range strings.Split(sec, "\n") {
					switch {
					case strings.HasPrefix(line, "POLLED"):
						inLoop = false
					case strings.HasPrefix(line, "POLL"):
						inLoop, branched = true, false
					case inLoop && strings.Contains(line, "bra "):
						branched = true
					}
					if memInstr.MatchString(line) && !strings.Contains(line, "[%sd3]") {
						if inLoop && branched {
							t.Errorf("%s T%d (%s): %q comes after a branch of its poll loop", tt.Name(), r, path, strings.TrimSpace(line))
						}
						got = append(got, inLoop)
					}
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("%s T%d (%s): operations inside a poll loop %v, want %v", tt.Name(), r, path, got, want)
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Fatal("checked nothing")
	}
}

// everyRoleSection is role r's part of the every-role code path: from the
// lane computation of role r to that of role r+1 (or the register stores).
func everyRoleSection(ptx string, r, roles int, reversed bool) string {
	sec := section(ptx, "EVERY:", "\tbra EVERY_STORE;")
	if reversed {
		sec = section(ptx, "EVERY_REVERSED:", "EVERY_STORE:")
	}
	parts := regexp.MustCompile(`// role \d+, every role in every thread\n`).Split(sec, -1)
	if len(parts) != roles+1 {
		return ""
	}
	if reversed {
		return parts[roles-r]
	}
	return parts[r+1]
}

// traceThread is a kernels.Thread that records the locations a role reads
// and serves the flag as 0 until its flagAfter-th read.
type traceThread struct {
	loc       map[uint64]string
	flag      uint64
	flagAfter int
	flagReads int
	trace     []string
}

func (t *traceThread) ID() int { return 0 }

func (t *traceThread) Load(addr uint64, _ kernels.Type, _ kernels.Sem, _ kernels.Scope) (uint64, error) {
	t.trace = append(t.trace, "ld "+t.loc[addr])
	if addr == t.flag {
		t.flagReads++
		if t.flagReads >= t.flagAfter {
			return 1, nil
		}
		return 0, nil
	}
	return uint64(len(t.trace)), nil
}

func (t *traceThread) Store(addr uint64, _ kernels.Type, _ uint64, _ kernels.Sem, _ kernels.Scope) error {
	t.trace = append(t.trace, "st "+t.loc[addr])
	return nil
}

func (t *traceThread) Atomic(_ kernels.AtomOp, addr uint64, _ kernels.Type, _, _ uint64, _ kernels.Sem, _ kernels.Scope) (uint64, error) {
	t.trace = append(t.trace, "atom "+t.loc[addr])
	return 1, nil
}

func (t *traceThread) Fence(kernels.Sem, kernels.Scope) error {
	t.trace = append(t.trace, "fence")
	return nil
}

// TestSimReadsInsideThePollLoop: the Sim's polled MP, WRC and ISA2 readers
// read the data after the flag in every round, and keep the data of the
// round that saw the flag (runProgram, which the host threads use too).
func TestSimReadsInsideThePollLoop(t *testing.T) {
	for _, c := range []struct {
		test      string
		role      int
		flag      int // location polled
		flagAfter int
		want      string
	}{
		{"MP rlx.sys", 1, y, 3, "ld y ld y ld y ld x"},
		{"MP F.sc.sys+rlx.sys", 1, y, 2, "ld y ld y fence ld x"}, // weak data: after the loop
		{"WRC rlx.sys", 2, y, 2, "ld y ld x ld y ld x"},
		{"WRC rlx.sys", 1, x, 2, "ld x ld x st y"},
		{"ISA2 rel.sys/acq.sys", 2, z, 2, "ld z ld x ld z ld x"},
		{"ISA2 rlx.sys", 2, z, 2, "ld z ld x ld z ld x"},
		{"WRC rel.sys/acq.sys", 2, y, 2, "ld y ld x ld y ld x"},
		{"MP once rlx.gpu", 1, y, 5, "ld y ld x"},
		{"WRC rlx.sys", 2, y, 1000, strings.TrimSpace(strings.Repeat("ld y ld x ", pollCap))},
	} {
		tt := findTest(t, c.test)
		const n = 4
		a := launchArgs{n: n, stride: 16}
		loc := map[uint64]string{}
		for l := range tt.Locs {
			base := uint64(0x1000_0000 * (l + 1))
			a.locs = append(a.locs, base)
			for i := uint64(0); i < 2*n; i++ {
				loc[base+16*i] = tt.Locs[l]
			}
		}
		s := &simRun{t: tt, m: tt.Model(), a: a, g: &miniGrid{start: time.Now()}}
		p := newPerm(42, 0, n)
		th := &traceThread{loc: loc, flagAfter: c.flagAfter}
		th.flag = locAddr(a.locs[c.flag], p, c.flag, 0, 1, n, a.stride)
		regs, err := s.role(th, c.role, 1, 0, p)
		if err != nil {
			t.Fatalf("%s T%d: %v", c.test, c.role, err)
		}
		if got := strings.Join(th.trace, " "); got != c.want {
			t.Errorf("%s T%d, flag seen at read %d: performed %q, want %q", c.test, c.role, c.flagAfter, got, c.want)
		}
		// The data register holds what the last round's data load read
		// (traceThread returns the trace length at that load).
		last := tt.Threads[c.role][len(tt.Threads[c.role])-1]
		if last.Kind == Load && last.InPoll && regs[last.Reg] != uint32(len(th.trace)) {
			t.Errorf("%s T%d: the data register holds %d, want the last round's %d", c.test, c.role, regs[last.Reg], len(th.trace))
		}
	}
}

// TestValidateRejectsBadLoops: an operation in a poll loop must follow a
// polling read (or another operation of its loop) and must not write. A
// load in the loop that races with a writer is judged (uniform-size), and
// a mixed-size race is refused (TestValidateRefusesOnlyMixedSizeRaces).
func TestValidateRejectsBadLoops(t *testing.T) {
	inLoop := func(op Op) Op { op.InPoll = true; return op }
	for _, tt := range []*Test{
		{Family: "X", Variant: "in loop without a poll", Locs: []string{"x", "y"}, Threads: [][]Op{{ld(y, 0, rlxSys), inLoop(ld(x, 1, rlxSys))}}, Target: out{"r0": 1}},
		{Family: "X", Variant: "in loop first", Locs: []string{"x"}, Threads: [][]Op{{inLoop(ld(x, 0, rlxSys))}}, Target: out{"r0": 1}},
		{Family: "X", Variant: "store in loop", Locs: []string{"x", "y"}, Threads: [][]Op{{poll(y, 1, 0, rlxSys), inLoop(st(x, 1, rlxSys))}}, Target: out{"r0": 1}},
		{Family: "X", Variant: "in loop after a single read", Locs: []string{"x", "y"}, Threads: [][]Op{{once(y, 1, 0, rlxSys), inLoop(ld(x, 1, rlxSys))}}, Target: out{"r0": 1}},
	} {
		if err := tt.Validate(); err == nil {
			t.Errorf("%s: accepted", tt.Name())
		}
	}
}

// TestPowerNeedsTheSamePollForm: a mutant whose reader waits differently
// (its data read after the loop, or a single read) gives no power to a
// forbidden test of the same family, and the catalogue's polled families
// still have mutants of their forbidden tests' form.
func TestPowerNeedsTheSamePollForm(t *testing.T) {
	g := GPUCases(harness.GPU{})
	find := func(name string) Case {
		for _, c := range g {
			if c.Test.Name() == name && c.Place.Kind == CTAs {
				return c
			}
		}
		t.Fatalf("no case %q between CTAs", name)
		return Case{}
	}
	m, f := find("WRC rlx.sys"), find("WRC rel.sys/acq.sys")
	if !GivesPower(m, f) {
		t.Fatalf("%s does not give power to %s", m.Name(), f.Name())
	}
	after := *m.Test
	after.Threads = [][]Op{m.Test.Threads[0], m.Test.Threads[1], {poll(y, 1, 1, rlxSys), ld(x, 2, rlxSys)}}
	m.Test = &after
	if GivesPower(m, f) {
		t.Errorf("a mutant reading its data after the poll loop gives power to %s, whose reader reads in the loop", f.Name())
	}
	for _, name := range []string{"WRC rel.sys/acq.sys", "ISA2 rel.sys/acq.sys", "MP F.sc.sys+rlx.sys"} {
		f := find(name)
		n := 0
		for _, c := range g {
			if GivesPower(c, f) {
				n++
			}
		}
		if n == 0 {
			t.Errorf("%s: no mutant gives it power", f.Name())
		}
	}
}

// TestSimShowsPolledMutantUnderReleaseNotOrdered: with the data read in
// the poll loop, a polled mutant still shows its weak outcome where the
// memory allows it (a store buffer whose release stores do not wait, the
// fake's release-not-ordered), and its forbidden sibling fails there.
func TestSimShowsPolledMutantUnderReleaseNotOrdered(t *testing.T) {
	for _, name := range []string{"MP rel.sys/rlx.sys (no acquire)", "MP rel.sys/acq.sys"} {
		tt := findTest(t, name)
		pl := tt.Placements(CTAs)[0]
		hist, _ := runSim(t, tt, pl, simSetup{iters: 20, n: 32, block: 16, buffered: true, timeout: 5 * time.Second, skipParty: -1})
		if _, by := classCounts(tt, hist); by[Target] == 0 {
			t.Errorf("%s: release stores that do not wait for earlier stores never showed %s: %v", name, tt.TargetText(), by)
		}
	}
}

// TestValidateRefusesOnlyMixedSizeRaces: a weak or narrower-scope load in a
// poll loop racing with the writer's store is a uniform-size race, inside
// the PTX memory model, and validates; the model forbids MP's outcome in
// each of them between CTAs. Accesses of one location with different
// sizes by different threads, one a write, are a mixed-size race and are
// refused, as is an 8-byte access the engine cannot run.
func TestValidateRefusesOnlyMixedSizeRaces(t *testing.T) {
	inLoop := func(op Op) Op { op.InPoll = true; return op }
	sized := func(op Op, n int) Op { op.Size = n; return op }
	for _, tt := range []*Test{
		{Family: "X", Variant: "weak load in loop", Locs: []string{"x", "y"}, Threads: [][]Op{{st(x, 1, rlxSys), st(y, 1, relSys)}, {poll(y, 1, 0, acqSys), inLoop(ld(x, 1, weak))}}, Target: out{"r0": 1, "r1": 0}, Where: InCTAs},
		{Family: "X", Variant: "gpu-scope load in loop", Locs: []string{"x", "y"}, Threads: [][]Op{{st(x, 1, rlxSys), st(y, 1, relSys)}, {poll(y, 1, 0, acqSys), inLoop(ld(x, 1, rlxGPU))}}, Target: out{"r0": 1, "r1": 0}, Where: InCTAs},
		{Family: "X", Variant: "weak writer of a loop load", Locs: []string{"x", "y"}, Threads: [][]Op{{st(x, 1, weak), st(y, 1, relSys)}, {poll(y, 1, 0, acqSys), inLoop(ld(x, 1, rlxSys))}}, Target: out{"r0": 1, "r1": 0}, Where: InCTAs},
		{Family: "X", Variant: "explicit 4-byte sizes", Locs: []string{"x", "y"}, Threads: [][]Op{{sized(st(x, 1, weak), 4), st(y, 1, relSys)}, {poll(y, 1, 0, acqSys), inLoop(ld(x, 1, weak))}}, Target: out{"r0": 1, "r1": 0}, Where: InCTAs},
	} {
		if err := tt.Validate(); err != nil {
			t.Errorf("%s: refused: %v", tt.Name(), err)
			continue
		}
		if v, why := tt.Placements(CTAs)[0].Verdict(tt); v != Forbidden {
			t.Errorf("%s between CTAs: %v (%s), want forbidden", tt.Name(), v, why)
		}
	}
	mixed := &Test{Family: "X", Variant: "mixed-size", Locs: []string{"x", "y"}, Threads: [][]Op{{sized(st(x, 1, weak), 8), st(y, 1, relSys)}, {poll(y, 1, 0, acqSys), inLoop(ld(x, 1, weak))}}, Target: out{"r0": 1, "r1": 0}}
	if err := mixed.Validate(); err == nil || !strings.Contains(err.Error(), "mixed-size race") {
		t.Errorf("%s: %v, want a refusal naming the mixed-size race", mixed.Name(), err)
	}
	wide := &Test{Family: "X", Variant: "8-byte", Locs: []string{"x", "y"}, Threads: [][]Op{{sized(st(x, 1, weak), 8), st(y, 1, relSys)}, {poll(y, 1, 0, acqSys), inLoop(sized(ld(x, 1, weak), 8))}}, Target: out{"r0": 1, "r1": 0}}
	if err := wide.Validate(); err == nil || strings.Contains(err.Error(), "mixed-size") {
		t.Errorf("%s: %v, want a refusal of the 8-byte access (not a race)", wide.Name(), err)
	}
}
