// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/p2pconf/p2pconf/harness/checks"
	"github.com/p2pconf/p2pconf/harness/report"
	"github.com/p2pconf/p2pconf/harness/repro"
)

// cmdTicket packs a run's failures into one archive for a bug report: a
// SUMMARY.md a driver engineer can read cold, the standalone reproducers of
// the failing checks, the environment, conformance.json and junit.xml.
// Only what the run recorded goes in (the run folder's own path does not);
// --redact replaces host names and GPU UUIDs.
func cmdTicket(args []string, stdout, stderr io.Writer) error {
	fs := flags("ticket", stderr)
	out := fs.String("o", "", "the archive to write (default: p2pconf-ticket-<run folder name>.tar.gz)")
	redact := fs.Bool("redact", false, "replace host names and GPU UUIDs in every file of the archive")
	flagArgs, pos := splitArgs(args, "o")
	if err := parse(fs, flagArgs); err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErr("ticket takes one run folder (got %d arguments)", len(pos))
	}
	dir := pos[0]
	if _, err := os.Stat(dir); err != nil {
		return inputErr(err)
	}
	doc, err := loadRun(dir)
	if err != nil {
		return incomplete(err)
	}
	t, err := buildTicket(dir, doc)
	if err != nil {
		return inputErr(err)
	}
	if *redact {
		t.redact(doc)
	}
	path := *out
	if path == "" {
		path = "p2pconf-ticket-" + sanitizedBase(dir) + ".tar.gz"
	}
	if err := t.write(path); err != nil {
		return incomplete(err)
	}
	fmt.Fprintf(stdout, "wrote %s: %d failing results, %d reproducers\n", path, t.failures, t.reproducers)
	return nil
}

// splitArgs separates flags (with the values of those in valued) from
// positional arguments, so that flags may follow them:
// p2pconf ticket RUN_DIR --redact, p2pconf repro CHECK --pair 0-1.
func splitArgs(args []string, valued ...string) (flagArgs, positional []string) {
	takes := map[string]bool{}
	for _, v := range valued {
		takes["-"+v], takes["--"+v] = true, true
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return flagArgs, append(positional, args[i+1:]...)
		case strings.HasPrefix(a, "-") && len(a) > 1:
			flagArgs = append(flagArgs, a)
			if takes[a] && i+1 < len(args) {
				i++
				flagArgs = append(flagArgs, args[i])
			}
		default:
			positional = append(positional, a)
		}
	}
	return flagArgs, positional
}

// jsonOf is the document as conformance.json holds it.
func jsonOf(doc report.Document) ([]byte, error) { return json.MarshalIndent(doc, "", "  ") }

// loadRun reads the run's merged document, or merges its suites' documents.
func loadRun(dir string) (report.Document, error) {
	if doc, err := report.ReadDocument(filepath.Join(dir, report.ConformanceFile)); err == nil {
		return doc, nil
	}
	docs, err := report.LoadRunDir(dir)
	if err != nil {
		return report.Document{}, err
	}
	return report.Merge(docs), nil
}

func sanitizedBase(dir string) string {
	b := regexp.MustCompile(`[^A-Za-z0-9._-]+`).ReplaceAllString(filepath.Base(filepath.Clean(dir)), "-")
	if b == "" || b == "." || b == "-" {
		return "run"
	}
	return b
}

// ticket is the archive's files by name, in the order written.
type ticket struct {
	names       []string
	files       map[string][]byte
	failures    int
	reproducers int
}

func (t *ticket) add(name string, data []byte) {
	if t.files == nil {
		t.files = map[string][]byte{}
	}
	if _, ok := t.files[name]; !ok {
		t.names = append(t.names, name)
	}
	t.files[name] = data
}

const ticketRoot = "p2pconf-ticket/"

// buildTicket assembles the archive of doc's failing conf results.
func buildTicket(dir string, doc report.Document) (*ticket, error) {
	var failing []report.Result
	for _, r := range doc.Results {
		if r.Kind == string(checks.Conf) && (r.Status == report.StatusFail || r.Status == report.StatusTimeout) {
			failing = append(failing, r)
		}
	}
	if len(failing) == 0 {
		return nil, fmt.Errorf("ticket: the run in %s has no failing conf result (%d results): nothing to report", filepath.Base(filepath.Clean(dir)), len(doc.Results))
	}
	t := &ticket{failures: len(failing)}
	groups := groupFailures(failing)
	files := map[string]reproFile{} // group key → its reproducer
	for _, g := range groups {
		r := g[0]
		if report.ReproCommand(r) == "" {
			continue
		}
		// One file per check and target: the one failing spec, or all
		// the check's specs there when several failed.
		variant := ""
		if len(g) == 1 {
			variant = r.Variant
		}
		f, err := repro.Generate(r.Check, targetOf(r), variant)
		if err != nil {
			continue // the summary says there is none
		}
		name := "repro/" + f.Name
		t.add(ticketRoot+name, []byte(f.Source))
		t.reproducers++
		files[groupKey(r)] = reproFile{name: name, command: repro.Command(r.Check, targetOf(r), variant), specs: len(f.Specs)}
	}
	sass := t.addSASS(dir, failing)
	t.add(ticketRoot+"SUMMARY.md", []byte(summary(dir, doc, failing, groups, files, sass)))
	t.add(ticketRoot+"environment.md", []byte(environmentMD(doc)))
	if b, err := os.ReadFile(filepath.Join(dir, report.ConformanceFile)); err == nil {
		t.add(ticketRoot+report.ConformanceFile, b)
	} else if b, err := jsonOf(doc); err == nil {
		t.add(ticketRoot+report.ConformanceFile, b)
	}
	if b, err := os.ReadFile(filepath.Join(dir, report.JUnitFile)); err == nil {
		t.add(ticketRoot+report.JUnitFile, b)
	} else {
		t.add(ticketRoot+report.JUnitFile, report.JUnit(doc))
	}
	return t, nil
}

// addSASS puts into the archive, as sass/<result>.txt, the SASS excerpt
// that the diagnosis of each failing result recorded (its cause finding:
// the cause line, the driver's JIT and the code of the role that lost an
// access), and any sass/*.txt of the run folder; it returns the files by
// result key.
func (t *ticket) addSASS(dir string, failing []report.Result) map[string]string {
	out := map[string]string{}
	for _, r := range failing {
		excerpt, jit := causeExcerpt(r)
		if excerpt == "" {
			continue
		}
		name := "sass/" + strings.Trim(regexp.MustCompile(`[^A-Za-z0-9._-]+`).ReplaceAllString(r.Key(), "-"), "-") + ".txt"
		var b strings.Builder
		fmt.Fprintf(&b, "%s on %s\n%s\nJIT: %s\n\n%s", specName(r), r.TargetName(), r.CauseLine(), orUnknown(jit), excerpt)
		t.add(ticketRoot+name, []byte(b.String()))
		out[r.Key()] = name
	}
	files, _ := filepath.Glob(filepath.Join(dir, "sass", "*.txt"))
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil {
			t.add(ticketRoot+"sass/"+filepath.Base(f), b)
		}
	}
	return out
}

// causeExcerpt is the SASS excerpt and the JIT version of a result's cause
// finding (report.CauseEntry), "" without one.
func causeExcerpt(r report.Result) (excerpt, jit string) {
	for _, e := range r.Entries {
		if e.Kind != report.KindFinding || e.Name != report.CauseEntry {
			continue
		}
		if m, ok := e.Value.(map[string]any); ok {
			excerpt, _ = m["sass_excerpt"].(string)
			jit, _ = m["jit"].(string)
		}
	}
	return excerpt, jit
}

// reproFile is the reproducer of one check on one target in the archive.
type reproFile struct {
	name, command string
	specs         int
}

func groupKey(r report.Result) string { return r.Check + " " + r.TargetName() }

// groupFailures groups failing results by check and target, in order.
func groupFailures(failing []report.Result) [][]report.Result {
	var out [][]report.Result
	at := map[string]int{}
	for _, r := range failing {
		k := groupKey(r)
		if i, ok := at[k]; ok {
			out[i] = append(out[i], r)
			continue
		}
		at[k] = len(out)
		out = append(out, []report.Result{r})
	}
	return out
}

func targetOf(r report.Result) repro.Target {
	if r.Src != nil && r.Dst != nil {
		return repro.Pair(*r.Src, *r.Dst)
	}
	if r.GPU != nil {
		return repro.GPU(*r.GPU)
	}
	return repro.Target{}
}

var (
	firstBad  = regexp.MustCompile(`[^;:]*first at word \d+ \(byte offset 0x[0-9a-f]+\)(: want 0x[0-9a-f]+, got 0x[0-9a-f]+)?|destination byte \d+ \(byte -?\d+ of the copy\) is 0x[0-9a-f]+, want 0x[0-9a-f]+|the first the word at byte \d+ of the copy \(destination byte \d+\)`)
	histogram = regexp.MustCompile(`(?i)(histogram|outcomes?)[^\n]*`)
)

// summary is SUMMARY.md: what failed, where, on what, and how to rebuild it.
func summary(dir string, doc report.Document, failing []report.Result, groups [][]report.Result, files map[string]reproFile, sass map[string]string) string {
	var b strings.Builder
	sys := doc.System
	fmt.Fprintf(&b, "# p2pconf: %s on %s\n\n", plural(len(failing), "conformance failure"), orUnknown(sys.Host))
	if sys.IsFake() {
		fmt.Fprintf(&b, "> Backend %q: these results come from p2pconf's simulated driver, not from GPU hardware.\n\n", sys.Backend)
	}
	fmt.Fprintf(&b, "Run `%s`", sanitizedBase(dir))
	if doc.Run.Start != nil {
		fmt.Fprintf(&b, " started %s", doc.Run.Start.UTC().Format(time.RFC3339))
	}
	fmt.Fprintf(&b, " with %s %s (backend %s). Each failure below is driver behaviour that contradicts the documented contract the check quotes. ",
		known(doc.Tool.Name), known(doc.Tool.Version), known(sys.Backend))
	b.WriteString("Where p2pconf has one, a standalone C reproducer is in `repro/`: it needs only a C compiler and the driver, makes the same driver calls with the same sizes and data, and exits 0 when the driver conforms, 1 on the violation, 2 when the machine cannot run it.\n\n")

	b.WriteString("## What failed\n\n| # | check | GPUs | failing specs | first observation |\n|---|---|---|---|---|\n")
	for i, g := range groups {
		fmt.Fprintf(&b, "| %d | `%s` | %s | %d | %s |\n", i+1, g[0].Check, resultGPUs(sys, g[0]), len(g), cellText(g[0].Status+": "+g[0].Reason))
	}

	b.WriteString("\n## Machine\n\n| | |\n|---|---|\n")
	for _, g := range sys.GPUs {
		fmt.Fprintf(&b, "| GPU%d | %s, PCI %s, UUID %s, compute capability %s, %d SMs |\n", g.Ordinal, known(g.Name), known(g.PCIBusID),
			known(g.UUID), ccText(g.ComputeCapability), g.SMCount)
	}
	for _, row := range report.EnvironmentRows(doc) {
		switch row[0] {
		case "backend", "host", "driver", "CUDA driver API", "NVML", "kernel", "IOMMU", "GPU selection", "tool":
			fmt.Fprintf(&b, "| %s | %s |\n", row[0], cellText(row[1]))
		}
	}

	for i, g := range groups {
		r := g[0]
		fmt.Fprintf(&b, "\n## %d. `%s` on %s: %s failed\n\n", i+1, r.Check, r.TargetName(), plural(len(g), "spec"))
		if c, ok := checks.Lookup(r.Check); ok {
			fmt.Fprintf(&b, "**The claim** (what the check demands): %s\n\n*Source:* %s\n\n", c.Requirement, c.Source)
		}
		claimed := claimsOf(sys, r)
		var observed []string
		for _, x := range g {
			observed = append(observed, observationsOf(x)...)
		}
		b.WriteString("| claimed (driver and NVML for these GPUs) | observed |\n|---|---|\n")
		for j := 0; j < max(len(claimed), len(observed)); j++ {
			fmt.Fprintf(&b, "| %s | %s |\n", cellText(at(claimed, j)), cellText(at(observed, j)))
		}
		b.WriteString("\n")
		for _, x := range g {
			if m := firstBad.FindString(x.Message); m != "" {
				fmt.Fprintf(&b, "- first bad data, %s: %s\n", specName(x), strings.TrimSpace(m))
			} else if m := histogram.FindString(x.Message); m != "" && (strings.Contains(x.Check, "litmus") || strings.Contains(x.Check, "handoff")) {
				fmt.Fprintf(&b, "- outcomes, %s: %s\n", specName(x), strings.TrimSpace(m))
			}
		}
		for _, x := range g {
			if c := x.CauseLine(); c != "" {
				fmt.Fprintf(&b, "- %s, %s\n", specName(x), c)
			}
			if s, ok := sass[x.Key()]; ok {
				fmt.Fprintf(&b, "  - the driver's code: [`%s`](%s)\n", s, s)
			}
		}
		b.WriteString("\n")
		if f, ok := files[groupKey(r)]; ok {
			fmt.Fprintf(&b, "**Reproduce without p2pconf:** [`%s`](%s) (%s, written by `%s`):\n\n```sh\ncc -O2 -o repro %s -ldl && ./repro   # exit 0 conforms, 1 violation, 2 cannot run here\n```\n\n",
				f.name, f.name, plural(f.specs, "spec"), f.command, f.name)
		} else if c, ok := checks.Lookup(r.Check); ok && c.NotReproducible != "" {
			fmt.Fprintf(&b, "**No standalone reproducer:** %s.\n\n", c.NotReproducible)
		} else {
			b.WriteString("**No standalone reproducer** is available for this check; rerun it with p2pconf (below).\n\n")
		}
		fmt.Fprintf(&b, "**Rerun in the suite:** `%s`\n", report.RerunCommand(sys, r))
		if r.Message != "" && r.Message != r.Reason {
			fmt.Fprintf(&b, "\n<details><summary>full failure message of the first</summary>\n\n```text\n%s\n```\n\n</details>\n", strings.TrimSpace(r.Message))
		}
	}

	b.WriteString("\n## Files\n\n- `SUMMARY.md`: this page\n- `environment.md`: the run's environment, GPUs, health checks and the topology with every pair's claims\n")
	if len(files) > 0 {
		b.WriteString("- `repro/*.c`: standalone reproducers; each file's header has its build line, the requirement and the specs it runs\n")
	}
	if len(sass) > 0 {
		b.WriteString("- `sass/*.txt`: per failing litmus result, its cause line, the driver's JIT and the SASS of the role that lost an access (the compile check)\n")
	}
	b.WriteString("- `conformance.json`: every result of the run (p2pconf's report schema)\n- `junit.xml`: the same results as JUnit\n")
	return b.String()
}

// specName is the spec's text, or the check when it has one spec there.
func specName(r report.Result) string {
	if r.Spec != "" {
		return r.Spec
	}
	return r.Check
}

// resultGPUs names the GPUs of a result with their models.
func resultGPUs(sys report.System, r report.Result) string {
	name := func(n int) string {
		for _, g := range sys.GPUs {
			if g.Ordinal == n && g.Name != "" {
				return fmt.Sprintf("GPU%d (%s)", n, g.Name)
			}
		}
		return fmt.Sprintf("GPU%d", n)
	}
	switch {
	case r.Src != nil && r.Dst != nil:
		s := name(*r.Src) + " → " + name(*r.Dst)
		if r.Link != "" {
			s += ", " + r.Link
		}
		return s
	case r.GPU != nil:
		return name(*r.GPU)
	}
	return r.TargetName()
}

// claimsOf lists what CUDA and NVML claim about the result's pair (or GPU),
// then the claims the spec itself recorded.
func claimsOf(sys report.System, r report.Result) []string {
	var out []string
	if r.Src != nil && r.Dst != nil {
		for _, p := range sys.Pairs {
			if p.Src != *r.Src || p.Dst != *r.Dst {
				continue
			}
			out = append(out, "link: "+known(p.Link))
			if p.CUDA.CanAccessPeer != nil {
				out = append(out, fmt.Sprintf("cuDeviceCanAccessPeer = %v", *p.CUDA.CanAccessPeer))
			}
			for _, a := range []struct {
				name string
				v    *int
			}{{"ACCESS_SUPPORTED", p.CUDA.AccessSupported}, {"NATIVE_ATOMIC_SUPPORTED", p.CUDA.NativeAtomicSupported},
				{"ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED", p.CUDA.PartialNativeAtomic}, {"PERFORMANCE_RANK", p.CUDA.PerformanceRank}} {
				if a.v != nil {
					out = append(out, fmt.Sprintf("CUDA P2P %s = %d", a.name, *a.v))
				}
			}
			if p.NVML.Error == "" {
				out = append(out, fmt.Sprintf("NVML P2P read %s, write %s, atomics %s; topology %s, %d NVLinks",
					known(p.NVML.Read), known(p.NVML.Write), known(p.NVML.Atomics), known(p.NVML.TopologyLevel), p.NVML.NVLinkCount))
			}
		}
	}
	for _, e := range r.Entries {
		if e.Kind == "claim" {
			out = append(out, e.String())
		}
	}
	return out
}

// observationsOf lists what the spec observed: the failure, then findings.
func observationsOf(r report.Result) []string {
	out := []string{r.Status + ": " + r.Reason}
	if r.Variant != "" {
		out[0] = r.Status + " (" + strings.TrimSpace(strings.TrimPrefix(r.Spec, r.Family+":")) + "): " + r.Reason
	}
	for _, e := range r.Entries {
		if e.Kind == "finding" {
			out = append(out, e.String())
		}
	}
	return out
}

func environmentMD(doc report.Document) string {
	var b strings.Builder
	b.WriteString("# Environment of the run\n\n| | |\n|---|---|\n")
	for _, row := range report.EnvironmentRows(doc) {
		fmt.Fprintf(&b, "| %s | %s |\n", row[0], cellText(row[1]))
	}
	b.WriteString("\n## GPUs\n\n| ordinal | name | PCI | UUID | compute capability | SMs | memory (bytes) |\n|---|---|---|---|---|---|---|\n")
	for _, g := range doc.System.GPUs {
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %d | %d |\n", g.Ordinal, g.Name, g.PCIBusID, g.UUID, ccText(g.ComputeCapability), g.SMCount, g.TotalMemory)
	}
	// Health: whatever the run recorded about the machine's state, as the
	// results of its health checks.
	var health []report.Result
	for _, r := range doc.Results {
		if r.Family == "health" {
			health = append(health, r)
		}
	}
	b.WriteString("\n## Health\n\n")
	if len(health) == 0 {
		b.WriteString("The run recorded no health checks.\n")
	} else {
		sort.Slice(health, func(i, j int) bool { return health[i].Key() < health[j].Key() })
		b.WriteString("| check | target | status | reason |\n|---|---|---|---|\n")
		for _, r := range health {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", r.Check, r.TargetName(), r.Status, cellText(r.Reason))
		}
	}
	if topo := report.TopologyText(doc.System); strings.TrimSpace(topo) != "" {
		fmt.Fprintf(&b, "\n## Topology\n\n```text\n%s```\n", topo)
	}
	return b.String()
}

var uuidPattern = regexp.MustCompile(`(?i)\b(GPU|MIG)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)

// redact replaces the run's host names and every GPU UUID in every file.
// Host names are replaced as whole words only: a short name such as "vm"
// must not take letters out of other words.
func (t *ticket) redact(doc report.Document) {
	var hosts []string
	for _, h := range []string{doc.System.Host, doc.Run.Host} {
		if h == "" || h == "unknown" {
			continue
		}
		hosts = append(hosts, regexp.QuoteMeta(h))
		if short, _, ok := strings.Cut(h, "."); ok && short != "" {
			hosts = append(hosts, regexp.QuoteMeta(short))
		}
	}
	var hostPattern *regexp.Regexp
	if len(hosts) > 0 {
		hostPattern = regexp.MustCompile(`\b(` + strings.Join(hosts, "|") + `)\b`)
	}
	for name, data := range t.files {
		s := uuidPattern.ReplaceAllString(string(data), "GPU-redacted")
		if hostPattern != nil {
			s = hostPattern.ReplaceAllString(s, "redacted-host")
		}
		t.files[name] = []byte(s)
	}
}

// write writes the archive: a gzip'd tar of files under p2pconf-ticket/,
// with fixed owner and times so that no user name of this host goes in.
func (t *ticket) write(path string) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("ticket: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("ticket: %w", cerr)
		}
	}()
	zw := gzip.NewWriter(f)
	tw := tar.NewWriter(zw)
	mtime := time.Unix(0, 0).UTC()
	for _, name := range t.names {
		data := t.files[name]
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), ModTime: mtime, Format: tar.FormatPAX}); err != nil {
			return fmt.Errorf("ticket: %w", err)
		}
		if _, err := tw.Write(data); err != nil {
			return fmt.Errorf("ticket: %w", err)
		}
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("ticket: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("ticket: %w", err)
	}
	return nil
}

// known is s, or "unknown" when the run did not record it.
func known(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func ccText(cc int) string {
	if cc <= 0 {
		return "unknown"
	}
	return fmt.Sprintf("%d.%d", cc/10, cc%10)
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return ""
}

// cellText keeps text on one Markdown table row.
func cellText(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
	return strings.TrimSpace(s)
}
