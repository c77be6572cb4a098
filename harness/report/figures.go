// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// bwSeries is one measured figure of one check across targets: a metric
// base name ("bandwidth_gbps.ce.uni") with its values per target, at every
// size the metric names carry ("bandwidth_gbps.ce.uni.1GiB"); a metric
// without a size suffix is a series of one size, "".
type bwSeries struct {
	check, base, unit string
	pair              bool                        // pair targets (grid) or GPUs (table row)
	values            map[tkey]map[string]float64 // target -> size label -> value
	sizes             []string                    // size labels, smallest first
}

// largest is the value at the largest size a target has, and that size.
func (s *bwSeries) largest(k tkey) (float64, string, bool) {
	vals, ok := s.values[k]
	if !ok {
		return 0, "", false
	}
	for i := len(s.sizes) - 1; i >= 0; i-- {
		if v, ok := vals[s.sizes[i]]; ok {
			return v, s.sizes[i], true
		}
	}
	return 0, "", false
}

// largestCaption names the size a grid or row shows: "at 1GiB" when every
// target's largest size is the same, else "at each target's largest size".
func (s *bwSeries) largestCaption() string {
	size := ""
	for k := range s.values {
		_, sz, _ := s.largest(k)
		if size != "" && sz != size {
			return "at each target's largest size"
		}
		size = sz
	}
	if size == "" {
		return ""
	}
	return "at " + size
}

// targets are the series' targets, in GPU then pair order.
func (s *bwSeries) targets() []tkey {
	ks := make([]tkey, 0, len(s.values))
	for k := range s.values {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool {
		if ks[i].a != ks[j].a {
			return ks[i].a < ks[j].a
		}
		return ks[i].b < ks[j].b
	})
	return ks
}

// sortSeries orders the series by check, then figure, GPUs before pairs,
// and each series' sizes smallest first.
func sortSeries(series []*bwSeries) {
	sort.Slice(series, func(i, j int) bool {
		a, b := series[i], series[j]
		if a.check != b.check {
			return a.check < b.check
		}
		if a.base != b.base {
			return a.base < b.base
		}
		return !a.pair && b.pair
	})
	for _, s := range series {
		sort.Slice(s.sizes, func(i, j int) bool { return sizeBytes(s.sizes[i]) < sizeBytes(s.sizes[j]) })
	}
}

// sizeSuffix matches the size label that ends a per-size metric name
// ("bandwidth_gbps.ce.uni.1GiB").
var sizeSuffix = regexp.MustCompile(`^[0-9]+(B|KiB|MiB|GiB|TiB)$`)

// sizeBytes reads a size label; 0 for "" or anything else.
func sizeBytes(label string) uint64 {
	m := sizeSuffix.FindStringSubmatch(label)
	if m == nil {
		return 0
	}
	n, _ := strconv.ParseUint(strings.TrimSuffix(label, m[1]), 10, 64)
	shift := map[string]uint{"B": 0, "KiB": 10, "MiB": 20, "GiB": 30, "TiB": 40}[m[1]]
	return n << shift
}

// addBandwidth files r's bandwidth metrics (names containing "gbps") and the
// bandwidth suite's latency metrics ("latency_…", "chase_…") into their
// series. A metric that only repeats a more specific one of the same
// result (the headline "bandwidth_gbps" beside "bandwidth_gbps.ce.uni.1GiB")
// is left out: two specs on one target (one-way and bidirectional) each
// have a headline, and one grid of both would show whichever came last.
func addBandwidth(bw map[string]*bwSeries, list *[]*bwSeries, r Result, k tkey) {
	for name, val := range r.Metrics {
		if val == nil || !isFigure(r, name) || strings.Contains(name, "#") {
			continue
		}
		if hasMoreSpecific(r.Metrics, name) {
			continue
		}
		base, size := name, ""
		if i := strings.LastIndexByte(name, '.'); i > 0 && sizeSuffix.MatchString(name[i+1:]) {
			base, size = name[:i], name[i+1:]
		}
		key := r.Check + "\x00" + base + "\x00" + fmt.Sprint(k.b >= 0)
		s := bw[key]
		if s == nil {
			s = &bwSeries{check: r.Check, base: base, unit: metricUnit(r, name), pair: k.b >= 0,
				values: map[tkey]map[string]float64{}}
			bw[key] = s
			*list = append(*list, s)
		}
		if s.values[k] == nil {
			s.values[k] = map[string]float64{}
		}
		s.values[k][size] = *val
		if !slices.Contains(s.sizes, size) {
			s.sizes = append(s.sizes, size)
		}
	}
}

func isFigure(r Result, name string) bool {
	if strings.Contains(strings.ToLower(name), "gbps") {
		return true
	}
	return r.Family == "bandwidth" && (strings.HasPrefix(name, "latency_") || strings.HasPrefix(name, "chase_") ||
		strings.HasPrefix(name, "copy_wins_at_k.") || strings.HasPrefix(name, "managed_wins_at_k."))
}

// hasMoreSpecific reports a headline metric beside per-size ones that
// start with its name ("bandwidth_gbps" and "bandwidth_gbps.ce.uni.1GiB").
func hasMoreSpecific(metrics map[string]*float64, name string) bool {
	for other, v := range metrics {
		if v != nil && strings.HasPrefix(other, name+".") && sizeSuffix.MatchString(other[strings.LastIndexByte(other, '.')+1:]) {
			return true
		}
	}
	return false
}

// metricUnit is the unit the spec's entry gave the metric; GB/s if none.
func metricUnit(r Result, name string) string {
	for _, e := range r.Entries {
		if e.Kind == KindMetric && e.Name == name && e.Unit != "" {
			return e.Unit
		}
	}
	return "GB/s"
}
