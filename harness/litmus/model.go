// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/p2pconf/p2pconf/kernels"
)

// Limits of the generator: registers and finals together form the outcome,
// which must fit a small histogram kept in shared memory.
const (
	maxRoles = 4
	maxLocs  = 4
	maxValue = 30
	maxBins  = 4096
)

// Obs is one observed value of an outcome: a register, or the final value
// of a location.
type Obs struct {
	Name string
	Reg  int // register index, or NoReg for a final value
	Loc  int // location of a final value (or the location the register reads)
}

// Class is what an outcome means for its test.
type Class int

// Outcome classes, as in the cuda-litmus reports.
const (
	// Target is the outcome the test is about (forbidden: a violation;
	// allowed: the mutant's weak outcome).
	Target Class = iota
	// Sequential outcomes come from running the threads one after another.
	Sequential
	// Interleaved outcomes need an interleaving but are sequentially consistent.
	Interleaved
	// OtherWeak outcomes are not sequentially consistent and not the target;
	// the test does not judge them.
	OtherWeak
	// Impossible outcomes hold a value no operation could have produced
	// (corruption, a torn access, a harness bug).
	Impossible
)

var classNames = [...]string{"target", "sequential", "interleaved", "other-weak", "impossible"}

func (c Class) String() string { return classNames[c] }

// Model is a test's outcome space: observations, value domains, the
// histogram encoding the kernel uses, and the sequentially consistent
// outcomes enumerated from the program.
type Model struct {
	Obs    []Obs
	Domain [][]uint32 // per observation, sorted
	Radix  []int      // per observation: max(domain)+2; digit Radix-1 is "out of range"
	Mult   []int      // per observation: the place value of its digit
	Bins   int
	serial map[int]bool
	sc     map[int]bool
	target map[int]uint32 // observation index → value
}

var models sync.Map // *Test → *Model

// Model returns the test's model (computed once). It panics on a test that
// does not validate: the catalogue is code, checked by its unit tests.
func (t *Test) Model() *Model {
	if m, ok := models.Load(t); ok {
		return m.(*Model)
	}
	m, err := buildModel(t)
	if err != nil {
		panic(fmt.Sprintf("litmus: %v", err))
	}
	actual, _ := models.LoadOrStore(t, m)
	return actual.(*Model)
}

// Observations lists registers r0.. then the final values, by location name.
func (t *Test) Observations() []Obs {
	regLoc := map[int]int{}
	for _, th := range t.Threads {
		for _, op := range th {
			if op.Reg != NoReg {
				regLoc[op.Reg] = op.Loc
			}
		}
	}
	var out []Obs
	for r := 0; r < t.Regs(); r++ {
		out = append(out, Obs{Name: fmt.Sprintf("r%d", r), Reg: r, Loc: regLoc[r]})
	}
	for _, l := range t.Finals {
		out = append(out, Obs{Name: t.Locs[l], Reg: NoReg, Loc: l})
	}
	return out
}

func buildModel(t *Test) (*Model, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	dom, err := t.locDomains()
	if err != nil {
		return nil, err
	}
	m := &Model{Obs: t.Observations(), Bins: 1, target: map[int]uint32{}}
	for i, o := range m.Obs {
		d := sortedSet(dom[o.Loc])
		m.Domain = append(m.Domain, d)
		m.Radix = append(m.Radix, int(d[len(d)-1])+2)
		m.Mult = append(m.Mult, m.Bins)
		m.Bins *= m.Radix[i]
		if v, ok := t.Target[o.Name]; ok {
			m.target[i] = v
		}
	}
	if m.Bins > maxBins {
		return nil, fmt.Errorf("%s: %d outcome bins (at most %d)", t.Name(), m.Bins, maxBins)
	}
	m.sc, m.serial = map[int]bool{}, map[int]bool{}
	st := newState(t)
	st.interleave(func(s *state) { m.sc[m.Encode(s.observe(t))] = true })
	for _, order := range permutations(len(t.Threads)) {
		s := newState(t)
		for _, th := range order {
			for s.pc[th] < len(t.Threads[th]) {
				s.step(th)
			}
		}
		m.serial[m.Encode(s.observe(t))] = true
	}
	return m, nil
}

// locDomains computes, per location, every value it can hold: 0, the
// constants stored, and what RMWs and register-based stores derive from
// those. Each operation runs once per instance, so a value is derived
// through at most as many steps as there are deriving operations; the
// passes stop there (an over-approximation, never an infinite one).
func (t *Test) locDomains() ([]map[uint32]bool, error) {
	dom := make([]map[uint32]bool, len(t.Locs))
	for i := range dom {
		dom[i] = map[uint32]bool{0: true}
	}
	regLoc := map[int]int{}
	var derive []Op
	for _, th := range t.Threads {
		for _, op := range th {
			if op.Reg != NoReg {
				regLoc[op.Reg] = op.Loc
			}
			switch {
			case op.Kind == Store && op.Src == NoReg:
				dom[op.Loc][op.Val] = true
			case op.Kind == Store || op.Kind == RMW:
				derive = append(derive, op)
			}
		}
	}
	for range derive {
		snap := make([][]uint32, len(dom))
		for l, d := range dom {
			snap[l] = sortedSet(d)
		}
		for _, op := range derive {
			if op.Kind == Store {
				for _, v := range snap[regLoc[op.Src]] {
					dom[op.Loc][v+op.Val] = true
				}
				continue
			}
			for _, v := range snap[op.Loc] {
				if nv, w := applyRMW(op, v); w {
					dom[op.Loc][nv] = true
				}
			}
		}
	}
	for l, d := range dom {
		for v := range d {
			if v > maxValue {
				return nil, fmt.Errorf("%s: location %s can hold %d (values above %d are not supported)", t.Name(), t.Locs[l], v, maxValue)
			}
		}
	}
	return dom, nil
}

// applyRMW is the new value of a location after op reads old; false when a
// CAS does not store.
func applyRMW(op Op, old uint32) (uint32, bool) {
	switch op.Atom {
	case kernels.OpAdd:
		return old + op.Val, true
	case kernels.OpOr:
		return old | op.Val, true
	case kernels.OpExch:
		return op.Val, true
	case kernels.OpCAS:
		return op.Val, old == op.Cmp
	}
	return old, false
}

// Encode maps observed values to a histogram bin; a value outside an
// observation's range lands on its last digit.
func (m *Model) Encode(vals []uint32) int {
	bin := 0
	for i, v := range vals {
		d := min(int(v), m.Radix[i]-1)
		bin += d * m.Mult[i]
	}
	return bin
}

// Decode returns the digits of a bin (digit Radix-1 means out of range).
func (m *Model) Decode(bin int) []int {
	out := make([]int, len(m.Obs))
	for i := range m.Obs {
		out[i] = bin / m.Mult[i] % m.Radix[i]
	}
	return out
}

// Class classifies a bin.
func (m *Model) Class(bin int) Class {
	digits := m.Decode(bin)
	for i, d := range digits {
		if d == m.Radix[i]-1 || !contains(m.Domain[i], uint32(d)) {
			return Impossible
		}
	}
	match := true
	for i, v := range m.target {
		match = match && uint32(digits[i]) == v
	}
	switch {
	case match:
		return Target
	case m.serial[bin]:
		return Sequential
	case m.sc[bin]:
		return Interleaved
	}
	return OtherWeak
}

// IsSC reports whether a bin is a sequentially consistent outcome.
func (m *Model) IsSC(bin int) bool { return m.sc[bin] }

// TargetIsSC reports whether the target outcome is sequentially consistent
// (true for interleaving mutants, false for real weak outcomes).
func (m *Model) TargetIsSC() bool {
	for bin := range m.sc {
		if m.Class(bin) == Target {
			return true
		}
	}
	return false
}

// Text renders a bin as "r0=1 r1=0 x=2" (">N" for out of range).
func (m *Model) Text(bin int) string {
	digits := m.Decode(bin)
	parts := make([]string, len(digits))
	for i, d := range digits {
		if d == m.Radix[i]-1 {
			parts[i] = fmt.Sprintf("%s>%d", m.Obs[i].Name, d-1)
		} else {
			parts[i] = fmt.Sprintf("%s=%d", m.Obs[i].Name, d)
		}
	}
	return strings.Join(parts, " ")
}

// state is one point of a sequentially consistent execution.
type state struct {
	t    *Test
	pc   []int
	mem  []uint32
	regs []uint32
}

func newState(t *Test) *state {
	return &state{t: t, pc: make([]int, len(t.Threads)), mem: make([]uint32, len(t.Locs)), regs: make([]uint32, t.Regs())}
}

// step runs the next operation of thread th. A poll is one read: the
// earlier iterations of a polling loop change nothing, and the operations
// read inside the loop (Op.InPoll) follow it in program order, as they do
// in the iteration that ends the loop.
func (s *state) step(th int) {
	op := s.t.Threads[th][s.pc[th]]
	s.pc[th]++
	switch op.Kind {
	case Load:
		s.regs[op.Reg] = s.mem[op.Loc]
	case Store:
		v := op.Val
		if op.Src != NoReg {
			v += s.regs[op.Src]
		}
		s.mem[op.Loc] = v
	case RMW:
		old := s.mem[op.Loc]
		if op.Reg != NoReg {
			s.regs[op.Reg] = old
		}
		if nv, w := applyRMW(op, old); w {
			s.mem[op.Loc] = nv
		}
	}
}

func (s *state) clone() *state {
	return &state{t: s.t, pc: append([]int(nil), s.pc...), mem: append([]uint32(nil), s.mem...), regs: append([]uint32(nil), s.regs...)}
}

// interleave calls done for every complete interleaving.
func (s *state) interleave(done func(*state)) {
	progressed := false
	for th := range s.t.Threads {
		if s.pc[th] < len(s.t.Threads[th]) {
			progressed = true
			n := s.clone()
			n.step(th)
			n.interleave(done)
		}
	}
	if !progressed {
		done(s)
	}
}

func (s *state) observe(t *Test) []uint32 {
	out := append([]uint32(nil), s.regs...)
	for _, l := range t.Finals {
		out = append(out, s.mem[l])
	}
	return out
}

func permutations(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for i := 0; i <= len(p); i++ {
			q := append(append(append([]int{}, p[:i]...), n-1), p[i:]...)
			out = append(out, q)
		}
	}
	return out
}

func sortedSet(s map[uint32]bool) []uint32 {
	out := make([]uint32, 0, len(s))
	for v := range s {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func contains(s []uint32, v uint32) bool {
	i := sort.Search(len(s), func(i int) bool { return s[i] >= v })
	return i < len(s) && s[i] == v
}
