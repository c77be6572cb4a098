// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Fleet file names, written by WriteFleet into the output folder.
const (
	FleetJSONFile = "fleet.json"
	FleetMDFile   = "fleet.md"
	FleetHTMLFile = "fleet.html"
	HostsDir      = "hosts" // hosts/<host>/ holds each host's merged files
)

// FleetDocument is fleet.json: every host's merged document.
type FleetDocument struct {
	SchemaVersion int        `json:"schema_version"`
	Kind          string     `json:"kind"` // "fleet"
	Hosts         []Document `json:"hosts"`
}

// WriteFleet writes the fleet view of several hosts into dir: fleet.json,
// fleet.md, fleet.html, junit.xml (every host, names prefixed with the
// host) and hosts/<host>/ with each host's own merged files.
func WriteFleet(dir string, hosts []Host) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	fd := FleetDocument{SchemaVersion: SchemaVersion, Kind: "fleet"}
	for _, h := range hosts {
		fd.Hosts = append(fd.Hosts, h.Doc)
		if err := WriteMerged(filepath.Join(dir, HostsDir, hostDirName(h.Name)), h.Doc); err != nil {
			return err
		}
	}
	if err := writeJSON(filepath.Join(dir, FleetJSONFile), fd); err != nil {
		return err
	}
	if err := WriteFileAtomic(filepath.Join(dir, JUnitFile), FleetJUnit(hosts)); err != nil {
		return err
	}
	fv := newFleetView(hosts)
	if err := WriteFileAtomic(filepath.Join(dir, FleetMDFile), []byte(fv.markdown())); err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(dir, FleetHTMLFile), []byte(fv.html()))
}

type fleetFamily struct {
	name    string
	targets []tkey
	cells   map[string]cells // host -> target -> cell
	failing []string         // hosts with a failing result in this family, then the rest
}

type fleetView struct {
	hosts    []Host // failing hosts first
	families []*fleetFamily
}

func newFleetView(hosts []Host) *fleetView {
	fv := &fleetView{hosts: append([]Host(nil), hosts...)}
	sort.SliceStable(fv.hosts, func(i, j int) bool {
		return fv.hosts[i].Doc.Summary.Bad() > 0 && fv.hosts[j].Doc.Summary.Bad() == 0
	})
	byName := map[string]*fleetFamily{}
	for _, h := range fv.hosts {
		for _, r := range h.Doc.Results {
			f := byName[r.Family]
			if f == nil {
				f = &fleetFamily{name: r.Family, cells: map[string]cells{}}
				byName[r.Family] = f
				fv.families = append(fv.families, f)
			}
			k, ok := keyOf(r)
			if !ok {
				k = tkey{-1, -1}
			}
			if f.cells[h.Name] == nil {
				f.cells[h.Name] = cells{}
			}
			if _, seen := f.cells[h.Name][k]; !seen && !hasTarget(f.targets, k) {
				f.targets = append(f.targets, k)
			}
			f.cells[h.Name].at(k).add(r, 0)
		}
	}
	sort.Slice(fv.families, func(i, j int) bool { return fv.families[i].name < fv.families[j].name })
	for _, f := range fv.families {
		sort.Slice(f.targets, func(i, j int) bool { return targetLess(f.targets[i], f.targets[j]) })
		var bad, good []string
		for _, h := range fv.hosts {
			if _, ok := f.cells[h.Name]; !ok {
				continue
			}
			if hostFails(f.cells[h.Name]) {
				bad = append(bad, h.Name)
			} else {
				good = append(good, h.Name)
			}
		}
		f.failing = append(bad, good...)
	}
	return fv
}

func hasTarget(ts []tkey, k tkey) bool {
	for _, t := range ts {
		if t == k {
			return true
		}
	}
	return false
}

// targetLess orders per-GPU targets first, then pairs, then the system.
func targetLess(a, b tkey) bool {
	rank := func(k tkey) int {
		switch {
		case k.a < 0:
			return 2
		case k.b < 0:
			return 0
		}
		return 1
	}
	if ra, rb := rank(a), rank(b); ra != rb {
		return ra < rb
	}
	return a.a < b.a || (a.a == b.a && a.b < b.b)
}

func hostFails(cs cells) bool {
	for _, c := range cs {
		if severity(c.status) >= severity(StatusError) {
			return true
		}
	}
	return false
}

func targetLabel(k tkey) string {
	switch {
	case k.a < 0:
		return "system"
	case k.b < 0:
		return fmt.Sprintf("GPU%d", k.a)
	}
	return fmt.Sprintf("%d→%d", k.a, k.b)
}

func (fv *fleetView) title() string {
	backends := map[string]bool{}
	for _, h := range fv.hosts {
		backends[backendName(h.Doc.System)] = true
	}
	var names []string
	for b := range backends {
		names = append(names, b)
	}
	sort.Strings(names)
	return fmt.Sprintf("p2pconf fleet — %d hosts — %s", len(fv.hosts), strings.Join(names, ", "))
}

func (fv *fleetView) fakeHosts() []string {
	var out []string
	for _, h := range fv.hosts {
		if h.Doc.System.IsFake() {
			out = append(out, h.Name)
		}
	}
	return out
}

func (fv *fleetView) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", fv.title())
	if fake := fv.fakeHosts(); len(fake) > 0 {
		fmt.Fprintf(&b, "> **NOT HARDWARE RESULTS** for: %s (backend other than cuda).\n\n", strings.Join(fake, ", "))
	}
	b.WriteString("| host | backend | driver | CUDA | GPUs | pass | fail | skip | timeout | error |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, h := range fv.hosts {
		s, sys := h.Doc.Summary, h.Doc.System
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d | %d | %d | %d | %d | %d |\n", mdText(orDash(h.Name)), mdText(backendName(sys)),
			orDash(sys.DriverVersion), cudaVersion(sys.CUDAVersion), len(sys.GPUs), s.Pass, s.Fail, s.Skip, s.Timeout, s.Error)
	}
	b.WriteString("\n")
	for _, f := range fv.families {
		fmt.Fprintf(&b, "## %s — hosts × targets (a pair a→b reads GPU(a) → GPU(b))\n\n| host |", f.name)
		for _, t := range f.targets {
			fmt.Fprintf(&b, " %s |", targetLabel(t))
		}
		b.WriteString("\n|---|" + strings.Repeat("---|", len(f.targets)) + "\n")
		for _, h := range f.failing {
			fmt.Fprintf(&b, "| %s |", mdText(orDash(h)))
			for _, t := range f.targets {
				fmt.Fprintf(&b, " %s |", symbolOf(f.cells[h][t]))
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
		fv.failuresMD(&b, f.name)
	}
	return b.String()
}

func symbolOf(c *cell) string {
	if c == nil {
		return SymNone
	}
	return symbol(c.status)
}

func (fv *fleetView) failuresMD(b *strings.Builder, family string) {
	for _, h := range fv.hosts {
		for _, r := range h.Doc.Results {
			if r.Family != family || !r.Failed() {
				continue
			}
			fmt.Fprintf(b, "- **%s** %s %s %s: %s  \n  rerun on %s: `%s`\n", mdText(orDash(h.Name)), symbol(r.Status), r.Check,
				r.TargetName(), mdText(r.ReasonLine()), mdText(orDash(h.Name)), RerunCommand(h.Doc.System, r))
			if c := r.CauseLine(); c != "" {
				fmt.Fprintf(b, "  %s\n", mdText(c))
			}
		}
	}
	b.WriteString("\n")
}

func (fv *fleetView) html() string {
	var b strings.Builder
	t := fv.title()
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>%s</title>\n<style>%s</style></head>\n<body>\n<h1>%s</h1>\n", esc(t), css, esc(t))
	if fake := fv.fakeHosts(); len(fake) > 0 {
		fmt.Fprintf(&b, "<div class=\"fake\">NOT HARDWARE RESULTS for: %s (backend other than cuda).</div>\n", esc(strings.Join(fake, ", ")))
	}
	b.WriteString("<table><tr><th>host</th><th>backend</th><th>driver</th><th>CUDA</th><th>GPUs</th><th>pass</th><th>fail</th><th>skip</th><th>timeout</th><th>error</th></tr>\n")
	for _, h := range fv.hosts {
		s, sys := h.Doc.Summary, h.Doc.System
		fmt.Fprintf(&b, "<tr><th><a href=\"%s/%s/%s\">%s</a></th><td>%s</td><td>%s</td><td>%s</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td></tr>\n",
			HostsDir, esc(hostDirName(h.Name)), MatrixHTMLFile, esc(orDash(h.Name)), esc(backendName(sys)), esc(orDash(sys.DriverVersion)),
			cudaVersion(sys.CUDAVersion), len(sys.GPUs), s.Pass, s.Fail, s.Skip, s.Timeout, s.Error)
	}
	b.WriteString("</table>\n")
	for _, f := range fv.families {
		fmt.Fprintf(&b, "<h2>%s</h2>\n<table class=\"fleet\" data-grid=\"fleet-%s\"><caption>hosts × targets; a pair a→b reads GPU(a) → GPU(b)</caption>\n<tr><th>host</th>", esc(f.name), esc(f.name))
		for _, t := range f.targets {
			fmt.Fprintf(&b, "<th>%s</th>", esc(targetLabel(t)))
		}
		b.WriteString("</tr>\n")
		for _, h := range f.failing {
			fmt.Fprintf(&b, "<tr class=\"host-row\"><th>%s</th>", esc(orDash(h)))
			for _, t := range f.targets {
				b.WriteString(cellHTML(f.cells[h][t]))
			}
			b.WriteString("</tr>\n")
		}
		b.WriteString("</table>\n<ul>\n")
		for _, h := range fv.hosts {
			for _, r := range h.Doc.Results {
				if r.Family == f.name && r.Failed() {
					cause := ""
					if c := r.CauseLine(); c != "" {
						cause = "<br>" + esc(c)
					}
					fmt.Fprintf(&b, "<li><b>%s</b> %s %s %s: %s%s<br>rerun on %s: <code>%s</code></li>\n", esc(orDash(h.Name)), symbol(r.Status),
						esc(r.Check), esc(r.TargetName()), esc(r.ReasonLine()), cause, esc(orDash(h.Name)), esc(RerunCommand(h.Doc.System, r)))
				}
			}
		}
		b.WriteString("</ul>\n")
	}
	b.WriteString("</body></html>\n")
	return b.String()
}

func hostDirName(h string) string {
	if n := sanitizeName(h); n != "" {
		return n
	}
	return "unknown-host"
}
