// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// specEntries decodes the spec's p2pconf entries from their JSON.
func specEntries(sr SpecReport) []Entry {
	var out []Entry
	for _, re := range sr.ReportEntries {
		if re.Name != EntryName {
			continue
		}
		data := []byte(re.Value.AsJSON)
		if len(data) == 0 {
			data = []byte("null") // an entry without a value
		}
		var e Entry
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&e); err != nil {
			out = append(out, Entry{Kind: KindFinding, Name: "undecodable-entry", Value: string(data)})
			continue
		}
		out = append(out, e)
	}
	return out
}

// digestEntries collects metrics (numbers or null) and the power verdict.
func digestEntries(entries []Entry) (map[string]*float64, *bool) {
	metrics := map[string]*float64{}
	var power *bool
	for _, e := range entries {
		switch e.Kind {
		case KindMetric:
			name := e.Name
			for i := 2; ; i++ {
				if _, dup := metrics[name]; !dup {
					break
				}
				name = fmt.Sprintf("%s#%d", e.Name, i)
			}
			metrics[name] = number(e.Value)
		case KindPower:
			seen := truthy(e.Value)
			if power == nil || seen {
				power = &seen
			}
		}
	}
	return metrics, power
}

func number(v any) *float64 {
	var f float64
	switch x := v.(type) {
	case json.Number:
		var err error
		if f, err = x.Float64(); err != nil {
			return nil
		}
	case float64:
		f = x
	case float32:
		f = float64(x)
	case int:
		f = float64(x)
	case int64:
		f = float64(x)
	case uint64:
		f = float64(x)
	default:
		return nil
	}
	return &f
}

// truthy reads a power value: true, a positive count, or an object with a
// true "observed" field.
func truthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case map[string]any:
		return truthy(x["observed"])
	}
	if n := number(v); n != nil {
		return *n > 0
	}
	return false
}

// applyPower marks each conf result with whether a mutant of that test
// showed its weak outcome in the same run (see attributePower).
func applyPower(results []Result) { attributePower(results) }

// disambiguate gives a variant to results that share a check and target
// without declaring one (the suites validate that they declare one, so this
// is for reports of older or foreign suites): their spec text, whole.
func disambiguate(results []Result) {
	byKey := map[string][]int{}
	for i, r := range results {
		byKey[r.Key()] = append(byKey[r.Key()], i)
	}
	for _, idx := range byKey {
		if len(idx) < 2 {
			continue
		}
		for _, i := range idx {
			results[i].Variant = strings.TrimSpace(strings.TrimPrefix(results[i].Spec, results[i].Family+": "))
		}
	}
}
