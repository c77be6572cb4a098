// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package pldi26 holds the facts of a published table of GPU litmus tests:
// the PLDI 2026 artifact of cuda-litmus (results.tsv names the source and
// the columns). Each row is one test — a family, a grouping of its threads
// into thread blocks, an access scope, a fence scope and a variant — with
// the verdicts of the PTX memory model and of a strengthened model, and
// whether an A100, an H100 and a GH200 showed its weak outcome. The
// litmus package generates the same tests; p2pconf renders this suite's
// results beside the table's.
package pldi26

import (
	_ "embed"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

//go:embed results.tsv
var resultsTSV string

// Source names where the facts come from.
const Source = "cuda-litmus, PLDI 2026 artifact (github.com/reeselevine/cuda-litmus at 4b6c4a0b, pldi26-output/results.csv and gh200.txt)"

// Row is one test of the table.
type Row struct {
	Name         string // "wrc_TB_01_2_SCOPE_BLOCK_FENCE_SCOPE_DEVICE_THREAD_1_FENCE"
	Family       string // the kernel's name: "wrc", "wrw+2w", "3.2w", "paper-example1"
	Grouping     string // "TB_01_2"
	Scope        string // "BLOCK" or "DEVICE"
	FenceScope   string // "BLOCK", "DEVICE", or "" for NO_FENCE
	Variant      string // "THREAD_1_FENCE"
	Base         string // the PTX model's verdict: "allowed" or "forbidden"
	Strengthened string // the strengthened model's verdict
	Seen         map[string]bool
	GH200        Counts
}

// Counts are a GPU's weak outcomes over its runs of a test.
type Counts struct {
	Weak, Instances uint64
	WeakPerSecond   float64
}

// GPUs are the table's GPUs, in its column order.
var GPUs = []string{"a100", "h100", "gh200"}

// families maps the table's name prefixes to the kernels' names.
var families = map[string]string{"iriw": "iriw", "isa2": "isa2", "rwc": "rwc", "wrc": "wrc", "wwc": "wwc",
	"wrw_2w": "wrw+2w", "three_2w": "3.2w", "two_2w": "2+2w", "z6_3": "z6-3",
	"paper_example1": "paper-example1", "paper_example2": "paper-example2"}

var nameRE = regexp.MustCompile(`^(.*?)_(TB_[0-9_]+?)_SCOPE_(BLOCK|DEVICE)_(?:NO_FENCE|FENCE_SCOPE_(BLOCK|DEVICE))_([A-Z0-9_]+)$`)

// ParseName splits a test's name into its parts.
func ParseName(name string) (Row, error) {
	m := nameRE.FindStringSubmatch(name)
	if m == nil {
		return Row{}, fmt.Errorf("pldi26: %q is not a test name of the table", name)
	}
	fam, ok := families[m[1]]
	if !ok {
		return Row{}, fmt.Errorf("pldi26: %q: unknown family %q", name, m[1])
	}
	return Row{Name: name, Family: fam, Grouping: m[2], Scope: m[3], FenceScope: m[4], Variant: m[5]}, nil
}

// Rows reads the table.
func Rows() ([]Row, error) {
	var out []Row
	for n, line := range strings.Split(resultsTSV, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 9 {
			return nil, fmt.Errorf("pldi26: results.tsv:%d: %d columns, want 9", n+1, len(f))
		}
		r, err := ParseName(f[0])
		if err != nil {
			return nil, fmt.Errorf("results.tsv:%d: %w", n+1, err)
		}
		r.Base, r.Strengthened = f[1], f[2]
		for _, v := range []string{r.Base, r.Strengthened} {
			if v != "allowed" && v != "forbidden" {
				return nil, fmt.Errorf("pldi26: results.tsv:%d: verdict %q", n+1, v)
			}
		}
		r.Seen = map[string]bool{}
		for i, g := range GPUs {
			switch f[3+i] {
			case "seen":
				r.Seen[g] = true
			case "not-seen":
			default:
				return nil, fmt.Errorf("pldi26: results.tsv:%d: %s column %q", n+1, g, f[3+i])
			}
		}
		var err1, err2, err3 error
		r.GH200.Weak, err1 = strconv.ParseUint(f[6], 10, 64)
		r.GH200.Instances, err2 = strconv.ParseUint(f[7], 10, 64)
		r.GH200.WeakPerSecond, err3 = strconv.ParseFloat(f[8], 64)
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, fmt.Errorf("pldi26: results.tsv:%d: bad GH200 counts %q", n+1, f[6:])
		}
		out = append(out, r)
	}
	return out, nil
}
