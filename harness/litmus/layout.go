// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmus

import "github.com/p2pconf/p2pconf/kernels"

// Memory layout shared by the PTX, the Sim and the host side. All words are
// 32 bits unless noted.
//
//   - location l, set s, slot i: loc_l + (s·n + i)·stride. Two sets alternate
//     between iterations; slot i of instance j is (j·a + b) mod n with a odd,
//     both drawn per iteration and location.
//   - register g of instance i in set s: regs + ((s·R + g)·n + i)·4.
//   - histogram bin b: hist + 8·b (u64).
//   - control block, in mapped pinned host memory: the start gate at +0; for
//     each party p a record at ctlStride·(1+p): epoch (iterations the party
//     completed, the barrier), status (0, or why it stopped) and the
//     iteration it stopped in.
//   - barrier block, in each GPU's own memory: the arrival counter at +0,
//     the spin-barrier counter at +barSpin and the generation (last
//     iteration released, or genAbort) at +barGen.
//   - stress line l: stress + l·stressLine.
//
// With every role in every thread (envEvery, between CTAs only), testing
// thread (CTA c, lane t) of C testing CTAs of B threads plays, for each role
// r in order, role r of instance ((c' − g_r·d) mod C)·B + σ_r(t ⊕ j_r·B/4):
// c' is c or, in shuffled iterations, (c·sa + sb) mod C; d is odd, so the
// roles of different CTA groups g lie in different CTAs; σ_r is the
// identity or, with envPermuteLanes, (t·rm_l + rc_l) mod B with l the
// first role of r's group. A role's group g_r, its position j_r in the
// group and that first role l come from lt_groups (PackGroups): without a
// grouping every role is a group of its own (g_r = l = r, j_r = 0), so
// every role of an instance runs in another CTA; roles of one group run in
// one CTA, and, since they share σ and differ in the top two bits of the
// lane, on threads B/4 apart: different warps when B ≥ 128.
const (
	ctlStride  = 128
	ctlEpoch   = 0
	ctlStatus  = 4
	ctlIter    = 8
	maxParties = 15
	ctlBytes   = ctlStride * (maxParties + 1)
	barSpin    = 64
	barGen     = 128
	barBytes   = 256
	genAbort   = 0xFFFFFFFF
	// pollCap bounds every polling load of a litmus thread (as in the H200
	// probes: 64 polls, then the value read last).
	pollCap = 64
	// stressRounds is how many stress accesses a stress thread makes per
	// iteration.
	stressRounds = 32
	// maxIters bounds one launch (per-CTA shared counters stay below 2^32).
	maxIters = 1 << 20
	// stressLine is the bytes between two stress lines.
	stressLine = 128
	// spinPolls bounds the spin barrier before the roles (as cuda-litmus).
	spinPolls = 1024
)

// Bits and fields of the lt_env kernel parameter.
const (
	envEvery        = 1 << 0 // every thread plays every role (RolesEvery)
	envPermuteLanes = 1 << 1 // each role its own lane permutation
	envSameSlot     = 1 << 2 // all locations of an instance share one slot number
	envShiftShuffle = 8      // bits 8..15: CTA shuffle percentage
	envShiftSpin    = 16     // bits 16..23: barrier spin percentage
	envShiftPre     = 24     // bits 24..31: pre-stress percentage
)

// Status codes a party writes into its control record when it stops early.
const (
	statusOK = iota
	statusGate
	statusLocal
	statusParties
	statusOther
)

var statusText = map[uint32]string{
	statusGate:    "the start gate did not open in time",
	statusLocal:   "waiting for the other CTAs of this GPU timed out",
	statusParties: "waiting for the other parties (GPU or host threads) timed out",
	statusOther:   "another party stopped",
}

// Seed mixing (lowbias32), identical in Go, the PTX and the Sim.
const (
	mixK    = 0x9E3779B9
	mixSalt = 0x85EBCA6B
	mixM1   = 0x7FEB352D
	mixM2   = 0x846CA68B
)

// mix is the per-iteration random number for salt.
func mix(seed, k, salt uint32) uint32 {
	h := k*mixK ^ seed ^ salt*mixSalt
	h ^= h >> 16
	h *= mixM1
	h ^= h >> 15
	h *= mixM2
	h ^= h >> 16
	return h
}

// Salts: role r's instance permutation uses saltRoleMul+r and saltRoleAdd+r,
// location l's slot permutation saltLocMul+l and saltLocAdd+l.
const (
	saltRoleMul = 0
	saltRoleAdd = 8
	saltLocMul  = 16
	saltLocAdd  = 32
	saltShuffle = 40 // whether this iteration shuffles the CTAs
	saltShufMul = 41
	saltShufAdd = 42
	saltStripe  = 43 // d, the CTA distance between consecutive roles
	saltSpin    = 44 // whether this iteration spins before the roles
	saltPre     = 45 // whether this iteration pre-stresses
)

// chance reports whether iteration k draws salt's event at pct percent.
func chance(seed, k, salt, pct uint32) bool { return mix(seed, k, salt)%100 < pct }

// perm is one iteration's permutation parameters.
type perm struct {
	roleMul, roleAdd [maxRoles]uint32
	locMul, locAdd   [maxLocs]uint32
}

func newPerm(seed, k, n uint32) perm {
	var p perm
	mask := n - 1
	for r := 0; r < maxRoles; r++ {
		p.roleMul[r] = (mix(seed, k, saltRoleMul+uint32(r)) | 1) & mask
		p.roleAdd[r] = mix(seed, k, saltRoleAdd+uint32(r)) & mask
	}
	for l := 0; l < maxLocs; l++ {
		p.locMul[l] = (mix(seed, k, saltLocMul+uint32(l)) | 1) & mask
		p.locAdd[l] = mix(seed, k, saltLocAdd+uint32(l)) & mask
	}
	return p
}

// sameSlot makes every location use location 0's slot permutation.
func (p perm) sameSlot() perm {
	for l := 1; l < maxLocs; l++ {
		p.locMul[l], p.locAdd[l] = p.locMul[0], p.locAdd[0]
	}
	return p
}

// every is one iteration's placement of instances with every role in every
// thread (see the layout comment above).
type every struct {
	ctas, block      uint32 // testing CTAs and threads per CTA, powers of two
	shuffle, permute bool
	sa, sb, d        uint32
}

func newEvery(seed, k, ctas, block, env uint32) every {
	cm := ctas - 1
	return every{ctas: ctas, block: block,
		shuffle: chance(seed, k, saltShuffle, env>>envShiftShuffle&0xFF), permute: env&envPermuteLanes != 0,
		sa: (mix(seed, k, saltShufMul) | 1) & cm, sb: mix(seed, k, saltShufAdd) & cm, d: (mix(seed, k, saltStripe) | 1) & cm}
}

// instance is the instance whose role r thread (cta, lane) plays, with
// the roles grouped into CTAs as groups (PackGroups) says.
func (e every) instance(p perm, groups uint32, r int, cta, lane uint32) uint32 {
	cm, bm := e.ctas-1, e.block-1
	g, j, lead := groupOf(groups, r)
	c := cta
	if e.shuffle {
		c = (cta*e.sa + e.sb) & cm
	}
	t := lane ^ (j * (e.block / 4))
	if e.permute {
		t = (t*p.roleMul[lead] + p.roleAdd[lead]) & bm
	}
	return ((c-g*e.d)&cm)*e.block + t
}

// PackGroups packs a grouping of n roles for lt_groups, 8 bits a role: its
// CTA group (bits 0-1), its position in the group (bits 2-3) and the first
// role of its group (bits 4-5). Nil is every role in a group of its own.
func PackGroups(g Grouping, n int) uint32 {
	var v uint32
	for r := 0; r < n; r++ {
		group, pos, lead := r, 0, r
		if g != nil {
			group, lead = g[r], -1
			for q := 0; q < r; q++ {
				if g[q] == g[r] {
					pos++
					if lead < 0 {
						lead = q
					}
				}
			}
			if lead < 0 {
				lead = r
			}
		}
		v |= uint32(group|pos<<2|lead<<4) << (8 * r)
	}
	return v
}

// ungrouped is lt_groups without a grouping: every role a group of its
// own. A zero lt_groups means the same, so that launch arguments that
// leave it out keep the roles in CTAs of their own.
var ungrouped = PackGroups(nil, maxRoles)

// groupOf unpacks role r's CTA group, position in the group and the first
// role of its group.
func groupOf(groups uint32, r int) (g, j uint32, lead int) {
	if groups == 0 {
		groups = ungrouped
	}
	b := groups >> (8 * r)
	return b & 3, b >> 2 & 3, int(b >> 4 & 3)
}

// instance is the instance that slot s of role r plays.
func (p perm) instance(r int, s, n uint32) uint32 { return (s*p.roleMul[r] + p.roleAdd[r]) & (n - 1) }

// slot is where location l of instance i lies in its set.
func (p perm) slot(l int, i, n uint32) uint32 { return (i*p.locMul[l] + p.locAdd[l]) & (n - 1) }

// locAddr is the address of location l of instance i in set s.
func locAddr(base uint64, p perm, l int, set, i, n, stride uint32) uint64 {
	return base + (uint64(set)*uint64(n)+uint64(p.slot(l, i, n)))*uint64(stride)
}

// regAddr is the address of register g of instance i in set s.
func regAddr(base uint64, regs, g int, set, i, n uint32) uint64 {
	return base + ((uint64(set)*uint64(regs)+uint64(g))*uint64(n)+uint64(i))*4
}

// Kernel parameters, in order after the location pointers lt_loc0...
var fixedParams = []kernels.Param{
	kernels.P("lt_regs", kernels.Ptr),
	kernels.P("lt_hist", kernels.Ptr),
	kernels.P("lt_ctl", kernels.Ptr),
	kernels.P("lt_bar", kernels.Ptr),
	kernels.P("lt_stress", kernels.Ptr),
	kernels.P("lt_n", kernels.U32),
	kernels.P("lt_iters", kernels.U32),
	kernels.P("lt_seed", kernels.U32),
	kernels.P("lt_party", kernels.U32),
	kernels.P("lt_parties", kernels.U32),
	kernels.P("lt_roles", kernels.U32),
	kernels.P("lt_nroles", kernels.U32),
	kernels.P("lt_collect", kernels.U32),
	kernels.P("lt_test_ctas", kernels.U32),
	kernels.P("lt_stress_lines", kernels.U32),
	kernels.P("lt_stride", kernels.U32),
	kernels.P("lt_timeout_ns", kernels.U64),
	kernels.P("lt_env", kernels.U32),
	kernels.P("lt_pre_iters", kernels.U32),
	kernels.P("lt_groups", kernels.U32),
}

// launchArgs are one GPU party's kernel arguments, in parameter order.
type launchArgs struct {
	locs                             []uint64
	regs, hist, ctl, bar, stress     uint64
	n, iters, seed, party, parties   uint32
	roles, nroles, collect, testCTAs uint32
	stressLines, stride              uint32
	timeoutNS                        uint64
	env, preIters                    uint32 // lt_env bits and fields, pre-stress iterations
	groups                           uint32 // lt_groups: PackGroups
}

func (a launchArgs) list() []uint64 {
	out := append([]uint64(nil), a.locs...)
	return append(out, a.regs, a.hist, a.ctl, a.bar, a.stress,
		uint64(a.n), uint64(a.iters), uint64(a.seed), uint64(a.party), uint64(a.parties),
		uint64(a.roles), uint64(a.nroles), uint64(a.collect), uint64(a.testCTAs),
		uint64(a.stressLines), uint64(a.stride), a.timeoutNS, uint64(a.env), uint64(a.preIters), uint64(a.groups))
}

func parseArgs(locs int, args []uint64) launchArgs {
	a := launchArgs{locs: args[:locs]}
	r := args[locs:]
	a.regs, a.hist, a.ctl, a.bar, a.stress = r[0], r[1], r[2], r[3], r[4]
	a.n, a.iters, a.seed, a.party, a.parties = uint32(r[5]), uint32(r[6]), uint32(r[7]), uint32(r[8]), uint32(r[9])
	a.roles, a.nroles, a.collect, a.testCTAs = uint32(r[10]), uint32(r[11]), uint32(r[12]), uint32(r[13])
	a.stressLines, a.stride, a.timeoutNS = uint32(r[14]), uint32(r[15]), r[16]
	a.env, a.preIters, a.groups = uint32(r[17]), uint32(r[18]), uint32(r[19])
	return a
}

// role returns the q-th role of the packed role list.
func (a launchArgs) role(q uint32) int { return int(a.roles >> (4 * q) & 15) }

// packRoles packs a list of roles, one nibble each.
func packRoles(roles []int) uint32 {
	var v uint32
	for q, r := range roles {
		v |= uint32(r) << (4 * q)
	}
	return v
}
