// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package schedule plans a conformance run as rounds of suite processes on
// disjoint GPU subsets, so a machine with many GPUs tests them at the same
// time instead of one after another. It is pure: it takes the spec list (the
// suites' labels, as a dry run lists them) and the GPUs, and returns the
// plan; cmd/p2pconf runs it, package timemodel predicts its wall time.
//
// A plan is a list of rounds run one after another. A round holds lanes that
// run at the same time, each on its own GPUs; a lane runs its processes (one
// per suite) one after another. The rounds are:
//
//   - alone: the specs that must have the machine to themselves (the
//     bandwidth and latency sweeps measure the path, so nothing else may
//     share it) and the machine-wide specs (no gpu:, pair: or triple:
//     label), which run once with every GPU; one lane.
//   - gpu: every per-GPU spec, one lane per GPU.
//   - pair rounds: the ordered pairs in rounds of disjoint pairs (a
//     round-robin tournament, both directions: 8 GPUs give 14 rounds of 4).
//   - triple rounds: three-GPU placements packed so no GPU is in two
//     triples of one round.
package schedule

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Label prefixes the planner reads (harness/checks names the same; triple:
// is the three-GPU placement's label, A-B-C).
const (
	labelID     = "id:"
	labelSuite  = "suite:"
	labelKind   = "kind:"
	labelGPU    = "gpu:"
	labelPair   = "pair:"
	labelTriple = "triple:"
	labelLink   = "link:"
)

// Round kinds.
const (
	KindAlone  = "alone"
	KindGPU    = "gpu"
	KindPair   = "pair"
	KindTriple = "triple"
	KindSerial = "serial" // --serial: every suite once on every GPU, as before
)

// MachineWideFilter selects the specs of a suite that name no GPU, pair or
// triple (Ginkgo label-set syntax).
const MachineWideFilter = "gpu: isEmpty && pair: isEmpty && triple: isEmpty"

// Spec is one spec as the planner sees it: its suite and the GPUs it uses.
type Spec struct {
	Suite string // the suite binary's name (access, ...)
	ID    string // check ID (id: label)
	Kind  string // kind: label (conf, info, mutant)
	Link  string // link: label of a pair spec (nvlink, pcie, ...)
	Text  string // the full spec text
	// GPU is the gpu: ordinal, -1 without one. Pair is the pair: ordinals,
	// Triple the triple: ordinals; nil without.
	GPU    int
	Pair   []int
	Triple []int
	Labels []string
}

// Target is the spec's target label ("gpu:0", "pair:0-1", "triple:0-1-2"),
// "" for a machine-wide spec.
func (s Spec) Target() string {
	switch {
	case s.Triple != nil:
		return labelTriple + joinInts(s.Triple, "-")
	case s.Pair != nil:
		return labelPair + joinInts(s.Pair, "-")
	case s.GPU >= 0:
		return labelGPU + strconv.Itoa(s.GPU)
	}
	return ""
}

// Scope is "gpu", "pair", "triple" or "system".
func (s Spec) Scope() string {
	switch {
	case s.Triple != nil:
		return "triple"
	case s.Pair != nil:
		return "pair"
	case s.GPU >= 0:
		return "gpu"
	}
	return "system"
}

// GPUs are the ordinals the spec uses (none for a machine-wide spec).
func (s Spec) GPUs() []int {
	switch {
	case s.Triple != nil:
		return s.Triple
	case s.Pair != nil:
		return s.Pair
	case s.GPU >= 0:
		return []int{s.GPU}
	}
	return nil
}

// SpecFromLabels reads a spec's planning facts from its labels. A malformed
// gpu:, pair: or triple: value is an error: the planner would otherwise run
// the spec on the wrong GPUs.
func SpecFromLabels(suite, text string, labels []string) (Spec, error) {
	s := Spec{Suite: suite, Text: text, GPU: -1, Labels: labels}
	for _, l := range labels {
		var err error
		switch {
		case strings.HasPrefix(l, labelID):
			s.ID = strings.TrimPrefix(l, labelID)
		case strings.HasPrefix(l, labelKind):
			s.Kind = strings.TrimPrefix(l, labelKind)
		case strings.HasPrefix(l, labelLink):
			s.Link = strings.TrimPrefix(l, labelLink)
		case strings.HasPrefix(l, labelGPU):
			var g []int
			g, err = parseInts(strings.TrimPrefix(l, labelGPU), 1)
			if err == nil {
				s.GPU = g[0]
			}
		case strings.HasPrefix(l, labelPair):
			s.Pair, err = parseInts(strings.TrimPrefix(l, labelPair), 2)
		case strings.HasPrefix(l, labelTriple):
			s.Triple, err = parseInts(strings.TrimPrefix(l, labelTriple), 3)
		}
		if err != nil {
			return s, fmt.Errorf("schedule: spec %q of suite %s: label %q: %w", text, suite, l, err)
		}
	}
	return s, nil
}

func parseInts(v string, n int) ([]int, error) {
	parts := strings.Split(v, "-")
	if len(parts) != n {
		return nil, fmt.Errorf("want %d ordinals separated by '-'", n)
	}
	out := make([]int, n)
	seen := map[int]bool{}
	for i, p := range parts {
		x, err := strconv.Atoi(p)
		if err != nil || x < 0 {
			return nil, fmt.Errorf("%q is not a GPU ordinal", p)
		}
		if seen[x] {
			return nil, fmt.Errorf("GPU %d named twice", x)
		}
		seen[x] = true
		out[i] = x
	}
	return out, nil
}

func joinInts(v []int, sep string) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, sep)
}

// Options shape a plan.
type Options struct {
	// Serial plans one process per suite with every GPU, one after
	// another: the run as it was before the scheduler.
	Serial bool
	// AloneSuites are suites whose every spec runs with nothing else on the
	// machine (default: bandwidth, whose copy-engine, SM and latency sweeps
	// measure the path).
	AloneSuites []string
	// SuiteOrder is the order suites run in within a lane (default: sorted
	// by name).
	SuiteOrder []string
	// RepresentativeMutants runs the pair litmus mutants (kind:mutant of
	// LitmusCheck, which show that a forbidden test can fail) only on one
	// representative pair per link class and its reverse; the forbidden
	// tests still run on every pair, and a pass on another pair takes its
	// power verdict from the same test on the representative pair (its
	// processes get EnvPairMutants). p2pconf run and plan turn it on unless
	// asked for every pair's own mutants: on eight GPUs the pair mutants
	// are most of the run's time, and NVSwitch pairs of one link class
	// share one path design.
	RepresentativeMutants bool
	// BothWays plays both directions of a pair in one lane: each suite
	// process of the lane runs the specs of A→B and B→A (they use the same
	// two GPUs), so the pairs take n-1 rounds instead of 2(n-1) and half
	// the process starts. p2pconf preflight turns it on (--both-ways): its
	// few specs per pair cost less than the process that runs them.
	BothWays bool
}

// EnvPairMutants tells a suite process where its pair mutants ran:
// PairMutantsRepresentative when the plan left them to the representative
// pair of the link class (Process.MutantsElsewhere), so that its forbidden
// pair specs leave their power verdict to the merged report.
const (
	EnvPairMutants            = "P2PCONF_PAIR_MUTANTS"
	PairMutantsHere           = "here"
	PairMutantsRepresentative = "representative"
)

// MutantKind is the kind: value of mutant specs.
const MutantKind = "mutant"

// LitmusCheck is the check whose pair mutants RepresentativeMutants leaves
// to the representative pairs: the litmus mutants are most of a pair's
// time (about 100 per ordered pair), and their forbidden specs know to take
// their power verdict from there. The few other pair mutants (under a
// second each) still run on every pair.
const LitmusCheck = "ordering.litmus"

// noMutants is the filter suffix of a pair process whose litmus mutants
// were left to the representative pair.
const noMutants = " && !(kind:" + MutantKind + " && id:" + LitmusCheck + ")"

// Representatives is, per link class, the first ordered pair of specs
// with that link (the lowest source, then destination), and its reverse.
func Representatives(specs []Spec) map[[2]int]bool {
	best := map[string][2]int{}
	for _, s := range specs {
		if s.Scope() != "pair" {
			continue
		}
		p := [2]int{s.Pair[0], s.Pair[1]}
		if b, ok := best[s.Link]; !ok || p[0] < b[0] || (p[0] == b[0] && p[1] < b[1]) {
			best[s.Link] = p
		}
	}
	out := map[[2]int]bool{}
	for _, p := range best {
		out[p], out[[2]int{p[1], p[0]}] = true, true
	}
	return out
}

// Dropped is what a plan leaves out on purpose (RepresentativeMutants).
func Dropped(specs []Spec, opt Options) []Spec {
	if !opt.RepresentativeMutants || opt.Serial {
		return nil
	}
	rep := Representatives(specs)
	var out []Spec
	for _, s := range specs {
		if s.Scope() == "pair" && s.Kind == MutantKind && s.ID == LitmusCheck && !rep[[2]int{s.Pair[0], s.Pair[1]}] {
			out = append(out, s)
		}
	}
	return out
}

// DefaultAloneSuites are the suites that measure the path.
var DefaultAloneSuites = []string{"bandwidth"}

// Process is one suite binary started with a GPU subset and a label
// filter. Env holds P2PCONF_GPUS and P2PCONF_PAIRS ("" leaves the variable
// as the caller set it).
type Process struct {
	Shard  string // "<round>.<lane>.<suite>", e.g. "r3.0-1.access"
	Suite  string
	GPUs   []int // the GPUs it selects (nil: the caller's selection)
	Pairs  [][2]int
	Filter string // the label filter of this process ("" none)
	Specs  []Spec
	// MutantsElsewhere is true when the process's pair mutants were left
	// to the representative pair of their link class (EnvPairMutants).
	MutantsElsewhere bool
}

// GPUsEnv is the P2PCONF_GPUS value ("" to keep the caller's).
func (p Process) GPUsEnv() string { return joinInts(p.GPUs, ",") }

// PairsEnv is the P2PCONF_PAIRS value ("" to keep the caller's).
func (p Process) PairsEnv() string {
	var s []string
	for _, q := range p.Pairs {
		s = append(s, fmt.Sprintf("%d-%d", q[0], q[1]))
	}
	return strings.Join(s, ",")
}

// Lane is a sequence of processes on one GPU subset.
type Lane struct {
	ID        string // "all", "gpu0", "0-1", "0-1-2"
	GPUs      []int
	Processes []Process
}

// Round is a set of lanes on disjoint GPUs that run at the same time.
type Round struct {
	Index int    // from 0
	Name  string // "r0", "r1", ...
	Kind  string // KindAlone, KindGPU, KindPair, KindTriple, KindSerial
	Lanes []Lane
}

// Plan is the whole run.
type Plan struct {
	GPUs   []int
	Rounds []Round
}

// Specs counts the planned specs.
func (p Plan) Specs() int {
	n := 0
	for _, r := range p.Rounds {
		for _, l := range r.Lanes {
			for _, pr := range l.Processes {
				n += len(pr.Specs)
			}
		}
	}
	return n
}

// Processes counts the planned processes.
func (p Plan) Processes() int {
	n := 0
	for _, r := range p.Rounds {
		for _, l := range r.Lanes {
			n += len(l.Processes)
		}
	}
	return n
}

// Make plans specs on gpus. Every spec lands in exactly one process; a spec
// that names a GPU outside gpus is an error (the listing and the run would
// disagree on the machine).
func Make(specs []Spec, gpus []int, opt Options) (Plan, error) {
	gpus = append([]int(nil), gpus...)
	sort.Ints(gpus)
	have := map[int]bool{}
	for _, g := range gpus {
		have[g] = true
	}
	for _, s := range specs {
		for _, g := range s.GPUs() {
			if !have[g] {
				return Plan{}, fmt.Errorf("schedule: spec %q (%s) names GPU %d, not among the GPUs %v", s.Text, s.Target(), g, gpus)
			}
		}
	}
	order := suiteOrder(specs, opt.SuiteOrder)
	plan := Plan{GPUs: gpus}
	add := func(kind string, lanes []Lane) {
		var kept []Lane
		for _, l := range lanes {
			if len(l.Processes) > 0 {
				kept = append(kept, l)
			}
		}
		if len(kept) == 0 {
			return
		}
		i := len(plan.Rounds)
		name := "r" + strconv.Itoa(i)
		for li := range kept {
			for pi := range kept[li].Processes {
				pr := &kept[li].Processes[pi]
				pr.Shard = name + "." + kept[li].ID + "." + pr.Suite
			}
		}
		plan.Rounds = append(plan.Rounds, Round{Index: i, Name: name, Kind: kind, Lanes: kept})
	}
	if opt.Serial {
		lane := Lane{ID: "all", GPUs: gpus}
		for _, suite := range order {
			if ss := pick(specs, suite, func(Spec) bool { return true }); len(ss) > 0 {
				lane.Processes = append(lane.Processes, Process{Suite: suite, Specs: ss})
			}
		}
		add(KindSerial, []Lane{lane})
		return plan, nil
	}
	alone := map[string]bool{}
	aloneSuites := opt.AloneSuites
	if aloneSuites == nil {
		aloneSuites = DefaultAloneSuites
	}
	for _, s := range aloneSuites {
		alone[s] = true
	}

	// Alone: the path-measuring suites whole, and every machine-wide spec.
	lane := Lane{ID: "all", GPUs: gpus}
	for _, suite := range order {
		if alone[suite] {
			if ss := pick(specs, suite, func(Spec) bool { return true }); len(ss) > 0 {
				lane.Processes = append(lane.Processes, Process{Suite: suite, Specs: ss})
			}
			continue
		}
		if ss := pick(specs, suite, func(s Spec) bool { return s.Scope() == "system" }); len(ss) > 0 {
			lane.Processes = append(lane.Processes, Process{Suite: suite, Filter: MachineWideFilter, Specs: ss})
		}
	}
	add(KindAlone, []Lane{lane})

	dropped := map[string]bool{}
	for _, s := range Dropped(specs, opt) {
		dropped[s.Suite+"\x00"+s.Text+"\x00"+s.Target()] = true
	}
	rep := Representatives(specs)
	shared := func(s Spec) bool { return !alone[s.Suite] && !dropped[s.Suite+"\x00"+s.Text+"\x00"+s.Target()] }
	var lanes []Lane
	for _, g := range gpus {
		l := Lane{ID: "gpu" + strconv.Itoa(g), GPUs: []int{g}}
		for _, suite := range order {
			ss := pick(specs, suite, func(s Spec) bool { return shared(s) && s.Scope() == "gpu" && s.GPU == g })
			if len(ss) > 0 {
				l.Processes = append(l.Processes, Process{Suite: suite, GPUs: []int{g}, Filter: labelGPU + strconv.Itoa(g), Specs: ss})
			}
		}
		lanes = append(lanes, l)
	}
	add(KindGPU, lanes)

	for _, round := range pairRounds(gpus, opt.BothWays) {
		lanes = nil
		for _, p := range round {
			pair := []int{p[0], p[1]}
			l := Lane{ID: joinInts(pair, "-"), GPUs: pair}
			pairs := [][2]int{p}
			filter := labelPair + l.ID
			if opt.BothWays {
				pairs = append(pairs, [2]int{p[1], p[0]})
				filter = "(" + filter + " || " + labelPair + joinInts([]int{p[1], p[0]}, "-") + ")"
			}
			for _, suite := range order {
				ss := pick(specs, suite, func(s Spec) bool {
					return shared(s) && s.Scope() == "pair" && slices.Contains(pairs, [2]int{s.Pair[0], s.Pair[1]})
				})
				if len(ss) > 0 {
					// rep holds a pair and its reverse alike, so both
					// directions of a lane agree.
					elsewhere := opt.RepresentativeMutants && !rep[p]
					f := filter
					if elsewhere {
						f += noMutants
					}
					l.Processes = append(l.Processes, Process{Suite: suite, GPUs: pair, Pairs: pairs,
						Filter: f, Specs: ss, MutantsElsewhere: elsewhere})
				}
			}
			lanes = append(lanes, l)
		}
		add(KindPair, lanes)
	}

	for _, round := range packTriples(specs, shared) {
		lanes = nil
		for _, t := range round {
			l := Lane{ID: joinInts(t, "-"), GPUs: t}
			for _, suite := range order {
				ss := pick(specs, suite, func(s Spec) bool {
					return shared(s) && s.Scope() == "triple" && joinInts(s.Triple, "-") == l.ID
				})
				if len(ss) > 0 {
					l.Processes = append(l.Processes, Process{Suite: suite, GPUs: sortedCopy(t), Filter: labelTriple + l.ID, Specs: ss})
				}
			}
			lanes = append(lanes, l)
		}
		add(KindTriple, lanes)
	}
	if n, d := plan.Specs(), len(dropped); n+d != len(specs) {
		return plan, fmt.Errorf("schedule: planned %d and left out %d of %d specs", n, d, len(specs))
	}
	return plan, nil
}

func sortedCopy(v []int) []int {
	out := append([]int(nil), v...)
	sort.Ints(out)
	return out
}

func pick(specs []Spec, suite string, keep func(Spec) bool) []Spec {
	var out []Spec
	for _, s := range specs {
		if s.Suite == suite && keep(s) {
			out = append(out, s)
		}
	}
	return out
}

// suiteOrder is want's suites that have specs, then the others sorted.
func suiteOrder(specs []Spec, want []string) []string {
	have := map[string]bool{}
	for _, s := range specs {
		have[s.Suite] = true
	}
	var out []string
	for _, s := range want {
		if have[s] {
			out = append(out, s)
			delete(have, s)
		}
	}
	var rest []string
	for s := range have {
		rest = append(rest, s)
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// pairRounds is Tournament(gpus), or with bothWays its rounds of pairs
// A<B only: the lane of A-B then plays B→A too.
func pairRounds(gpus []int, bothWays bool) [][][2]int {
	rounds := Tournament(gpus)
	if !bothWays {
		return rounds
	}
	var out [][][2]int
	for _, r := range rounds {
		if len(r) > 0 && r[0][0] < r[0][1] {
			out = append(out, r)
		}
	}
	return out
}

// Tournament returns the ordered pairs of gpus in rounds of disjoint pairs:
// a round-robin tournament (the circle method) gives n-1 rounds of n/2
// unordered pairs for even n (n rounds of (n-1)/2 for odd n, one GPU
// resting each round); each round is played in both directions, one round
// after the other. So 8 GPUs give 14 rounds of 4 ordered pairs, all 56.
func Tournament(gpus []int) [][][2]int {
	n := len(gpus)
	if n < 2 {
		return nil
	}
	players := append([]int(nil), gpus...)
	const bye = -1
	if n%2 == 1 {
		players = append(players, bye)
	}
	m := len(players)
	var out [][][2]int
	for r := 0; r < m-1; r++ {
		var fwd, back [][2]int
		for i := 0; i < m/2; i++ {
			a, b := players[i], players[m-1-i]
			if a == bye || b == bye {
				continue
			}
			if a > b {
				a, b = b, a
			}
			fwd = append(fwd, [2]int{a, b})
			back = append(back, [2]int{b, a})
		}
		sort.Slice(fwd, func(i, j int) bool { return fwd[i][0] < fwd[j][0] })
		sort.Slice(back, func(i, j int) bool { return back[i][1] < back[j][1] })
		out = append(out, fwd, back)
		// Rotate every player but the first one place.
		last := players[m-1]
		copy(players[2:], players[1:m-1])
		players[1] = last
	}
	return out
}

// packTriples places the distinct triples of specs in rounds, each triple
// in the first round where none of its GPUs is taken yet.
func packTriples(specs []Spec, keep func(Spec) bool) [][][]int {
	var triples [][]int
	seen := map[string]bool{}
	for _, s := range specs {
		if s.Scope() != "triple" || !keep(s) {
			continue
		}
		id := joinInts(s.Triple, "-")
		if !seen[id] {
			seen[id] = true
			triples = append(triples, s.Triple)
		}
	}
	var rounds [][][]int
	var busy []map[int]bool
	for _, t := range triples {
		placed := false
		for i := range rounds {
			if !busy[i][t[0]] && !busy[i][t[1]] && !busy[i][t[2]] {
				rounds[i] = append(rounds[i], t)
				for _, g := range t {
					busy[i][g] = true
				}
				placed = true
				break
			}
		}
		if !placed {
			rounds = append(rounds, [][]int{t})
			busy = append(busy, map[int]bool{t[0]: true, t[1]: true, t[2]: true})
		}
	}
	return rounds
}
