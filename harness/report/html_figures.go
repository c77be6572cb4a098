// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"fmt"
	"strings"
)

// The HTML sections of measured figures (bandwidth, latency), power and
// failures.

func writeBandwidthHTML(b *strings.Builder, v *view) {
	if len(v.bandwidth) == 0 {
		return
	}
	fmt.Fprintf(b, "<h2 id=\"bandwidth\">Bandwidth</h2>\n<p class=\"notes\">%s</p>\n<div class=\"checks\">\n", esc(strings.ReplaceAll(bandwidthIntro, "`", "")))
	var gpuRows []*bwSeries
	for _, s := range v.bandwidth {
		if !s.pair {
			gpuRows = append(gpuRows, s)
			continue
		}
		writeGridHTML(b, "bw:"+s.check+":"+s.base, s.check+" — "+bwTitle(s), v.gpus, func(k tkey) string {
			if x, size, ok := s.largest(k); ok {
				return fmt.Sprintf("<td title=\"%s\">%s</td>", esc(bwCellTitle(s, k, size)), fmtFigure(x))
			}
			return "<td class=\"none\">" + SymNone + "</td>"
		})
	}
	b.WriteString("</div>\n")
	if len(gpuRows) > 0 {
		b.WriteString("<table class=\"row\" data-grid=\"bw-gpus\"><caption>Per GPU</caption>\n<tr><th>check</th><th>figure</th>")
		for _, g := range v.gpus {
			fmt.Fprintf(b, "<th>%s</th>", gpuName(g))
		}
		b.WriteString("</tr>\n")
		for _, s := range gpuRows {
			fmt.Fprintf(b, "<tr><th>%s</th><td class=\"l\">%s</td>", esc(s.check), esc(bwTitle(s)))
			for _, g := range v.gpus {
				k := tkey{g, -1}
				if x, size, ok := s.largest(k); ok {
					fmt.Fprintf(b, "<td title=\"%s\">%s</td>", esc(bwCellTitle(s, k, size)), fmtFigure(x))
				} else {
					b.WriteString("<td class=\"none\">" + SymNone + "</td>")
				}
			}
			b.WriteString("</tr>\n")
		}
		b.WriteString("</table>\n")
	}
	writeBySizeHTML(b, v)
}

// writeBySizeHTML is writeBySizeMD's table, folded away.
func writeBySizeHTML(b *strings.Builder, v *view) {
	sizes := bySizeColumns(v)
	if len(sizes) == 0 {
		return
	}
	b.WriteString("<details><summary>Every figure by transfer size</summary>\n<table class=\"row\" data-grid=\"bw-sizes\"><tr><th>check</th><th>figure</th><th>target</th>")
	for _, sz := range sizes {
		fmt.Fprintf(b, "<th>%s</th>", esc(sz))
	}
	b.WriteString("</tr>\n")
	for _, s := range v.bandwidth {
		if len(s.sizes) < 2 {
			continue
		}
		for _, k := range s.targets() {
			fmt.Fprintf(b, "<tr><th>%s</th><td class=\"l\">%s</td><td>%s</td>", esc(s.check),
				esc(strings.TrimPrefix(s.base, "bandwidth_gbps.")+" ("+s.unit+")"), esc(targetText(k)))
			for _, sz := range sizes {
				if x, ok := s.values[k][sz]; ok {
					fmt.Fprintf(b, "<td>%s</td>", fmtFigure(x))
				} else {
					b.WriteString("<td class=\"none\">" + SymNone + "</td>")
				}
			}
			b.WriteString("</tr>\n")
		}
	}
	b.WriteString("</table></details>\n")
}

// bwCellTitle is a figure's hover text: the metric, target and size.
func bwCellTitle(s *bwSeries, k tkey, size string) string {
	name := s.base
	if size != "" {
		name += "." + size
	}
	return fmt.Sprintf("%s %s %s on %s", s.check, name, s.unit, targetText(k))
}

func writePowerHTML(b *strings.Builder, v *view) {
	if len(v.power) == 0 && v.borrowedPower == "" && v.evidence == "" {
		return
	}
	b.WriteString("<h2 id=\"power\">Power: mutants' weak outcomes</h2>\n")
	if v.evidence != "" {
		fmt.Fprintf(b, "<p>%s</p>\n", esc(v.evidence))
	}
	if v.borrowedPower != "" {
		fmt.Fprintf(b, "<p>%s</p>\n", esc(v.borrowedPower))
	}
	if len(v.powerTests) > 0 {
		b.WriteString("<table><tr><th>check</th><th>test and placement</th><th>target</th><th>evidence</th><th>mutants</th><th>weak outcomes seen</th><th>result</th></tr>\n")
		for _, p := range v.powerTests {
			fmt.Fprintf(b, "<tr><td class=\"l\">%s</td><td class=\"l\">%s</td><td>%s</td><td>%s</td><td class=\"l\">%s</td><td>%s</td><td>%s</td></tr>\n",
				esc(p.check), esc(orDash(p.variant)), esc(p.target), esc(orDash(p.class)), esc(p.mutantsText()+mutantList(p.mutants)), esc(p.seenText()), esc(p.verdict))
		}
		b.WriteString("</table>\n")
	}
	if len(v.power) == 0 {
		return
	}
	fmt.Fprintf(b, "<details><summary>Every mutant and conf spec it gives power to, with its evidence (%d rows)</summary>\n", len(v.power))
	b.WriteString("<table><tr><th>mutant</th><th>target</th><th>gives power to</th><th>weak outcome seen</th><th>conf check here (over all its mutants)</th><th>evidence</th></tr>\n")
	for _, p := range v.power {
		fmt.Fprintf(b, "<tr><td class=\"l\">%s</td><td>%s</td><td class=\"l\">%s</td><td>%s</td><td>%s</td><td class=\"l\">%s</td></tr>\n",
			esc(p.mutant), esc(p.target), esc(p.conf), yesNo(p.observed), esc(p.verdict), esc(p.evidence))
	}
	b.WriteString("</table>\n</details>\n")
}

// mutantList is ": a ✓, b ✗" after the count of a power row, in the HTML.
func mutantList(m []string) string {
	if len(m) == 0 {
		return ""
	}
	return ": " + strings.Join(m, ", ")
}

func writeFailuresHTML(b *strings.Builder, v *view) {
	b.WriteString("<h2 id=\"failures\">Failures</h2>\n")
	if len(v.failures) == 0 {
		b.WriteString("<p>None.</p>\n")
		return
	}
	for _, g := range v.failures {
		fmt.Fprintf(b, "<h3>%s</h3>\n<ul>\n", esc(g.target))
		for _, r := range g.results {
			fmt.Fprintf(b, "<li>%s <b>%s</b> %s: %s", symbol(r.Status), esc(r.Check), esc(r.Status), esc(orDash(r.Reason)))
			if r.Accepted() {
				fmt.Fprintf(b, "<br>known deviation (accepted, still a failure): %s", esc(r.KnownDeviation))
			}
			if c := r.CauseLine(); c != "" {
				fmt.Fprintf(b, "<br>%s", esc(c))
			}
			if r.Variant != "" {
				fmt.Fprintf(b, "<br>spec: %s (variant <code>%s</code>)", esc(r.Spec), esc(r.Variant)) // see writeFailuresMD
			}
			if r.Step != "" {
				fmt.Fprintf(b, "<br>step: %s", esc(r.Step))
			}
			if r.Location != "" {
				fmt.Fprintf(b, "<br>at: <code>%s</code>", esc(r.Location))
			}
			fmt.Fprintf(b, "<br>rerun: <code>%s</code>", esc(RerunCommand(v.doc.System, r)))
			if c := ReproCommand(r); c != "" {
				fmt.Fprintf(b, "<br>reproducer: <code>%s</code> (standalone C, needs only the driver)", esc(c))
			}
			if r.Message != "" && r.Message != r.Reason {
				fmt.Fprintf(b, "<details><summary>message</summary><pre>%s</pre></details>", esc(r.Message))
			}
			b.WriteString("</li>\n")
		}
		b.WriteString("</ul>\n")
	}
}
