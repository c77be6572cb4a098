// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"fmt"
	"sort"
	"strings"
)

// Caption is the direction every N×N grid is read in.
const Caption = "GPU(row) → GPU(column)"

// legendMD explains the cell symbols; the page shows it once, above the
// first grid of results.
const legendMD = "Cells: ✓ pass, ✗ fail, – skip (see the numbered reason under the suite), T timeout, E harness error, X diagonal, · not run. " +
	"A cell over several results shows the worst of them, followed by – and the reasons when some were skipped (e.g. ✓ –¹)."

// observedLegend explains the observed grid's cells, next to it.
func observedLegend(families []string) string {
	return "Observed cells: ✓ when every conf check of " + strings.Join(families, ", ") +
		" passed on the pair; otherwise the suites that did not pass, each after its symbol (e.g. ✗ atomics); · nothing ran."
}

// Markdown renders the matrix of one host's run as GitHub-flavoured
// Markdown (matrix.md).
func Markdown(doc Document) string {
	v := newView(doc)
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	w("# %s\n\n", Title(doc))
	if warn := fakeWarning(doc.System); warn != "" {
		w("> **NOT A HARDWARE RESULT.** %s\n\n", warn)
	}
	writeSummaryMD(&b, doc)
	// What needs reading comes first: the failures, then the disagreements.
	writeFailuresMD(&b, v)
	w("## Disagreements between claims and results\n\n")
	if len(v.disagreements) == 0 {
		w("%s\n\n", v.noDisagreements())
	}
	writeDisagreementsMD(&b, v.disagreements)
	writeClaimsMD(&b, v)
	if len(v.families) > 0 {
		w("%s\n\n", legendMD)
		if anyContended(doc) {
			w("%s\n\n", legendContended)
		}
	}
	for _, f := range v.families {
		writeFamilyMD(&b, v, f)
	}
	writeBandwidthMD(&b, v)
	writePowerMD(&b, v)
	w("## Environment\n\n| | |\n|---|---|\n")
	for _, row := range environment(doc) {
		w("| %s | %s |\n", row[0], mdText(row[1]))
	}
	if len(doc.System.GPUs) > 0 {
		w("\n| GPU | name | UUID | PCI | CC | SMs | memory |\n|---|---|---|---|---|---|---|\n")
		for _, g := range doc.System.GPUs {
			w("| GPU%d | %s | %s | %s | %d.%d | %d | %s |\n", g.Ordinal, mdText(g.Name), g.UUID, g.PCIBusID,
				g.ComputeCapability/10, g.ComputeCapability%10, g.SMCount, bytesText(g.TotalMemory))
		}
	}
	return b.String()
}

// writeDisagreementsMD writes one numbered line per disagreement (pair,
// claim, observed) and its details as a sub-list under it.
func writeDisagreementsMD(b *strings.Builder, ds []disagreement) {
	for i, d := range ds {
		num := fmt.Sprintf("%d. ", i+1)
		fmt.Fprintf(b, "%s**%s** — %s\n", num, d.target, mdText(d.line()))
		indent := strings.Repeat(" ", len(num))
		for _, det := range d.details {
			fmt.Fprintf(b, "%s- %s\n", indent, mdText(det))
		}
		if d.rerun != "" {
			fmt.Fprintf(b, "%s- rerun: `%s`\n", indent, d.rerun)
		}
	}
	if len(ds) > 0 {
		b.WriteString("\n")
	}
}

func writeSummaryMD(b *strings.Builder, doc Document) {
	s := doc.Summary
	fmt.Fprintf(b, "**%d pass · %d fail · %d skip · %d timeout · %d error** (%d results)\n\n",
		s.Pass, s.Fail, s.Skip, s.Timeout, s.Error, s.Total)
	if note := acceptedNote(doc); note != "" {
		fmt.Fprintf(b, "**%s.**\n\n", mdText(note))
	}
	if len(doc.Suites) > 0 {
		var parts []string
		for _, su := range doc.Suites {
			st := "ok"
			if !su.Succeeded {
				st = "failed"
			}
			if len(su.FailureReasons) > 0 {
				st += " (" + strings.Join(su.FailureReasons, "; ") + ")"
			}
			parts = append(parts, fmt.Sprintf("%s [%s] %s", su.Name, su.Backend, st))
		}
		fmt.Fprintf(b, "Suites: %s\n\n", mdText(strings.Join(parts, " · ")))
	}
	if missing := MissingSuites(doc, KnownSuites()); len(missing) > 0 {
		fmt.Fprintf(b, "**Not run: %s.** %s\n\n", strings.Join(missing, ", "), notRunNote)
	}
}

// notRunNote says what a suite missing from a report means.
const notRunNote = "These suites left no results in this run: they were not selected, or stopped (or have not yet finished) before writing their report. " +
	"The matrix covers the suites above only."

func writeClaimsMD(b *strings.Builder, v *view) {
	if len(v.pairs) == 0 && len(v.observed) == 0 {
		return
	}
	fmt.Fprintf(b, "## Claimed vs observed\n\n")
	if len(v.pairs) > 0 {
		fmt.Fprintf(b, "Claimed capabilities — %s\n\n", Caption)
		writeGridMD(b, v.gpus, func(k tkey) string {
			p, ok := v.pairs[k]
			if !ok {
				return SymNone
			}
			return "`" + claimCode(p) + "`"
		})
		fmt.Fprintf(b, "\nClaim cells: CUDA `P` can access peer, `A` native atomics (`a` only partial); NVML P2P status `r` read, `w` write, `n` nvlink, `a` atomics; then the link (NV<links>, or the PCIe level PIX/PXB/PHB/NODE/SYS). `-` not supported, `?` unknown.\n\n")
	}
	if len(v.observed) > 0 {
		fmt.Fprintf(b, "Observed by the conf checks — %s\n\n", Caption)
		writeGridMD(b, v.gpus, func(k tkey) string { return observedCode(v, k) })
		fmt.Fprintf(b, "\n%s\n\n", observedLegend(v.observed))
	}
}

// observedCode is an observed cell: ✓ when every family's conf checks
// passed on the pair, else the families that did not, each after its
// symbol ("✗ atomics", "✗ atomics, – vmm"), · when nothing ran. Naming the
// families keeps a cell readable without counting symbol positions.
func observedCode(v *view, k tkey) string {
	ran := false
	var bad []string
	for _, fam := range v.observed {
		c := v.observedCells[fam][k]
		if c == nil {
			continue
		}
		ran = true
		if c.status != StatusPass {
			bad = append(bad, symbol(c.status)+" "+fam)
		}
	}
	switch {
	case !ran:
		return SymNone
	case len(bad) == 0:
		return SymPass
	}
	return strings.Join(bad, ", ")
}

// writeGridMD writes an N×N grid, rows = source, columns = destination.
func writeGridMD(b *strings.Builder, gpus []int, cellText func(tkey) string) {
	b.WriteString("| src \\ dst |")
	for _, g := range gpus {
		fmt.Fprintf(b, " %s |", gpuName(g))
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(gpus)) + "\n")
	for _, src := range gpus {
		fmt.Fprintf(b, "| **%s** |", gpuName(src))
		for _, dst := range gpus {
			if src == dst {
				b.WriteString(" " + SymDiagonal + " |")
				continue
			}
			fmt.Fprintf(b, " %s |", cellText(tkey{src, dst}))
		}
		b.WriteString("\n")
	}
}

func cellMD(c *cell) string {
	if c == nil {
		return SymNone
	}
	s := symbol(c.status)
	if c.contended {
		s += SymContended
	}
	if len(c.notes) > 0 {
		var n []string
		for _, x := range c.notes {
			n = append(n, superscript(x))
		}
		if c.status != StatusSkip {
			// Some of the results this cell aggregates were skipped: say so,
			// or their footnote would point at nothing.
			s += " " + SymSkip
		}
		s += strings.Join(n, "˒")
	}
	return s
}

func writeRowMD(b *strings.Builder, label string, gpus []int, cs cells) {
	fmt.Fprintf(b, "| %s |", label)
	for _, g := range gpus {
		fmt.Fprintf(b, " %s |", cellMD(cs[tkey{g, -1}]))
	}
	b.WriteString("\n")
}

func anyCell(cs cells) *cell {
	for _, c := range cs {
		return c
	}
	return &cell{}
}

// sameNotes reports whether every cell has the same single footnote.
func sameNotes(cs cells) bool {
	first := anyCell(cs)
	if len(first.notes) != 1 {
		return false
	}
	for _, c := range cs {
		if len(c.notes) != 1 || c.notes[0] != first.notes[0] {
			return false
		}
	}
	return true
}

func writeFamilyMD(b *strings.Builder, v *view, f *familyView) {
	s := f.summary
	fmt.Fprintf(b, "## %s — %d pass, %d fail, %d skip, %d timeout, %d error\n\n", f.name, s.Pass, s.Fail, s.Skip, s.Timeout, s.Error)
	if f.hasPairs {
		fmt.Fprintf(b, "All pair checks of %s — %s\n\n", f.name, Caption)
		writeGridMD(b, v.gpus, func(k tkey) string { return cellMD(f.pairs[k]) })
		b.WriteString("\n")
	}
	if f.hasGPUs {
		writeGPUChecksMD(b, v, f)
	}
	writePairChecksMD(b, v, f)
	writeTripleChecksMD(b, f)
	for _, r := range f.system {
		fmt.Fprintf(b, "- %s %s (%s): %s\n", symbol(r.Status), r.Check, r.TargetName(), mdText(r.ReasonLine()))
	}
	for i, n := range f.notes {
		fmt.Fprintf(b, "%s %s  \n", superscript(i+1), mdText(n))
	}
	if len(f.system) > 0 || len(f.notes) > 0 {
		b.WriteString("\n")
	}
}

// writeTripleChecksMD writes the family's three-GPU checks, one row per
// check and triple (roles A→B→C as the triple: label orders them).
func writeTripleChecksMD(b *strings.Builder, f *familyView) {
	if len(f.triples) == 0 {
		return
	}
	b.WriteString("Three-GPU checks (a triple A→B→C lists its GPUs in role order)\n\n| check | triple | link | result |\n|---|---|---|---|\n")
	for _, t := range f.triples {
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", mdText(t.label()), t.target, mdText(orDash(t.link)), cellMD(&t.cell))
	}
	b.WriteString("\n")
}

// writeGPUChecksMD writes the family's per-GPU table: the aggregate row,
// then one row per check.
func writeGPUChecksMD(b *strings.Builder, v *view, f *familyView) {
	b.WriteString("Per-GPU checks\n\n| check |")
	for _, g := range v.gpus {
		fmt.Fprintf(b, " %s |", gpuName(g))
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(v.gpus)) + "\n")
	writeRowMD(b, "*all per-GPU checks*", v.gpus, f.gpus)
	for _, c := range f.checks {
		if c.target == TargetGPU {
			writeRowMD(b, c.rowLabel(), v.gpus, c.cells)
		}
	}
	b.WriteString("\n")
}

// writePairChecksMD writes a grid per pair check, except that checks which
// passed on every pair, or skipped on every pair for one reason, share a
// line per outcome instead of repeating a uniform grid.
func writePairChecksMD(b *strings.Builder, v *view, f *familyView) {
	uniform := map[string][]string{}
	for _, c := range f.checks {
		if c.target != TargetPair {
			continue
		}
		if c.uniform == StatusPass || (c.uniform == StatusSkip && len(f.notes) > 0 && sameNotes(c.cells)) {
			label := symbol(c.uniform)
			if c.uniform == StatusSkip {
				label += superscript(anyCell(c.cells).notes[0])
			}
			uniform[label] = append(uniform[label], fmt.Sprintf("%s (%s)", c.check, plural(len(c.cells), "pair")))
			continue
		}
		fmt.Fprintf(b, "%s [%s] — %s\n\n", c.check, c.kind, Caption)
		writeGridMD(b, v.gpus, func(k tkey) string { return cellMD(c.cells[k]) })
		b.WriteString("\n")
	}
	labels := make([]string, 0, len(uniform))
	for l := range uniform {
		labels = append(labels, l)
	}
	sort.Strings(labels)
	for _, l := range labels {
		fmt.Fprintf(b, "- %s on every pair run: %s\n", l, strings.Join(uniform[l], ", "))
	}
	if len(labels) > 0 {
		b.WriteString("\n")
	}
}
