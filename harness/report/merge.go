// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"sort"
	"strings"
	"time"
)

// Merge joins documents of one host (the suites of one run folder, or
// several partial runs) into one. Where two documents hold a result with
// the same key, the one from the later run wins; so do its suite entry and
// its GPU and pair descriptions. If the documents disagree on the backend,
// the merged backend names all of them ("mixed: cuda, fake:nvlink8"), so a
// fake result can never hide in a hardware report.
func Merge(docs []Document) Document {
	if len(docs) == 1 {
		d := docs[0]
		d.Results = nonNil(d.Results)
		d.Suites = nonNil(d.Suites)
		d.Summary = Summarize(d.Results)
		return d
	}
	sorted := append([]Document(nil), docs...)
	sort.SliceStable(sorted, func(i, j int) bool { return before(sorted[i].Run.Start, sorted[j].Run.Start) })

	out := Document{SchemaVersion: SchemaVersion}
	results := map[string]Result{}
	suites := map[string]SuiteRun{}
	gpus := map[int]GPU{}
	pairs := map[[2]int]Pair{}
	backends := map[string]bool{}
	runIDs := map[string]bool{}
	for i, d := range sorted {
		if d.Run.ID != "" {
			runIDs[d.Run.ID] = true
		}
		out.Schedule = mergeSchedule(out.Schedule, d.Schedule)
		if i == 0 {
			out.Run = d.Run
			out.System = d.System
		}
		out.Tool = d.Tool
		if d.System.Host != "" {
			out.System.Host = d.System.Host
		}
		mergeSystem(&out.System, d.System)
		if before(d.Run.Start, out.Run.Start) || out.Run.Start == nil {
			out.Run.Start = d.Run.Start
		}
		if before(out.Run.End, d.Run.End) || out.Run.End == nil {
			out.Run.End = d.Run.End
		}
		backends[d.System.Backend] = true
		for _, s := range d.Suites {
			suites[s.Name] = s
			backends[s.Backend] = true
		}
		for _, g := range d.System.GPUs {
			gpus[g.Ordinal] = g
		}
		for _, p := range d.System.Pairs {
			pairs[[2]int{p.Src, p.Dst}] = p
		}
		for _, r := range d.Results {
			results[r.Key()] = r
		}
	}
	out.Run.Host = out.System.Host
	// A merge of several runs (p2pconf report -o OUT runA runB) is none of them.
	out.Run.ID = ""
	if len(runIDs) == 1 {
		for id := range runIDs {
			out.Run.ID = id
		}
	}
	delete(backends, "")
	if len(backends) > 1 {
		var names []string
		for b := range backends {
			names = append(names, b)
		}
		sort.Strings(names)
		out.System.Backend = "mixed: " + strings.Join(names, ", ")
	}
	out.System.GPUs = sortedValues(gpus, func(a, b GPU) bool { return a.Ordinal < b.Ordinal })
	out.System.Pairs = sortedValues(pairs, func(a, b Pair) bool {
		return a.Src < b.Src || (a.Src == b.Src && a.Dst < b.Dst)
	})
	out.Suites = sortedValues(suites, func(a, b SuiteRun) bool { return a.Name < b.Name })
	for _, r := range results {
		out.Results = append(out.Results, r)
	}
	applyPower(out.Results)
	sortResults(out.Results)
	out.Results = nonNil(out.Results)
	out.Summary = Summarize(out.Results)
	return out
}

// mergeSystem fills the scalar fields dst lacks from src (a later run).
func mergeSystem(dst *System, src System) {
	set := func(d *string, s string) {
		if s != "" {
			*d = s
		}
	}
	set(&dst.DriverVersion, src.DriverVersion)
	set(&dst.NVMLVersion, src.NVMLVersion)
	set(&dst.Kernel, src.Kernel)
	set(&dst.IOMMU, src.IOMMU)
	set(&dst.Selection, src.Selection)
	if src.CUDAVersion != 0 {
		dst.CUDAVersion = src.CUDAVersion
	}
	if src.Env != nil {
		dst.Env = src.Env
	}
	if src.Platform != nil {
		dst.Platform = src.Platform
	}
}

func before(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == nil && b != nil
	}
	return a.Before(*b)
}

func sortedValues[K comparable, V any](m map[K]V, less func(a, b V) bool) []V {
	out := make([]V, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	sort.SliceStable(out, func(i, j int) bool { return less(out[i], out[j]) })
	return out
}

// Host is one host's merged results.
type Host struct {
	Name string
	Doc  Document
}

// ByHost merges documents per System.Host; hosts come out sorted by name.
func ByHost(docs []Document) []Host {
	groups := map[string][]Document{}
	for _, d := range docs {
		groups[d.System.Host] = append(groups[d.System.Host], d)
	}
	var hosts []Host
	for name, ds := range groups {
		hosts = append(hosts, Host{Name: name, Doc: Merge(ds)})
	}
	sort.Slice(hosts, func(i, j int) bool { return hosts[i].Name < hosts[j].Name })
	return hosts
}
