// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// The GPU kernel, the Sim and the host threads must agree on which thread
// plays which instance and where each location and register lies: the host
// side computes it in Go, the GPU side in the generated PTX. Without a GPU,
// these tests evaluate the PTX's integer arithmetic (straight-line, ignoring
// memory accesses and branches) and compare it with layout.go.

type ptxEval map[string]uint64

func (e ptxEval) val(t *testing.T, s string) uint64 {
	t.Helper()
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "%") {
		return e[s]
	}
	if s == "lt_hsh" {
		return 0
	}
	v, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		t.Fatalf("operand %q: %v", s, err)
	}
	return v
}

// run evaluates the arithmetic of lines; watch is called after each line.
func (e ptxEval) run(t *testing.T, text string, watch func(line string)) {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(strings.TrimSuffix(strings.TrimSpace(line), ";"))
		if len(f) > 0 && strings.HasPrefix(f[0], "@") {
			// a predicated line runs when the test set its predicate
			if e[f[0]] != 1 {
				continue
			}
			f = f[1:]
		}
		if len(f) < 2 {
			continue
		}
		ops := strings.Split(strings.Join(f[1:], " "), ",")
		get := func(i int) uint64 { return e.val(t, ops[i]) }
		u32 := func(v uint64) uint64 { return v & 0xFFFFFFFF }
		d := strings.TrimSpace(ops[0])
		switch f[0] {
		case "mov.u32":
			e[d] = u32(get(1))
		case "mul.lo.u32":
			e[d] = u32(get(1) * get(2))
		case "mad.lo.u32":
			e[d] = u32(get(1)*get(2) + get(3))
		case "add.u32":
			e[d] = u32(get(1) + get(2))
		case "sub.u32":
			e[d] = u32(get(1) - get(2))
		case "and.b32":
			e[d] = get(1) & get(2)
		case "or.b32":
			e[d] = get(1) | get(2)
		case "xor.b32":
			e[d] = get(1) ^ get(2)
		case "shr.u32":
			e[d] = get(1) >> get(2)
		case "shl.b32":
			e[d] = u32(get(1) << get(2))
		case "div.u32":
			e[d] = get(1) / get(2)
		case "min.u32":
			e[d] = min(get(1), get(2))
		case "mul.wide.u32":
			e[d] = get(1) * get(2)
		case "setp.eq.u32":
			e["@"+d] = 0
			if get(1) == get(2) {
				e["@"+d] = 1
			}
		case "add.u64":
			e[d] = get(1) + get(2)
		}
		if watch != nil {
			watch(line)
		}
	}
}

func TestPTXLayoutMatchesGo(t *testing.T) {
	const n, stride = 64, 128
	for _, tt := range Catalogue() {
		ptx := tt.Kernel().PTX
		m := tt.Model()
		R := max(tt.Regs(), 1)
		for _, k := range []uint32{0, 1, 7} {
			seed := uint32(0xC0FFEE) + k
			p := newPerm(seed, k, n)
			set := k & 1
			e := ptxEval{"%u_k": uint64(k), "%u_seed": uint64(seed), "%u_n": n, "%u_nmask": n - 1, "%u_stride": stride, "%d_regs": 1 << 40}
			for l := range tt.Locs {
				e[fmt.Sprintf("%%d_loc%d", l)] = uint64(l+1) << 32
			}
			e.run(t, section(ptx, "ITER:", "\t@!%q_test bra STRESS;"), nil)
			for r := range tt.Threads {
				if e[fmt.Sprintf("%%u_rm%d", r)] != uint64(p.roleMul[r]) || e[fmt.Sprintf("%%u_rc%d", r)] != uint64(p.roleAdd[r]) {
					t.Fatalf("%s k=%d: role %d permutation differs between PTX and Go", tt.Name(), k, r)
				}
			}
			for r, th := range tt.Threads {
				s := uint32(5 + 3*r)
				i := p.instance(r, s, n)
				e["%s1"] = uint64(s)
				var regs []uint64
				e.run(t, section(ptx, fmt.Sprintf("ROLE%d:", r), "\tbra ITEM_NEXT;"), func(line string) {
					if strings.Contains(line, "st.global.u32 [%sd3]") {
						regs = append(regs, e["%sd3"])
					}
				})
				if e["%u_i"] != uint64(i) {
					t.Fatalf("%s k=%d T%d slot %d: PTX plays instance %d, Go %d", tt.Name(), k, r, s, e["%u_i"], i)
				}
				g := 0
				for _, op := range th {
					if op.Kind != Fence {
						want := locAddr(uint64(op.Loc+1)<<32, p, op.Loc, set, i, n, stride)
						if got := e[fmt.Sprintf("%%d_a%d", op.Loc)]; got != want {
							t.Errorf("%s k=%d T%d: %s at 0x%x in PTX, 0x%x in Go", tt.Name(), k, r, tt.Locs[op.Loc], got, want)
						}
					}
					if op.Reg != NoReg {
						if want := regAddr(1<<40, R, op.Reg, set, i, n); g >= len(regs) || regs[g] != want {
							t.Errorf("%s k=%d T%d: r%d stored at %v in PTX, 0x%x in Go", tt.Name(), k, r, op.Reg, regs, want)
						}
						g++
					}
				}
			}
			// The collector's outcome bin.
			vals := make([]uint32, len(m.Obs))
			e["%u_i"] = 9
			for j := range m.Obs {
				vals[j] = (uint32(j) + k) % uint32(m.Radix[j])
				e[fmt.Sprintf("%%u_o%d", j)] = uint64(vals[j])
			}
			coll := section(ptx, "COLLECT:", "\tbra COLLECT;")
			coll = coll[:strings.Index(coll, "\tatom.shared.add.u32")]
			e.run(t, coll, nil)
			if want := 4 * uint64(m.Encode(vals)); e["%s0"] != want {
				t.Errorf("%s: PTX counts outcome %v in byte %d of the histogram, Go in %d", tt.Name(), vals, e["%s0"], want)
			}
		}
	}
}

// With every role in every thread, the PTX and every.instance agree on the
// instance each role of a thread plays, with and without CTA shuffle and
// lane permutation, with the roles in CTAs of their own or grouped, and on
// where its locations lie.
func TestPTXEveryRoleMatchesGo(t *testing.T) {
	const ctas, block, stride = 8, 16, 12
	const n = ctas * block
	for _, tt := range Catalogue() {
		if len(tt.Threads) < 2 {
			continue
		}
		ptx := tt.Kernel().PTX
		for _, g := range append([]Grouping{nil}, AllGroupings(len(tt.Threads))...) {
			groups := PackGroups(g, len(tt.Threads))
			for _, k := range []uint32{0, 3} {
				for _, bits := range []uint32{envEvery, envEvery | envPermuteLanes | 100<<envShiftShuffle} {
					seed := uint32(0xBEEF) + k
					p := newPerm(seed, k, n)
					ev := newEvery(seed, k, ctas, block, bits)
					e := ptxEval{"%u_k": uint64(k), "%u_seed": uint64(seed), "%u_n": n, "%u_nmask": n - 1, "%u_stride": stride,
						"%u_cmask": ctas - 1, "%u_bmask": block - 1, "%u_ntid": block, "%u_cta": 5, "%u_tid": 11, "%u_groups": uint64(groups)}
					if ev.shuffle {
						e["@%q_shuf"] = 1
					}
					if ev.permute {
						e["@%q_perm"] = 1
					}
					for l := range tt.Locs {
						e[fmt.Sprintf("%%d_loc%d", l)] = uint64(l+1) << 32
					}
					e.run(t, section(ptx, "ITER:", "\t@!%q_test bra STRESS;"), nil)
					got := map[int]uint64{}
					e.run(t, section(ptx, "EVERY:", "\tbra BARRIER;"), func(line string) {
						var r int
						if _, err := fmt.Sscanf(strings.TrimSpace(line), "mov.u32 %%u_ir%d, %%u_i;", &r); err == nil {
							got[r] = e["%u_i"]
						}
					})
					for r := range tt.Threads {
						if want := ev.instance(p, groups, r, 5, 11); got[r] != uint64(want) {
							t.Fatalf("%s %s k=%d env %#x: role %d of thread (5, 11) plays instance %d in PTX, %d in Go", tt.Name(), g.Key(), k, bits, r, got[r], want)
						}
					}
				}
			}
		}
	}
}
