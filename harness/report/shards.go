// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"fmt"
	"sort"
	"time"
)

// Schedule is how `p2pconf run` ran the suites: rounds one after another,
// in each round processes on disjoint GPUs at the same time. A verdict
// never depends on what ran beside it, and this section lets a reader
// check that: which specs shared the machine with which.
type Schedule struct {
	// Mode is "parallel" (rounds of processes on disjoint GPUs) or
	// "serial" (one process per suite, every GPU, one after another).
	Mode string `json:"mode"`
	// Limit is the most processes allowed at once, 0 for no limit.
	Limit int `json:"limit"`
	// Mutants is "representative" when the pair mutants ran only on one
	// pair per link class and its reverse (p2pconf run --mutants).
	Mutants string          `json:"mutants,omitempty"`
	Rounds  []ScheduleRound `json:"rounds"`
}

// ScheduleRound is one round: its processes ran at the same time (up to
// the limit), each on its own GPUs.
type ScheduleRound struct {
	Name string `json:"name"` // "r0", "r1", ...
	// Kind is what the round runs: "alone" (the path-measuring specs and
	// the machine-wide specs, nothing beside them), "gpu", "pair",
	// "triple", or "serial".
	Kind      string            `json:"kind"`
	Start     *time.Time        `json:"start"`
	End       *time.Time        `json:"end"`
	Processes []ScheduleProcess `json:"processes"`
}

// ScheduleProcess is one suite process of a round.
type ScheduleProcess struct {
	Shard string `json:"shard"` // results carry it in Result.Shard
	Suite string `json:"suite"`
	Lane  string `json:"lane"` // the GPU subset's name: "all", "gpu0", "0-1"
	// GPUs and Pairs are what the process selected (P2PCONF_GPUS,
	// P2PCONF_PAIRS); empty: the run's selection.
	GPUs        []int      `json:"gpus"`
	Pairs       string     `json:"pairs,omitempty"`
	LabelFilter string     `json:"label_filter"`
	Start       *time.Time `json:"start"`
	End         *time.Time `json:"end"`
	ExitCode    int        `json:"exit_code"`
	// Specs is how many specs the plan gave the process; Results how many
	// results it left.
	Specs   int `json:"specs"`
	Results int `json:"results"`
}

// Shard is one process's document and its place in the schedule.
type Shard struct {
	ID  string
	Doc Document
}

// MergeShards joins the documents of the processes that ran parts of one
// suite into that suite's document: every result carries its shard, and
// the suite entry spans them all (earliest start, latest end, succeeded
// only if every process did, every failure reason named with its shard).
// Results of two shards with the same key are an error: the plan gives
// every spec to one process.
func MergeShards(suite string, shards []Shard) (Document, error) {
	if len(shards) == 0 {
		return Document{}, fmt.Errorf("report: suite %s: no shard to merge", suite)
	}
	var docs []Document
	owner := map[string]string{}
	run := SuiteRun{Name: suite, Succeeded: true, FailureReasons: []string{}, Args: []string{}}
	for _, sh := range shards {
		d := sh.Doc
		d.Results = append([]Result(nil), d.Results...)
		for i := range d.Results {
			d.Results[i].Shard = sh.ID
			k := d.Results[i].Key()
			if prev, ok := owner[k]; ok {
				return Document{}, fmt.Errorf("report: suite %s: result %s in shard %s and in shard %s", suite, k, prev, sh.ID)
			}
			owner[k] = sh.ID
		}
		for _, s := range d.Suites {
			if s.Name != suite {
				continue
			}
			if run.Backend == "" {
				// The binary (Args[0]) names the suite too; the label
				// filters differ per shard and stay in the schedule.
				run.Backend, run.Args = s.Backend, nonNil(s.Args)
			}
			if before(s.Start, run.Start) || run.Start == nil {
				run.Start = s.Start
			}
			if before(run.End, s.End) || run.End == nil {
				run.End = s.End
			}
			run.Succeeded = run.Succeeded && s.Succeeded
			for _, r := range s.FailureReasons {
				run.FailureReasons = append(run.FailureReasons, sh.ID+": "+r)
			}
			run.SpecsTotal = max(run.SpecsTotal, s.SpecsTotal)
			run.SpecsRun += s.SpecsRun
			run.Seed = s.Seed
		}
		docs = append(docs, d)
	}
	out := Merge(docs)
	out.Suites = []SuiteRun{run}
	return out, nil
}

// mergeSchedule joins two documents' schedules: rounds by name (the
// earliest start, the latest end), processes by shard.
func mergeSchedule(a, b *Schedule) *Schedule {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	out := &Schedule{Mode: a.Mode, Limit: a.Limit, Mutants: a.Mutants}
	rounds := map[string]*ScheduleRound{}
	var order []string
	for _, s := range []*Schedule{a, b} {
		for _, r := range s.Rounds {
			cur, ok := rounds[r.Name]
			if !ok {
				c := r
				c.Processes = nil
				cur = &c
				rounds[r.Name] = cur
				order = append(order, r.Name)
			}
			if before(r.Start, cur.Start) || cur.Start == nil {
				cur.Start = r.Start
			}
			if before(cur.End, r.End) || cur.End == nil {
				cur.End = r.End
			}
			for _, p := range r.Processes {
				dup := false
				for _, q := range cur.Processes {
					dup = dup || q.Shard == p.Shard
				}
				if !dup {
					cur.Processes = append(cur.Processes, p)
				}
			}
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return roundLess(order[i], order[j]) })
	for _, n := range order {
		r := rounds[n]
		sort.SliceStable(r.Processes, func(i, j int) bool { return r.Processes[i].Shard < r.Processes[j].Shard })
		out.Rounds = append(out.Rounds, *r)
	}
	return out
}

// roundLess orders "r2" before "r10".
func roundLess(a, b string) bool {
	var x, y int
	_, ea := fmt.Sscanf(a, "r%d", &x)
	_, eb := fmt.Sscanf(b, "r%d", &y)
	if ea != nil || eb != nil {
		return a < b
	}
	return x < y
}
