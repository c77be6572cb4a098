// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// The Markdown sections of measured figures (bandwidth, latency), power
// and failures.

func writeBandwidthMD(b *strings.Builder, v *view) {
	if len(v.bandwidth) == 0 {
		return
	}
	b.WriteString("## Bandwidth\n\n" + bandwidthIntro + "\n\n")
	var gpuRows []*bwSeries
	for _, s := range v.bandwidth {
		if !s.pair {
			gpuRows = append(gpuRows, s)
			continue
		}
		fmt.Fprintf(b, "%s — %s — %s\n\n", s.check, bwTitle(s), Caption)
		writeGridMD(b, v.gpus, func(k tkey) string {
			if x, _, ok := s.largest(k); ok {
				return fmtFigure(x)
			}
			return SymNone
		})
		b.WriteString("\n")
	}
	if len(gpuRows) > 0 {
		b.WriteString("Per GPU\n\n| check | figure |")
		for _, g := range v.gpus {
			fmt.Fprintf(b, " %s |", gpuName(g))
		}
		b.WriteString("\n|---|---|" + strings.Repeat("---|", len(v.gpus)) + "\n")
		for _, s := range gpuRows {
			fmt.Fprintf(b, "| %s | %s |", s.check, mdText(bwTitle(s)))
			for _, g := range v.gpus {
				cell := SymNone
				if x, _, ok := s.largest(tkey{g, -1}); ok {
					cell = fmtFigure(x)
				}
				fmt.Fprintf(b, " %s |", cell)
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	writeBySizeMD(b, v)
}

// bandwidthIntro explains the bandwidth figures to a reader who was not there.
const bandwidthIntro = "Bandwidths are medians at the largest transfer size measured, in GB/s (10⁹ bytes/s); the latencies are medians in the unit shown. " +
	"Copies within one GPU (`local`) count every byte twice, read and written; bidirectional figures (`bidir`, `h2d+d2h`) are the total of both directions, " +
	"shown in the cell of the pair they ran on. Each metric's detail in conformance.json says how it was measured."

// bwTitle names a series with its unit and size: "ce.uni at 1GiB (GB/s)".
func bwTitle(s *bwSeries) string {
	name := strings.TrimPrefix(s.base, "bandwidth_gbps.")
	if c := s.largestCaption(); c != "" {
		name += " " + c
	}
	return name + " (" + s.unit + ")"
}

// fmtFigure shows a figure with one decimal, two below 10 (a latency of
// 1.59 µs, a fraction of 0.76).
func fmtFigure(x float64) string {
	if x > -10 && x < 10 {
		return fmt.Sprintf("%.2f", x)
	}
	return fmt.Sprintf("%.1f", x)
}

// bySizeColumns are the sizes of every series measured at more than one
// size, smallest first.
func bySizeColumns(v *view) []string {
	var all []string
	for _, s := range v.bandwidth {
		if len(s.sizes) > 1 {
			for _, sz := range s.sizes {
				if !slices.Contains(all, sz) {
					all = append(all, sz)
				}
			}
		}
	}
	sort.Slice(all, func(i, j int) bool { return sizeBytes(all[i]) < sizeBytes(all[j]) })
	return all
}

// writeBySizeMD lists every series with more than one size, one row per
// target, one column per size.
func writeBySizeMD(b *strings.Builder, v *view) {
	all := bySizeColumns(v)
	if len(all) == 0 {
		return
	}
	b.WriteString("By transfer size\n\n| check | figure | target |")
	for _, sz := range all {
		fmt.Fprintf(b, " %s |", sz)
	}
	b.WriteString("\n|---|---|---|" + strings.Repeat("---|", len(all)) + "\n")
	for _, s := range v.bandwidth {
		if len(s.sizes) < 2 {
			continue
		}
		for _, k := range s.targets() {
			fmt.Fprintf(b, "| %s | %s | %s |", s.check, mdText(strings.TrimPrefix(s.base, "bandwidth_gbps.")+" ("+s.unit+")"), targetText(k))
			for _, sz := range all {
				cell := SymNone
				if x, ok := s.values[k][sz]; ok {
					cell = fmtFigure(x)
				}
				fmt.Fprintf(b, " %s |", cell)
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n")
}

func writePowerMD(b *strings.Builder, v *view) {
	if len(v.power) == 0 && v.borrowedPower == "" && v.evidence == "" {
		return
	}
	b.WriteString("## Power: mutants' weak outcomes\n\n")
	if v.evidence != "" {
		b.WriteString(mdText(v.evidence) + "\n\n")
	}
	if v.borrowedPower != "" {
		b.WriteString(mdText(v.borrowedPower) + "\n\n")
	}
	if len(v.powerTests) == 0 {
		return
	}
	b.WriteString("One row per forbidden test and placement: the evidence class of its pass, how many of the mutants that give it power " +
		"showed their weak outcome, and the weak outcomes they saw of the instances they ran. " +
		"Each mutant's evidence is in conformance.json and matrix.html.\n\n")
	b.WriteString("| check | test and placement | target | evidence | mutants | weak outcomes seen | result |\n|---|---|---|---|---|---|---|\n")
	for _, p := range v.powerTests {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s |\n", p.check, orDash(p.variant), p.target, orDash(p.class),
			mdText(p.mutantsText()), p.seenText(), p.verdict)
	}
	b.WriteString("\n")
}

func writeFailuresMD(b *strings.Builder, v *view) {
	b.WriteString("## Failures\n\n")
	if len(v.failures) == 0 {
		b.WriteString("None.\n\n")
		return
	}
	for _, g := range v.failures {
		fmt.Fprintf(b, "### %s\n\n", g.target)
		for _, r := range g.results {
			fmt.Fprintf(b, "- %s **%s** %s: %s\n", symbol(r.Status), r.Check, r.Status, mdText(orDash(r.Reason)))
			if r.Accepted() {
				fmt.Fprintf(b, "  - known deviation (accepted, still a failure): %s\n", mdText(r.KnownDeviation))
			}
			if c := r.CauseLine(); c != "" {
				fmt.Fprintf(b, "  - %s\n", mdText(c))
			}
			if r.Variant != "" {
				// Several specs of this check ran here: name the one that
				// failed by its text and its variant key.
				fmt.Fprintf(b, "  - spec: %s (variant %s)\n", mdText(r.Spec), mdText(r.Variant))
			}
			if r.Step != "" {
				fmt.Fprintf(b, "  - step: %s\n", mdText(r.Step))
			}
			if r.Location != "" {
				fmt.Fprintf(b, "  - at: %s\n", r.Location)
			}
			fmt.Fprintf(b, "  - rerun: `%s`\n", RerunCommand(v.doc.System, r))
			if c := ReproCommand(r); c != "" {
				fmt.Fprintf(b, "  - reproducer: `%s`\n", c)
			}
		}
		b.WriteString("\n")
	}
}
