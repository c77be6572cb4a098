// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"fmt"
	"html"
	"strings"
)

// css is the whole style sheet: matrix.html loads nothing and runs nothing,
// so it can be attached to a ticket and opened anywhere.
const css = `
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:24px;color:#1b1f24;max-width:1600px}
h1{font-size:22px;margin:0 0 8px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d0d7de;padding-bottom:4px}
h3{font-size:15px;margin:16px 0 6px}
.fake{background:#fff3cd;border:2px solid #d39e00;padding:8px 12px;font-weight:600;margin:8px 0}
.counts span{display:inline-block;padding:2px 8px;border-radius:10px;margin-right:6px;font-weight:600}
table{border-collapse:collapse;margin:6px 0 10px}
th,td{border:1px solid #d0d7de;padding:3px 7px;text-align:center;white-space:nowrap}
th{background:#f6f8fa}
caption{caption-side:top;text-align:left;font-size:12px;color:#57606a;padding-bottom:2px}
td.pass{background:#dafbe1;color:#116329}td.fail{background:#ffebe9;color:#a40e26;font-weight:700}
td.skip{background:#f6f8fa;color:#57606a}td.timeout{background:#fff1e5;color:#953800;font-weight:700}
td.error{background:#fbefff;color:#8250df;font-weight:700}td.diag{background:#8c959f;color:#fff}
td.none{color:#afb8c1}td.claim{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}
td.claim.yes{background:#dafbe1}td.claim.no{background:#f6f8fa}td.claim.conflict{background:#fff1e5;color:#953800;font-weight:700}
.counts .pass{background:#dafbe1}.counts .fail{background:#ffebe9}.counts .skip{background:#f6f8fa}.counts .timeout{background:#fff1e5}.counts .error{background:#fbefff}
.side{display:flex;flex-wrap:wrap;gap:24px;align-items:flex-start}
.checks{display:flex;flex-wrap:wrap;gap:18px;align-items:flex-start}
details{margin:4px 0}summary{cursor:pointer}
ol.dis>li{margin:4px 0}.dis .kind{font-weight:600}.dis details{margin:0}.dis .obs{color:#a40e26}
code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}
pre{background:#f6f8fa;padding:6px 8px;overflow-x:auto;white-space:pre-wrap}
.notrun{background:#fff1e5;border:1px solid #d39e00;padding:4px 8px}.notes{font-size:12px;color:#57606a}.legend{font-size:12px;color:#57606a}
td.l{text-align:left;white-space:normal}
`

// HTML renders the matrix of one host's run as one self-contained page
// (matrix.html): inline CSS, no scripts, no network.
func HTML(doc Document) string {
	v := newView(doc)
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	title := Title(doc)
	w("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width\">\n")
	w("<title>%s</title>\n<style>%s</style></head>\n<body>\n<h1>%s</h1>\n", esc(title), css, esc(title))
	if warn := fakeWarning(doc.System); warn != "" {
		w("<div class=\"fake\">NOT A HARDWARE RESULT. %s</div>\n", esc(warn))
	}
	s := doc.Summary
	w("<p class=\"counts\"><span class=\"pass\">%d pass</span><span class=\"fail\">%d fail</span><span class=\"skip\">%d skip</span><span class=\"timeout\">%d timeout</span><span class=\"error\">%d error</span> of %d results · <a href=\"#disagreements\">%d disagreements</a> · <a href=\"#failures\">%d failing targets</a></p>\n",
		s.Pass, s.Fail, s.Skip, s.Timeout, s.Error, s.Total, len(v.disagreements), len(v.failures))
	if note := acceptedNote(doc); note != "" {
		w("<p class=\"counts\"><b>%s.</b></p>\n", esc(note))
	}
	writeSuitesHTML(&b, doc)
	// What needs reading comes first: the failures, then the disagreements.
	writeFailuresHTML(&b, v)
	w("<h2 id=\"disagreements\">Disagreements between claims and results</h2>\n")
	if len(v.disagreements) == 0 {
		w("<p>%s</p>\n", esc(v.noDisagreements()))
	} else {
		w("<ol class=\"dis\">\n")
		for _, d := range v.disagreements {
			writeDisagreementHTML(&b, d)
		}
		w("</ol>\n")
	}
	writeClaimsHTML(&b, v)
	if len(v.families) > 0 {
		w("<p class=\"legend\">%s</p>\n", esc(legendMD))
		if anyContended(v.doc) {
			w("<p class=\"legend\">%s</p>\n", esc(legendContended))
		}
	}
	for _, f := range v.families {
		writeFamilyHTML(&b, v, f)
	}
	writeBandwidthHTML(&b, v)
	writePowerHTML(&b, v)
	w("<h2 id=\"environment\">Environment</h2>\n<table>\n")
	for _, row := range environment(doc) {
		w("<tr><th>%s</th><td class=\"l\">%s</td></tr>\n", esc(row[0]), esc(row[1]))
	}
	w("</table>\n")
	if len(doc.System.GPUs) > 0 {
		w("<table class=\"gpus\"><tr><th>GPU</th><th>name</th><th>UUID</th><th>PCI</th><th>CC</th><th>SMs</th><th>memory</th></tr>\n")
		for _, g := range doc.System.GPUs {
			w("<tr><th>GPU%d</th><td>%s</td><td>%s</td><td>%s</td><td>%d.%d</td><td>%d</td><td>%s</td></tr>\n",
				g.Ordinal, esc(g.Name), esc(g.UUID), esc(g.PCIBusID), g.ComputeCapability/10, g.ComputeCapability%10, g.SMCount, bytesText(g.TotalMemory))
		}
		w("</table>\n")
	}
	w("</body></html>\n")
	return b.String()
}

func esc(s string) string { return html.EscapeString(s) }

func writeSuitesHTML(b *strings.Builder, doc Document) {
	if missing := MissingSuites(doc, KnownSuites()); len(missing) > 0 {
		fmt.Fprintf(b, "<p class=\"notrun\"><b>Not run: %s.</b> %s</p>\n", esc(strings.Join(missing, ", ")), esc(notRunNote))
	}
	if len(doc.Suites) == 0 {
		return
	}
	b.WriteString("<p>Suites: ")
	for i, su := range doc.Suites {
		if i > 0 {
			b.WriteString(" · ")
		}
		st := "ok"
		if !su.Succeeded {
			st = "failed"
		}
		if len(su.FailureReasons) > 0 {
			st += " (" + strings.Join(su.FailureReasons, "; ") + ")"
		}
		fmt.Fprintf(b, "<b>%s</b> [%s] %s", esc(su.Name), esc(su.Backend), esc(st))
	}
	b.WriteString("</p>\n")
}

// writeGridHTML writes an N×N grid; name goes into data-grid, so tests and
// scripts can find it.
func writeGridHTML(b *strings.Builder, name, caption string, gpus []int, td func(tkey) string) {
	fmt.Fprintf(b, "<table class=\"grid\" data-grid=\"%s\"><caption>%s — %s</caption>\n<tr><th>src \\ dst</th>", esc(name), esc(caption), Caption)
	for _, g := range gpus {
		fmt.Fprintf(b, "<th>%s</th>", gpuName(g))
	}
	b.WriteString("</tr>\n")
	for _, src := range gpus {
		fmt.Fprintf(b, "<tr class=\"gpu-row\" data-gpu=\"%d\"><th>%s</th>", src, gpuName(src))
		for _, dst := range gpus {
			if src == dst {
				b.WriteString("<td class=\"diag\">" + SymDiagonal + "</td>")
				continue
			}
			b.WriteString(td(tkey{src, dst}))
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</table>\n")
}

func cellHTML(c *cell) string {
	if c == nil {
		return "<td class=\"none\">" + SymNone + "</td>"
	}
	text := symbol(c.status)
	if c.contended {
		text += SymContended
	}
	if len(c.notes) > 0 && c.status != StatusSkip {
		text += " " + SymSkip // some aggregated results were skipped (see cellMD)
	}
	for i, n := range c.notes {
		if i > 0 {
			text += ","
		}
		text += fmt.Sprintf("<sup>%d</sup>", n)
	}
	return fmt.Sprintf("<td class=\"%s\" title=\"%s\">%s</td>", c.status, esc(strings.Join(c.lines, "\n")), text)
}

func writeClaimsHTML(b *strings.Builder, v *view) {
	if len(v.pairs) == 0 && len(v.observed) == 0 {
		return
	}
	b.WriteString("<h2 id=\"claims\">Claimed vs observed</h2>\n<div class=\"side\">\n")
	if len(v.pairs) > 0 {
		writeGridHTML(b, "claimed", "Claimed by CUDA and NVML", v.gpus, func(k tkey) string {
			p, ok := v.pairs[k]
			if !ok {
				return "<td class=\"none\">" + SymNone + "</td>"
			}
			cls := "no"
			if peerClaimed(p) {
				cls = "yes"
			}
			if len(claimConflicts(p)) > 0 {
				cls = "conflict"
			}
			return fmt.Sprintf("<td class=\"claim %s\" title=\"%s\">%s</td>", cls, esc(claimDetail(p)), esc(claimCode(p)))
		})
	}
	if len(v.observed) > 0 {
		writeGridHTML(b, "observed", "Observed by the conf checks", v.gpus, func(k tkey) string {
			worst := ""
			var lines []string
			for _, fam := range v.observed {
				if c := v.observedCells[fam][k]; c != nil {
					if severity(c.status) > severity(worst) {
						worst = c.status
					}
					lines = append(lines, fam+": "+c.status)
				}
			}
			if worst == "" {
				worst = "none"
			}
			return fmt.Sprintf("<td class=\"%s\" title=\"%s\">%s</td>", worst, esc(strings.Join(lines, "\n")), observedCode(v, k))
		})
	}
	b.WriteString("</div>\n<p class=\"legend\">Claim cells: CUDA <code>P</code> can access peer, <code>A</code> native atomics (<code>a</code> only partial); NVML P2P status <code>r</code> read, <code>w</code> write, <code>n</code> nvlink, <code>a</code> atomics; then the link (NV&lt;links&gt;, or the PCIe level PIX/PXB/PHB/NODE/SYS). <code>-</code> not supported, <code>?</code> unknown. Hover a cell for every value. " + esc(observedLegend(v.observed)) + "</p>\n")
}

func writeFamilyHTML(b *strings.Builder, v *view, f *familyView) {
	s := f.summary
	fmt.Fprintf(b, "<h2 id=\"family-%s\">%s</h2>\n<p>%d pass, %d fail, %d skip, %d timeout, %d error</p>\n",
		esc(f.name), esc(f.name), s.Pass, s.Fail, s.Skip, s.Timeout, s.Error)
	if f.hasPairs {
		writeGridHTML(b, f.name, "All pair checks of "+f.name, v.gpus, func(k tkey) string { return cellHTML(f.pairs[k]) })
	}
	if f.hasGPUs {
		fmt.Fprintf(b, "<table class=\"row\" data-grid=\"%s-gpus\"><caption>Per-GPU checks</caption>\n<tr><th>check</th>", esc(f.name))
		for _, g := range v.gpus {
			fmt.Fprintf(b, "<th>%s</th>", gpuName(g))
		}
		b.WriteString("</tr>\n")
		writeRowHTML(b, "<i>all per-GPU checks</i>", v.gpus, f.gpus)
		for _, c := range f.checks {
			if c.target == TargetGPU {
				writeRowHTML(b, esc(c.rowLabel()), v.gpus, c.cells)
			}
		}
		b.WriteString("</table>\n")
	}
	var pairChecks []*checkView
	for _, c := range f.checks {
		if c.target == TargetPair {
			pairChecks = append(pairChecks, c)
		}
	}
	if len(pairChecks) > 0 {
		open := ""
		for _, c := range pairChecks {
			if c.uniform != StatusPass && c.uniform != StatusSkip {
				open = " open"
			}
		}
		fmt.Fprintf(b, "<details%s><summary>%s, one grid each</summary>\n<div class=\"checks\">\n", open, plural(len(pairChecks), "pair check"))
		for _, c := range pairChecks {
			writeGridHTML(b, c.check, c.check+" ["+c.kind+"]", v.gpus, func(k tkey) string { return cellHTML(c.cells[k]) })
		}
		b.WriteString("</div></details>\n")
	}
	if len(f.triples) > 0 {
		fmt.Fprintf(b, "<table class=\"row\" data-grid=\"%s-triples\"><caption>Three-GPU checks (a triple A→B→C lists its GPUs in role order)</caption>\n<tr><th>check</th><th>triple</th><th>link</th><th>result</th></tr>\n", esc(f.name))
		for _, t := range f.triples {
			fmt.Fprintf(b, "<tr><th>%s</th><td>%s</td><td>%s</td>%s</tr>\n", esc(t.label()), esc(t.target), esc(orDash(t.link)), cellHTML(&t.cell))
		}
		b.WriteString("</table>\n")
	}
	if len(f.system) > 0 {
		b.WriteString("<ul>\n")
		for _, r := range f.system {
			fmt.Fprintf(b, "<li>%s %s (%s): %s</li>\n", symbol(r.Status), esc(r.Check), esc(r.TargetName()), esc(r.ReasonLine()))
		}
		b.WriteString("</ul>\n")
	}
	if len(f.notes) > 0 {
		b.WriteString("<ol class=\"notes\">\n")
		for _, n := range f.notes {
			fmt.Fprintf(b, "<li>%s</li>\n", esc(n))
		}
		b.WriteString("</ol>\n")
	}
}

func writeRowHTML(b *strings.Builder, label string, gpus []int, cs cells) {
	fmt.Fprintf(b, "<tr><th>%s</th>", label)
	for _, g := range gpus {
		b.WriteString(cellHTML(cs[tkey{g, -1}]))
	}
	b.WriteString("</tr>\n")
}

// writeDisagreementHTML writes one disagreement as a one-line summary (pair,
// claim, observed) that unfolds into its details.
func writeDisagreementHTML(b *strings.Builder, d disagreement) {
	fmt.Fprintf(b, "<li class=\"dis-item\"><details><summary><b>%s</b> <span class=\"kind\">%s</span>: ", esc(d.target), esc(d.kind))
	if d.kind == "claims disagree" {
		fmt.Fprintf(b, "<span class=\"claim\">%s</span>", esc(d.claim))
	} else {
		fmt.Fprintf(b, "claimed <span class=\"claim\">%s</span>", esc(d.claim))
	}
	if d.observed != "" {
		fmt.Fprintf(b, " · observed <span class=\"obs\">%s</span>", esc(d.observed))
	}
	b.WriteString("</summary><ul>")
	for _, det := range d.details {
		fmt.Fprintf(b, "<li>%s</li>", esc(det))
	}
	if d.rerun != "" {
		fmt.Fprintf(b, "<li>rerun: <code>%s</code></li>", esc(d.rerun))
	}
	b.WriteString("</ul></details></li>\n")
}
